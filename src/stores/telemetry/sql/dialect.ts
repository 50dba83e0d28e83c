// The seam between the one LogsQL → SQL compiler (this folder) and the engines it runs on (issue 11 item 2):
// everything the compiler writes that differs between DuckDB (duckdb/duckdb-dialect.ts) and ClickHouse
// (clickhouse/clickhouse-dialect.ts) — parameters, string constants, access into the stored `fields`, time
// formatting, hashing, regexp, casts and a few aggregates. Filters, pipes, stats, facets and value counts exist once,
// in the files beside this one, and only call these. Values are always bound parameters, in both dialects.

export type SqlParam = string | number | bigint | boolean | null;

/** Runs one statement with positional parameters (the dialect has written their placeholders). */
export interface SqlExecutor {
  all(sql: string, params: SqlParam[]): Promise<Record<string, unknown>[]>;
}

/**
 * Rows per chunk of a streamed read (issue 12 item 5): large enough that a 250k-row answer takes a few dozen round
 * trips through the store worker and the socket, small enough (a few MB of rows) that memory stays bounded.
 */
export const STREAM_CHUNK_ROWS = 8192;

/** What a streamed read hands each chunk to; it resolves once the chunk is written: false = stop reading. */
export type ChunkSink<T> = (rows: T[]) => Promise<boolean>;

/**
 * Runs one statement without materializing its result (issue 12 item 5, DESIGN §4 `select/logsql/query`): rows in
 * order, at most STREAM_CHUNK_ROWS per chunk, the next chunk read only after `onChunk` resolved. `onChunk` returning
 * false, or `signal` aborting, stops the statement in the engine and resolves.
 */
export interface SqlStreamer {
  stream(sql: string, params: SqlParam[], onChunk: ChunkSink<Record<string, unknown>>, signal?: AbortSignal): Promise<void>;
}

/** An executor and the dialect its engine speaks: what every read of this folder takes. */
export interface SqlDb extends SqlExecutor {
  readonly dialect: SqlDialect;
  /** Parameter 1 of a read of `tenantId`'s logs (dialect logsTenant); the id itself when not given. */
  readonly tenantKey?: (tenantId: string) => SqlParam;
}

/** Lets a dialect method bind a value of its own (a LIKE pattern, a JSON pointer) as a parameter. */
export interface ParamSink {
  add(v: SqlParam): string;
}

export interface SqlDialect {
  readonly name: 'duckdb' | 'clickhouse';

  // Parameters and constants.
  /** The placeholder of the `n`-th (1-based) parameter, typed by its value: `CAST($2 AS BIGINT)`, `{p2:Int64}`. */
  placeholder(n: number, v: SqlParam): string;
  /** The value as the driver is handed it. */
  bind(v: SqlParam): SqlParam;
  /** A string constant written by the compiler (never user input): quoting and escaping differ. */
  str(s: string): string;

  // The `logs` table.
  /**
   * What reads select `logs` rows from (logsql-filter.ts logsBaseSql), and its column that holds the tenant: the one the
   * tenant condition compares with parameter 1 (params.ts), which SqlDb.tenantKey gives for a tenant id.
   */
  readonly logsSource: string;
  readonly logsTenant: string;
  /** The columns every relation over `logs` carries (the compiler's own, plus what the dialect needs for output). */
  readonly logColumns: string;
  /** The text of the key `name` of the stored fields; '' when missing (never NULL). */
  fieldText(name: string, p: ParamSink): string;
  /** SELECT items that carry the stored fields out of a searchLogs row, and how to read them back. */
  readonly fieldsOut: string;
  decodeFields(row: Record<string, unknown>): Record<string, unknown>;
  /**
   * `SELECT k, v FROM <source>`: one row per stored field (v its text, possibly NULL) of every row of `source`; key
   * names the dialect writes (DuckDB's promoted columns) are bound through `p`.
   */
  fieldPairs(source: string, p: ParamSink): string;
  /** Several keys' texts read in one pass, as an array expression indexed from 1 (value counts); NULL/'' when missing. */
  fieldList(names: readonly string[], p: ParamSink): string;

  // Functions.
  md5Hex(x: string): string;
  toInt64(x: string): string;
  /**
   * RFC 3339 with 9-digit ns, UTC, as nsToRfc3339() writes it, of an int64 unix-ns expression: floored before 1970,
   * and without overflow at the int64 ends (where the stores clamp wild times).
   */
  rfc3339Ns(ns: string): string;
  /**
   * The start of the `step`-long bucket holding `ns`, aligned to the epoch plus `offset` (when given), floored (also
   * before 1970), clamped to int64 at its ends.
   */
  bucketNs(ns: string, step: string, offset?: string): string;
  /** Case-insensitive substring (DESIGN §4 words and phrases) of the text `v`; the needle is bound through `p`. */
  containsCi(v: string, needle: string, p: ParamSink): string;
  /** Whether the text `v` holds `needle`, a constant the compiler writes (case-sensitive, bytes). */
  contains(v: string, needle: string): string;
  /** Partial RE2 match. */
  regexpMatch(v: string, re: string): string;
  /** Whole-value RE2 match (Prometheus selector semantics). */
  regexpFullMatch(v: string, re: string): string;
  /** The first capture group of the first match, '' when none. */
  regexpGroup1(v: string, re: string): string;
  startsWith(v: string, prefix: string): string;
  /** The text as a DOUBLE, NULL when it is not a number. */
  tryDouble(x: string): string;
  text(x: string): string;
  strlen(x: string): string;
  countIf(cond: string): string;
  /** min/max that give NULL over no rows (ClickHouse's plain ones give the type's default). */
  minOrNull(x: string): string;
  maxOrNull(x: string): string;
  /** The value at 1-based `index` of the ascending non-NULL values of `num` in the group; NULL over none. */
  sortedAt(num: string, index: string): string;
  /** Bits of the GROUPING SETS columns not grouped in this row (the first column's is the highest). */
  groupingId(cols: readonly string[]): string;
  /** `WITH name AS (sql)`, inlined where the engine allows it. */
  cte(name: string, sql: string): string;
}
