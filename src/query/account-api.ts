// What Settings → Plan and Settings → Usage read (DESIGN §7 Pages):
//   GET /api/v1/account                          any valid key or session of the account: tier, limits, AI credits
//   GET /api/v1/tenants/<t>/usage/history?days=  the last N UTC days (default 30, at most 90), oldest first
// The plan is the tier's row with the account's overrides (limits/plans.ts); unlimited is null (JSON has no Infinity).
import type { Router } from '../front-doors/router.js';
import { sendJson } from '../front-doors/reply.js';
import type { Account } from '../stores/control/control-store.js';
import type { UsageReader } from '../metering/metering.js';
import type { AiSpent } from '../limits/ai-credits.js';
import { effectivePlan, featuresView, limitsView, type EffectivePlan } from '../limits/plans.js';
import { errors } from '../errors.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import { intParam } from './request-params.js';

export interface AccountApiDeps extends TenantGuardDeps {
  usage: UsageReader;
  /** Today's AI credit spend of the account (metering/ai-ledger.ts). */
  aiSpent: (account: Account) => Promise<AiSpent>;
}

const MAX_HISTORY_DAYS = 90;
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

function planView(plan: EffectivePlan): Record<string, unknown> {
  const limits = limitsView(plan);
  const c = plan.ceilings;
  return {
    ingest_rate: limits.ingest_rate,
    daily_included_bytes: limits.daily_included_bytes,
    overage_ceiling_multiplier: limits.overage_ceiling_multiplier,
    query_rate_per_min: limits.query_rate_per_min,
    retention_days: limits.retention_days,
    ceilings: {
      users: finite(c.users), api_keys: finite(c.apiKeys), live_tail: finite(c.liveTail),
      dashboards: finite(c.dashboards), saved_searches: finite(c.savedSearches), projects: finite(c.projects),
    },
    ai_daily_credits: limits.ai_daily_credits,
  };
}

export function registerAccountRoutes(router: Router, deps: AccountApiDeps): void {
  router.on('GET', '/api/v1/account', guarded(deps, 'any', false, async (ctx, grant) => {
    const account = grant.account;
    const plan = effectivePlan(account);
    const used = (await deps.aiSpent(account)).total;
    const remaining = !plan.ai.enabled ? 0 : Number.isFinite(plan.ai.dailyCredits) ? Math.max(0, plan.ai.dailyCredits - used) : null;
    sendJson(ctx.res, 200, {
      account: {
        id: account.id, name: account.name, tier: account.tier, signup_at: iso(account.signupAt),
        trial_ends_at: iso(account.trialEndsAt), features: featuresView(plan),
      },
      plan: planView(plan),
      ai: { used_today: used, remaining },
      // The spec's own words for the expired trial (429 detail 3), so the banner and ingest's refusal agree.
      ...(account.tier === 'trial_expired' ? { banner: errors.trialExpired().detail } : {}),
    });
  }));

  router.on('GET', '/api/v1/tenants/:tenant/usage/history', guarded(deps, 'read', true, async (ctx, grant) => {
    const days = Math.max(1, intParam(ctx.query, 'days', 30, MAX_HISTORY_DAYS));
    sendJson(ctx.res, 200, await deps.usage.usageHistory(grant.account, days));
  }));
}
