// The daily byte counter and the overage ceiling across processes (DESIGN §10 "the daily byte counter is the control
// store's sum"; issue 11 item 6). In one process DailyUsage (daily-volume.ts) checks and reserves in memory and the
// counters drain to the store every 500 ms; with several ingest processes that would let each of them fill the cap.
// Here every request reserves its bytes against the store's total of the day in one statement that refuses when
// used + size would pass the cap (DESIGN §6), so all processes together stop at the cap exactly: a request that
// does not fit is refused whichever process it reaches. Bytes of a request that fails before its 200 are given back.
//
// The per-signal counters (`bytes:<signal>`, the usage reply's by_signal) still drain from memory as before; the
// total here is what admission decides on.
import type { Clock } from '../clock.js';
import { utcDay } from '../clock.js';
import { errors } from '../errors.js';
import type { ClusterStore } from '../stores/control/cluster-records.js';
import type { Reservation, ReserveResult } from './daily-volume.js';
import { ceilingBytes, type Plan } from './plans.js';
import { orUnavailable } from './store-outage.js';

type VolumeStore = Pick<ClusterStore, 'dailyBytes' | 'reserveDailyBytes' | 'releaseDailyBytes'>;

export class SharedDailyVolume {
  /** The last total this process saw per account, for `knownDay` only: the early check's answer without a round trip. */
  private readonly known = new Map<string, number>();
  private knownDay = '';
  private readonly live = new Set<Reservation>();

  constructor(private readonly store: VolumeStore, private readonly clock: Clock, private readonly log: (line: string) => void) {}

  today(): string {
    return utcDay(this.clock.now());
  }

  /**
   * Bytes counted today for the early check (DESIGN §6 order: spent quota before the body is read). Read from the
   * store once per account and day, then kept current by this process's reservations; a total other processes
   * raised since is caught by the reservation itself.
   */
  async usedToday(accountId: string): Promise<number> {
    const day = this.today();
    const seen = day === this.knownDay ? this.known.get(accountId) : undefined;
    if (seen !== undefined) return seen;
    const total = await orUnavailable(this.store.dailyBytes(accountId, day));
    this.remember(accountId, day, total);
    return total;
  }

  /** Reserve `bytes` against the day's total across all processes, or refuse as DailyUsage.tryReserve would. */
  async reserve(plan: Plan, accountId: string, bytes: number): Promise<ReserveResult> {
    if (plan.ingestBlocked) return { ok: false, error: errors.trialExpired() };
    const day = this.today();
    const cap = ceilingBytes(plan);
    const r = await orUnavailable(this.store.reserveDailyBytes(accountId, day, bytes, cap));
    this.remember(accountId, day, r.totalBytes);
    if (!r.ok) return { ok: false, error: errors.dailyVolume(r.totalBytes, cap) };
    const reservation: Reservation = Object.freeze({ accountId, day, bytes });
    this.live.add(reservation);
    return { ok: true, reservation };
  }

  /** Was this reservation made here (and not yet settled)? */
  holds(reservation: Reservation): boolean {
    return this.live.has(reservation);
  }

  /** The request got its 200: its bytes stay in the total. */
  commit(reservation: Reservation): void {
    this.live.delete(reservation);
  }

  /**
   * The request failed after reserving: give the bytes back. Not awaited by the request; if the store cannot be
   * reached the bytes stay counted, which errs toward refusing, never toward passing the cap.
   */
  release(reservation: Reservation): void {
    if (!this.live.delete(reservation)) return;
    const seen = reservation.day === this.knownDay ? this.known.get(reservation.accountId) : undefined;
    if (seen !== undefined) this.known.set(reservation.accountId, Math.max(0, seen - reservation.bytes));
    this.store.releaseDailyBytes(reservation.accountId, reservation.day, reservation.bytes)
      .catch((e: unknown) => { this.log(`daily volume: giving back ${reservation.bytes} bytes failed: ${String(e)}`); });
  }

  private remember(accountId: string, day: string, total: number): void {
    // Only one day's totals are kept: the first total of another day (the 00:00 UTC reset) forgets the old ones.
    if (day !== this.knownDay) {
      this.known.clear();
      this.knownDay = day;
    }
    this.known.set(accountId, total);
  }
}
