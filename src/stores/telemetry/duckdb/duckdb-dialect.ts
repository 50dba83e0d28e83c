// The DuckDB side of the LogsQL compiler's seam (sql/dialect.ts, issue 11 item 2): `$n` parameters, `fields` as a
// JSON object read by RFC 6901 pointer, HUGEINT for wide time arithmetic, list aggregates, GROUPING_ID. A store
// with promoted field columns (field-columns.ts) gets the dialect of its columns: a promoted key is read from its
// column, and from `fields` for the rows that hold it there (written before the promotion, or of another kind).
import type { SqlDb, SqlDialect, SqlExecutor, SqlParam } from '../sql/dialect.js';
import { duckdbContainsCi } from './contains-ci.js';
import { FIELD_ORDER_COLUMN, joinFields, type FieldColumn } from './field-columns.js';

/** JSON pointer (RFC 6901) of a top-level key: unlike a `$.` path it gives no meaning to `*`, `.`, `[` or quotes. */
export function jsonPointer(key: string): string {
  return '/' + key.replace(/~/g, '~0').replace(/\//g, '~1');
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * `logs` as reads see it: an id, stream or `fields` stored as NULL (none, schema.ts LOGS_TABLE_SQL) reads as '', '' or
 * '{}', as the LogEntry has it (a stream '' reads as its service's: logsql-filter.ts streamSql). DuckDB pushes the
 * tenant and time conditions through this projection into the table's scan.
 */
export const LOGS_SOURCE = "(SELECT * REPLACE (coalesce(trace_id, '') AS trace_id, coalesce(span_id, '') AS span_id, " +
  "coalesce(stream, '') AS stream, coalesce(fields, '{}'::JSON) AS fields) FROM logs) AS logs";

/** Everything but the access to `fields`, which depends on the promoted columns. */
const BASE: Omit<SqlDialect, FieldAccess> = {
  name: 'duckdb',
  logsSource: LOGS_SOURCE,
  // The tenant's number (sample-tenants.ts), which the store's reads give as parameter 1 (duckdb-store.ts).
  logsTenant: 'tenant_ref',
  // Integers and numbers are typed, so arithmetic on them stays BIGINT / DOUBLE.
  placeholder: (n, v) => (typeof v === 'bigint' ? `CAST($${n} AS BIGINT)` : typeof v === 'number' ? `CAST($${n} AS DOUBLE)` : `$${n}`),
  // A number travels as text: DuckDB's Node binding binds an integral number as int64, which `-1e308` is not.
  bind: (v: SqlParam) => (typeof v === 'number' ? String(v) : v),
  str: (s) => `'${s.replace(/'/g, "''")}'`,
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
  contains: (v, needle) => `contains(${v}, ${needle})`,
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

type FieldAccess = 'logColumns' | 'fieldText' | 'fieldsOut' | 'decodeFields' | 'fieldPairs' | 'fieldList';

const BASE_LOG_COLUMNS = 'time_ns, msg, service, severity, trace_id, span_id, stream, fields';


/** The dialect of a `logs` table whose promoted field columns are `columns` (in table order). */
export function duckdbDialect(columns: readonly FieldColumn[]): SqlDialect {
  const byKey = new Map(columns.map((c) => [c.key, c]));
  // The text a filter compares: what json_extract_string gives for the same value (field-columns.ts fits()).
  const text = (c: FieldColumn): string => (c.kind === 'text' ? c.column : `CAST(${c.column} AS VARCHAR)`);
  const names = columns.map((c) => c.column).join(', ');
  const extra = columns.length === 0 ? '' : `, ${FIELD_ORDER_COLUMN}, ${names}`;
  return {
    ...BASE,
    // Every relation over `logs` carries the promoted columns, so that a field reads the same after any pipe.
    logColumns: BASE_LOG_COLUMNS + extra,
    fieldText(name, p) {
      const json = `json_extract_string(fields, ${p.add(jsonPointer(name))})`;
      const c = byKey.get(name);
      return c ? `coalesce(${text(c)}, ${json}, '')` : `coalesce(${json}, '')`;
    },
    fieldsOut: 'CAST(fields AS VARCHAR) AS fields_json' + extra,
    decodeFields(row) {
      const json = typeof row.fields_json === 'string' ? row.fields_json : 'null';
      const order = row[FIELD_ORDER_COLUMN];
      return joinFields(json, columns, columns.map((c) => row[c.column]), typeof order === 'string' ? order : null);
    },
    // A MAP cast unpacks the JSON an order of magnitude faster than json_each; a JSON null comes out as NULL, and
    // json_extract_string gives the text a filter compares (so "" is empty). Promoted values follow, where present.
    fieldPairs(source, p) {
      const map = 'TRY_CAST(fields AS MAP(VARCHAR, JSON))';
      if (columns.length === 0) {
        return `SELECT e.key AS k, json_extract_string(e.value, '$') AS v FROM (SELECT unnest(map_entries(${map})) AS e ` +
          `FROM ${source}) AS m`;
      }
      const json = `list_transform(map_entries(${map}), lambda e: {'k': e.key, 'v': json_extract_string(e.value, '$')})`;
      const promoted = `list_filter([${columns.map((c) => `{'k': ${p.add(c.key)}, 'v': ${text(c)}}`).join(', ')}], ` +
        'lambda x: x.v IS NOT NULL)';
      return `SELECT e.k AS k, e.v AS v FROM (SELECT unnest(list_concat(${json}, ${promoted})) AS e FROM ${source}) AS m`;
    },
    // One JSON parse for every key (json_extract_string with a list of paths gives a list; DuckDB computes the
    // repeated list once), a promoted key's column first.
    fieldList(keys, p) {
      const list = `json_extract_string(fields, [${keys.map((k) => p.add(jsonPointer(k))).join(', ')}])`;
      if (!keys.some((k) => byKey.has(k))) return list;
      return `[${keys.map((k, i) => {
        const c = byKey.get(k);
        return c ? `coalesce(${text(c)}, ${list}[${i + 1}])` : `${list}[${i + 1}]`;
      }).join(', ')}]`;
    },
  };
}

/** The dialect of a `logs` table without promoted columns (an old file, or one no key has earned a column in). */
export const DUCKDB_DIALECT: SqlDialect = duckdbDialect([]);

/**
 * An executor speaking DuckDB, for the reads of sql/; `tenantKey` gives a tenant's number in `logs` (TenantRefs), the
 * store's own where it has one.
 */
export function onDuckdb(exec: SqlExecutor, tenantKey: (tenantId: string) => SqlParam, dialect: SqlDialect = DUCKDB_DIALECT): SqlDb {
  return { dialect, tenantKey, all: (sql, params) => exec.all(sql, params) };
}
