// The detectors and alerts API (DESIGN §8): the catalog (any valid key or session), a tenant's detectors (reads with
// scope `read`; writes with scope `admin` or a member's session, DESIGN §7), a preview over past data, the alerts
// list, and the operator's POST /admin/v1/detectors/evaluate. Detectors count against no ceiling, and the catalog
// and every route are the same on every tier (spec "Plans"); each request counts against the query rate as any
// tenant request does, and the reads a creation or preview makes count too (alert evaluation is a read).
import type { RequestContext } from '../../front-doors/context.js';
import type { Router } from '../../front-doors/router.js';
import { readJsonObject } from '../../front-doors/json-body.js';
import { asServiceError, sendEmpty, sendError, sendJson } from '../../front-doors/reply.js';
import { errors } from '../../errors.js';
import type { AppGrant } from '../../auth/sessions.js';
import type { ControlStore, KeyGrant } from '../../stores/control/control-store.js';
import { ALERT_STATES, type Detector, type DetectorPatch, type StoredAlertState } from '../../stores/control/detector-records.js';
import type { EffectivePlan } from '../../limits/plans.js';
import { requireAdminToken } from '../../admin/admin-api.js';
import { CONTENT_WRITE, guarded, type GrantedHandler, type TenantGuardDeps } from '../../query/tenant-route.js';
import type { DetectorKind, KindSpec } from '../model.js';
import { EvaluationDeferred } from '../engine/data.js';
import type { DetectorEngine } from '../engine/engine.js';
import { MAX_PREVIEW_STEPS } from '../engine/preview.js';
import { parseDurationMs } from '../../query/promql/literals.js';
import { detectorDefaults, readDetectorBody } from './detector-body.js';
import { checkEligible, DetectorIneligible } from './eligibility.js';
import { countAlerts, emptyCounts, renderAlert, renderDetector, renderPeriod, renderTransition, sortAlerts } from './render.js';

export interface DetectorServices {
  kinds: ReadonlyMap<string, DetectorKind>;
  catalog(): { kinds: KindSpec[] };
  engine: DetectorEngine;
  /** SIGHTLINE_EVAL_INTERVAL_MS (a new detector's default interval). */
  evalIntervalMs: number;
}

export interface DetectorApiDeps extends TenantGuardDeps {
  store: ControlStore;
  planOf: (grant: KeyGrant) => EffectivePlan;
  detectors: DetectorServices;
  adminToken: string;
}

const DEFAULT_PREVIEW_MS = 6 * 3_600_000;

/** Writes: scope `admin` for an API key; a session's role is checked by the guard (a viewer is refused). */
function requireWriter(grant: AppGrant): void {
  if (!grant.session && !grant.key.scopes.includes('admin')) throw errors.missingScope('admin');
}

/** A preview bound: RFC 3339 or unix seconds. */
function timeParam(q: URLSearchParams | Record<string, unknown>, name: string): number | undefined {
  const v = q instanceof URLSearchParams ? q.get(name) ?? undefined : q[name];
  if (v === undefined || v === null || v === '') return undefined;
  const ms = typeof v === 'number' ? v * 1000 : typeof v === 'string' ? (/^\d+(\.\d+)?$/.test(v) ? Number(v) * 1000 : Date.parse(v)) : NaN;
  if (!Number.isFinite(ms)) throw errors.badRequest(`${name} must be an RFC 3339 time or unix seconds`);
  return Math.trunc(ms);
}

/** A preview step: seconds, or a duration such as "5m". */
function stepParam(q: URLSearchParams | Record<string, unknown>): number | undefined {
  const v = q instanceof URLSearchParams ? q.get('step') ?? undefined : q.step;
  if (v === undefined || v === null || v === '') return undefined;
  const ms = typeof v === 'number' ? v * 1000 : typeof v === 'string' ? (/^\d+(\.\d+)?$/.test(v) ? Number(v) * 1000 : parseDurationMs(v)) : undefined;
  if (ms === undefined || !Number.isFinite(ms)) throw errors.badRequest('step must be seconds or a duration such as "5m"');
  return Math.trunc(ms);
}

/** What a new detector goes through, wherever it comes from (the POST below, or a playbook's stated bound). */
export interface DetectorChecks {
  /** The eligibility check of a kind and its parameters (422 DetectorIneligible when it fails). */
  check: (grant: KeyGrant, d: Pick<Detector, 'kind' | 'params'>) => () => Promise<unknown>;
  /** Every channel a detector names must be one of its tenant's (an alert must not go nowhere). */
  checkChannels: (grant: KeyGrant, ids: readonly string[] | undefined) => Promise<void>;
  /** Reads a POST body (400), checks it (422) and stores the detector; the engine picks it up at once. */
  create: (grant: KeyGrant, raw: Record<string, unknown>) => Promise<Detector>;
}

