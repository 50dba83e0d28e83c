import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ManualClock } from '../clock.js';
import { QUERY_WINDOW_MS, QueryRateLimiter } from './query-rate.js';

const T0 = Date.UTC(2026, 0, 1);

void test('the query window admits a burst of N and no more', () => {
  for (const n of [1, 300, 1200, 3000]) {
    const clock = new ManualClock(T0);
    const q = new QueryRateLimiter(clock);
    for (let i = 0; i < n; i++) assert.deepEqual(q.admit('t', n), { ok: true });
    assert.deepEqual(q.admit('t', n), { ok: false, retryAfter: 60 });
    assert.equal(q.held('t'), n, 'at most N timestamps are held');
  }
});

void test('the window rolls: a request leaves it 60 s after it was admitted', () => {
  const clock = new ManualClock(T0);
  const q = new QueryRateLimiter(clock);
  q.admit('t', 2);
  clock.advance(20_500);
  q.admit('t', 2);
  assert.deepEqual(q.admit('t', 2), { ok: false, retryAfter: 40 });
  clock.advance(39_499);
  assert.deepEqual(q.admit('t', 2), { ok: false, retryAfter: 1 });
  clock.advance(1);
  assert.deepEqual(q.admit('t', 2), { ok: true });
  assert.deepEqual(q.admit('t', 2), { ok: false, retryAfter: 21 });
});

void test('tenants have separate windows', () => {
  const q = new QueryRateLimiter(new ManualClock(T0));
  assert.deepEqual(q.admit('a', 1), { ok: true });
  assert.deepEqual(q.admit('b', 1), { ok: true });
  assert.equal(q.admit('a', 1).ok, false);
});

void test('an unlimited query rate admits everything and holds nothing', () => {
  const q = new QueryRateLimiter(new ManualClock(T0));
  for (let i = 0; i < 10_000; i++) assert.deepEqual(q.admit('custom', Infinity), { ok: true });
  assert.equal(q.held('custom'), 0);
  assert.equal(q.size, 0);
});

void test('a lowered limit applies at once, and its window holds no more than the new limit', () => {
  const clock = new ManualClock(T0);
  const q = new QueryRateLimiter(clock);
  for (let i = 0; i < 1200; i++) q.admit('t', 1200);
  // trial → trial_expired: 300/min
  assert.equal(q.admit('t', 300).ok, false);
  assert.equal(q.held('t'), 300);
  clock.advance(QUERY_WINDOW_MS);
  for (let i = 0; i < 300; i++) assert.ok(q.admit('t', 300).ok);
  assert.equal(q.admit('t', 300).ok, false);
});

void test('a limit of 0 refuses without holding anything', () => {
  const q = new QueryRateLimiter(new ManualClock(T0));
  assert.deepEqual(q.admit('t', 0), { ok: false, retryAfter: 60 });
  assert.equal(q.held('t'), 0);
});

void test('idle tenants are evicted once their window is empty', () => {
  const clock = new ManualClock(T0);
  const q = new QueryRateLimiter(clock);
  q.admit('a', 10);
  clock.advance(30_000);
  q.admit('b', 10);
  clock.advance(30_000);
  assert.equal(q.sweep(), 1);
  assert.equal(q.size, 1);
  clock.advance(60_000);
  q.admit('c', 10);
  assert.equal(q.size, 1, 'the sweep also runs on its own as traffic arrives');
});

void test('service time jumping backwards forgets the window instead of refusing for longer than a minute', () => {
  const clock = new ManualClock(T0);
  const q = new QueryRateLimiter(clock);
  q.admit('t', 1);
  clock.set(T0 - 3_600_000);
  assert.deepEqual(q.admit('t', 1), { ok: true });
});

// ---- properties over random traffic ----

const trafficArb = fc.record({
  limit: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 50 })),
  steps: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 70_000 })), { maxLength: 200 }),
});

void test('property: no rolling 60 s window ever holds more than N admitted requests', () => {
  fc.assert(fc.property(trafficArb, ({ limit, steps }) => {
    const clock = new ManualClock(T0);
    const q = new QueryRateLimiter(clock);
    const admitted: number[] = [];
    for (const wait of steps) {
      clock.advance(wait);
      const now = clock.now();
      const inWindow = admitted.filter((t) => t > now - QUERY_WINDOW_MS).length;
      const r = q.admit('t', limit);
      assert.equal(r.ok, inWindow < limit, 'admitted exactly when the window has room');
      if (r.ok) admitted.push(now);
      assert.ok(q.held('t') <= limit);
    }
  }), { numRuns: 500 });
});

void test('property: waiting retry_after admits the same request, and no shorter whole wait does', () => {
  fc.assert(fc.property(trafficArb, ({ limit, steps }) => {
    const clock = new ManualClock(T0);
    const q = new QueryRateLimiter(clock);
    for (const wait of steps) {
      clock.advance(wait);
      const r = q.admit('t', limit);
      if (r.ok) continue;
      assert.ok(Number.isInteger(r.retryAfter) && r.retryAfter >= 1 && r.retryAfter <= 60);
      if (r.retryAfter > 1) {
        // A refused admit records nothing, so asking after a shorter wait changes no state.
        clock.advance((r.retryAfter - 1) * 1000);
        assert.equal(q.admit('t', limit).ok, false, 'retry_after is the least whole wait');
        clock.advance(1000);
      } else {
        clock.advance(1000);
      }
      assert.deepEqual(q.admit('t', limit), { ok: true }, 'waiting retry_after admits');
    }
  }), { numRuns: 500 });
});
