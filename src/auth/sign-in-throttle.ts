// The throttle on wrong passwords (DESIGN §7 "a per-email and per-address throttle"): failures are counted per
// email and per client address over a rolling window of service time; at the limit, sign-in for that email (or
// from that address) answers 429 `rate_limited` until the oldest failure leaves the window — even with the right
// password, or guessing could go on. A success clears the email's count (its owner is back); the address keeps its
// count, since one address may be guessing at many emails. In memory, per process, like the live-tail count: it
// bounds guessing speed, it is not a record.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';

export interface ThrottleLimits {
  windowMs: number;
  /** Failures per email within the window before it is refused. */
  perEmail: number;
  /** Failures per client address; higher, since an office or a NAT shares one address. */
  perAddress: number;
  /** Keys kept at most; the oldest go first, so a flood of made-up emails cannot grow memory without bound. */
  maxKeys: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { windowMs: 15 * 60_000, perEmail: 5, perAddress: 20, maxKeys: 100_000 };

export class SignInThrottle {
  /** Failure times, oldest first, per `e:<email>` and `a:<address>`. */
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly clock: Clock, private readonly limits: ThrottleLimits = DEFAULT_THROTTLE) {}

  /** Throws 429 with `retry_after` when either the email or the address has reached its limit. */
  check(email: string, address: string): void {
    const now = this.clock.now();
    const waits = [this.wait(`e:${email}`, this.limits.perEmail, now), this.wait(`a:${address}`, this.limits.perAddress, now)];
    const longest = Math.max(...waits);
    if (longest > 0) throw errors.signInThrottled(Math.max(1, Math.ceil(longest / 1000)));
  }

  failed(email: string, address: string): void {
    const now = this.clock.now();
    for (const key of [`e:${email}`, `a:${address}`]) {
      const times = this.recent(key, now);
      times.push(now);
      this.failures.delete(key); // re-insert: Map order is then least recently failed first
      this.failures.set(key, times);
    }
    this.bound();
  }

  succeeded(email: string): void {
    this.failures.delete(`e:${email}`);
  }

  /** Milliseconds until `key` is below `limit` again; 0 when it is below now. */
  private wait(key: string, limit: number, now: number): number {
    const times = this.recent(key, now);
    if (times.length < limit) return 0;
    // The limit-th newest failure must leave the window before one more attempt is allowed.
    const decisive = times[times.length - limit] ?? now;
    return decisive + this.limits.windowMs - now;
  }

  /** The key's failures inside the window (older ones are dropped here). */
  private recent(key: string, now: number): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const from = times.findIndex((t) => t > now - this.limits.windowMs);
    if (from < 0) {
      this.failures.delete(key);
      return [];
    }
    if (from > 0) times.splice(0, from);
    return times;
  }

  private bound(): void {
    for (const key of this.failures.keys()) {
      if (this.failures.size <= this.limits.maxKeys) break;
      this.failures.delete(key);
    }
  }
}
