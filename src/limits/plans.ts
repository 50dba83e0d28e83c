// Plans as data (STYLE.md "limits/": plans are data, not code). One table holds every tier's values; the
// limiters, gates and ledgers read an EffectivePlan, which is the tier's row with the account's contract
// overrides applied (DESIGN §3 PATCH keys). Sources: spec "Limits" (per-plan limits, daily volume and overage,
// AI credits), spec "States and transitions" (trial_expired), DESIGN §3 (feature defaults) and §6 (ceilings,
// query rate, custom defaults, GB = 10^9 bytes).
import type { Account, LimitOverrides, Tier } from '../stores/control/control-store.js';

/** Billing GB (DESIGN §6 "Units"): 10^9 bytes, not GiB. */
export const GB = 1e9;

/** What happens past the included daily volume (spec "Daily volume and overage"). */
export type OveragePolicy =
  /** Trial and free tiers: 429 at the included volume until 00:00 UTC. */
  | { readonly kind: 'hard_stop' }
  /** Paid tiers: billed overage past included, up to included × ceilingMultiplier. */
  | { readonly kind: 'overage'; readonly usdPerGb: number; readonly ceilingMultiplier: number };

/** Daily AI credits (spec "AI credits"); sub-caps are in credits and bind inside the total. */
export interface AiAllowance {
  /** False when the tier's AI feature set is empty: 403 "not available on your plan". */
  readonly enabled: boolean;
  readonly dailyCredits: number;
  readonly deepRca: number;
  readonly playbookImport: number;
}

/** Things with a per-account ceiling (DESIGN §6 "Ceilings"). */
export const CEILING_THINGS = ['users', 'apiKeys', 'liveTail', 'dashboards', 'savedSearches', 'projects'] as const;
export type CeilingThing = (typeof CEILING_THINGS)[number];
export type Ceilings = Readonly<Record<CeilingThing, number>>;

export interface PlanFeatures {
  readonly metrics: boolean;
  readonly replay: boolean;
  readonly multiProject: boolean;
}

/** One tier's values. `Infinity` means unlimited. */
export interface Plan {
  /** Tenant token bucket rate R, entries/s (spec "Ingest rate"). */
  readonly ingestRate: number;
  /** Ingest refused outright with the trial-expired 429 (spec 429 detail 3). */
  readonly ingestBlocked: boolean;
  readonly dailyIncludedBytes: number;
  readonly overage: OveragePolicy;
  /** Requests per rolling 60 s over `/api/v1/tenants/...` (DESIGN §6 "Query rate"). */
  readonly queryRatePerMin: number;
  readonly retentionDays: number;
  readonly ai: AiAllowance;
  readonly ceilings: Ceilings;
  readonly features: PlanFeatures;
}

/** A tier's plan with an account's overrides applied: what every limiter reads. */
export interface EffectivePlan extends Plan {
  readonly tier: Tier;
}

const HARD_STOP: OveragePolicy = { kind: 'hard_stop' };
/** $0.20/GB up to 3× included (spec "Daily volume and overage"). */
const PAID_OVERAGE: OveragePolicy = { kind: 'overage', usdPerGb: 0.2, ceilingMultiplier: 3 };

const ceilings = (users: number, apiKeys: number, liveTail: number, dashboards: number, savedSearches: number, projects: number): Ceilings =>
  ({ users, apiKeys, liveTail, dashboards, savedSearches, projects });

const ai = (dailyCredits: number, deepRca: number, playbookImport: number): AiAllowance =>
  ({ enabled: dailyCredits > 0, dailyCredits, deepRca, playbookImport });

const U = Infinity;

/** The plan table. Rows follow the spec's "Per-plan limits", "AI credits" and DESIGN §6. */
export const PLANS: Readonly<Record<Tier, Plan>> = deepFreeze({
  trial: {
    ingestRate: 500, ingestBlocked: false, dailyIncludedBytes: 73 * GB, overage: HARD_STOP,
    queryRatePerMin: 1200, retentionDays: 14, ai: ai(200, 40, 20),
    ceilings: ceilings(5, 10, 5, 50, 100, 1),
    features: { metrics: true, replay: true, multiProject: false },
  },
  team: {
    ingestRate: 500, ingestBlocked: false, dailyIncludedBytes: 34 * GB, overage: PAID_OVERAGE,
    queryRatePerMin: 1200, retentionDays: 30, ai: ai(200, 40, 20),
    ceilings: ceilings(10, 25, 10, 100, 250, 3),
    features: { metrics: true, replay: true, multiProject: true },
  },
  growth: {
    ingestRate: 2000, ingestBlocked: false, dailyIncludedBytes: 135 * GB, overage: PAID_OVERAGE,
    queryRatePerMin: 3000, retentionDays: 30, ai: ai(500, 100, 50),
    ceilings: ceilings(50, 100, 25, 500, 1000, 10),
    features: { metrics: true, replay: true, multiProject: true },
  },
  // DESIGN §6 "Custom tier defaults", until a contract sets `limits`.
  custom: {
    ingestRate: 10_000, ingestBlocked: false, dailyIncludedBytes: 500 * GB, overage: PAID_OVERAGE,
    queryRatePerMin: U, retentionDays: 90, ai: ai(U, U, U),
    ceilings: ceilings(U, U, U, U, U, U),
    features: { metrics: true, replay: true, multiProject: true },
  },
  // Spec "States and transitions": allowance 0 means blocked, 300 queries/min, AI off, retention stays 14 days.
  trial_expired: {
    ingestRate: 100, ingestBlocked: true, dailyIncludedBytes: 0, overage: HARD_STOP,
    queryRatePerMin: 300, retentionDays: 14, ai: ai(0, 0, 0),
    ceilings: ceilings(3, 2, 2, 25, 50, 1),
    features: { metrics: true, replay: true, multiProject: false },
  },
});

