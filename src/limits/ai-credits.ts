// The AI credit ledger's rules (spec "AI credits (per day)"; DESIGN §6 "AI credits"). Pure: given the plan
// and what the account spent today, a call is charged or refused. Credits are counted per account per UTC
// day in the daily counters `ai:total`, `ai:deep_rca`, `ai:playbook_import` and reset at 00:00 UTC.
import { nextUtcMidnight } from '../clock.js';
import { errors, type ServiceError } from '../errors.js';
import type { Plan } from './plans.js';

export const AI_FEATURES = ['nl_query', 'rca_hypotheses', 'playbook_import', 'deep_rca'] as const;
export type AiFeature = (typeof AI_FEATURES)[number];

/** Credits per call (DESIGN §6). */
export const AI_COSTS: Readonly<Record<AiFeature, number>> = Object.freeze({
  nl_query: 1,
  rca_hypotheses: 2,
  playbook_import: 5,
  deep_rca: 10,
});

export const AI_COUNTERS = { total: 'ai:total', deepRca: 'ai:deep_rca', playbookImport: 'ai:playbook_import' } as const;
export type AiCounter = (typeof AI_COUNTERS)[keyof typeof AI_COUNTERS];

/** Credits spent today: the total and the two features with a sub-cap. */
export interface AiSpent {
  total: number;
  deepRca: number;
  playbookImport: number;
}

export type AiCharge =
  | { ok: true; cost: number; deltas: { name: AiCounter; delta: number }[] }
  | { ok: false; error: ServiceError };

/** Today's spend from the day's counters (as DailyUsage.counters or the control store return them). */
export function aiSpentFrom(counters: Readonly<Record<string, number>>): AiSpent {
  return {
    total: counters[AI_COUNTERS.total] ?? 0,
    deepRca: counters[AI_COUNTERS.deepRca] ?? 0,
    playbookImport: counters[AI_COUNTERS.playbookImport] ?? 0,
  };
}

/**
 * Charge one call of `feature` at service time `nowMs`. AI off for the tier → 403 `not available on your
 * plan`. A call that would pass the daily total, or its feature's sub-cap (sub-caps bind inside the total),
 * → 429 `rate_limited` with "quota" in the detail and retry_after = seconds to 00:00 UTC. Otherwise ok,
 * with the counter increments to record.
 */
export function charge(plan: Plan, spent: AiSpent, feature: AiFeature, nowMs: number): AiCharge {
  if (!plan.ai.enabled) return { ok: false, error: errors.aiNotAvailable() };
  const cost = AI_COSTS[feature];
  const sub = subCap(plan, spent, feature);
  if (spent.total + cost > plan.ai.dailyCredits || (sub && sub.spent + cost > sub.cap)) {
    return { ok: false, error: errors.aiQuota(secondsToUtcMidnight(nowMs)) };
  }
  const deltas: { name: AiCounter; delta: number }[] = [{ name: AI_COUNTERS.total, delta: cost }];
  if (sub) deltas.push({ name: sub.counter, delta: cost });
  return { ok: true, cost, deltas };
}

/** Whole seconds until the next 00:00 UTC, at least 1: when a spent quota clears. */
export function secondsToUtcMidnight(nowMs: number): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(nowMs) - nowMs) / 1000));
}

/** Features without a listed sub-cap draw only on the total (spec). */
function subCap(plan: Plan, spent: AiSpent, feature: AiFeature): { cap: number; spent: number; counter: AiCounter } | undefined {
  if (feature === 'deep_rca') return { cap: plan.ai.deepRca, spent: spent.deepRca, counter: AI_COUNTERS.deepRca };
  if (feature === 'playbook_import') return { cap: plan.ai.playbookImport, spent: spent.playbookImport, counter: AI_COUNTERS.playbookImport };
  return undefined;
}
