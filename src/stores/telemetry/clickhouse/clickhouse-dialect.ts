// The ClickHouse side of the LogsQL compiler's seam (sql/dialect.ts, issue 11 item 2): `{pN:Type}` parameters,
// `fields` as Map(LowCardinality(String), String) (logs-schema.ts), Int128 for wide time arithmetic, -If/-OrNull
// aggregates, grouping(). Words on `_msg` compile to a LIKE on lowerUTF8(msg), which the schema's n-gram index answers.
import type { SqlDb, SqlDialect, SqlParam } from '../sql/dialect.js';
import type { ChExecutor } from './executor.js';

/** ClickHouse's LIKE wildcards and its escape character, escaped. */
function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, '\\$&');
}

/** Parameter type by value: Int64 keeps time arithmetic exact, Float64 numbers (sent as text, see bind). */
function chType(v: SqlParam): string {
  switch (typeof v) {
    case 'bigint':
      return 'Int64';
    case 'number':
      return 'Float64';
    case 'boolean':
      return 'Bool';
    default:
      return v === null ? 'Nullable(String)' : 'String';
  }
}

/** A stored field's text back to the JSON value it came from, for the keys logRowOf() marked as not strings. */
function decodeValue(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The int64 floor as an Int64 (a bare -9223372036854775808 is one too, but say so). */
const INT64_MIN = 'toInt64(-9223372036854775808)';

export const CLICKHOUSE_DIALECT: SqlDialect = {
  name: 'clickhouse',
  placeholder: (n, v) => `{p${n}:${chType(v)}}`,
  // The client refuses numbers past 2^53 (-1e308 included): they travel as text, and the engine parses Float64.
  bind: (v: SqlParam) => (typeof v === 'number' ? String(v) : v),
  // ClickHouse string literals read backslash escapes (DuckDB's do not).
  str: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,

  logsSource: 'logs',
  logsTenant: 'tenant_id',
  logColumns: 'time_ns, msg, service, severity, trace_id, span_id, stream, fields, json_keys',
  // A missing key reads as '' (the Map's default), as the compiler wants.
  fieldText: (name, p) => `fields[${p.add(name)}]`,
  fieldsOut: 'fields AS fields_map, json_keys AS fields_json_keys',
  decodeFields(row) {
    const map = row.fields_map;
    const out: Record<string, unknown> = map !== null && typeof map === 'object' ? { ...(map as Record<string, unknown>) } : {};
    const typed = Array.isArray(row.fields_json_keys) ? row.fields_json_keys : [];
    for (const k of typed) {
      if (typeof k === 'string' && typeof out[k] === 'string') out[k] = decodeValue(out[k]);
    }
    return out;
  },
  fieldPairs: (source) => `SELECT k, v FROM ${source} ARRAY JOIN mapKeys(fields) AS k, mapValues(fields) AS v`,
  fieldList: (names, p) => `[${names.map((k) => `fields[${p.add(k)}]`).join(', ')}]`,

  md5Hex: (x) => `lower(hex(MD5(${x})))`,
  toInt64: (x) => `toInt64(${x})`,
  // Int64 arithmetic that cannot overflow, not Int128: the engine's JIT (compile_expressions, on by default) gives
  // wrong Int128 results once an expression has run a few times (seen on 26.7: every hits bucket at 2262).
  rfc3339Ns: (ns) => `(formatDateTime(toDateTime64(intDiv(${ns}, 1000000000) - (modulo(${ns}, 1000000000) < 0), 0, 'UTC'), ` +
    `'%Y-%m-%dT%H:%i:%S', 'UTC') || '.' || leftPad(toString(positiveModulo(${ns}, 1000000000)), 9, '0') || 'Z')`,
  bucketNs(ns, step, offset) {
    const into = `positiveModulo(${offset === undefined ? ns : `${ns} - ${offset}`}, ${step})`;
    return `if(${ns} < ${INT64_MIN} + ${into}, ${INT64_MIN}, ${ns} - ${into})`;
  },
  containsCi(v, needle, p) {
    // An ASCII needle: lowerUTF8(v) LIKE '%needle%' is the same match and, on msg, the one the n-gram index
    // (logs-schema.ts msg_ngrams) can skip granules for. Other needles: lowerUTF8 and JS toLowerCase may disagree.
    if (/^[\x20-\x7e]*$/.test(needle)) return `(lowerUTF8(${v}) LIKE ${p.add(`%${likeEscape(needle.toLowerCase())}%`)})`;
    return `(positionCaseInsensitiveUTF8(${v}, ${p.add(needle)}) > 0)`;
  },
  contains: (v, needle) => `(position(${v}, ${needle}) > 0)`,
  regexpMatch: (v, re) => `match(${v}, ${re})`,
  regexpFullMatch: (v, re) => `match(${v}, concat('^(?:', ${re}, ')$'))`,
  regexpGroup1: (v, re) => `regexpExtract(${v}, ${re}, 1)`,
  startsWith: (v, prefix) => `startsWith(${v}, ${prefix})`,
  tryDouble: (x) => `toFloat64OrNull(toString(${x}))`,
  text: (x) => `toString(${x})`,
  strlen: (x) => `length(${x})`,
  countIf: (cond) => `countIf(${cond})`,
  minOrNull: (x) => `minOrNull(${x})`,
  maxOrNull: (x) => `maxOrNull(${x})`,
  // An array index past the end gives the type's default (0), not NULL: no numbers must stay NULL.
  sortedAt: (num, index) => `if(count(${num}) = 0, NULL, arraySort(groupArray(${num}))[${index}])`,
  groupingId: (cols) => `grouping(${cols.join(', ')})`,
  cte: (name, sql) => `WITH ${name} AS (${sql})`,
};

/** The store's executor speaking ClickHouse: positional parameters become p1, p2, … (the placeholders' names). */
export function onClickhouse(exec: Pick<ChExecutor, 'query'>): SqlDb {
  return {
    dialect: CLICKHOUSE_DIALECT,
    all: (sql, params) => exec.query(sql, Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v]))),
  };
}
