// The tenant of a metric sample, and of a `logs` row (log-tenants.ts), as a number (issue 12 items 2 and 1). metric_samples held each row's tenant id (28 bytes,
// past the 12 DuckDB keeps inline) and metric name as VARCHARs; DuckDB's per-row string work on them — string
// statistics, copies into the string heap, dictionary and FSST analysis at commit — was ~16 % of the service's CPU
// under remote write, and appending and committing a sample took 1.05 µs of CPU against 0.37 without them (bench
// rows in-process). A row now holds a BIGINT for its tenant; the name is its series' (metric_series), which every
// read joins anyway. The numbers are exact, not hashes, so no two tenants can ever share one: the store's single
// writer gives them out (TenantRefs) and records each in metric_tenants within the transaction that first uses it.
import type { DuckDBConnection } from '@duckdb/node-api';
import { str } from '../sql/span-rows.js';
import { tableColumns } from './table-columns.js';
import type { CommittedKey, CommittedKeys } from './metrics-store.js';

export const TENANTS_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS metric_tenants (tenant_id VARCHAR PRIMARY KEY, tenant_ref BIGINT NOT NULL UNIQUE)`;

/** A number no tenant holds (they start at 1): what a read of a tenant that has none compares with. */
export const NO_TENANT = 0;

/** The number of the tenant whose id is a read's `$1`: NULL, which matches no sample, before its first commit. */
export const TENANT_REF_SQL = '(SELECT tenant_ref FROM metric_tenants WHERE tenant_id = $1)';

/** metric_samples' columns, under `table`: samples-sql.ts's table, and the table a migration fills. */
export function samplesTableSql(table: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${table} (
  tenant_ref BIGINT NOT NULL, series_id BIGINT NOT NULL, time_ms BIGINT NOT NULL, value DOUBLE NOT NULL, stale BOOLEAN NOT NULL)`;
}

/** Gives a tenant the next number in plain SQL (tests and small writers): `$1` is the tenant id. */
export const ADD_TENANT_SQL = 'INSERT INTO metric_tenants SELECT $1, (SELECT coalesce(max(tenant_ref), 0) + 1 FROM metric_tenants) ' +
  'WHERE NOT EXISTS (SELECT 1 FROM metric_tenants WHERE tenant_id = $1)';

/**
 * Each tenant's number, as the writer gives them out: the numbers committed (load()) and the ones given since, which a
 * write inserts into metric_tenants with its rows (recordTenants). A number given to a write that rolls back
 * stays this tenant's; the next write of the tenant inserts it.
 */
export class TenantRefs {
  private next = 1;
  constructor(private readonly refs = new Map<string, number>()) {
    for (const ref of refs.values()) this.next = Math.max(this.next, ref + 1); // no spread: a store may hold many tenants
  }

  static async load(c: DuckDBConnection): Promise<TenantRefs> {
    const rows = (await c.runAndReadAll('SELECT tenant_id, tenant_ref FROM metric_tenants')).getRowObjectsJS();
    return new TenantRefs(new Map(rows.map((r) => [str(r.tenant_id), Number(r.tenant_ref)])));
  }

  /** The tenant's number if it has one yet (a read: no row holds a number not given out). */
  find(tenantId: string): number | undefined {
    return this.refs.get(tenantId);
  }

  refOf(tenantId: string): number {
    let ref = this.refs.get(tenantId);
    if (ref === undefined) this.refs.set(tenantId, (ref = this.next++));
    return ref;
  }
}

/** CommittedKeys' scope of the tenant numbers committed. */
const TENANT_SCOPE = 't';

/**
 * Inserts into metric_tenants the numbers `tenants` (tenant id to TenantRefs number) used in the open transaction
 * that were not committed before (`known`); returns their keys, for known.commit() after COMMIT. Samples and log rows
 * (log-appender.ts) both hold a tenant's number.
 */
export async function recordTenants(c: DuckDBConnection, tenants: ReadonlyMap<string, number>, known: CommittedKeys,
): Promise<CommittedKey[]> {
  const added: CommittedKey[] = [];
  for (const [tenantId, ref] of tenants) {
    if (known.has(TENANT_SCOPE, tenantId)) continue;
    // A number committed by an earlier process is already there; a number another tenant holds is refused (UNIQUE).
    await c.run('INSERT INTO metric_tenants VALUES ($1, $2) ON CONFLICT (tenant_id) DO NOTHING', [tenantId, BigInt(ref)]);
    added.push([TENANT_SCOPE, tenantId]);
  }
  return added;
}

/**
 * Gives every tenant id in `table`'s `tenant_id` column that has no number yet the next ones, in id order: the
 * migrations of a file written before the numbers (metric_samples here, logs in log-tenants.ts).
 */
export async function numberTenantsOf(c: DuckDBConnection, table: 'metric_samples' | 'logs'): Promise<void> {
  await c.run('INSERT INTO metric_tenants SELECT tenant_id, ' +
    '(SELECT coalesce(max(tenant_ref), 0) FROM metric_tenants) + row_number() OVER (ORDER BY tenant_id) ' +
    `FROM (SELECT DISTINCT tenant_id FROM ${table} WHERE tenant_id NOT IN (SELECT tenant_id FROM metric_tenants))`);
}

/**
 * A file written before the tenant numbers (metric_samples with tenant_id and name columns) is rewritten into the
 * layout above, inside the open's transaction (duckdb-store.ts): each tenant that has samples gets a number.
 */
export async function migrateSampleTenants(c: DuckDBConnection): Promise<void> {
  if (!(await tableColumns(c, 'metric_samples')).includes('tenant_id')) return;
  await numberTenantsOf(c, 'metric_samples');
  await c.run(samplesTableSql('metric_samples_by_ref'));
  await c.run('INSERT INTO metric_samples_by_ref SELECT t.tenant_ref, s.series_id, s.time_ms, s.value, s.stale ' +
    'FROM metric_samples s JOIN metric_tenants t USING (tenant_id)');
  await c.run('DROP TABLE metric_samples');
  await c.run('ALTER TABLE metric_samples_by_ref RENAME TO metric_samples');
}
