// The parts a split-role process shares with the others through the control store (DESIGN §10; issue 11 item 6),
// built once at the composition root. Split roles run on PostgreSQL (DESIGN §1 "Split roles need the scale-out
// stores"); a single process, or one on embedded PGlite, has nobody to share with and decides everything in memory,
// exactly as before (DESIGN §6 — conformance depends on it).
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { ControlStore } from '../stores/control/control-store.js';
import { SharedDailyVolume } from '../limits/shared-daily-volume.js';
import { SharedQueryRate } from '../limits/shared-query-rate.js';
import { Membership } from './membership.js';
import { StoreTailSlots } from './tail-slots.js';

export interface Cluster {
  membership: Membership;
  volume: SharedDailyVolume;
  queryRate: SharedQueryRate;
  tailSlots: StoreTailSlots;
}

export function joinCluster(config: Config, control: ControlStore, clock: Clock, log: (line: string) => void): Cluster | null {
  if (config.role === 'all' || config.controlDb === undefined) return null;
  const membership = new Membership(control, config.role, { log });
  return {
    membership,
    volume: new SharedDailyVolume(control, clock, log),
    queryRate: new SharedQueryRate(control, clock),
    tailSlots: new StoreTailSlots(control, membership, log),
  };
}
