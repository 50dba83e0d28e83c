// LogsQL filters → a WHERE clause over the `logs` table, in any dialect (dialect.ts; issue 11 item 2). Every user
// value and every name of a `fields` key travels as a parameter; the SQL text holds only constants written here.
import { canonicalField, type Filter, type RangeOp, type StreamMatcher } from '../../../model/logsql-ast.js';
import type { TimeRange } from '../telemetry-store.js';
import type { SqlDialect } from './dialect.js';
import type { SqlParams } from './params.js';

/**
 * A field as SQL. `text` is a string expression that is never NULL ('' stands for missing, as VictoriaLogs
 * treats empty and missing alike); `ns` is the int64 unix-ns expression when the field is a time.
 */
export interface FieldSql {
  text: string;
  ns?: string;
}

/** A field that is not there (dropped by a pipe, or not produced by stats): always empty. */
export const EMPTY_FIELD: FieldSql = { text: "''" };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `_stream` as stored, or derived from `service` as the stores' streamOf() does for rows written without one. */
export function streamSql(d: SqlDialect): string {
  // Most services hold no quote or backslash: their text goes in as it is, without the two replace()s, which DuckDB
  // otherwise runs row by row where a row group is not yet checkpointed (~2.5x the time of the whole derivation).
  const plain = `NOT ${d.contains('service', d.str('"'))} AND NOT ${d.contains('service', d.str('\\'))}`;
  return `(CASE WHEN stream <> '' THEN stream WHEN service = '' THEN '{}' ` +
    `WHEN ${plain} THEN ${d.str('{service="')} || service || ${d.str('"}')} ` +
    `ELSE ${d.str('{service="')} || ${escapedServiceSql(d)} || ${d.str('"}')} END)`;
}

/** `service` as a stream label's value: backslashes and quotes escaped. */
function escapedServiceSql(d: SqlDialect): string {
  return `replace(replace(service, ${d.str('\\')}, ${d.str('\\\\')}), ${d.str('"')}, ${d.str('\\"')})`;
}

/**
 * `_stream_id`: VictoriaLogs' opaque id of a stream (https://docs.victoriametrics.com/victorialogs/keyconcepts/#stream-fields),
 * here the MD5 of the `_stream` text: the same stream always gets the same id, and `_stream_id:=…` finds it.
 */
export function streamIdSql(d: SqlDialect): string {
  return d.md5Hex(streamSql(d));
}

/** A field of a `logs` row, by its LogsQL name (logsql-ast.ts FIXED_FIELDS; anything else is a key of `fields`). */
export function logsField(name: string, p: SqlParams): FieldSql {
  const d = p.dialect;
  switch (canonicalField(name)) {
    case '_msg':
      return { text: 'msg' };
    case '_time':
      return { text: d.rfc3339Ns('time_ns'), ns: 'time_ns' };
    case '_stream':
      return { text: streamSql(d) };
    case '_stream_id':
      return { text: streamIdSql(d) };
    case 'service':
      return { text: 'service' };
    case 'severity':
      return { text: 'severity' };
    case 'trace_id':
      return { text: 'trace_id' };
    case 'span_id':
      return { text: 'span_id' };
    default:
      return { text: d.fieldText(name, p) };
  }
}

/**
 * The only SELECT over `logs`: the tenant condition is the outermost AND around the user's whole filter, in
 * parentheses, and the API's time range is ANDed beside it (DESIGN §4). Everything else reads from this.
 */
export function logsBaseSql(filter: Filter, range: TimeRange, p: SqlParams): string {
  const d = p.dialect;
  const where = [`${d.logsTenant} = ${p.tenantPlaceholder()}`, `(${filterSql(filter, p)})`];
  if (range.startNs !== undefined) where.push(`time_ns >= ${p.add(int64(range.startNs))}`);
  if (range.endNs !== undefined) where.push(`time_ns < ${p.add(int64(range.endNs))}`);
  return `SELECT ${d.logColumns} FROM ${d.logsSource} WHERE ${where.join(' AND ')}`;
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
      return fieldFilterSql(f, p);
  }
}

type FieldFilter = Exclude<Filter, { kind: 'all' | 'and' | 'or' | 'not' | 'time' | 'stream' }>;

function fieldFilterSql(f: FieldFilter, p: SqlParams): string {
  const d = p.dialect;
  const v = logsField(f.field, p).text;
  switch (f.kind) {
    case 'word':
    case 'phrase':
      // DESIGN §4: words and phrases match case-insensitively as substrings; each dialect writes the form its
      // needle index can answer (clickhouse-dialect.ts).
      return d.containsCi(v, f.value, p);
    case 'prefix':
      return d.regexpMatch(v, p.add(wordPrefixRegexp(f.value)));
    case 'exact':
      return `(${v} = ${p.add(f.value)})`;
    case 'exactPrefix':
      return d.startsWith(v, p.add(f.value));
    case 'in':
      return f.values.length === 0 ? 'FALSE' : `(${v} IN (${f.values.map((x) => p.add(x)).join(', ')}))`;
    case 'regexp':
      return d.regexpMatch(v, p.add(f.pattern));
    case 'range':
      return `coalesce(${d.tryDouble(v)} ${RANGE_SQL[f.op]} ${p.add(f.value)}, FALSE)`;
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

/** Clamps to int64: `_time:1000000y` must not fail to bind (the stores clamp stored times the same way). */
export function int64(v: bigint): bigint {
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
 * pattern can never reach into the next label. A missing label reads as '' (Prometheus selector semantics). A stream
 * derived from `service` (streamSql: a row stored without one) has that one label, so the matcher reads `service` itself
 * there instead of the derived text, which DuckDB would build row by row for the rows not yet checkpointed
 * (duckdb/schema.ts LOGS_TABLE_SQL).
 */
function streamMatcherSql(m: StreamMatcher, p: SqlParams): string {
  const d = p.dialect;
  const pattern = `(?:^\\{|,)\\s*${escapeRegexp(m.label)}\\s*=\\s*"((?:[^"\\\\]|\\\\.)*)"`;
  const stored = d.regexpGroup1('stream', p.add(pattern));
  const escaped = m.value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  const ofService = m.label === 'service';
  // The derived stream's value: the escaped service (so `=` compares the service with the value as given), else ''.
  const derived = ofService ? escapedServiceSql(d) : "''";
  // `equal` is bound only for the operators that compare with it: the regexp operators bind the pattern instead.
  const matches = (value: string, equal: () => string): string => {
    switch (m.op) {
      case '=':
        return `(${value} = ${equal()})`;
      case '!=':
        return `(${value} <> ${equal()})`;
      case '=~':
        return d.regexpFullMatch(value, p.add(m.value));
      case '!~':
        return `(NOT ${d.regexpFullMatch(value, p.add(m.value))})`;
    }
  };
  const onStored = matches(stored, () => p.add(escaped));
  const onDerived = ofService && (m.op === '=' || m.op === '!=') ? matches('service', () => p.add(m.value)) : matches(derived, () => p.add(escaped));
  return `(CASE WHEN stream <> '' THEN ${onStored} ELSE ${onDerived} END)`;
}
