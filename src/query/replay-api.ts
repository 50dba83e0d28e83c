// Session replay read-back (issue 5): the sessions in a time range, and one session's rrweb events in order.
import type { Router } from '../front-doors/router.js';
import type { TelemetryStore, TimeRange } from '../stores/telemetry/telemetry-store.js';
import { nsToRfc3339 } from '../model/time.js';
import { errors } from '../errors.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import { intParam, timeParam } from './request-params.js';

export function registerReplayRoutes(router: Router, deps: TenantGuardDeps & { telemetry: TelemetryStore }): void {
  router.on('GET', '/api/v1/tenants/:tenant/replays', guarded(deps, 'read', true, async (ctx, grant) => {
    const nowMs = deps.clock.now();
    const range: TimeRange = {};
    const start = timeParam(ctx.query, 'start', nowMs);
    const end = timeParam(ctx.query, 'end', nowMs);
    if (start !== undefined) range.startNs = start;
    if (end !== undefined) range.endNs = end;
    const sessions = await deps.telemetry.listReplays(grant.tenant.id, range, intParam(ctx.query, 'limit', 100, 10_000));
    const body = JSON.stringify({
      sessions: sessions.map((s) => ({
        session_id: s.sessionId, start: nsToRfc3339(s.startNs), end: nsToRfc3339(s.endNs),
        chunks: s.chunks, events: s.events, page: s.page, user: s.user,
      })),
    });
    ctx.res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    ctx.res.end(body);
  }));

  router.on('GET', '/api/v1/tenants/:tenant/replays/:sessionId', guarded(deps, 'read', true, async (ctx, grant) => {
    const sessionId = ctx.params.sessionId ?? '';
    const chunks = await deps.telemetry.getReplay(grant.tenant.id, sessionId);
    if (chunks.length === 0) throw errors.notFound(ctx.path);
    // The events are stored as the browser sent them: splice the JSON arrays instead of re-encoding them.
    const events = chunks.map((c) => c.eventsJson.slice(1, -1)).filter((s) => s.trim() !== '').join(',');
    const head = JSON.stringify({ session_id: sessionId, chunks: chunks.length, page: chunks[0]?.page ?? '', user: chunks[0]?.user ?? '' });
    const body = `${head.slice(0, -1)},"events":[${events}]}`;
    ctx.res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    ctx.res.end(body);
  }));
}
