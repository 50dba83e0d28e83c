// The log half of the detectors' `min_history` read (DESIGN §8; telemetry-store.ts oldestData), for every dialect:
// when the tenant's oldest entry matching a filter was stored. Parameters only.
import type { Filter } from '../../../model/logsql-ast.js';
import type { SqlDb } from './dialect.js';
import { logsBaseSql } from './logsql-filter.js';
import { bigint } from './logsql-reads.js';
import { SqlParams } from './params.js';

/** Browser RUM arrives as OTLP from a browser SDK (ingest/formats/otlp-logs.ts: `telemetry.sdk.language` webjs). */
const RUM_FILTER: Filter = { kind: 'exact', field: 'telemetry.sdk.language', value: 'webjs' };

/** Unix ns of the tenant's oldest log entry passing `filter` (RUM entries only with `rum`); null when none. */
export async function oldestLogNs(db: SqlDb, tenantId: string, filter: Filter, rum: boolean): Promise<bigint | null> {
  const p = SqlParams.forTenant(db, tenantId);
  const where = rum ? { kind: 'and' as const, filters: [filter, RUM_FILTER] } : filter;
  const sql = `SELECT ${db.dialect.minOrNull('time_ns')} AS t FROM (${logsBaseSql(where, {}, p)}) AS l`;
  const t = (await db.all(...p.finish(sql)))[0]?.t;
  return t === null || t === undefined ? null : bigint(t);
}
