// Plan gates and ceilings as functions of the EffectivePlan (spec "Plan gates"; DESIGN §4 projects,
// §6 "Ceilings for paid tiers"). Each throws the catalogue's ServiceError, so a route can hang one on its
// `gate` hook and the one error handler replies. Gates are deterministic, not outages.
import { errors } from '../errors.js';
import type { CeilingThing, EffectivePlan } from './plans.js';

/** Every metrics write path: 503 `Metrics ingest not enabled` when the metrics plane is off. */
export function requireMetrics(plan: EffectivePlan): void {
  if (!plan.features.metrics) throw errors.metricsDisabled();
}

/** POST /v1/rum/replay: 503 `Session replay not enabled` when replay capture is off. */
export function requireReplay(plan: EffectivePlan): void {
  if (!plan.features.replay) throw errors.replayDisabled();
}

/** AI endpoints: 403 `not available on your plan` when the tier's AI feature set is empty. */
export function requireAi(plan: EffectivePlan): void {
  if (!plan.ai.enabled) throw errors.aiNotAvailable();
}

/**
 * POST /api/v1/account/projects. Feature off → 403 `Multi-project is not enabled`; feature on but the
 * count reached → 403 `Project limit reached`. The account's first tenant counts as its first project.
 */
export function checkProjectCreation(plan: EffectivePlan, existingProjects: number): void {
  if (!plan.features.multiProject) throw errors.multiProjectDisabled();
  if (existingProjects >= plan.ceilings.projects) throw errors.projectLimit();
}

/** Things whose ceiling is reported as "<Thing> limit reached (<n>)" (projects have their own reply). */
export type CountedThing = Exclude<CeilingThing, 'projects'>;

/** The <Thing> of the ceiling detail. */
export const THING_NAMES: Readonly<Record<CountedThing, string>> = Object.freeze({
  users: 'User',
  apiKeys: 'API key',
  liveTail: 'Live-tail session',
  dashboards: 'Dashboard',
  savedSearches: 'Saved search',
});

/**
 * Creating one more `thing` when `existing` already exist: 403 "<Thing> limit reached (<n>)" at the ceiling.
 * Only creation is refused; nothing that exists is deleted when a ceiling drops (DESIGN §6).
 */
export function checkCeiling(plan: EffectivePlan, thing: CountedThing, existing: number): void {
  const limit = plan.ceilings[thing];
  if (existing >= limit) throw errors.ceilingReached(THING_NAMES[thing], limit);
}
