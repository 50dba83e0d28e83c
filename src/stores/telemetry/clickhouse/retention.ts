// Retention (deleteOlderThan) on ClickHouse. Retention is per tenant (its tier), while a day partition holds every
// tenant's rows of that day, so a partition cannot simply be dropped for one tenant: another tenant, on a longer
// retention or backfilling, may have rows in it — even rows inserted while this runs. What is done instead:
// - a lightweight DELETE scoped to the tenant and the cut: rows vanish from reads at once, and the sort key (tenant
//   first) and the day partitions (schema.ts) keep the mutation to the granules of that tenant's old days;
// - merges then rewrite those parts without the rows; a day partition every tenant has aged out of ends up empty and
//   its parts are removed whole by the engine.
// clickhouse.md warns against `ALTER … DELETE` per batch (bifrost #7098): this runs once per tenant per sweep
// (SIGHTLINE_SWEEP_INTERVAL_MS, hourly), not per write.
import type { ChExecutor } from './executor.js';
import { int64, num } from './values.js';

export interface RetentionTarget {
  table: string;
  /** The time column and the unit it counts in. */
  column: string;
  unit: 'ns' | 'ms';
  /** Whether its rows count in deleteOlderThan's result (a lookup table's rows are not data the tenant sent). */
  counted: boolean;
}

/** Deletes the tenant's rows before `beforeNs` from every target; returns how many counted rows went. */
export async function deleteOlderThan(exec: ChExecutor, targets: readonly RetentionTarget[], tenantId: string, beforeNs: bigint): Promise<number> {
  let deleted = 0;
  for (const t of targets) {
    const cut = t.unit === 'ns' ? beforeNs : floorDiv(beforeNs, 1_000_000n);
    const where = `tenant_id = {tenant:String} AND ${t.column} < {cut:Int64}`;
    const params = { tenant: tenantId, cut: int64(cut) };
    const rows = await exec.query(`SELECT count() AS n FROM ${t.table} WHERE ${where}`, params);
    const n = num(rows[0]?.n ?? 0);
    if (n === 0) continue;
    // lightweight_deletes_sync = 2 (the default) returns once the rows are masked: the next read does not see them.
    await exec.command(`DELETE FROM ${t.table} WHERE ${where}`, params);
    if (t.counted) deleted += n;
  }
  return deleted;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}
