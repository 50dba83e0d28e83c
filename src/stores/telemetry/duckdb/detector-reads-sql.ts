// The two reads detectors need beyond the query API (DESIGN §8; detectors/model.ts DetectorData): span durations
// per (service, span name) over a window, for `trace_latency`, and the time of a signal's oldest stored data, for
// the `min_history` eligibility check. Parameters only, as everywhere in this store.
import type { LogsqlQuery } from '../../../model/logsql-ast.js';
import type { OldestDataQuery, SpanDurationGroup, SpanFilter, TimeRange } from '../telemetry-store.js';
import type { SqlDb, SqlExecutor, SqlParam } from '../sql/dialect.js';
import { oldestLogNs } from '../sql/oldest-logs.js';
import { TENANT_REF_SQL } from './sample-tenants.js';

/**
 * Spans starting in the range, grouped by (service, name): how many, how many with status ERROR (OTLP status code
 * 2), and up to `limit` durations in ms. Past `limit`, the sample is the spans with the smallest hash of their span id:
 * a fixed pseudo-random pick, so the sample keeps the window's shape and the same data gives the same sample.
 */
export async function spanDurations(
  exec: SqlExecutor, tenantId: string, range: TimeRange, filter: SpanFilter, limit: number,
): Promise<SpanDurationGroup[]> {
  const params: SqlParam[] = [tenantId];
  const where = ['tenant_id = $1'];
  const add = (cond: string, v: SqlParam): void => {
    params.push(v);
    where.push(cond.replace('?', `$${params.length}`));
  };
  if (filter.service !== undefined) add('service = ?', filter.service);
  if (filter.name !== undefined) add('name = ?', filter.name);
  if (range.startNs !== undefined) add('start_ns >= ?', range.startNs);
  if (range.endNs !== undefined) add('start_ns < ?', range.endNs);
  params.push(BigInt(Math.max(0, Math.trunc(Number.isFinite(limit) ? limit : 0))));
  const rows = await exec.all(`
    WITH s AS (
      SELECT service, name, duration_ns, status_code,
        row_number() OVER (PARTITION BY service, name ORDER BY hash(span_id), span_id) AS pick
      FROM spans WHERE ${where.join(' AND ')})
    SELECT service, name, count(*) AS n, count(*) FILTER (WHERE status_code = 2) AS errors,
      list(duration_ns / 1e6 ORDER BY duration_ns) FILTER (WHERE pick <= $${params.length}) AS durations
    FROM s GROUP BY service, name ORDER BY service, name`, params);
  return rows.map((r) => ({
    service: typeof r.service === 'string' ? r.service : '',
    name: typeof r.name === 'string' ? r.name : '',
    count: Number(r.n),
    errorCount: Number(r.errors),
    durationsMs: Array.isArray(r.durations) ? r.durations.map(Number) : [],
  }));
}

/**
 * Unix ms of the oldest stored data of the signal (matching the query when one is given); null when none. `exec`
 * speaks the dialect of the store's promoted field columns, which a log query's filter may read.
 */
export async function oldestData(exec: SqlDb, tenantId: string, what: OldestDataQuery): Promise<number | null> {
  switch (what.signal) {
    case 'logs':
    case 'rum': {
      const base: LogsqlQuery['filter'] = what.query?.filter ?? { kind: 'all' };
      return nsToMs(await oldestLogNs(exec, tenantId, base, what.signal === 'rum'));
    }
    case 'traces': {
      const rows = await exec.all('SELECT min(start_ns) AS t FROM spans WHERE tenant_id = $1', [tenantId]);
      return nsToMs(rows[0]?.t);
    }
    case 'metrics': {
      // By metric name only: the name is the selective part of a selector, and a series with other labels that
      // has been there as long says the same about the history the data has.
      const names = what.names ?? [];
      const inList = names.map((_, i) => `$${i + 2}`).join(', ');
      const rows = await exec.all(
        `SELECT min(time_ms) AS t FROM metric_samples WHERE tenant_ref = ${TENANT_REF_SQL}` + (names.length > 0
          ? ` AND series_id IN (SELECT series_id FROM metric_series WHERE tenant_id = $1 AND name IN (${inList}))` : ''),
        [tenantId, ...names]);
      const t = rows[0]?.t;
      return t === null || t === undefined ? null : Number(t);
    }
  }
}

function nsToMs(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const ns = typeof v === 'bigint' ? v : typeof v === 'number' || typeof v === 'string' ? BigInt(v) : null;
  if (ns === null) return null;
  // Floor division, also for times before 1970.
  const ms = ns / 1_000_000n - (ns % 1_000_000n < 0n ? 1n : 0n);
  return Number(ms);
}
