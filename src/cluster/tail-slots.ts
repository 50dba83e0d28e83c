// Live-tail slots shared by the app processes of a split-role deployment (DESIGN §6 live-tail ceiling, §10 "live-tail
// counts are shared through the control store"; issue 11 item 6). Each open stream is a row held by the process whose
// response it is; the ceiling counts the account's rows held by live processes, under a per-account lock, so two
// processes cannot both take the last slot. A stream's end deletes its row; a crashed process's rows stop counting
// once its heartbeats stop (membership.ts LIVE_WITHIN_MS), and a clean stop deletes them (leaveCluster).
import type { ClusterStore } from '../stores/control/cluster-records.js';
import type { EffectivePlan } from '../limits/plans.js';
import { checkCeiling } from '../limits/gates.js';
import { orUnavailable } from '../limits/store-outage.js';
import type { SharedTailSlots } from '../query/tail-api.js';
import type { Membership } from './membership.js';

type TailStore = Pick<ClusterStore, 'openTailSession' | 'closeTailSession'>;

export class StoreTailSlots implements SharedTailSlots {
  constructor(private readonly store: TailStore, private readonly membership: Membership, private readonly log: (line: string) => void) {}

  async take(accountId: string, plan: EffectivePlan): Promise<() => void> {
    const limit = plan.ceilings.liveTail;
    const opened = await orUnavailable(this.store.openTailSession(accountId, this.membership.processId, limit, this.membership.liveWithinMs));
    if (!opened.ok) {
      checkCeiling(plan, 'liveTail', opened.open); // at the ceiling: throws 403 "Live-tail session limit reached (<n>)"
      throw new Error(`live tail: refused below the ceiling (${opened.open} of ${limit})`);
    }
    return () => {
      this.store.closeTailSession(opened.id)
        .catch((e: unknown) => { this.log(`live tail: closing session ${opened.id} failed (it stops counting when this process stops): ${String(e)}`); });
    };
  }
}
