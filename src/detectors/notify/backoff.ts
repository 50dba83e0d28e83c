// When to try a failed delivery again: exponential backoff with jitter ("equal jitter": half the delay fixed, half
// random, so retries of many rows spread out yet never come sooner than half the step), from `baseMs` doubling up
// to `maxMs`, giving up `giveUpMs` after the row was enqueued with the last error recorded. Alertmanager's notify
// retrier backs off the same way within one group interval; here the state is durable, so it spans restarts.

export interface RetryPolicy {
  /** The first wait (5 s by default). */
  baseMs: number;
  /** The longest wait (10 min). */
  maxMs: number;
  /** No try is made later than this after the row was enqueued (24 h). */
  giveUpMs: number;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ baseMs: 5000, maxMs: 600_000, giveUpMs: 86_400_000 });

/** The wait after the `attempts`-th failed try (1-based), jittered by `random` ∈ [0, 1). */
export function backoffMs(attempts: number, policy: RetryPolicy, random: number): number {
  const step = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 40)));
  return Math.round(step / 2 + (step / 2) * random);
}

export type RetryDecision = { retryAt: number } | { giveUp: string };

/**
 * After a retryable failure at `nowMs`: the next try (never before the receiver's Retry-After, never past the
 * give-up time: the last try lands on it), or give up once that time has come.
 */
export function nextTry(
  createdAt: number, attempts: number, nowMs: number, policy: RetryPolicy, random: number, retryAfterMs?: number,
): RetryDecision {
  const deadline = createdAt + policy.giveUpMs;
  if (nowMs >= deadline) return { giveUp: `gave up after ${attempts} attempt(s) over ${Math.round(policy.giveUpMs / 60_000)} min` };
  const wait = Math.max(backoffMs(attempts, policy, random), retryAfterMs ?? 0);
  return { retryAt: Math.min(nowMs + wait, deadline) };
}
