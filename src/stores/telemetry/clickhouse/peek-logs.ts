// Test-only view of the stored log rows (the contract's PeekLogs): the logs table is logs-schema.ts's.
import type { StoredLog } from '../telemetry-store.contract.js';
import type { TelemetryStore } from '../telemetry-store.js';

export function peekLogs(_store: TelemetryStore, _tenantId: string): Promise<StoredLog[]> {
  return Promise.reject(new Error('clickhouse-store: logs are not yet stored on ClickHouse (logs-schema.ts)'));
}
