// Spans in ClickHouse: the rows a write inserts, and every span read of the store (getTrace, findTraces, and the
// detector and deep-RCA reads, DESIGN §8/§9). Parameters only (issue 11 item 3). OTLP status code 2 is ERROR.
import type { TenantBatch } from '../../../model/batch.js';
import type { Span } from '../../../model/span.js';
import type { SpanDurationGroup, SpanFilter, TimeRange, TraceFilter, TraceSampleFilter, TraceSummary } from '../telemetry-store.js';
import type { ChExecutor, ChParams } from './executor.js';
import { big, int64, limitOf, num, str } from './values.js';
import { eventToJson, linkToJson, rowToSpan } from '../sql/span-rows.js';

export function spanRows(batches: readonly TenantBatch[]): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const { tenantId, batch } of batches) {
    for (const s of batch.spans) {
      rows.push({
        tenant_id: tenantId, service: s.service, name: s.name, start_ns: int64(s.startNs), trace_id: s.traceId,
        span_id: s.spanId, parent_span_id: s.parentSpanId, kind: s.kind & 0xff, duration_ns: int64(s.durationNs),
        status_code: s.statusCode & 0xff, status_message: s.statusMessage, attributes: JSON.stringify(s.attributes),
        resource: JSON.stringify(s.resource), events: JSON.stringify(s.events.map(eventToJson)),
        links: JSON.stringify(s.links.map(linkToJson)),
      });
    }
  }
  return rows;
}

const SPAN_COLUMNS = 'trace_id, span_id, parent_span_id, name, kind, start_ns, duration_ns, status_code, status_message, ' +
  'service, attributes, resource, events, links';


/** WHERE conditions with their parameters; `tenant` is always the first. */
class Where {
  readonly conds = ['tenant_id = {tenant:String}'];
  readonly params: ChParams;
  constructor(tenantId: string) {
    this.params = { tenant: tenantId };
  }
  add(cond: string, name: string, value: unknown): this {
    this.conds.push(cond);
    this.params[name] = value;
    return this;
  }
  range(range: TimeRange): this {
    if (range.startNs !== undefined) this.add('start_ns >= {start:Int64}', 'start', int64(range.startNs));
    if (range.endNs !== undefined) this.add('start_ns < {end:Int64}', 'end', int64(range.endNs));
    return this;
  }
  get sql(): string {
    return this.conds.join(' AND ');
  }
}

export async function getTrace(exec: ChExecutor, tenantId: string, traceId: string): Promise<Span[]> {
  // The trace's first and last start (trace_bounds) bound start_ns, the partition key: only those days are read.
  // Without a bounds row (the view is filled by the spans insert, so a crash could leave one out) every day is read.
  const rows = await exec.query(`
    WITH (SELECT (count(), min(first_ns), max(last_ns)) FROM trace_bounds
          WHERE tenant_id = {tenant:String} AND trace_id = {trace:String}) AS bounds
    SELECT ${SPAN_COLUMNS} FROM spans
    WHERE tenant_id = {tenant:String} AND trace_id = {trace:String}
      AND (bounds.1 = 0 OR start_ns BETWEEN bounds.2 AND bounds.3)
    ORDER BY start_ns, span_id`, { tenant: tenantId, trace: traceId.toLowerCase() });
  return rows.map(rowToSpan);
}

export async function findTraces(exec: ChExecutor, tenantId: string, filter: TraceFilter): Promise<TraceSummary[]> {
  const w = new Where(tenantId).range(filter.range);
  if (filter.service !== undefined) w.add('service = {service:String}', 'service', filter.service);
  if (filter.name !== undefined) w.add('name = {name:String}', 'name', filter.name);
  if (filter.minDurationNs !== undefined) w.add('duration_ns >= {minDur:Int64}', 'minDur', int64(filter.minDurationNs));
  if (filter.status === 'error') w.conds.push('status_code = 2');
  // A trace matches when one of its spans passes every filter; the summary covers all its spans. The root is the
  // span without a parent (the earliest span when the root has not arrived).
  const rows = await exec.query(`
    SELECT trace_id, min(start_ns) AS t_start, max(start_ns + duration_ns) - min(start_ns) AS t_duration,
      count() AS span_count, countIf(status_code = 2) AS error_count,
      if(countIf(parent_span_id = '') > 0, argMinIf(service, start_ns, parent_span_id = ''), argMin(service, start_ns)) AS root_service,
      if(countIf(parent_span_id = '') > 0, argMinIf(name, start_ns, parent_span_id = ''), argMin(name, start_ns)) AS root_name
    FROM spans
    WHERE tenant_id = {tenant:String} AND trace_id IN (SELECT DISTINCT trace_id FROM spans WHERE ${w.sql})
    GROUP BY trace_id ORDER BY t_start DESC, trace_id LIMIT {limit:UInt64}`, { ...w.params, limit: limitOf(filter.limit) });
  return rows.map((r) => ({
    traceId: str(r.trace_id), rootService: str(r.root_service), rootName: str(r.root_name),
    startNs: big(r.t_start), durationNs: big(r.t_duration), spanCount: num(r.span_count), errorCount: num(r.error_count),
  }));
}

