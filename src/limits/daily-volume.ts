// Daily volume (spec "Daily volume and overage", "Daily counter rule"; DESIGN §6 "Metering"). One counter per
// account per UTC day, summed over every signal, reset at 00:00 UTC. A request is refused when used + size
// would pass the cap; the detail's used bytes are what was counted today before this request.
//
// The decision is a pure function. DailyUsage is the in-memory side: bytes are reserved before the WAL
// append (so two concurrent requests cannot both pass the check), committed after the 200, released on
// failure; committed increments drain to the control store as CounterDeltas every second or so.
import type { Clock } from '../clock.js';
import { utcDay } from '../clock.js';
import { errors, type ServiceError } from '../errors.js';
import { SIGNALS, type Signal } from '../model/batch.js';
import type { CounterDelta } from '../stores/control/control-store.js';
import { ceilingBytes, type Plan } from './plans.js';

export type VolumeDecision = { ok: true } | { ok: false; error: ServiceError };

/** Counter name of one signal's bytes in the control store (`bytes:logs`, …). */
export function bytesCounter(signal: Signal): string {
  return `bytes:${signal}`;
}

/**
 * Early check, before the body is read (DESIGN §6 order: "blocked tier or spent quota (429)"): a blocked
 * tier is refused first of all; an account already at its cap cannot take a non-empty body today.
 */
export function checkIngestOpen(plan: Plan, usedBytes: number): VolumeDecision {
  if (plan.ingestBlocked) return { ok: false, error: errors.trialExpired() };
  const cap = ceilingBytes(plan);
  if (usedBytes >= cap) return { ok: false, error: errors.dailyVolume(usedBytes, cap) };
  return { ok: true };
}

/** May `size` more bytes go in today? Hard-stop tiers cap at included, overage tiers at the ceiling. */
export function checkDailyVolume(plan: Plan, usedBytes: number, size: number): VolumeDecision {
  if (plan.ingestBlocked) return { ok: false, error: errors.trialExpired() };
  const cap = ceilingBytes(plan);
  if (usedBytes + size > cap) return { ok: false, error: errors.dailyVolume(usedBytes, cap) };
  return { ok: true };
}

/** Bytes held for a request between the check and its 200 (or its failure). */
export interface Reservation {
  readonly accountId: string;
  readonly day: string;
  readonly bytes: number;
}

export type ReserveResult = { ok: true; reservation: Reservation } | { ok: false; error: ServiceError };

/** One account's UTC day: counters by name (`bytes:<signal>`, `ai:total`, …). */
interface DayCounters {
  /** Everything counted: loaded from the store plus committed here. */
  committed: Map<string, number>;
  /** Committed here and not yet drained to the store. */
  pending: Map<string, number>;
  /** Bytes reserved by requests in flight. */
  reserved: number;
  loaded: boolean;
}

export class DailyUsage {
  private readonly days = new Map<string, DayCounters>();
  private readonly live = new Set<Reservation>();

  constructor(private readonly clock: Clock) {}

  /** The current UTC day by service time: rolls over at 00:00 UTC. */
  today(): string {
    return utcDay(this.clock.now());
  }

  /** Check and reserve in one synchronous step: the only way two concurrent requests cannot both pass. */
  tryReserve(plan: Plan, accountId: string, size: number, day = this.today()): ReserveResult {
    const decision = checkDailyVolume(plan, this.used(accountId, day), size);
    if (!decision.ok) return decision;
    return { ok: true, reservation: this.reserve(accountId, day, size) };
  }

  /** Hold `bytes` against the day until commit or release (counted by used()). */
  reserve(accountId: string, day: string, bytes: number): Reservation {
    const reservation: Reservation = Object.freeze({ accountId, day, bytes });
    this.entry(accountId, day).reserved += bytes;
    this.live.add(reservation);
    return reservation;
  }

  /** The request got its 200: count its bytes under `signal` for the reservation's day. */
  commit(reservation: Reservation, signal: Signal): void {
    if (!this.settle(reservation)) return;
    this.record(reservation.accountId, reservation.day, bytesCounter(signal), reservation.bytes);
  }

  /** The request failed after reserving: give the bytes back. */
  release(reservation: Reservation): void {
    this.settle(reservation);
  }

