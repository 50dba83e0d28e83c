// A `logs` table written before rows held their tenant's number (schema.ts LOGS_TABLE_SQL) is rewritten into that
// layout once, inside the open's transaction (duckdb-store.ts), as metric_samples was (sample-tenants.ts): each tenant
// with logs gets a number in metric_tenants, every row its tenant's number, and an id or `fields` it held as '' or
// '{}' a NULL. The columns after the fixed ones (field_order, the promoted field columns with the comments that
// name their keys, field-catalog.ts) keep their places, types and comments; the rows keep their order.
import type { DuckDBConnection } from '@duckdb/node-api';
import { str } from '../sql/span-rows.js';
import { numberTenantsOf } from './sample-tenants.js';
import { logsTableSql } from './schema.js';
import { tableColumns } from './table-columns.js';

/** The fixed columns both layouts share, after the tenant's, as the rewrite reads them from the old one. */
const CARRIED = ['l.time_ns', 'l.observed_ns', 'l.service', 'l.severity', 'l.msg', "nullif(l.trace_id, '')",
  "nullif(l.span_id, '')", 'l.stream', "CASE WHEN CAST(l.fields AS VARCHAR) = '{}' THEN NULL ELSE l.fields END", 'l.format'];

const STAGE = 'logs_by_ref';

export async function migrateLogTenants(c: DuckDBConnection): Promise<void> {
  const columns = await tableColumns(c, 'logs');
  if (!columns.includes('tenant_id')) return;
  await numberTenantsOf(c, 'logs');
  const rest = (await c.runAndReadAll(
    `SELECT column_name, data_type, comment FROM duckdb_columns() WHERE table_name = 'logs' AND schema_name = 'main'
       AND database_name = current_database() AND column_index > (SELECT column_index FROM duckdb_columns()
         WHERE table_name = 'logs' AND schema_name = 'main' AND database_name = current_database() AND column_name = 'format')
     ORDER BY column_index`)).getRowObjectsJS();
  await c.run(logsTableSql(STAGE));
  for (const r of rest) await c.run(`ALTER TABLE ${STAGE} ADD COLUMN ${quoteName(str(r.column_name))} ${str(r.data_type)}`);
  const restNames = rest.map((r) => `l.${quoteName(str(r.column_name))}`);
  await c.run(`INSERT INTO ${STAGE} SELECT t.tenant_ref, ${[...CARRIED, ...restNames].join(', ')} ` +
    'FROM logs l JOIN metric_tenants t USING (tenant_id) ORDER BY l.rowid');
  await c.run('DROP TABLE logs');
  await c.run(`ALTER TABLE ${STAGE} RENAME TO logs`);
  for (const r of rest) {
    if (r.comment === null || r.comment === undefined) continue;
    await c.run(`COMMENT ON COLUMN logs.${quoteName(str(r.column_name))} IS '${str(r.comment).replace(/'/g, "''")}'`);
  }
}

/** A column name as an SQL identifier (the names here are DuckDB's own: field_order, field_<n>). */
function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
