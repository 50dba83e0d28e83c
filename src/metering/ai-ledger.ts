// The AI credit ledger (spec, AI credits; DESIGN §6): the module every AI endpoint calls before it works.
// Credits are daily counters of the account (`ai:total`, `ai:deep_rca`, `ai:playbook_import`), kept and
// flushed exactly like the byte counter (metering.ts): durable across restart, reset at 00:00 UTC.
import type { Clock } from '../clock.js';
import type { Account } from '../stores/control/control-store.js';
import { effectivePlan } from '../limits/plans.js';
import { aiSpentFrom, charge, type AiFeature, type AiSpent } from '../limits/ai-credits.js';
import type { Metering } from './metering.js';

export class AiLedger {
  constructor(private readonly metering: Metering, private readonly clock: Clock) {}

  /**
   * Charges one call of `feature` to the account's day, or throws the refusal: 403 "not available on your
   * plan" when the tier has no AI, 429 with "quota" when the total or the feature's sub-cap would pass.
   * The check and the debit happen in one synchronous step, so concurrent calls cannot overspend.
   */
  async charge(account: Account, feature: AiFeature): Promise<{ cost: number; spent: AiSpent }> {
    await this.metering.ensureLoaded(account.id);
    const daily = this.metering.daily;
    const day = daily.today();
    const verdict = charge(effectivePlan(account), aiSpentFrom(daily.counters(account.id, day)), feature, this.clock.now());
    if (!verdict.ok) throw verdict.error;
    for (const d of verdict.deltas) daily.record(account.id, day, d.name, d.delta);
    return { cost: verdict.cost, spent: aiSpentFrom(daily.counters(account.id, day)) };
  }

  async spentToday(account: Account): Promise<AiSpent> {
    await this.metering.ensureLoaded(account.id);
    return aiSpentFrom(this.metering.daily.counters(account.id));
  }
}
