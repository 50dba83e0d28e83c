// Token buckets for ingest entries (spec "Ingest rate (token bucket per tenant)" rules 1–6; DESIGN §6
// "Tenant token bucket"). Rate R entries/s, capacity 5R, starts full, refills at R per second of service
// time, may go down to −5R. Pure: no timers, time comes from the injected clock.
//
// - tenant: a batch of n is refused only when tokens ≤ 0 AND tokens − n < −5R AND n > 5R; otherwise it is
//   admitted and tokens = max(tokens − n, −5R). A batch inside the burst is never refused.
// - platform: refused whenever tokens − n < −5R, for any n; a refusal leaves the tokens as they were.
// On refusal, retryAfter is the whole seconds (≥ 1) after which, with no other traffic, the same batch is
// admitted; it is found with the very arithmetic the refill uses, so the promise holds to the last bit.
import type { Clock } from '../clock.js';
import { errors, type ServiceError } from '../errors.js';

export type LimiterKind = 'tenant' | 'platform';

export type LimiterDecision = { ok: true } | { ok: false; retryAfter: number };

/** Burst capacity and debt floor, as multiples of the rate (spec rules 2 and 3). */
export const BURST_SECONDS = 5;

/** Platform-wide default rate, entries/s (DESIGN §2 SIGHTLINE_PLATFORM_RATE). */
export const DEFAULT_PLATFORM_RATE = 50_000;

/** Refusal reply when no wait can help (a zero rate): the client is told to come back in a minute. */
const HOPELESS_RETRY_SECONDS = 60;

export class TokenBucket {
  // Tokens are held as (anchorTokens at anchorMs) and read lazily: a check or a refusal changes nothing,
  // so the tokens a retryAfter was computed from are exactly the tokens the retry will see.
  private anchorTokens: number;
  private anchorMs: number;

  constructor(readonly kind: LimiterKind, private rateValue: number, nowMs: number) {
    this.anchorTokens = capacityOf(rateValue);
    this.anchorMs = nowMs;
  }

  get rate(): number {
    return this.rateValue;
  }

  /** Tokens at `nowMs`: refilled at R since the last debit, capped at 5R. */
  tokensAt(nowMs: number): number {
    return this.tokensAfter(this.elapsed(nowMs));
  }

  /** True when the bucket is back at capacity: indistinguishable from a new one (safe to evict). */
  isFull(nowMs: number): boolean {
    return this.tokensAt(nowMs) >= capacityOf(this.rateValue);
  }

  /** The decision for a batch of `n`, without taking anything. */
  check(n: number, nowMs: number): LimiterDecision {
    const elapsed = this.elapsed(nowMs);
    if (!this.refuses(this.tokensAfter(elapsed), n)) return { ok: true };
    return { ok: false, retryAfter: this.retryAfterFor(n, elapsed) };
  }

  /** Debit `n` (after a positive check): tokens = max(tokens − n, −5R). */
  take(n: number, nowMs: number): void {
    const tokens = this.tokensAt(nowMs);
    this.anchor(this.rateValue === Infinity ? tokens : Math.max(tokens - n, -capacityOf(this.rateValue)), nowMs);
  }

  /** check, then take when admitted. */
  admit(n: number, nowMs: number): LimiterDecision {
    const decision = this.check(n, nowMs);
    if (decision.ok) this.take(n, nowMs);
    return decision;
  }

  /** A plan change: refill at the old rate up to now, then keep the tokens clamped to the new bounds. */
  setRate(rate: number, nowMs: number): void {
    const tokens = this.tokensAt(nowMs);
    this.rateValue = rate;
    const cap = capacityOf(rate);
    this.anchor(rate === Infinity ? Infinity : Math.min(cap, Math.max(-cap, tokens)), nowMs);
  }

  private refuses(tokens: number, n: number): boolean {
    if (n <= 0 || this.rateValue === Infinity) return false;
    const cap = capacityOf(this.rateValue);
    if (this.kind === 'platform') return tokens - n < -cap;
    return tokens <= 0 && tokens - n < -cap && n > cap;
  }

  /**
   * The least whole t ≥ 1 such that the tokens after t more seconds, computed exactly as check() will
   * compute them, admit `n`. Starts from the closed form and steps to absorb floating-point rounding;
   * admission only grows with time, so the steps are few.
   */
  private retryAfterFor(n: number, elapsed: number): number {
    const rate = this.rateValue;
    if (!(rate > 0)) return HOPELESS_RETRY_SECONDS;
    const cap = capacityOf(rate);
    const at = (t: number): number => this.tokensAfter(elapsed + t * 1000);
    // Tenant: admitted once tokens > 0. Platform: once tokens ≥ n − 5R, which a full bucket reaches only
    // when n ≤ 10R; a larger batch can never pass, and is told the time until the bucket is full.
    const need = this.kind === 'tenant' ? 0 : Math.min(n - cap, cap);
    let t = Math.max(1, Math.floor((need - at(0)) / rate));
    while (t > 1 && !this.refuses(at(t - 1), n)) t--;
    while (this.refuses(at(t), n) && at(t) < cap) t++;
    return t;
  }

  private tokensAfter(elapsedMs: number): number {
    return refilled(this.anchorTokens, this.rateValue, elapsedMs);
  }

  /** Service time may jump backwards (PUT /admin/v1/clock): then nothing refills until it passes again. */
  private elapsed(nowMs: number): number {
    return Math.max(0, nowMs - this.anchorMs);
  }