/** The tier's row with the account's `limits` and `features` overrides applied (DESIGN §3 PATCH). */
export function effectivePlan(account: Pick<Account, 'tier' | 'limits' | 'features'>): EffectivePlan {
  const base = PLANS[account.tier];
  const o: LimitOverrides = account.limits;
  const f = account.features;
  const multiplier = num(o.overage_ceiling_multiplier);
  return deepFreeze({
    tier: account.tier,
    ingestRate: num(o.ingest_rate) ?? base.ingestRate,
    ingestBlocked: base.ingestBlocked,
    dailyIncludedBytes: num(o.daily_included_bytes) ?? base.dailyIncludedBytes,
    // A multiplier only means something where overage exists; hard-stop tiers stop at included.
    overage: base.overage.kind === 'overage' && multiplier !== undefined
      ? { ...base.overage, ceilingMultiplier: multiplier }
      : base.overage,
    queryRatePerMin: num(o.query_rate_per_min) ?? base.queryRatePerMin,
    retentionDays: num(o.retention_days) ?? base.retentionDays,
    // The credit total is a contract value; whether AI exists at all is the tier's (spec: trial_expired AI off).
    ai: { ...base.ai, dailyCredits: base.ai.enabled ? num(o.ai_daily_credits) ?? base.ai.dailyCredits : 0 },
    ceilings: { ...base.ceilings, projects: num(o.project_limit) ?? base.ceilings.projects },
    features: {
      metrics: f.metrics ?? base.features.metrics,
      replay: f.replay ?? base.features.replay,
      multiProject: f.multi_project ?? base.features.multiProject,
    },
  });
}

/** Bytes per UTC day past which ingest is refused: the overage ceiling, or included on hard-stop tiers. */
export function ceilingBytes(plan: Plan): number {
  return plan.overage.kind === 'overage'
    ? plan.dailyIncludedBytes * plan.overage.ceilingMultiplier
    : plan.dailyIncludedBytes;
}

export interface OverageFigures {
  includedBytes: number;
  ceilingBytes: number;
  overageBytes: number;
  /** USD at the tier's rate per GB (10^9 bytes), rounded to the micro-dollar. */
  overageCostUsd: number;
}

/** Included, ceiling and overage for `usedBytes` accepted today (the `usage` endpoint, DESIGN §4). */
export function overageFor(plan: Plan, usedBytes: number): OverageFigures {
  const overageBytes = plan.overage.kind === 'overage' ? Math.max(0, usedBytes - plan.dailyIncludedBytes) : 0;
  const usdPerGb = plan.overage.kind === 'overage' ? plan.overage.usdPerGb : 0;
  return {
    includedBytes: plan.dailyIncludedBytes,
    ceilingBytes: ceilingBytes(plan),
    overageBytes,
    overageCostUsd: Math.round((overageBytes * usdPerGb / GB) * 1e6) / 1e6,
  };
}

/** The plan in the snake_case keys of DESIGN §3 `limits` (unlimited → null, since JSON has no Infinity). */
export function limitsView(plan: Plan): Record<keyof Required<LimitOverrides>, number | null> {
  const fin = (n: number): number | null => (Number.isFinite(n) ? n : null);
  return {
    ingest_rate: fin(plan.ingestRate),
    daily_included_bytes: fin(plan.dailyIncludedBytes),
    overage_ceiling_multiplier: plan.overage.kind === 'overage' ? plan.overage.ceilingMultiplier : 1,
    query_rate_per_min: fin(plan.queryRatePerMin),
    retention_days: fin(plan.retentionDays),
    project_limit: fin(plan.ceilings.projects),
    ai_daily_credits: fin(plan.ai.dailyCredits),
  };
}

/** The plan's switches in the snake_case keys of DESIGN §3 `features`. */
export function featuresView(plan: Plan): { metrics: boolean; replay: boolean; multi_project: boolean } {
  return { metrics: plan.features.metrics, replay: plan.features.replay, multi_project: plan.features.multiProject };
}

/** An override counts when it is a non-negative number; anything else falls back to the tier. */
function num(v: unknown): number | undefined {
  return typeof v === 'number' && v >= 0 ? v : undefined;
}

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null && !Object.isFrozen(o)) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
