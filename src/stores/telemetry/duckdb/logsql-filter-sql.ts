// LogsQL filters → a DuckDB WHERE clause over the `logs` table (schema.ts). Every user value and every
// name of a `fields` key travels as a parameter; the SQL text holds only constants written here.
import { canonicalField, type Filter, type RangeOp, type StreamMatcher } from '../../../model/logsql-ast.js';
import type { TimeRange } from '../telemetry-store.js';
import type { SqlParam } from './logsql-sql.js';

/**
 * The parameters of one statement. `$1` is always the tenant id, so that the tenant condition reads the same
 * everywhere. Other values get placeholders that finish() numbers in order of appearance: DuckDB refuses a
 * parameter the statement does not use, and a compiled sort key, say, is only used when its ORDER BY is.
 * The ⟦n⟧ marks cannot clash with anything else in the text, which holds no user input.
 */
export class SqlParams {
  private readonly pending: SqlParam[] = [];

  constructor(private readonly tenantId: string) {}

  /**
   * A placeholder for `v`; integers and numbers are typed, so arithmetic on them stays BIGINT / DOUBLE. A number
   * travels as text: DuckDB's Node binding binds an integral number as int64, which `-1e308` is not.
   */
  add(v: SqlParam): string {
    const ph = `⟦${this.pending.push(typeof v === 'number' ? String(v) : v) - 1}⟧`;
    if (typeof v === 'bigint') return `CAST(${ph} AS BIGINT)`;
    if (typeof v === 'number') return `CAST(${ph} AS DOUBLE)`;
    return ph;
  }

  /** The statement with `$n` placeholders and its parameter list, `$1` being the tenant id. */
  finish(sql: string): [string, SqlParam[]] {
    const params: SqlParam[] = [this.tenantId];
    const numbers = new Map<number, number>();
    const text = sql.replace(/⟦(\d+)⟧/g, (_m, i: string) => {
      const index = Number(i);
      let n = numbers.get(index);
      if (n === undefined) {
        params.push(this.pending[index] ?? null);
        n = params.length;
        numbers.set(index, n);
      }
      return `$${n}`;
    });
    return [text, params];
  }
}

/**
 * A field as SQL. `text` is a VARCHAR expression that is never NULL ('' stands for missing, as VictoriaLogs
 * treats empty and missing alike); `ns` is the BIGINT unix-ns expression when the field is a time.
 */
export interface FieldSql {
  text: string;
  ns?: string;
}

/** A field that is not there (dropped by a pipe, or not produced by stats): always empty. */
export const EMPTY_FIELD: FieldSql = { text: "''" };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `_stream` as stored, or derived from `service` as duckdb-store's streamOf() does for rows written without one. */
export const STREAM_SQL =
  `(CASE WHEN stream <> '' THEN stream WHEN service = '' THEN '{}' ` +
  `ELSE '{service="' || replace(replace(service, '\\', '\\\\'), '"', '\\"') || '"}' END)`;

/**
 * `_stream_id`: VictoriaLogs' opaque id of a stream (https://docs.victoriametrics.com/victorialogs/keyconcepts/#stream-fields),
 * here the MD5 of the `_stream` text: the same stream always gets the same id, and `_stream_id:=…` finds it.
 */
export const STREAM_ID_SQL = `md5(${STREAM_SQL})`;

/**
 * RFC 3339 with 9-digit ns, UTC, as nsToRfc3339() writes it. The fraction is taken modulo so that pre-1970 times
 * floor; HUGEINT because the store clamps wild times to the int64 ends, where BIGINT arithmetic overflows.
 */
export function rfc3339Sql(ns: string): string {
  const wide = `CAST(${ns} AS HUGEINT)`;
  const frac = `((${wide} % 1000000000 + 1000000000) % 1000000000)`;
  return `(strftime(make_timestamp(CAST((${wide} - ${frac}) // 1000 AS BIGINT)), '%Y-%m-%dT%H:%M:%S') || '.' || ` +
    `lpad(CAST(${frac} AS VARCHAR), 9, '0') || 'Z')`;
}

/**
 * The start of the `step`-long bucket holding `ns`, aligned to the epoch (plus `offset`, when given), floored (also
 * before 1970 and at int64's ends).
 */
export function bucketSql(ns: string, step: string, offset?: string): string {
  const wide = `CAST(${ns} AS HUGEINT)`;
  const from = offset === undefined ? wide : `(${wide} - ${offset})`;
  const start = `${wide} - ((${from} % ${step}) + ${step}) % ${step}`;
  return `CAST(least(greatest(${start}, ${INT64_MIN}), ${INT64_MAX}) AS BIGINT)`;
}

