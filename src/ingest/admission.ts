// Admission of one ingest request (DESIGN §6 order): before the body, a blocked tier or a spent daily
// quota (429); after parsing, the platform and tenant limiters and the daily volume (429). Bytes are
// reserved until the WAL answers, so concurrent requests cannot overrun the cap together.
//
// Split roles (DESIGN §10, issue 11 item 6): with `share` the buckets hold 1/N of each rate, N the live processes of
// this role; with `volume` the daily bytes are reserved against the control store's total, so processes together
// stop at the cap. Without them (one process) everything is decided in memory, exactly as before.
import type { Clock } from '../clock.js';
import type { Account } from '../stores/control/control-store.js';
import { effectivePlan, type EffectivePlan } from '../limits/plans.js';
import type { PlatformLimiter, TenantLimiters } from '../limits/token-bucket.js';
import { bytesCounter, checkIngestOpen, type Reservation } from '../limits/daily-volume.js';
import type { SharedDailyVolume } from '../limits/shared-daily-volume.js';
import type { Metering } from '../metering/metering.js';
import type { Signal } from '../model/batch.js';
import { errors } from '../errors.js';

export interface AdmissionDeps {
  clock: Clock;
  metering: Metering;
  platform: PlatformLimiter;
  tenants: TenantLimiters;
  /** Live processes of this role (cluster/membership.ts); absent → 1. */
  share?: () => number;
  /** The daily byte total shared by all processes; absent → DailyUsage in memory. */
  volume?: SharedDailyVolume;
}

export class Admission {
  constructor(private readonly deps: AdmissionDeps) {}

  planOf(account: Account): EffectivePlan {
    return effectivePlan(account);
  }

  async checkOpen(account: Account, plan: EffectivePlan): Promise<void> {
    if (plan.ingestBlocked) throw errors.trialExpired(); // no store read needed to refuse a blocked tier
    const used = this.deps.volume ? await this.deps.volume.usedToday(account.id) : await this.deps.metering.used(account.id);
    const decision = checkIngestOpen(plan, used);
    if (!decision.ok) throw decision.error;
  }

  /**
   * Limiters, then daily volume; tokens are taken only when everything admits (a batch refused on volume spends no
   * tokens). In one process this is one synchronous step after the day is loaded, so concurrent requests cannot
   * both pass; shared, the store's reservation is the atomic step (admitShared).
   */
  async admit(account: Account, tenantId: string, plan: EffectivePlan, entries: number, bytes: number): Promise<Reservation> {
    if (this.deps.volume) return this.admitShared(this.deps.volume, account, tenantId, plan, entries, bytes);
    await this.deps.metering.ensureLoaded(account.id);
    const rate = this.checkLimiters(tenantId, plan, entries);
    const reserved = this.deps.metering.daily.tryReserve(plan, account.id, bytes);
    if (!reserved.ok) throw reserved.error;
    this.takeTokens(tenantId, rate, entries);
    return reserved.reservation;
  }

  release(reservation: Reservation): void {
    if (this.deps.volume?.holds(reservation)) this.deps.volume.release(reservation);
    else this.deps.metering.release(reservation);
  }

  commit(reservation: Reservation, signal: Signal): void {
    const { volume, metering } = this.deps;
    if (volume?.holds(reservation)) {
      // The total already holds the bytes; the per-signal counter drains from memory as in one process.
      volume.commit(reservation);
      metering.daily.record(reservation.accountId, reservation.day, bytesCounter(signal), reservation.bytes);
    } else {
      metering.commit(reservation, signal);
    }
  }

  /**
   * The store's reservation is awaited between the limiters' check and their debit, so the check runs again after
   * it: a batch admitted on bytes but refused by a bucket that others emptied meanwhile gives its bytes back.
   */
  private async admitShared(volume: SharedDailyVolume, account: Account, tenantId: string, plan: EffectivePlan, entries: number, bytes: number): Promise<Reservation> {
    this.checkLimiters(tenantId, plan, entries);
    const reserved = await volume.reserve(plan, account.id, bytes);
    if (!reserved.ok) throw reserved.error;
    let rate: number;
    try {
      rate = this.checkLimiters(tenantId, plan, entries);
    } catch (e) {
      volume.release(reserved.reservation);
      throw e;
    }
    this.takeTokens(tenantId, rate, entries);
    return reserved.reservation;
  }

  /** Platform then tenant bucket, each at this process's share of its rate; returns the tenant rate used. */
  private checkLimiters(tenantId: string, plan: EffectivePlan, entries: number): number {
    const { platform, tenants } = this.deps;
    const n = this.deps.share?.() ?? 1;
    platform.setShare(n);
    const p = platform.check(entries);
    if (!p.ok) throw errors.platformRateLimited(p.retryAfter);
    const rate = n === 1 ? plan.ingestRate : plan.ingestRate / n;
    const t = tenants.check(tenantId, rate, entries);
    if (!t.ok) throw errors.rateLimited(t.retryAfter);
    return rate;
  }

  private takeTokens(tenantId: string, rate: number, entries: number): void {
    this.deps.platform.take(entries);
    this.deps.tenants.take(tenantId, rate, entries);
  }
}
