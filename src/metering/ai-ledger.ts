// The AI credit ledger (spec, AI credits; DESIGN §6): the module every AI endpoint calls before it works.
// Credits are daily counters of the account (`ai:total`, `ai:deep_rca`, `ai:playbook_import`), kept and
// flushed exactly like the byte counter (metering.ts): durable across restart, reset at 00:00 UTC.
import type { Clock } from '../clock.js';
import type { Account } from '../stores/control/control-store.js';
import { effectivePlan } from '../limits/plans.js';
import { aiSpentFrom, charge, type AiCounter, type AiFeature, type AiSpent } from '../limits/ai-credits.js';
import type { Metering } from './metering.js';

/** What one charge drew, so that a failed analysis can give exactly that back (issue 10 item 5). */
export interface AiReceipt {
  readonly accountId: string;
  /** The UTC day the credits were drawn from (a refund after midnight goes back to that day). */
  readonly day: string;
  readonly cost: number;
  readonly deltas: readonly { name: AiCounter; delta: number }[];
  /** Today's spend just after the charge. */
  readonly spent: AiSpent;
}

export class AiLedger {
  constructor(private readonly metering: Metering, private readonly clock: Clock) {}

  /**
   * Charges one call of `feature` to the account's day, or throws the refusal: 403 "not available on your
   * plan" when the tier has no AI, 429 with "quota" when the total or the feature's sub-cap would pass.
   * The check and the debit happen in one synchronous step, so concurrent calls cannot overspend.
   */
  async charge(account: Account, feature: AiFeature): Promise<AiReceipt> {
    await this.metering.ensureLoaded(account.id);
    const daily = this.metering.daily;
    const day = daily.today();
    const verdict = charge(effectivePlan(account), aiSpentFrom(daily.counters(account.id, day)), feature, this.clock.now());
    if (!verdict.ok) throw verdict.error;
    for (const d of verdict.deltas) daily.record(account.id, day, d.name, d.delta);
    return { accountId: account.id, day, cost: verdict.cost, deltas: verdict.deltas, spent: aiSpentFrom(daily.counters(account.id, day)) };
  }

  /**
   * Gives back what `receipt` drew (a failed analysis costs nothing, issue 10 item 5). The same counters of the
   * same day go down by the same amounts, and are flushed like any other increment.
   */
  refund(receipt: AiReceipt): AiSpent {
    const daily = this.metering.daily;
    for (const d of receipt.deltas) daily.record(receipt.accountId, receipt.day, d.name, -d.delta);
    return aiSpentFrom(daily.counters(receipt.accountId, receipt.day));
  }

  async spentToday(account: Account): Promise<AiSpent> {
    await this.metering.ensureLoaded(account.id);
    return aiSpentFrom(this.metering.daily.counters(account.id));
  }
}
