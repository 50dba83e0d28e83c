// Query rate (DESIGN §6 "Query rate"; spec "Per-plan limits"): per tenant, over all `/api/v1/tenants/...`
// requests, at most N in any rolling 60 s — so a burst of N, and no more. A sliding log: the newest N
// admitted timestamps decide everything, so a tenant holds at most N of them, in a ring that grows on demand.
// Pure: time comes from the injected clock.
import type { Clock } from '../clock.js';

export const QUERY_WINDOW_MS = 60_000;

export type QueryRateDecision = { ok: true } | { ok: false; retryAfter: number };

/** A limit of 0 never clears by waiting; tell the client to come back in a minute. */
export const ZERO_LIMIT_RETRY_SECONDS = 60;

/** The admitted timestamps of one tenant, oldest first, in a ring of at most `limit` slots. */
class RequestLog {
  private ring: number[] = [];
  private head = 0;
  private count = 0;

  get newest(): number | undefined {
    return this.count === 0 ? undefined : this.at(this.count - 1);
  }

  get oldest(): number | undefined {
    return this.count === 0 ? undefined : this.at(0);
  }

  get size(): number {
    return this.count;
  }

  /** Forget timestamps that have left the window (t − 60 s, t]. */
  expire(nowMs: number): void {
    while (this.count > 0 && this.at(0) <= nowMs - QUERY_WINDOW_MS) this.shift();
  }

  /** Keep only the newest `limit` (a lowered limit: older ones can no longer decide anything). */
  trimTo(limit: number): void {
    while (this.count > limit) this.shift();
    if (this.ring.length > Math.max(limit, 1) * 2) this.compact(Math.max(this.count, 1));
  }

  push(ms: number, limit: number): void {
    if (this.count === this.ring.length) this.compact(Math.min(limit, Math.max(16, this.ring.length * 2)));
    this.ring[(this.head + this.count) % this.ring.length] = ms;
    this.count++;
  }

  clear(): void {
    this.ring = [];
    this.head = 0;
    this.count = 0;
  }

  private at(i: number): number {
    return this.ring[(this.head + i) % this.ring.length] ?? 0;
  }

  private shift(): void {
    this.head = (this.head + 1) % this.ring.length;
    this.count--;
  }

  /** Re-lay the ring oldest-first into `capacity` slots. */
  private compact(capacity: number): void {
    const next = new Array<number>(Math.max(capacity, this.count));
    for (let i = 0; i < this.count; i++) next[i] = this.at(i);
    this.ring = next;
    this.head = 0;
  }
}

export interface QueryRateOptions {
  /** Look for idle tenants at most this often, ms of service time (default 60 000). */
  sweepEveryMs?: number;
}

export class QueryRateLimiter {
  private readonly logs = new Map<string, RequestLog>();
  private readonly sweepEveryMs: number;
  private lastSweepMs: number;

  constructor(private readonly clock: Clock, options: QueryRateOptions = {}) {
    this.sweepEveryMs = options.sweepEveryMs ?? QUERY_WINDOW_MS;
    this.lastSweepMs = clock.now();
  }

  /**
   * Admit one request for `tenantId` under a limit of `perMinute` (the plan's queryRatePerMin; Infinity is
   * unlimited). A refusal's retryAfter is the whole seconds (≥ 1) until the oldest request in the window
   * leaves it; after that wait, with no other traffic, the request is admitted.
   */
  admit(tenantId: string, perMinute: number): QueryRateDecision {
    const now = this.clock.now();
    this.maybeSweep(now);
    if (perMinute === Infinity) {
      this.logs.delete(tenantId);
      return { ok: true };
    }
    const limit = perMinute > 0 ? Math.floor(perMinute) : 0;
    if (limit === 0) return { ok: false, retryAfter: ZERO_LIMIT_RETRY_SECONDS };

    let log = this.logs.get(tenantId);
    if (!log) {
      log = new RequestLog();
      this.logs.set(tenantId, log);
    }
    // Service time may jump backwards (PUT /admin/v1/clock): a window from the future is forgotten.
    const newest = log.newest;
    if (newest !== undefined && newest > now) log.clear();
    log.expire(now);
    log.trimTo(limit);

    const oldest = log.oldest;
    if (log.size >= limit && oldest !== undefined) {
      return { ok: false, retryAfter: Math.max(1, Math.ceil((oldest + QUERY_WINDOW_MS - now) / 1000)) };
    }
    log.push(now, limit);
    return { ok: true };
  }

  /** Timestamps held for the tenant (at most its limit): the memory bound, for tests and /metrics. */
  held(tenantId: string): number {
    return this.logs.get(tenantId)?.size ?? 0;
  }

  /** Tenants with a window in memory. */
  get size(): number {
    return this.logs.size;
  }

  /** Drop tenants whose window is empty; returns how many were dropped. */
  sweep(): number {
    const now = this.clock.now();
    this.lastSweepMs = now;
    let dropped = 0;
    for (const [id, log] of this.logs) {
      const newest = log.newest;
      if (newest === undefined || newest <= now - QUERY_WINDOW_MS) {
        this.logs.delete(id);
        dropped++;
      }
    }
    return dropped;
  }

  private maybeSweep(now: number): void {
    if (now - this.lastSweepMs >= this.sweepEveryMs || now < this.lastSweepMs) this.sweep();
  }
}
