// Whole traces sampled from a window, for deep root-cause analysis (DESIGN §9 `ai/deep-rca`, issue 10 item 3): error
// propagation and critical paths need every span of a trace with its parent, and picking "traces with an error"
// or "traces without one" among many must not cost one getTrace per candidate. One statement: choose the traces,
// then return all their spans. Parameters only, as everywhere in this store.
import type { TimeRange, TraceSampleFilter } from '../telemetry-store.js';
import type { SqlParam } from '../sql/dialect.js';

/**
 * SQL and parameters for the spans of at most `limit` traces that have a span starting in the range and pass the
 * filter (a span of `service`; some span with status ERROR, or none). Past `limit`, the traces with the smallest
 * hash of their id: a fixed pseudo-random pick, so the sample keeps the window's shape and the same data gives the
 * same sample. Spans come ordered by trace id, then start time.
 */
export function sampleTracesSql(
  tenantId: string, range: TimeRange, filter: TraceSampleFilter, limit: number,
): { sql: string; params: SqlParam[] } {
  const params: SqlParam[] = [tenantId];
  const add = (v: SqlParam): string => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = ['tenant_id = $1'];
  if (range.startNs !== undefined) where.push(`start_ns >= ${add(range.startNs)}`);
  if (range.endNs !== undefined) where.push(`start_ns < ${add(range.endNs)}`);
  const having: string[] = [];
  if (filter.service !== undefined) having.push(`bool_or(service = ${add(filter.service)})`);
  // OTLP status code 2 is ERROR (model/span.ts).
  if (filter.status === 'error') having.push('bool_or(status_code = 2)');
  if (filter.status === 'ok') having.push('NOT bool_or(status_code = 2)');
  const n = add(BigInt(Math.max(0, Math.trunc(Number.isFinite(limit) ? limit : 0))));
  const sql = `
    WITH picked AS (
      SELECT trace_id FROM spans WHERE ${where.join(' AND ')}
      GROUP BY trace_id ${having.length > 0 ? `HAVING ${having.join(' AND ')}` : ''}
      ORDER BY hash(trace_id), trace_id LIMIT ${n})
    SELECT s.* FROM spans s JOIN picked p ON s.trace_id = p.trace_id
    WHERE s.tenant_id = $1 ORDER BY s.trace_id, s.start_ns, s.span_id`;
  return { sql, params };
}
