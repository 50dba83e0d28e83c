// The tier sweep (spec, States and transitions): trials past their end move to trial_expired.
// Runs every SIGHTLINE_SWEEP_INTERVAL_MS, at start-up, and on POST /admin/v1/sweep (DESIGN §3, §6).
import type { Clock } from '../clock.js';
import type { ControlStore, Tier } from '../stores/control/control-store.js';

export interface Transition {
  account_id: string;
  from: Tier;
  to: Tier;
}

export async function sweepTiers(store: ControlStore, clock: Clock): Promise<Transition[]> {
  const transitions: Transition[] = [];
  for (const account of await store.listExpiredTrials(clock.now())) {
    // Nothing is deleted and nothing else changes: only the tier (spec, trial → trial_expired).
    // Conditional on the tier still being trial: a concurrent sweep cannot report the move twice.
    const updated = await store.transitionTier(account.id, 'trial', 'trial_expired');
    if (updated) transitions.push({ account_id: account.id, from: 'trial', to: 'trial_expired' });
  }
  return transitions;
}
