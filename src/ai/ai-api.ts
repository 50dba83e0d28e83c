// The AI endpoints (DESIGN §9): natural-language query, root-cause hypotheses, deep root-cause analysis and playbook
// import, under /api/v1/tenants/<t>/ai/. Each request passes the tenant guard (credential, scope, tenant, query
// rate), then the plan's AI gate and the day's credits (DESIGN §6 order of checks: the plan gate and a spent quota
// come before the body is read), then runs. Credits are drawn before the work; a request that fails after the draw —
// a bad body, a question that cannot be placed, a failed analysis — gets them back (issue 10 item 5). Every reply
// carries `credits: {cost, used_today, remaining}` and `evidence.queries`, the exact queries the analysis ran.
import type { Router } from '../front-doors/router.js';
import type { RequestContext } from '../front-doors/context.js';
import { readJsonObject } from '../front-doors/json-body.js';
import { sendJson } from '../front-doors/reply.js';
import { errorBody, errors } from '../errors.js';
import type { AppGrant } from '../auth/sessions.js';
import type { AiFeature } from '../limits/ai-credits.js';
import type { AiLedger, AiReceipt } from '../metering/ai-ledger.js';
import { effectivePlan } from '../limits/plans.js';
import type { TelemetryStore } from '../stores/telemetry/telemetry-store.js';
import { CONTENT_WRITE, guarded, type GrantedHandler, type TenantGuardDeps } from '../query/tenant-route.js';
import { Evidence } from './evidence.js';
import { AiUnprocessable, type AiReadContext } from './model.js';
import type { LlmClient } from './llm/llm-client.js';
import { readAiBody, type DeepRcaBody, type PlaybookBody, type QuestionBody, type RcaBody } from './ai-body.js';

/** The four analyses, as the service wires them (ai-features.ts); each returns the JSON of its reply. */
export interface AiFeatures {
  query(body: QuestionBody, ctx: AiReadContext): Promise<Record<string, unknown>>;
  rca(body: RcaBody, ctx: AiReadContext): Promise<Record<string, unknown>>;
  deepRca(body: DeepRcaBody, ctx: AiReadContext): Promise<Record<string, unknown>>;
  /** Imports a runbook for the grant's tenant: creates its saved searches and detectors as the grant may. */
  importPlaybook(body: PlaybookBody, grant: AppGrant, ctx: AiReadContext): Promise<Record<string, unknown>>;
}

export interface AiApiDeps extends TenantGuardDeps {
  telemetry: TelemetryStore;
  ledger: AiLedger;
  features: AiFeatures;
  llm?: LlmClient;
}

/** Writes (playbook import creates saved searches and detectors): scope `admin` for a key; a member's session. */
function requireWriter(grant: AppGrant): void {
  if (!grant.session && !grant.key.scopes.includes('admin')) throw errors.missingScope('admin');
}

export function registerAiRoutes(router: Router, deps: AiApiDeps): void {
  const base = '/api/v1/tenants/:tenant/ai';

  /**
   * The common flow: charge, read the body, run, reply with the credits block; on any failure after the charge
   * the credits go back before the error is answered.
   */
  const feature = (name: AiFeature, run: (ctx: RequestContext, grant: AppGrant, read: AiReadContext) => Promise<Record<string, unknown>>): GrantedHandler =>
    async (ctx, grant) => {
      const receipt = await deps.ledger.charge(grant.account, name);
      const evidence = new Evidence();
      const read: AiReadContext = { telemetry: deps.telemetry, tenantId: grant.tenant.id, nowMs: deps.clock.now(), evidence };
      if (deps.llm) read.llm = deps.llm;
      let result: Record<string, unknown>;
      try {
        result = await run(ctx, grant, read);
      } catch (e) {
        deps.ledger.refund(receipt);
        if (!(e instanceof AiUnprocessable)) throw e;
        deps.refusals.count(grant.tenant.id, 'ineligible');
        sendJson(ctx.res, 422, { ...e.extra, ...errorBody(errors.unprocessable(e.detail), 'logs') });
        return;
      }
      sendJson(ctx.res, 200, { ...result, evidence: { queries: evidence.queries }, credits: credits(receipt, grant) });
    };

  router.on('POST', `${base}/query`, guarded(deps, 'read', true, feature('nl_query', async (ctx, _grant, read) =>
    deps.features.query(readAiBody.question(await readJsonObject(ctx)), read))));

  router.on('POST', `${base}/rca`, guarded(deps, 'read', true, feature('rca_hypotheses', async (ctx, _grant, read) =>
    deps.features.rca(readAiBody.rca(await readJsonObject(ctx), read.nowMs), read))));

  router.on('POST', `${base}/deep-rca`, guarded(deps, 'read', true, feature('deep_rca', async (ctx, _grant, read) =>
    deps.features.deepRca(readAiBody.deepRca(await readJsonObject(ctx), read.nowMs), read))));

  // The writer check comes before the charge: a key that may not write is refused without spending credits.
  const playbookImport = feature('playbook_import', async (ctx, grant, read) =>
    deps.features.importPlaybook(readAiBody.playbook(await readJsonObject(ctx)), grant, read));
  router.on('POST', `${base}/playbooks`, guarded(deps, 'read', true, async (ctx, grant) => {
    requireWriter(grant);
    await playbookImport(ctx, grant);
  }, CONTENT_WRITE));
}

/** The reply's credits block: what this call cost, the day's total after it, and what is left (null: unlimited). */
function credits(receipt: AiReceipt, grant: AppGrant): { cost: number; used_today: number; remaining: number | null } {
  const daily = effectivePlan(grant.account).ai.dailyCredits;
  const remaining = Number.isFinite(daily) ? Math.max(0, daily - receipt.spent.total) : null;
  return { cost: receipt.cost, used_today: receipt.spent.total, remaining };
}
