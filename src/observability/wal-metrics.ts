// The write-ahead log's state on /metrics (Prometheus text format): how far the drain into the telemetry store
// trails the acknowledged writes. `sightline_wal_unflushed_bytes` is what the `backpressure` and `wal_full`
// refusals of DESIGN §1 are decided on, so an operator sees them coming before clients do.
import type { WalStats } from '../ingest/wal.js';

interface Gauge {
  name: string;
  type: 'gauge' | 'counter';
  help: string;
  value: (s: WalStats) => number | bigint;
}

const GAUGES: readonly Gauge[] = [
  { name: 'sightline_wal_unflushed_bytes', type: 'gauge', help: 'Acknowledged WAL bytes not yet committed to the telemetry store.', value: (s) => s.unflushedBytes },
  { name: 'sightline_wal_unflushed_records', type: 'gauge', help: 'Acknowledged WAL records not yet committed to the telemetry store.', value: (s) => s.unflushedRecords },
  { name: 'sightline_wal_appended_bytes_total', type: 'counter', help: 'Bytes made durable in the WAL since start.', value: (s) => s.appendedBytes },
  { name: 'sightline_wal_appended_records_total', type: 'counter', help: 'Records made durable in the WAL since start.', value: (s) => s.appendedRecords },
  { name: 'sightline_wal_fsyncs_total', type: 'counter', help: 'WAL fsyncs since start (each one a group commit).', value: (s) => s.fsyncs },
  { name: 'sightline_wal_replayed_records', type: 'gauge', help: 'Records replayed from the WAL at start-up.', value: (s) => s.replayedRecords },
  { name: 'sightline_wal_store_failures', type: 'gauge', help: 'Consecutive failed telemetry-store writes (0 when healthy).', value: (s) => s.storeFailures },
];

export function renderWalMetrics(stats: WalStats): string {
  return GAUGES.map((g) => `# HELP ${g.name} ${g.help}\n# TYPE ${g.name} ${g.type}\n${g.name} ${String(g.value(stats))}\n`).join('');
}
