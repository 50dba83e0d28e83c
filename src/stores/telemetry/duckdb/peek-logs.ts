// Tests' raw view of the DuckDB `logs` table (the contract's PeekLogs): every stored row of a tenant as written,
// its fields joined back from `fields` and the promoted columns (field-columns.ts) as the store's reads join them, its
// stream as reads derive it where it has none (logsql-filter.ts streamSql).
import type { FieldValue, LogEntry } from '../../../model/log-entry.js';
import type { StoredLog } from '../telemetry-store.contract.js';
import type { TelemetryStore } from '../telemetry-store.js';
import type { DuckdbTelemetryStore } from './duckdb-store.js';
import { joinFields } from './field-columns.js';
import { loadFieldColumns } from './field-catalog.js';
import { DUCKDB_DIALECT, LOGS_SOURCE } from './duckdb-dialect.js';
import { streamSql } from '../sql/logsql-filter.js';
import { TENANT_REF_SQL } from './sample-tenants.js';

function asDuckdb(s: TelemetryStore): DuckdbTelemetryStore {
  if (!('reader' in s)) throw new Error('not the DuckDB store');
  return s as DuckdbTelemetryStore;
}

export async function peekDuckdbLogs(s: TelemetryStore, tenantId: string): Promise<StoredLog[]> {
  const reader = asDuckdb(s).reader;
  const columns = await loadFieldColumns(reader);
  const rows = await reader.all(
    `SELECT *, ${streamSql(DUCKDB_DIALECT)} AS stream_out FROM ${LOGS_SOURCE} WHERE tenant_ref = ${TENANT_REF_SQL}`, [tenantId]);
  return rows.map((r) => {
    const order = r.field_order;
    const fields = joinFields(String(r.fields), columns, columns.map((c) => r[c.column]), typeof order === 'string' ? order : null);
    const entry: LogEntry = {
      timeNs: r.time_ns as bigint, observedNs: r.observed_ns as bigint, service: String(r.service),
      severity: String(r.severity), msg: String(r.msg), traceId: String(r.trace_id), spanId: String(r.span_id),
      stream: String(r.stream_out), fields: fields as Record<string, FieldValue>,
    };
    return { format: String(r.format), entry };
  });
}
