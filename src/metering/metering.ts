// Durable metering (DESIGN §6 Metering): decompressed body bytes per account, per UTC day, per signal.
// In memory (limits/daily-volume.ts DailyUsage) for the hot path; flushed to the control store every
// 500 ms so that a crash loses at most that much, and on stop so that a restart keeps it exactly.
import { utcDay, type Clock } from '../clock.js';
import type { Account, ControlStore } from '../stores/control/control-store.js';
import { DailyUsage, bytesCounter, type Reservation } from '../limits/daily-volume.js';
import { effectivePlan, overageFor, type Plan } from '../limits/plans.js';
import { SIGNALS, type Signal } from '../model/batch.js';

const FLUSH_EVERY_MS = 500;

export interface UsageReader {
  /** The `usage` reply of DESIGN §4 for the account's current UTC day. */
  usageToday(account: Account): Promise<Record<string, unknown>>;
  /**
   * The last `days` UTC days up to today, oldest first, every day present (zeros where nothing was accepted):
   * `{included_bytes, ceiling_bytes, days: [{day, bytes_accepted, overage_bytes, overage_cost_usd, by_signal}]}`
   * (DESIGN §7 Settings → Usage). Past days read the durable counters; today is the same figure as usageToday.
   */
  usageHistory(account: Account, days: number): Promise<Record<string, unknown>>;
}

const DAY_MS = 86_400_000;
const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

/** One day's figures from its bytes per signal, against the plan's included volume and overage rate. */
function dayFigures(plan: Plan, bySignal: Record<Signal, number>): Record<string, unknown> {
  const bytes = Object.values(bySignal).reduce((a, b) => a + b, 0);
  const o = overageFor(plan, bytes);
  return { bytes_accepted: bytes, overage_bytes: o.overageBytes, overage_cost_usd: o.overageCostUsd, by_signal: bySignal };
}

/** Bytes per signal from a day's counters (`bytes:<signal>`), zeros for the signals not seen. */
function bySignalOf(counters: Readonly<Record<string, number>>): Record<Signal, number> {
  const out = {} as Record<Signal, number>;
  for (const signal of SIGNALS) out[signal] = counters[bytesCounter(signal)] ?? 0;
  return out;
}

export class Metering implements UsageReader {
  readonly daily: DailyUsage;
  private readonly loading = new Map<string, Promise<void>>();
  /** Loads and flushes take turns: a load must not overlap a drain of the same day (daily-volume.ts). */
  private turn: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  /**
   * `shared`: other processes count into the same store (split roles, DESIGN §10), so today's figures are read from
   * the store after this process's own flush, not from memory, which holds only this process's share.
   */
  constructor(
    private readonly store: ControlStore,
    private readonly clock: Clock,
    private readonly log: (msg: string) => void,
    private readonly shared = false,
  ) {
    this.daily = new DailyUsage(clock);
  }

  async start(): Promise<void> {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** Seeds the account's current day from the store once; later calls are free. */
  async ensureLoaded(accountId: string, day = this.daily.today()): Promise<void> {
    if (this.daily.isLoaded(accountId, day)) return;
    const k = `${accountId}\u0000${day}`;
    let p = this.loading.get(k);
    if (!p) {
      p = this.exclusive(async () => {
        if (this.daily.isLoaded(accountId, day)) return;
        this.daily.load(accountId, day, await this.store.getCounters(accountId, day));
      }).finally(() => this.loading.delete(k));
      this.loading.set(k, p);
    }
    await p;
  }

  async used(accountId: string): Promise<number> {
    const day = this.daily.today();
    await this.ensureLoaded(accountId, day);
    return this.daily.used(accountId, day);
  }

  commit(reservation: Reservation, signal: Signal): void {
    this.daily.commit(reservation, signal);
  }

  release(reservation: Reservation): void {
    this.daily.release(reservation);
  }

  /** Writes every pending increment in one transaction; on failure they wait for the next flush. */
  flush(): Promise<void> {
    return this.exclusive(async () => {
      const deltas = this.daily.drainDeltas();
      if (deltas.length === 0) return;
      try {
        await this.store.addCounters(deltas);
      } catch (e) {
        this.daily.requeue(deltas);
        this.log(`metering flush failed (will retry): ${String(e)}`);
      }
    });
  }

  async usageToday(account: Account): Promise<Record<string, unknown>> {
    const day = this.daily.today();
    const plan: Plan = effectivePlan(account);
    const figures = dayFigures(plan, await this.bySignalToday(account.id, day));
    const o = overageFor(plan, 0);
    return {
      day,
      bytes_accepted: figures.bytes_accepted,
      included_bytes: finite(o.includedBytes),
      ceiling_bytes: finite(o.ceilingBytes),
      overage_bytes: figures.overage_bytes,
      overage_cost_usd: figures.overage_cost_usd,
      tier: account.tier,
      by_signal: figures.by_signal,
    };
  }

  async usageHistory(account: Account, days: number): Promise<Record<string, unknown>> {
    const today = this.daily.today();
    const todayBySignal = await this.bySignalToday(account.id, today);
    const todayMs = Date.parse(`${today}T00:00:00Z`);
    const list = Array.from({ length: days }, (_, i) => utcDay(todayMs - (days - 1 - i) * DAY_MS));
    const stored = await this.store.getCountersRange(account.id, list[0] ?? today, today);
    // Past days' figures use today's plan: the counters keep bytes, not the tier they were accepted under.
    const plan: Plan = effectivePlan(account);
    const o = overageFor(plan, 0);
    return {
      included_bytes: finite(o.includedBytes),
      ceiling_bytes: finite(o.ceilingBytes),
      days: list.map((day) => ({
        day,
        ...dayFigures(plan, day === today ? todayBySignal : bySignalOf(stored[day] ?? {})),
      })),
    };
  }

  /** Today's bytes per signal: this process's memory, or with `shared` the store's sum after our own flush. */
  private async bySignalToday(accountId: string, day: string): Promise<Record<Signal, number>> {
    if (this.shared) {
      await this.flush();
      return bySignalOf(await this.store.getCounters(accountId, day));
    }
    await this.ensureLoaded(accountId, day);
    return this.daily.bySignal(accountId, day);
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.turn.then(fn, fn);
    this.turn = run.catch(() => undefined);
    return run;
  }
}
