// The logs table on ClickHouse (issue 11 item 1), as versioned migrations 100–199 that the store runs at start beside
// schema.ts's. Layout after clickhouse.md "Layout the anchors converged on", for the reads the LogsQL compiler writes
// (sql/, clickhouse-dialect.ts):
// - ORDER BY tenant, a five-minute bucket, service, stream, time: every read is one tenant's time range, and the
//   bucket keeps a tenant's granules together while streams stay close inside it (HyperDX/ClickStack, the
//   OpenTelemetry exporter);
// - times are Int64 unix ns like the other tables (exact, any int64 a client sends); Delta + ZSTD;
// - day partitions (intDiv of the ns, as schema.ts does) so that retention's per-tenant lightweight deletes touch
//   the old days only, and a day every tenant has aged out of goes whole (retention.ts; LOGS_RETENTION below);
// - LowCardinality where values repeat (tenant, service, severity, stream, format, field names);
// - fields as Map(LowCardinality(String), String) of the very text a filter compares (the JSON type explodes into
//   paths on log data, clickhouse.md), with json_keys naming the keys whose value was not a JSON string so that
//   searchLogs gives numbers, booleans, null and objects back as sent;
// - an n-gram bloom filter on lowerUTF8(msg): LogsQL words are case-insensitive substrings here (DESIGN §4), which
//   a token index (`text`, tokenbf) cannot answer — `onnect` is inside the token `connection` — while the n-grams
//   of the needle must all be in a granule that holds it (checked: 1 of 391 granules read, logs-reads.test.ts);
// - bloom filters on the map's keys and values and on trace_id, for `field:=value` and trace lookups.
import { FIXED_FIELDS } from '../../../model/logsql-ast.js';
import type { FieldValue, LogEntry } from '../../../model/log-entry.js';
import { int64 } from '../sql/logsql-filter.js';

export interface LogsMigration {
  version: number;
  sql: string;
}

const NS_PER_DAY = 86_400_000_000_000n;
/** As schema.ts: blocks whose insert_deduplication_token the engine remembers (exactly-once drain, issue 11 item 4). */
const DEDUP_WINDOW = 10_000;

export const LOGS_MIGRATIONS: readonly LogsMigration[] = [
  {
    version: 100,
    sql: `CREATE TABLE IF NOT EXISTS logs (
      tenant_id LowCardinality(String),
      time_ns Int64 CODEC(Delta(8), ZSTD(1)),
      observed_ns Int64 CODEC(Delta(8), ZSTD(1)),
      service LowCardinality(String),
      severity LowCardinality(String),
      msg String CODEC(ZSTD(1)),
      trace_id String CODEC(ZSTD(1)),
      span_id String CODEC(ZSTD(1)),
      stream LowCardinality(String),
      fields Map(LowCardinality(String), String) CODEC(ZSTD(1)),
      json_keys Array(LowCardinality(String)) CODEC(ZSTD(1)),
      format LowCardinality(String),
      INDEX msg_ngrams lowerUTF8(msg) TYPE ngrambf_v1(3, 65536, 2, 0) GRANULARITY 1,
      INDEX field_keys mapKeys(fields) TYPE bloom_filter(0.01) GRANULARITY 1,
      INDEX field_values mapValues(fields) TYPE bloom_filter(0.01) GRANULARITY 1,
      INDEX trace_id_bf trace_id TYPE bloom_filter(0.01) GRANULARITY 1
    ) ENGINE = MergeTree
    PARTITION BY intDiv(time_ns, ${NS_PER_DAY})
    ORDER BY (tenant_id, intDiv(time_ns, 300000000000), service, stream, time_ns)
    SETTINGS non_replicated_deduplication_window = ${DEDUP_WINDOW}`,
  },
];

/** What retention.ts needs to delete a tenant's old logs (its RetentionTarget shape): the table and its ns column. */
export const LOGS_RETENTION = { table: 'logs', column: 'time_ns', unit: 'ns', counted: true } as const;

/** Keys of `fields` a fixed column shadows are stored all the same (the reads hide them, as on DuckDB). */
const FIXED = new Set<string>(FIXED_FIELDS);

/** The text a filter compares for a field value: as DuckDB's json_extract_string gives it ('' for null). */
function fieldText(v: FieldValue): string {
  if (typeof v === 'string') return v;
  if (v === null) return '';
  return JSON.stringify(v);
}

/**
 * `_stream` when the format gave none: VictoriaLogs' stream labels from `service` alone, as duckdb-store's
 * streamOf() (model/log-entry.ts: "the store then derives it from service").
 */
function streamOf(e: LogEntry): string {
  if (e.stream !== '') return e.stream;
  if (e.service === '') return '{}';
  return `{service="${e.service.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"}`;
}

/** One insert row of `logs` (JSONEachRow: the Int64 times as decimal text, exact past 2^53). */
export function logRowOf(tenantId: string, e: LogEntry, format: string): Record<string, unknown> {
  const fields: Record<string, string> = {};
  const jsonKeys: string[] = [];
  for (const [k, v] of Object.entries(e.fields)) {
    fields[k] = fieldText(v);
    if (typeof v !== 'string' && !FIXED.has(k)) jsonKeys.push(k);
  }
  return {
    tenant_id: tenantId,
    // Clamped, never dropped: a time outside int64 would fail the whole insert and stall the drain.
    time_ns: int64(e.timeNs).toString(),
    observed_ns: int64(e.observedNs).toString(),
    service: e.service,
    severity: e.severity,
    msg: e.msg,
    trace_id: e.traceId,
    span_id: e.spanId,
    stream: streamOf(e),
    fields,
    json_keys: jsonKeys,
    format,
  };
}