export function detectorChecks(deps: Pick<DetectorApiDeps, 'store' | 'detectors' | 'planOf' | 'clock'>): DetectorChecks {
  const { store, detectors: svc } = deps;
  const check = (grant: KeyGrant, d: Pick<Detector, 'kind' | 'params'>) => async () => checkEligible({
    kinds: svc.kinds, kind: d.kind, params: d.params, plan: deps.planOf(grant),
    data: await svc.engine.dataFor({ tenantId: grant.tenant.id, accountId: grant.account.id }), nowMs: deps.clock.now(),
  });
  const checkChannels = async (grant: KeyGrant, ids: readonly string[] | undefined): Promise<void> => {
    for (const id of ids ?? []) {
      const c = await store.getChannel(id);
      if (!c || c.tenantId !== grant.tenant.id) throw errors.badRequest(`channel_ids: no notification channel ${JSON.stringify(id)} in this tenant`);
    }
  };
  const create = async (grant: KeyGrant, raw: Record<string, unknown>): Promise<Detector> => {
    const body = readDetectorBody(raw, true);
    const input = { ...detectorDefaults(svc.evalIntervalMs), ...body, tenantId: grant.tenant.id, accountId: grant.account.id };
    const name = body.name ?? '';
    const kind = body.kind ?? '';
    await checkChannels(grant, body.channelIds);
    await check(grant, { kind, params: input.params })();
    const created = await store.createDetector({ ...input, name, kind });
    svc.engine.refresh();
    return created;
  };
  return { check, checkChannels, create };
}

