// The ClickHouse store's tables other than logs (issue 11 item 1), as versioned migrations 1–99; the logs tables are
// logs-schema.ts's, versions 100–199. Layout after clickhouse.md "Layout the anchors converged on":
// - tenant first in every sort key; LowCardinality where values repeat (tenant, service, span name, metric);
// - times are Int64 unix ns (ms for samples): exact at every ns, TZ-independent, and able to hold any int64 a
//   client sends, which DateTime64(9) (years 1900–2299) cannot;
// - partitions by day of the row's time, so retention removes whole parts (retention.ts);
// - Delta/DoubleDelta on times, Gorilla on sample values, T64 on durations, ZSTD on text;
// - `non_replicated_deduplication_window` on every table the drain inserts into, so an insert retried with the same
//   `insert_deduplication_token` after a crash is dropped (issue 11 item 4; exactly-once.ts).
//
// Span attributes, resources, events and links are JSON text: they are only ever returned whole (getTrace), and text
// gives them back exactly as written (numbers, booleans, arrays, null).

export interface Migration {
  version: number;
  sql: string;
}

/** Blocks whose tokens the engine remembers per table: far more than the inserts between a crash and its replay. */
export const DEDUP_WINDOW = 10_000;
const DEDUP = `non_replicated_deduplication_window = ${DEDUP_WINDOW}`;

export const NS_PER_DAY = 86_400_000_000_000n;
export const MS_PER_DAY = 86_400_000n;

export const STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `CREATE TABLE IF NOT EXISTS spans (
      tenant_id LowCardinality(String),
      service LowCardinality(String),
      name LowCardinality(String),
      start_ns Int64 CODEC(Delta(8), ZSTD(1)),
      trace_id String CODEC(ZSTD(1)),
      span_id String CODEC(ZSTD(1)),
      parent_span_id String CODEC(ZSTD(1)),
      kind UInt8,
      duration_ns Int64 CODEC(T64, ZSTD(1)),
      status_code UInt8,
      status_message String CODEC(ZSTD(1)),
      attributes String CODEC(ZSTD(1)),
      resource String CODEC(ZSTD(1)),
      events String CODEC(ZSTD(1)),
      links String CODEC(ZSTD(1)),
      INDEX trace_id_bf trace_id TYPE bloom_filter(0.01) GRANULARITY 1
    ) ENGINE = MergeTree
    PARTITION BY intDiv(start_ns, ${NS_PER_DAY})
    ORDER BY (tenant_id, service, name, start_ns)
    SETTINGS ${DEDUP}`,
  },
  {
    // trace id → first start and last start of its spans (clickhouse.md: the exporter's traces_id_ts_lookup), so
    // getTrace reads only the partitions the trace lies in instead of every day of the tenant.
    version: 2,
    sql: `CREATE TABLE IF NOT EXISTS trace_bounds (
      tenant_id LowCardinality(String),
      trace_id String CODEC(ZSTD(1)),
      first_ns SimpleAggregateFunction(min, Int64),
      last_ns SimpleAggregateFunction(max, Int64)
    ) ENGINE = AggregatingMergeTree
    PARTITION BY intDiv(first_ns, ${NS_PER_DAY})
    ORDER BY (tenant_id, trace_id)`,
  },
  {
    version: 3,
    sql: `CREATE MATERIALIZED VIEW IF NOT EXISTS trace_bounds_mv TO trace_bounds AS
      SELECT tenant_id, trace_id, min(start_ns) AS first_ns, max(start_ns) AS last_ns
      FROM spans GROUP BY tenant_id, trace_id`,
  },
  {
    // One row per series (labels without __name__, empty values dropped); re-inserted by every batch that carries
    // the series, collapsed by the engine's merges and by DISTINCT in reads.
    version: 4,
    sql: `CREATE TABLE IF NOT EXISTS series (
      tenant_id LowCardinality(String),
      metric LowCardinality(String),
      fingerprint UInt64,
      labels Map(LowCardinality(String), String) CODEC(ZSTD(1))
    ) ENGINE = ReplacingMergeTree
    ORDER BY (tenant_id, metric, fingerprint)
    SETTINGS ${DEDUP}`,
  },
  {
    // A staleness marker is a row with `stale`: the NaN payload that marks it does not survive JSON.
    version: 5,
    sql: `CREATE TABLE IF NOT EXISTS samples (
      tenant_id LowCardinality(String),
      metric LowCardinality(String),
      fingerprint UInt64,
      ts Int64 CODEC(DoubleDelta, ZSTD(1)),
      value Float64 CODEC(Gorilla, ZSTD(1)),
      stale UInt8
    ) ENGINE = MergeTree
    PARTITION BY intDiv(ts, ${MS_PER_DAY})
    ORDER BY (tenant_id, metric, fingerprint, ts)
    SETTINGS ${DEDUP}`,
  },
  {
    version: 6,
    sql: `CREATE TABLE IF NOT EXISTS metric_metadata (
      tenant_id LowCardinality(String),
      name LowCardinality(String),
      type LowCardinality(String),
      help String,
      unit LowCardinality(String)
    ) ENGINE = ReplacingMergeTree
    ORDER BY (tenant_id, name, type, help, unit)
    SETTINGS ${DEDUP}`,
  },
  {
    // Partitioned by the chunk's end: retention keeps a chunk while any of it is inside the window.
    version: 7,
    sql: `CREATE TABLE IF NOT EXISTS replay_chunks (
      tenant_id LowCardinality(String),
      session_id String,
      seq Int64,
      start_ns Int64 CODEC(Delta(8), ZSTD(1)),
      end_ns Int64 CODEC(Delta(8), ZSTD(1)),
      event_count UInt32,
      page String CODEC(ZSTD(1)),
      user_id String CODEC(ZSTD(1)),
      events String CODEC(ZSTD(3))
    ) ENGINE = MergeTree
    PARTITION BY intDiv(end_ns, ${NS_PER_DAY})
    ORDER BY (tenant_id, session_id, seq)
    SETTINGS ${DEDUP}`,
  },
  {
    // The WAL checkpoint per writer (exactly-once.ts): slot 'done' holds the position the last completed write
    // reached, slot 'intent' the write begun last (start, end, record count). ReplacingMergeTree keeps the newest.
    version: 8,
    sql: `CREATE TABLE IF NOT EXISTS wal_state (
      writer String,
      slot LowCardinality(String),
      start_pos Int64,
      end_pos Int64,
      records UInt32
    ) ENGINE = ReplacingMergeTree(end_pos)
    ORDER BY (writer, slot)`,
  },
];
