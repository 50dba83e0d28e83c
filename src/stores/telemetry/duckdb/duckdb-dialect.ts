// The DuckDB side of the LogsQL compiler's seam (sql/dialect.ts, issue 11 item 2): `$n` parameters, `fields` as a
// JSON object read by RFC 6901 pointer, HUGEINT for wide time arithmetic, list aggregates, GROUPING_ID.
import type { SqlDb, SqlDialect, SqlExecutor, SqlParam } from '../sql/dialect.js';
import { duckdbContainsCi } from './contains-ci.js';

/** JSON pointer (RFC 6901) of a top-level key: unlike a `$.` path it gives no meaning to `*`, `.`, `[` or quotes. */
export function jsonPointer(key: string): string {
  return '/' + key.replace(/~/g, '~0').replace(/\//g, '~1');
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export const DUCKDB_DIALECT: SqlDialect = {
  name: 'duckdb',
  // Integers and numbers are typed, so arithmetic on them stays BIGINT / DOUBLE.
  placeholder: (n, v) => (typeof v === 'bigint' ? `CAST($${n} AS BIGINT)` : typeof v === 'number' ? `CAST($${n} AS DOUBLE)` : `$${n}`),
  // A number travels as text: DuckDB's Node binding binds an integral number as int64, which `-1e308` is not.
  bind: (v: SqlParam) => (typeof v === 'number' ? String(v) : v),
  str: (s) => `'${s.replace(/'/g, "''")}'`,

  logColumns: 'time_ns, msg, service, severity, trace_id, span_id, stream, fields',
  fieldText: (name, p) => `coalesce(json_extract_string(fields, ${p.add(jsonPointer(name))}), '')`,
  fieldsOut: 'CAST(fields AS VARCHAR) AS fields_json',
  decodeFields(row) {
    const parsed: unknown = typeof row.fields_json === 'string' ? JSON.parse(row.fields_json) : null;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  },
  // A MAP cast unpacks the JSON an order of magnitude faster than json_each; a JSON null comes out as NULL, and
  // json_extract_string gives the text a filter compares (so "" is empty).
  fieldPairs: (source) => `SELECT e.key AS k, json_extract_string(e.value, '$') AS v FROM (SELECT unnest(map_entries(` +
    `TRY_CAST(fields AS MAP(VARCHAR, JSON)))) AS e FROM ${source}) AS m`,
  // One JSON parse for every key (json_extract_string with a list of paths gives a list).
  fieldList: (names, p) => `json_extract_string(fields, [${names.map((k) => p.add(jsonPointer(k))).join(', ')}])`,

  md5Hex: (x) => `md5(${x})`,
  toInt64: (x) => `CAST(${x} AS BIGINT)`,
  // The fraction is taken modulo so that pre-1970 times floor; HUGEINT because at the int64 ends BIGINT overflows.
  rfc3339Ns(ns) {
    const wide = `CAST(${ns} AS HUGEINT)`;
    const frac = `((${wide} % 1000000000 + 1000000000) % 1000000000)`;
    return `(strftime(make_timestamp(CAST((${wide} - ${frac}) // 1000 AS BIGINT)), '%Y-%m-%dT%H:%M:%S') || '.' || ` +
      `lpad(CAST(${frac} AS VARCHAR), 9, '0') || 'Z')`;
  },
  bucketNs(ns, step, offset) {
    const wide = `CAST(${ns} AS HUGEINT)`;
    const from = offset === undefined ? wide : `(${wide} - ${offset})`;
    const start = `${wide} - ((${from} % ${step}) + ${step}) % ${step}`;
    return `CAST(least(greatest(${start}, ${INT64_MIN}), ${INT64_MAX}) AS BIGINT)`;
  },
  containsCi: duckdbContainsCi,
  regexpMatch: (v, re) => `regexp_matches(${v}, ${re})`,
  regexpFullMatch: (v, re) => `regexp_full_match(${v}, ${re})`,
  regexpGroup1: (v, re) => `regexp_extract(${v}, ${re}, 1)`,
  startsWith: (v, prefix) => `starts_with(${v}, ${prefix})`,
  tryDouble: (x) => `TRY_CAST(${x} AS DOUBLE)`,
  text: (x) => `CAST(${x} AS VARCHAR)`,
  strlen: (x) => `strlen(${x})`,
  countIf: (cond) => `count(*) FILTER (WHERE ${cond})`,
  minOrNull: (x) => `min(${x})`,
  maxOrNull: (x) => `max(${x})`,
  // A list index past the end is NULL.
  sortedAt: (num, index) => `list_sort(list(${num}) FILTER (WHERE ${num} IS NOT NULL))[${index}]`,
  groupingId: (cols) => `GROUPING_ID(${cols.join(', ')})`,
  // Inlined: materializing the filtered rows would copy every column of a large range.
  cte: (name, sql) => `WITH ${name} AS NOT MATERIALIZED (${sql})`,
};

/** The store's executor speaking DuckDB, for the reads of sql/. */
export function onDuckdb(exec: SqlExecutor): SqlDb {
  return { dialect: DUCKDB_DIALECT, all: (sql, params) => exec.all(sql, params) };
}
