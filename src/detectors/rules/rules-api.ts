// Rule files over HTTP (DESIGN §8 "Rule files"): `POST …/tenants/<t>/detectors/import` takes a Prometheus / vmalert
// rule file (YAML) and creates a detector per alerting rule through the same steps as POST …/detectors (the body
// reader, the defaults, the eligibility check: a rule the creation would refuse is skipped with that refusal), and
// `GET …/detectors/export?type=prometheus|vlogs` writes the tenant's threshold detectors back as a rule file.
// Importing the same file twice creates nothing new: a rule whose detector exists (same name, kind and parameters)
// is skipped. `?channel_ids=nch_a,nch_b` names the channels every imported detector notifies. A malformed file is a
// 400 that names the line (also as `line` in the body).
import type { Router } from '../../front-doors/router.js';
import { sendError, sendJson } from '../../front-doors/reply.js';
import { readBody } from '../../ingest/body.js';
import { errors, ServiceError } from '../../errors.js';
import type { AppGrant } from '../../auth/sessions.js';
import type { NewDetector } from '../../stores/control/detector-records.js';
import { CONTENT_WRITE, guarded } from '../../query/tenant-route.js';
import { requireWriter } from '../../query/notification-channels-api.js';
import { EvaluationDeferred } from '../engine/data.js';
import type { DetectorApiDeps } from '../api/detectors-api.js';
import { detectorDefaults, readDetectorBody } from '../api/detector-body.js';
import { checkEligible, DetectorIneligible } from '../api/eligibility.js';
import { convertRule } from './convert.js';
import { exportRuleFile, type ExportType } from './export.js';
import { parseRuleFile, RuleFileError } from './rule-file.js';

const MAX_RULE_FILE = 1024 * 1024;

interface Skipped { group: string; rule: string; line: number; reason: string; condition?: string }

/** JSON with object keys sorted: jsonb hands objects back in its own key order. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
}

const keyOf = (d: Pick<NewDetector, 'name' | 'kind' | 'params'>): string => JSON.stringify(canonical([d.name, d.kind, d.params]));

function exportType(v: string | null): ExportType {
  if (v === null || v === '' || v === 'all') return 'all';
  if (v === 'prometheus' || v === 'vlogs') return v;
  throw errors.badRequest('type must be prometheus, vlogs or all');
}

export function registerRuleFileRoutes(router: Router, deps: DetectorApiDeps): void {
  const { store, detectors: svc } = deps;
  const base = '/api/v1/tenants/:tenant/detectors';

  const channelsOf = async (grant: AppGrant, text: string | null): Promise<string[] | undefined> => {
    if (text === null || text.trim() === '') return undefined;
    const ids = [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
    for (const id of ids) {
      const c = await store.getChannel(id);
      if (!c || c.tenantId !== grant.tenant.id) throw errors.badRequest(`channel_ids: ${id} is not a notification channel of this tenant`);
    }
    return ids;
  };

  router.on('POST', `${base}/import`, guarded(deps, 'read', true, async (ctx, grant) => {
    requireWriter(grant);
    const channelIds = await channelsOf(grant, ctx.query.get('channel_ids'));
    const source = (await readBody(ctx.req, MAX_RULE_FILE)).toString('utf8');
    let groups;
    try {
      groups = parseRuleFile(source);
    } catch (e) {
      if (!(e instanceof RuleFileError)) throw e;
      sendError(ctx.res, errors.badRequest(`rule file ${e.message}`), 'logs', {}, { line: e.line });
      return;
    }
    const defaults = detectorDefaults(svc.evalIntervalMs);
    const existing = new Map((await store.listDetectors(grant.tenant.id)).map((d) => [keyOf(d), d.id]));
    const data = await svc.engine.dataFor({ tenantId: grant.tenant.id, accountId: grant.account.id });
    const created: Record<string, unknown>[] = [];
    const skipped: Skipped[] = [];
    try {
      for (const g of groups) {
        for (const r of g.rules) {
          const at = { group: g.name, rule: r.alert ?? r.record ?? '', line: r.line };
          const converted = convertRule(g, r);
          if (!converted.ok) {
            skipped.push({ ...at, reason: converted.reason });
            continue;
          }
          try {
            const body = readDetectorBody({ ...converted.body }, true);
            const input: NewDetector = {
              ...defaults, ...body, name: body.name ?? '', kind: body.kind ?? '', tenantId: grant.tenant.id, accountId: grant.account.id,
            };
            // vmalert's window is the evaluation interval when neither the group nor the query names one.
            if (converted.body.kind === 'log_threshold' && converted.body.window_s === undefined) input.windowS = input.intervalS;
            if (channelIds) input.channelIds = channelIds;
            const dup = existing.get(keyOf(input));
            if (dup !== undefined) {
              skipped.push({ ...at, reason: `already imported as ${dup}` });
              continue;
            }
            await checkEligible({ kinds: svc.kinds, kind: input.kind, params: input.params, plan: deps.planOf(grant), data, nowMs: deps.clock.now() });
            const d = await store.createDetector(input);
            existing.set(keyOf(d), d.id);
            created.push({ id: d.id, name: d.name, kind: d.kind, params: d.params, group: g.name, line: r.line });
          } catch (e) {
            if (e instanceof DetectorIneligible) skipped.push({ ...at, reason: e.message, condition: e.condition });
            else if (e instanceof ServiceError && e.status === 400) skipped.push({ ...at, reason: e.detail });
            else throw e;
          }
        }
      }
    } catch (e) {
      // The query rate ran out while checking: what was created stays (a retry skips it as already imported).
      if (e instanceof EvaluationDeferred) throw errors.queryRate(e.retryAfterS);
      throw e;
    } finally {
      if (created.length > 0) svc.engine.refresh();
    }
    sendJson(ctx.res, 200, { created, skipped });
  }, CONTENT_WRITE));

  router.on('GET', `${base}/export`, guarded(deps, 'read', true, async (ctx, grant) => {
    const type = exportType(ctx.query.get('type'));
    const list = await store.listDetectors(grant.tenant.id);
    const text = exportRuleFile(list, type,
      `Sightline detectors of tenant ${grant.tenant.id}, exported ${new Date(deps.clock.now()).toISOString()} (${type === 'all' ? 'prometheus and vlogs groups' : `${type} groups`})`);
    ctx.res.writeHead(200, { 'Content-Type': 'application/yaml; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    ctx.res.end(text);
  }));
}
