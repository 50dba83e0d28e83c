// The groups that were active at the last evaluation, kept in the kind's state so that a recovery threshold can hold
// an alert through a value hovering at the bound (algorithms/threshold.ts). Only kept when a recovery bound is set,
// and only the active groups, so the state stays as small as the set of firing alerts.
import type { EvaluateResult, KindState, Observation } from '../model.js';
import { labelsKey } from './common.js';

export function activeKeys(state: KindState): Set<string> {
  const keys = state.active;
  return new Set(Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : []);
}

export function withActive(observations: Observation[], keep: boolean): EvaluateResult {
  const active = keep ? observations.filter((o) => o.active).map((o) => labelsKey(o.labels)) : [];
  return { observations, state: keep ? { active } : {} };
}