  private anchor(tokens: number, nowMs: number): void {
    this.anchorTokens = tokens;
    this.anchorMs = nowMs;
  }
}

function capacityOf(rate: number): number {
  return BURST_SECONDS * rate;
}

/** Tokens after `elapsedMs` of refill at `rate`, capped at 5R. The one formula check, take and retry share. */
function refilled(tokens: number, rate: number, elapsedMs: number): number {
  if (rate === Infinity) return Infinity;
  return Math.min(capacityOf(rate), tokens + rate * (elapsedMs / 1000));
}

/** The platform-wide limiter (spec rule 6): no fits-inside-the-burst exemption. */
export class PlatformLimiter {
  private readonly bucket: TokenBucket;
  private shareOf = 1;

  constructor(private readonly clock: Clock, private readonly fullRate = DEFAULT_PLATFORM_RATE) {
    this.bucket = new TokenBucket('platform', fullRate, clock.now());
  }

  /**
   * Split roles (DESIGN §10): with `n` live processes of this role each holds rate/n, capacity and floor scaled
   * alike. A change keeps the tokens (clamped to the new bounds) and refills at the new rate from now on.
   */
  setShare(n: number): void {
    if (n === this.shareOf) return;
    this.shareOf = n;
    this.bucket.setRate(this.fullRate / n, this.clock.now());
  }

  check(n: number): LimiterDecision {
    return this.bucket.check(n, this.clock.now());
  }

  take(n: number): void {
    this.bucket.take(n, this.clock.now());
  }

  admit(n: number): LimiterDecision {
    return this.bucket.admit(n, this.clock.now());
  }

  tokens(): number {
    return this.bucket.tokensAt(this.clock.now());
  }
}

export interface TenantLimitersOptions {
  /** Look for idle buckets at most this often, ms of service time (default 60 000). */
  sweepEveryMs?: number;
}

/**
 * One tenant bucket per tenant id, created lazily at the tenant's current rate. A bucket that has refilled
 * to capacity is the same as a new one, so idle buckets are dropped without changing any decision.
 */
export class TenantLimiters {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly sweepEveryMs: number;
  private lastSweepMs: number;

  constructor(private readonly clock: Clock, options: TenantLimitersOptions = {}) {
    this.sweepEveryMs = options.sweepEveryMs ?? 60_000;
    this.lastSweepMs = clock.now();
  }

  /** The decision for `n` entries at the tenant's current `rate`, without taking anything. */
  check(tenantId: string, rate: number, n: number): LimiterDecision {
    const now = this.clock.now();
    return this.bucketFor(tenantId, rate, now).check(n, now);
  }

  /** Debit `n` after a positive check. */
  take(tenantId: string, rate: number, n: number): void {
    const now = this.clock.now();
    this.bucketFor(tenantId, rate, now).take(n, now);
  }

  admit(tenantId: string, rate: number, n: number): LimiterDecision {
    const now = this.clock.now();
    return this.bucketFor(tenantId, rate, now).admit(n, now);
  }

  /** Tokens the tenant has now; a tenant without a bucket has a full one (5 × `rate`). */
  tokens(tenantId: string, rate: number): number {
    const bucket = this.buckets.get(tenantId);
    return bucket ? bucket.tokensAt(this.clock.now()) : capacityOf(rate);
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Drop every bucket that is back at capacity; returns how many were dropped. */
  sweep(): number {
    const now = this.clock.now();
    this.lastSweepMs = now;
    let dropped = 0;
    for (const [id, bucket] of this.buckets) {
      if (bucket.isFull(now)) {
        this.buckets.delete(id);
        dropped++;
      }
    }
    return dropped;
  }

  private maybeSweep(now: number): void {
    if (now - this.lastSweepMs >= this.sweepEveryMs || now < this.lastSweepMs) this.sweep();
  }

  private bucketFor(tenantId: string, rate: number, now: number): TokenBucket {
    this.maybeSweep(now);
    let bucket = this.buckets.get(tenantId);
    if (!bucket) {
      bucket = new TokenBucket('tenant', rate, now);
      this.buckets.set(tenantId, bucket);
    } else if (bucket.rate !== rate) {
      bucket.setRate(rate, now);
    }
    return bucket;
  }
}

export type IngestLimiterDecision = { ok: true } | { ok: false; retryAfter: number; limiter: LimiterKind };

/**
 * Both limiters as one step (DESIGN §6 order: platform, then tenant): nothing is taken from either bucket
 * unless both admit, so a batch refused by one does not spend the other's tokens.
 */
export function admitIngest(platform: PlatformLimiter, tenants: TenantLimiters, tenantId: string, rate: number, n: number): IngestLimiterDecision {
  const p = platform.check(n);
  if (!p.ok) return { ...p, limiter: 'platform' };
  const t = tenants.check(tenantId, rate, n);
  if (!t.ok) return { ...t, limiter: 'tenant' };
  platform.take(n);
  tenants.take(tenantId, rate, n);
  return { ok: true };
}

/** The 429 for a refusal: `rate_limited` "Rate limit exceeded", counted under its limiter's reason. */
export function limiterError(refusal: { retryAfter: number; limiter: LimiterKind }): ServiceError {
  return refusal.limiter === 'platform' ? errors.platformRateLimited(refusal.retryAfter) : errors.rateLimited(refusal.retryAfter);
}