/**
 * Spans starting in the range per (service, name): how many, how many failed, and up to `limit` durations in ms
 * ascending. Past `limit`, the spans with the smallest hash of their id: a fixed pseudo-random pick (DESIGN §8).
 */
export async function spanDurations(
  exec: ChExecutor, tenantId: string, range: TimeRange, filter: SpanFilter, limit: number,
): Promise<SpanDurationGroup[]> {
  const w = new Where(tenantId).range(range);
  if (filter.service !== undefined) w.add('service = {service:String}', 'service', filter.service);
  if (filter.name !== undefined) w.add('name = {name:String}', 'name', filter.name);
  const rows = await exec.query(`
    SELECT g.service AS service, g.name AS name, g.n AS n, g.errors AS errors, s.durations AS durations
    FROM (SELECT service, name, count() AS n, countIf(status_code = 2) AS errors FROM spans WHERE ${w.sql}
          GROUP BY service, name) AS g
    LEFT JOIN (
      SELECT service, name, arraySort(groupArray(duration_ns / 1e6)) AS durations
      FROM (SELECT service, name, duration_ns FROM spans WHERE ${w.sql}
            ORDER BY service, name, cityHash64(span_id), span_id LIMIT {limit:UInt64} BY service, name)
      GROUP BY service, name) AS s
    ON g.service = s.service AND g.name = s.name
    ORDER BY service, name`, { ...w.params, limit: limitOf(limit) });
  return rows.map((r) => ({
    service: str(r.service), name: str(r.name), count: num(r.n), errorCount: num(r.errors),
    durationsMs: Array.isArray(r.durations) ? r.durations.map(Number) : [],
  }));
}

/**
 * Every span of at most `limit` traces with a span starting in the range that pass the filter (DESIGN §9 deep RCA);
 * past `limit` the traces with the smallest hash of their id. Spans by trace id, then start.
 */
export async function sampleTraces(
  exec: ChExecutor, tenantId: string, range: TimeRange, filter: TraceSampleFilter, limit: number,
): Promise<Span[]> {
  const w = new Where(tenantId).range(range);
  const having: string[] = [];
  if (filter.service !== undefined) {
    having.push('countIf(service = {service:String}) > 0');
    w.params.service = filter.service;
  }
  if (filter.status === 'error') having.push('countIf(status_code = 2) > 0');
  if (filter.status === 'ok') having.push('countIf(status_code = 2) = 0');
  const rows = await exec.query(`
    SELECT ${SPAN_COLUMNS} FROM spans
    WHERE tenant_id = {tenant:String} AND trace_id IN (
      SELECT trace_id FROM spans WHERE ${w.sql}
      GROUP BY trace_id ${having.length > 0 ? `HAVING ${having.join(' AND ')}` : ''}
      ORDER BY cityHash64(trace_id), trace_id LIMIT {limit:UInt64})
    ORDER BY trace_id, start_ns, span_id`, { ...w.params, limit: limitOf(limit) });
  return rows.map(rowToSpan);
}

/** Unix ns of the tenant's first span start, null when it has none. */
export async function oldestSpanNs(exec: ChExecutor, tenantId: string): Promise<unknown> {
  const rows = await exec.query('SELECT minOrNull(start_ns) AS t FROM spans WHERE tenant_id = {tenant:String}', { tenant: tenantId });
  return rows[0]?.t ?? null;
}
