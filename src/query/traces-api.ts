// Trace read-back (issue 4): one whole trace by id, and a trace search.
import type { Router } from '../front-doors/router.js';
import { sendJson } from '../front-doors/reply.js';
import type { TelemetryStore, TraceFilter } from '../stores/telemetry/telemetry-store.js';
import type { Span } from '../model/span.js';
import { errors } from '../errors.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import { intParam, timeParam, toJson } from './request-params.js';

export function registerTracesRoutes(router: Router, deps: TenantGuardDeps & { telemetry: TelemetryStore }): void {
  router.on('GET', '/api/v1/tenants/:tenant/traces/:traceId', guarded(deps, 'read', true, async (ctx, grant) => {
    const traceId = (ctx.params.traceId ?? '').toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(traceId)) throw errors.badRequest('trace id must be 32 hex characters');
    const spans = await deps.telemetry.getTrace(grant.tenant.id, traceId);
    if (spans.length === 0) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { trace_id: traceId, spans: spans.map(renderSpan) });
  }));

  router.on('GET', '/api/v1/tenants/:tenant/traces', guarded(deps, 'read', true, async (ctx, grant) => {
    const q = ctx.query;
    const nowMs = deps.clock.now();
    const filter: TraceFilter = { range: {}, limit: intParam(q, 'limit', 20, 1000) };
    const service = q.get('service');
    const name = q.get('name');
    const minMs = q.get('min_duration_ms');
    if (service) filter.service = service;
    if (name) filter.name = name;
    const status = q.get('status');
    if (status) {
      if (status !== 'error') throw errors.badRequest('status must be "error" (traces with a failed span)');
      filter.status = 'error';
    }
    if (minMs) {
      if (!/^\d+(\.\d+)?$/.test(minMs)) throw errors.badRequest('min_duration_ms must be a number');
      filter.minDurationNs = BigInt(Math.round(Number(minMs) * 1e6));
    }
    const start = timeParam(q, 'start', nowMs);
    const end = timeParam(q, 'end', nowMs);
    if (start !== undefined) filter.range.startNs = start;
    if (end !== undefined) filter.range.endNs = end;
    const traces = await deps.telemetry.findTraces(grant.tenant.id, filter);
    const body = traces.map((t) => ({
      trace_id: t.traceId, root_service: t.rootService, root_name: t.rootName,
      start_ns: t.startNs.toString(), duration_ns: t.durationNs.toString(), span_count: t.spanCount, error_count: t.errorCount,
    }));
    ctx.res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
    ctx.res.end(toJson({ traces: body }));
  }));
}

/** DESIGN §4: ids in lowercase hex, times in ns strings. */
function renderSpan(s: Span): Record<string, unknown> {
  return {
    trace_id: s.traceId, span_id: s.spanId, parent_span_id: s.parentSpanId, name: s.name, kind: s.kind,
    start_time_unix_nano: s.startNs.toString(), end_time_unix_nano: (s.startNs + s.durationNs).toString(),
    duration_ns: s.durationNs.toString(),
    status: { code: s.statusCode, message: s.statusMessage }, service: s.service,
    attributes: s.attributes, resource: s.resource,
    events: s.events.map((e) => ({ time_unix_nano: e.timeNs.toString(), name: e.name, attributes: e.attributes })),
    links: s.links.map((l) => ({ trace_id: l.traceId, span_id: l.spanId, attributes: l.attributes })),
  };
}