  /** Add to any counter of the day (AI credits use `ai:*`); drained like committed bytes. */
  record(accountId: string, day: string, name: string, delta: number): void {
    if (delta === 0) return;
    const e = this.entry(accountId, day);
    e.committed.set(name, (e.committed.get(name) ?? 0) + delta);
    e.pending.set(name, (e.pending.get(name) ?? 0) + delta);
  }

  /** Bytes counted for the day over all signals, including reservations in flight. */
  used(accountId: string, day = this.today()): number {
    const e = this.days.get(key(accountId, day));
    if (!e) return 0;
    let total = e.reserved;
    for (const signal of SIGNALS) total += e.committed.get(bytesCounter(signal)) ?? 0;
    return total;
  }

  /** Committed bytes by signal (the `usage` endpoint's `by_signal`), without reservations. */
  bySignal(accountId: string, day = this.today()): Record<Signal, number> {
    const e = this.days.get(key(accountId, day));
    const out = { logs: 0, traces: 0, metrics: 0, rum: 0, replay: 0 } satisfies Record<Signal, number>;
    for (const signal of SIGNALS) out[signal] = e?.committed.get(bytesCounter(signal)) ?? 0;
    return out;
  }

  /** Every committed counter of the day, by name (AI ledger reads `ai:*` from here). */
  counters(accountId: string, day = this.today()): Record<string, number> {
    const e = this.days.get(key(accountId, day));
    return e ? Object.fromEntries(e.committed) : {};
  }

  /** Has the day been seeded from the durable store? */
  isLoaded(accountId: string, day = this.today()): boolean {
    return this.days.get(key(accountId, day))?.loaded ?? false;
  }

  /**
   * Seed the day from the control store's counters (after a restart, or on first use). The store holds
   * what was drained; what is still pending here is added on top. Call it while no drain of this day is
   * in flight, or that drain's increments are missed until the next load.
   */
  load(accountId: string, day: string, stored: Record<string, number>): void {
    const e = this.entry(accountId, day);
    const committed = new Map<string, number>(Object.entries(stored));
    for (const [name, delta] of e.pending) committed.set(name, (committed.get(name) ?? 0) + delta);
    e.committed = committed;
    e.loaded = true;
  }

  /** Committed increments not yet persisted, for the periodic flush; they are forgotten here once taken. */
  drainDeltas(): CounterDelta[] {
    const out: CounterDelta[] = [];
    for (const [k, e] of this.days) {
      const cut = k.lastIndexOf('\u0000');
      const accountId = k.slice(0, cut);
      const day = k.slice(cut + 1);
      for (const [name, delta] of e.pending) if (delta !== 0) out.push({ accountId, day, name, delta });
      e.pending.clear();
    }
    this.prune();
    return out;
  }

  /** A flush failed: take its deltas back so the next drain carries them again. */
  requeue(deltas: readonly CounterDelta[]): void {
    for (const d of deltas) {
      const e = this.entry(d.accountId, d.day);
      e.pending.set(d.name, (e.pending.get(d.name) ?? 0) + d.delta);
    }
  }

  /** Forget past days that have nothing pending and nothing reserved (the 00:00 UTC reset frees memory). */
  prune(): void {
    const today = this.today();
    for (const [k, e] of this.days) {
      const day = k.slice(k.lastIndexOf('\u0000') + 1);
      if (day < today && e.pending.size === 0 && e.reserved === 0) this.days.delete(k);
    }
  }

  /** Accounts × days held in memory. */
  get size(): number {
    return this.days.size;
  }

  /** Take a live reservation off its day exactly once; false if it was already settled. */
  private settle(reservation: Reservation): boolean {
    if (!this.live.delete(reservation)) return false;
    const e = this.days.get(key(reservation.accountId, reservation.day));
    if (e) e.reserved -= reservation.bytes;
    return true;
  }

  private entry(accountId: string, day: string): DayCounters {
    const k = key(accountId, day);
    let e = this.days.get(k);
    if (!e) {
      e = { committed: new Map(), pending: new Map(), reserved: 0, loaded: false };
      this.days.set(k, e);
    }
    return e;
  }
}

function key(accountId: string, day: string): string {
  return `${accountId}\u0000${day}`;
}
