// Test-only view of the stored log rows (the contract's PeekLogs): the `logs` table of logs-schema.ts read back into
// the entries written. A key listed in json_keys held a value that was not a JSON string: its text is JSON ('' = null).
import type { FieldValue } from '../../../model/log-entry.js';
import type { StoredLog } from '../telemetry-store.contract.js';
import type { TelemetryStore } from '../telemetry-store.js';
import type { ClickhouseTelemetryStore } from './clickhouse-store.js';
import { big, str } from './values.js';

function fieldsOf(map: unknown, jsonKeys: unknown): Record<string, FieldValue> {
  const json = new Set(Array.isArray(jsonKeys) ? jsonKeys.map(str) : []);
  const out: Record<string, FieldValue> = {};
  if (map === null || typeof map !== 'object') return out;
  for (const [k, v] of Object.entries(map)) {
    const text = str(v);
    out[k] = !json.has(k) ? text : text === '' ? null : (JSON.parse(text) as FieldValue);
  }
  return out;
}

export async function peekLogs(store: TelemetryStore, tenantId: string): Promise<StoredLog[]> {
  if (!('exec' in store)) throw new Error('peekLogs: not the ClickHouse store');
  const rows = await (store as ClickhouseTelemetryStore).exec.query(
    'SELECT * FROM logs WHERE tenant_id = {tenant:String} ORDER BY time_ns', { tenant: tenantId });
  return rows.map((r) => ({
    format: str(r.format),
    entry: {
      timeNs: big(r.time_ns), observedNs: big(r.observed_ns), service: str(r.service), severity: str(r.severity),
      msg: str(r.msg), traceId: str(r.trace_id), spanId: str(r.span_id), stream: str(r.stream),
      fields: fieldsOf(r.fields, r.json_keys),
    },
  }));
}