export function registerDetectorRoutes(router: Router, deps: DetectorApiDeps): void {
  const { store, detectors: svc } = deps;
  const base = '/api/v1/tenants/:tenant/detectors';
  const now = (): number => deps.clock.now();

  /** A handler whose DetectorIneligible becomes the 422 with its condition beside the detail. */
  const eligible = (fn: GrantedHandler): GrantedHandler => async (ctx, grant) => {
    try {
      await fn(ctx, grant);
    } catch (e) {
      if (e instanceof EvaluationDeferred) throw errors.queryRate(e.retryAfterS);
      if (!(e instanceof DetectorIneligible)) throw e;
      deps.refusals.count(grant.tenant.id, e.error.reason);
      sendError(ctx.res, e.error, 'logs', {}, e.extra());
    }
  };
  const own = async (grant: KeyGrant, ctx: RequestContext): Promise<Detector> => {
    const d = await store.getDetector(ctx.params.id ?? '');
    if (!d || d.tenantId !== grant.tenant.id) throw errors.notFound(ctx.path);
    return d;
  };
  const { check, checkChannels, create } = detectorChecks(deps);
  const render = async (d: Detector): Promise<Record<string, unknown>> => renderDetector(
    d, await store.getDetectorRunState(d.id), countAlerts(await store.listAlerts(d.tenantId, { detectorId: d.id })).get(d.id) ?? emptyCounts(),
    svc.kinds.get(d.kind),
  );

  router.on('GET', '/api/v1/detectors/catalog', guarded(deps, 'any', false, (ctx) => {
    sendJson(ctx.res, 200, svc.catalog());
    return Promise.resolve();
  }));

  router.on('GET', base, guarded(deps, 'read', true, async (ctx, grant) => {
    const [list, runs, alerts] = await Promise.all([
      store.listDetectors(grant.tenant.id), store.listDetectorRunStates(grant.tenant.id), store.listAlerts(grant.tenant.id),
    ]);
    const runOf = new Map(runs.map((r) => [r.detectorId, r]));
    const counts = countAlerts(alerts);
    sendJson(ctx.res, 200, {
      detectors: list.map((d) => renderDetector(d, runOf.get(d.id) ?? null, counts.get(d.id) ?? emptyCounts(), svc.kinds.get(d.kind))),
    });
  }));

  router.on('POST', base, guarded(deps, 'read', true, eligible(async (ctx, grant) => {
    requireWriter(grant);
    const created = await create(grant, await readJsonObject(ctx));
    sendJson(ctx.res, 201, { detector: await render(created) });
  }), CONTENT_WRITE));

  router.on('GET', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    sendJson(ctx.res, 200, { detector: await render(await own(grant, ctx)) });
  }));

  router.on('PUT', `${base}/:id`, guarded(deps, 'read', true, eligible(async (ctx, grant) => {
    requireWriter(grant);
    const current = await own(grant, ctx);
    const patch: DetectorPatch = readDetectorBody(await readJsonObject(ctx), false);
    const kind = patch.kind ?? current.kind;
    const params = patch.params ?? current.params;
    const redefined = kind !== current.kind || JSON.stringify(params) !== JSON.stringify(current.params);
    await checkChannels(grant, patch.channelIds);
    if (redefined) await check(grant, { kind, params })();
    const updated = await store.withDetectorLock(current.id, async (tx, locked) => {
      // Disabling resolves what it had firing (with notices); a new kind or parameters start the kind's memory afresh.
      if (patch.enabled === false && locked.enabled) await svc.engine.retireAlerts(tx, locked, 'detector disabled');
      if (redefined) {
        const run = await tx.getDetectorRunState(locked.id);
        if (run) await tx.saveDetectorRunState({ ...run, kindState: {} });
      }
      return tx.updateDetector(locked.id, patch);
    });
    if (!updated) throw errors.notFound(ctx.path);
    svc.engine.refresh();
    sendJson(ctx.res, 200, { detector: await render(updated) });
  }), CONTENT_WRITE));

  router.on('DELETE', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    requireWriter(grant);
    const d = await own(grant, ctx);
    const gone = await store.withDetectorLock(d.id, async (tx, locked) => {
      await svc.engine.retireAlerts(tx, locked, 'detector deleted');
      return tx.deleteDetector(locked.id);
    });
    if (gone !== true) throw errors.notFound(ctx.path);
    svc.engine.refresh();
    sendEmpty(ctx.res, 204);
  }, CONTENT_WRITE));

  const preview = async (ctx: RequestContext, d: Detector, source: URLSearchParams | Record<string, unknown>): Promise<void> => {
    const endMs = timeParam(source, 'end') ?? now();
    const startMs = timeParam(source, 'start') ?? endMs - DEFAULT_PREVIEW_MS;
    const stepMs = stepParam(source) ?? d.intervalS * 1000;
    if (endMs <= startMs) throw errors.badRequest('end must be after start');
    if (stepMs < 1000) throw errors.badRequest('step must be at least 1 s');
    const steps = Math.floor((endMs - startMs) / stepMs) + 1;
    if (steps > MAX_PREVIEW_STEPS) {
      throw errors.badRequest(`the preview would run ${steps} evaluations; at most ${MAX_PREVIEW_STEPS}: shorten the range or raise step`);
    }
    const r = await svc.engine.preview(d, { startMs, endMs, stepMs });
    sendJson(ctx.res, 200, {
      start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString(), step_s: stepMs / 1000,
      evaluations: r.evaluations, queries: r.queries, errors: r.errors,
      firing: r.firing.map(renderPeriod), transitions: r.transitions.map(renderTransition), alerts: sortAlerts(r.alerts).map(renderAlert),
    });
  };

  router.on('GET', `${base}/:id/preview`, guarded(deps, 'read', true, eligible(async (ctx, grant) => {
    await preview(ctx, await own(grant, ctx), ctx.query);
  })));

  // The create form's preview: the body of a detector not saved yet, checked as a creation would be.
  router.on('POST', `${base}/preview`, guarded(deps, 'read', true, eligible(async (ctx, grant) => {
    const raw = await readJsonObject(ctx);
    const body = readDetectorBody(raw, true);
    const input = { ...detectorDefaults(svc.evalIntervalMs), ...body, name: body.name ?? '', kind: body.kind ?? '' };
    await check(grant, input)();
    const d: Detector = { ...input, id: 'preview', tenantId: grant.tenant.id, accountId: grant.account.id, createdAt: now(), updatedAt: now() };
    await preview(ctx, d, raw);
  })));

  router.on('GET', '/api/v1/tenants/:tenant/alerts', guarded(deps, 'read', true, async (ctx, grant) => {
    const wanted = ctx.query.getAll('state').flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
    const states = wanted.map((s) => {
      const state = ALERT_STATES.find((x) => x === s);
      if (!state) throw errors.badRequest(`state must be one of ${ALERT_STATES.join(', ')}`);
      return state;
    });
    const detectorId = ctx.query.get('detector_id') ?? undefined;
    const filter: { states?: StoredAlertState[]; detectorId?: string } = {};
    if (states.length > 0) filter.states = states;
    if (detectorId !== undefined && detectorId !== '') filter.detectorId = detectorId;
    const alerts = sortAlerts(await store.listAlerts(grant.tenant.id, filter));
    sendJson(ctx.res, 200, { alerts: alerts.map(renderAlert) });
  }));

  router.on('GET', '/api/v1/tenants/:tenant/alerts/:fingerprint', guarded(deps, 'read', true, async (ctx, grant) => {
    const found = await store.listAlerts(grant.tenant.id, { fingerprint: ctx.params.fingerprint ?? '' });
    const [alert] = found;
    if (!alert) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { alert: renderAlert(alert) });
  }));

  // DESIGN §8: one pass now → {evaluated, firing, resolved} (and pending, errors, deferred); a body may narrow it
  // to one tenant or detector.
  router.on('POST', '/admin/v1/detectors/evaluate', async (ctx) => {
    try {
      requireAdminToken(ctx, deps.adminToken);
      const body = await readJsonObject(ctx);
      const filter: { tenantId?: string; detectorId?: string } = {};
      if (typeof body.tenant_id === 'string') filter.tenantId = body.tenant_id;
      if (typeof body.detector_id === 'string') filter.detectorId = body.detector_id;
      sendJson(ctx.res, 200, await svc.engine.runPass(filter));
    } catch (e) {
      sendError(ctx.res, asServiceError(e, deps.log), 'logs');
    }
  });
}
