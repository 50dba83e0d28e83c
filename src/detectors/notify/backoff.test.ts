// Backoff with jitter and the give-up time (backoff.ts): known answers with the jitter at its ends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs, DEFAULT_RETRY, nextTry } from './backoff.js';

const P = DEFAULT_RETRY;

void describe('delivery backoff', () => {
  void it('doubles from 5 s to 10 min; jitter keeps each wait within [step/2, step]', () => {
    const steps = [1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => backoffMs(n, P, 0.999_999));
    assert.deepEqual(steps, [5000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000, 600_000]);
    assert.deepEqual([1, 2, 8].map((n) => backoffMs(n, P, 0)), [2500, 5000, 300_000]);
    assert.equal(backoffMs(10_000, P, 0.5), 450_000, 'a huge attempt count does not overflow');
  });

  void it('retries no sooner than Retry-After, never past the give-up time, and gives up from then on', () => {
    assert.deepEqual(nextTry(0, 1, 1000, P, 0), { retryAt: 3500 });
    assert.deepEqual(nextTry(0, 1, 1000, P, 0, 60_000), { retryAt: 61_000 });
    const late = P.giveUpMs - 1000;
    assert.deepEqual(nextTry(0, 30, late, P, 1), { retryAt: P.giveUpMs }, 'the last try lands on the give-up time');
    const gaveUp = nextTry(0, 31, P.giveUpMs, P, 0);
    assert.ok('giveUp' in gaveUp);
    assert.match(gaveUp.giveUp, /gave up after 31 attempt\(s\) over 1440 min/);
  });
});