/** JSON pointer (RFC 6901) of a top-level key: unlike a `$.` path it gives no meaning to `*`, `.`, `[` or quotes. */
export function jsonPointer(key: string): string {
  return '/' + key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A field of a `logs` row, by its LogsQL name (ast.ts FIXED_FIELDS; anything else is a key of `fields`). */
export function logsField(name: string, p: SqlParams): FieldSql {
  switch (canonicalField(name)) {
    case '_msg':
      return { text: 'msg' };
    case '_time':
      return { text: rfc3339Sql('time_ns'), ns: 'time_ns' };
    case '_stream':
      return { text: STREAM_SQL };
    case '_stream_id':
      return { text: STREAM_ID_SQL };
    case 'service':
      return { text: 'service' };
    case 'severity':
      return { text: 'severity' };
    case 'trace_id':
      return { text: 'trace_id' };
    case 'span_id':
      return { text: 'span_id' };
    default:
      return { text: `coalesce(json_extract_string(fields, ${p.add(jsonPointer(name))}), '')` };
  }
}

/**
 * The only SELECT over `logs`: the tenant condition is the outermost AND around the user's whole filter, in
 * parentheses, and the API's time range is ANDed beside it (DESIGN §4). Everything else reads from this.
 */
export function logsBaseSql(filter: Filter, range: TimeRange, p: SqlParams): string {
  const where = ['tenant_id = $1', `(${filterSql(filter, p)})`];
  if (range.startNs !== undefined) where.push(`time_ns >= ${p.add(int64(range.startNs))}`);
  if (range.endNs !== undefined) where.push(`time_ns < ${p.add(int64(range.endNs))}`);
  return `SELECT time_ns, msg, service, severity, trace_id, span_id, stream, fields FROM logs WHERE ${where.join(' AND ')}`;
}

/** Operators by AST value: the SQL text comes from this table, never from the query. */
const RANGE_SQL: Record<RangeOp, string> = { '>': '>', '>=': '>=', '<': '<', '<=': '<=' };

/** A boolean SQL expression that is never NULL, so that NOT keeps VictoriaLogs' meaning. */
export function filterSql(f: Filter, p: SqlParams): string {
  switch (f.kind) {
    case 'all':
      return 'TRUE';
    case 'and':
      return f.filters.length === 0 ? 'TRUE' : `(${f.filters.map((x) => filterSql(x, p)).join(' AND ')})`;
    case 'or':
      return f.filters.length === 0 ? 'FALSE' : `(${f.filters.map((x) => filterSql(x, p)).join(' OR ')})`;
    case 'not':
      return `(NOT ${filterSql(f.filter, p)})`;
    case 'time':
      return timeSql(f.startNs, f.endNs, p);
    case 'stream':
      return f.matchers.length === 0 ? 'TRUE' : `(${f.matchers.map((m) => streamMatcherSql(m, p)).join(' AND ')})`;
    default:
      return fieldFilterSql(f, logsField(f.field, p).text, p);
  }
}

type FieldFilter = Exclude<Filter, { kind: 'all' | 'and' | 'or' | 'not' | 'time' | 'stream' }>;

function fieldFilterSql(f: FieldFilter, v: string, p: SqlParams): string {
  switch (f.kind) {
    case 'word':
    case 'phrase':
      // DESIGN §4: words and phrases match case-insensitively as substrings; contains() has no wildcards to escape.
      return `contains(lower(${v}), lower(${p.add(f.value)}))`;
    case 'prefix':
      return `regexp_matches(${v}, ${p.add(wordPrefixRegexp(f.value))})`;
    case 'exact':
      return `(${v} = ${p.add(f.value)})`;
    case 'exactPrefix':
      return `starts_with(${v}, ${p.add(f.value)})`;
    case 'in':
      return f.values.length === 0 ? 'FALSE' : `(${v} IN (${f.values.map((x) => p.add(x)).join(', ')}))`;
    case 'regexp':
      return `regexp_matches(${v}, ${p.add(f.pattern)})`;
    case 'range':
      return `coalesce(TRY_CAST(${v} AS DOUBLE) ${RANGE_SQL[f.op]} ${p.add(f.value)}, FALSE)`;
    case 'exists':
      return `(${v} <> '')`;
    case 'empty':
      return `(${v} = '')`;
  }
}

function timeSql(startNs: bigint | undefined, endNs: bigint | undefined, p: SqlParams): string {
  const parts: string[] = [];
  if (startNs !== undefined) parts.push(`time_ns >= ${p.add(int64(startNs))}`);
  if (endNs !== undefined) parts.push(`time_ns < ${p.add(int64(endNs))}`);
  return parts.length === 0 ? 'TRUE' : `(${parts.join(' AND ')})`;
}

/** Clamps to int64: `_time:1000000y` must not fail to bind (the store clamps stored times the same way). */
function int64(v: bigint): bigint {
  return v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : v;
}

/** Escapes every ASCII punctuation character, which RE2 then reads literally. */
export function escapeRegexp(s: string): string {
  return s.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** VictoriaLogs' prefix filter: some word of the value starts with `prefix`, a word being letters, digits and `_`. */
function wordPrefixRegexp(prefix: string): string {
  return `(?i)(?:^|[^\\pL\\pN_])${escapeRegexp(prefix)}`;
}

/**
 * One `label op "value"` of `_stream:{…}`: the label's (still escaped) value is cut out of the stream text, so a
 * pattern can never reach into the next label. A missing label reads as '' (Prometheus selector semantics).
 */
function streamMatcherSql(m: StreamMatcher, p: SqlParams): string {
  const pattern = `(?:^\\{|,)\\s*${escapeRegexp(m.label)}\\s*=\\s*"((?:[^"\\\\]|\\\\.)*)"`;
  const value = `regexp_extract(${STREAM_SQL}, ${p.add(pattern)}, 1)`;
  const escaped = m.value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  switch (m.op) {
    case '=':
      return `(${value} = ${p.add(escaped)})`;
    case '!=':
      return `(${value} <> ${p.add(escaped)})`;
    case '=~':
      return `regexp_full_match(${value}, ${p.add(m.value)})`;
    case '!~':
      return `(NOT regexp_full_match(${value}, ${p.add(m.value)}))`;
  }
}
