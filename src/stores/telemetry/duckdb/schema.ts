// DuckDB table definitions of the telemetry store. `fields`, `attributes` and `resource` are flat JSON
// objects (dotted keys, scalar values) so that LogsQL can address any field by name.

/**
 * A row's tenant is its number (sample-tenants.ts TenantRefs, shared with metric_samples), and an id, stream or
 * `fields` the entry has none of is NULL, not '', '' or '{}' (reads see them as those: duckdb-dialect.ts LOGS_SOURCE; a
 * stream is then derived from `service`, logsql-filter.ts streamSql). A value that many rows hold alike still costs
 * DuckDB per row — string statistics and copies as it appends, a scan for the compression as it commits — where a NULL
 * or a number it finds constant costs next to nothing: ~15 % of the CPU a native NDJSON entry costs to build, insert
 * and commit (issue 12 item 1; README, Benchmark). Files written before are rewritten into this layout once
 * (log-tenants.ts). `table`: `logs`, or the table that rewrite fills.
 */
export function logsTableSql(table: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${table} (
  tenant_ref BIGINT NOT NULL, time_ns BIGINT NOT NULL, observed_ns BIGINT NOT NULL,
  service VARCHAR NOT NULL, severity VARCHAR NOT NULL, msg VARCHAR NOT NULL,
  trace_id VARCHAR, span_id VARCHAR, stream VARCHAR,
  fields JSON, format VARCHAR NOT NULL)`;
}

export const LOGS_TABLE_SQL = logsTableSql('logs');

/**
 * What a `logs` table made before promoted columns lacks (field-columns.ts). Nothing on a new table; on an older file,
 * once, a NULL per stored row (DuckDB's ADD COLUMN: ~1 s per 10 M rows) when the store opens.
 */
export const LOGS_MIGRATION_SQL = ['ALTER TABLE logs ADD COLUMN IF NOT EXISTS field_order VARCHAR'];

export const SPANS_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS spans (
  tenant_id VARCHAR NOT NULL, trace_id VARCHAR NOT NULL, span_id VARCHAR NOT NULL,
  parent_span_id VARCHAR NOT NULL, name VARCHAR NOT NULL, kind INTEGER NOT NULL,
  start_ns BIGINT NOT NULL, duration_ns BIGINT NOT NULL, status_code INTEGER NOT NULL,
  status_message VARCHAR NOT NULL, service VARCHAR NOT NULL, attributes JSON NOT NULL,
  resource JSON NOT NULL, events JSON NOT NULL, links JSON NOT NULL)`;

/**
 * One row: the WAL position the last committed write reached (exactly-once replay). Without a PRIMARY KEY: DuckDB
 * keeps each index in a 256 KB block of its own, ~1% of a store holding 100 MB of NDJSON (issue 12 item 3); the
 * store inserts the row when it opens (WAL_STATE_ROW_SQL) and only updates it after. Files made before keep theirs.
 */
export const WAL_STATE_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS wal_state (id INTEGER NOT NULL, position BIGINT NOT NULL)`;

export const WAL_STATE_ROW_SQL = 'INSERT INTO wal_state SELECT 1, 0 WHERE NOT EXISTS (SELECT 1 FROM wal_state WHERE id = 1)';

/** Session replay chunks: rrweb events as JSON text, one row per uploaded chunk (model/replay.ts). */
export const REPLAY_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS replay_chunks (
  tenant_id VARCHAR NOT NULL, session_id VARCHAR NOT NULL, seq BIGINT NOT NULL,
  start_ns BIGINT NOT NULL, end_ns BIGINT NOT NULL, event_count INTEGER NOT NULL,
  page VARCHAR NOT NULL, user_id VARCHAR NOT NULL, events VARCHAR NOT NULL)`;
