// Admission of one ingest request (DESIGN §6 order): before the body, a blocked tier or a spent daily
// quota (429); after parsing, the platform and tenant limiters and the daily volume (429). Bytes are
// reserved until the WAL answers, so concurrent requests cannot overrun the cap together.
import type { Clock } from '../clock.js';
import type { Account } from '../stores/control/control-store.js';
import { effectivePlan, type EffectivePlan } from '../limits/plans.js';
import type { PlatformLimiter, TenantLimiters } from '../limits/token-bucket.js';
import { checkIngestOpen, type Reservation } from '../limits/daily-volume.js';
import type { Metering } from '../metering/metering.js';
import type { Signal } from '../model/batch.js';
import { errors } from '../errors.js';

export interface AdmissionDeps {
  clock: Clock;
  metering: Metering;
  platform: PlatformLimiter;
  tenants: TenantLimiters;
}

export class Admission {
  constructor(private readonly deps: AdmissionDeps) {}

  planOf(account: Account): EffectivePlan {
    return effectivePlan(account);
  }

  async checkOpen(account: Account, plan: EffectivePlan): Promise<void> {
    if (plan.ingestBlocked) throw errors.trialExpired(); // no store read needed to refuse a blocked tier
    const decision = checkIngestOpen(plan, await this.deps.metering.used(account.id));
    if (!decision.ok) throw decision.error;
  }

  /**
   * Limiters, then daily volume, decided in one synchronous step after the day is loaded, so concurrent
   * requests cannot both pass; tokens are taken only when everything admits (a batch refused on volume
   * spends no tokens).
   */
  async admit(account: Account, tenantId: string, plan: EffectivePlan, entries: number, bytes: number): Promise<Reservation> {
    await this.deps.metering.ensureLoaded(account.id);
    const { platform, tenants } = this.deps;
    const p = platform.check(entries);
    if (!p.ok) throw errors.platformRateLimited(p.retryAfter);
    const t = tenants.check(tenantId, plan.ingestRate, entries);
    if (!t.ok) throw errors.rateLimited(t.retryAfter);
    const reserved = this.deps.metering.daily.tryReserve(plan, account.id, bytes);
    if (!reserved.ok) throw reserved.error;
    platform.take(entries);
    tenants.take(tenantId, plan.ingestRate, entries);
    return reserved.reservation;
  }

  release(reservation: Reservation): void {
    this.deps.metering.release(reservation);
  }

  commit(reservation: Reservation, signal: Signal): void {
    this.deps.metering.commit(reservation, signal);
  }
}
