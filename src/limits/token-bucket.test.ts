import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ManualClock } from '../clock.js';
import { PlatformLimiter, TenantLimiters, TokenBucket, admitIngest, limiterError, type LimiterKind } from './token-bucket.js';

const T0 = Date.UTC(2026, 0, 1);

void test('a new tenant bucket starts full: a burst of 5R goes through at once', () => {
  const b = new TokenBucket('tenant', 500, T0);
  assert.equal(b.tokensAt(T0), 2500);
  assert.deepEqual(b.admit(2500, T0), { ok: true });
  assert.equal(b.tokensAt(T0), 0);
});

void test('a batch inside the burst is never refused, even at the debt floor', () => {
  const b = new TokenBucket('tenant', 500, T0);
  for (let i = 0; i < 20; i++) assert.deepEqual(b.admit(2500, T0), { ok: true });
  assert.equal(b.tokensAt(T0), -2500, 'debt stops at −5R');
  assert.deepEqual(b.admit(2500, T0), { ok: true });
});

void test('the tenant bucket refuses only when empty, in deep debt and given a batch over the burst', () => {
  // 2,000/s: burst 10,000, floor −10,000.
  const cases: { tokens: number; n: number; ok: boolean; why: string }[] = [
    { tokens: 10_000, n: 25_000, ok: true, why: 'tokens > 0: even a huge batch goes in, into debt' },
    { tokens: 1, n: 10_002, ok: true, why: 'tokens > 0' },
    { tokens: 0, n: 10_000, ok: true, why: 'n is not over the burst' },
    { tokens: 0, n: 10_001, ok: false, why: 'all three hold: 0 tokens counts as empty' },
    { tokens: -1, n: 10_001, ok: false, why: 'all three hold' },
    { tokens: -5000, n: 5001, ok: true, why: 'debt deeper than −5R after, but n inside the burst' },
    { tokens: -5000, n: 10_500, ok: false, why: 'all three hold' },
    { tokens: -10_000, n: 10_000, ok: true, why: 'at the floor, a batch of exactly the burst still goes in' },
  ];
  for (const c of cases) {
    const b = new TokenBucket('tenant', 2000, T0);
    if (c.tokens < 10_000) b.take(10_000 - c.tokens, T0);
    assert.equal(b.tokensAt(T0), c.tokens);
    assert.equal(b.check(c.n, T0).ok, c.ok, c.why);
  }
});

void test('debt refills at R per second of service time and stops at 5R', () => {
  const clock = new ManualClock(T0);
  const b = new TokenBucket('tenant', 500, clock.now());
  b.take(5000, clock.now());
  assert.equal(b.tokensAt(clock.now()), -2500);
  clock.advance(3000);
  assert.equal(b.tokensAt(clock.now()), -1000);
  clock.advance(60_000);
  assert.equal(b.tokensAt(clock.now()), 2500);
});

void test('a refusal carries the seconds until tokens > 0, and a refusal takes nothing', () => {
  const b = new TokenBucket('tenant', 500, T0);
  b.take(5000, T0); // −2500: five seconds to 0, six to > 0
  assert.deepEqual(b.check(2501, T0), { ok: false, retryAfter: 6 });
  assert.equal(b.tokensAt(T0), -2500);
  assert.equal(b.check(2501, T0 + 5000).ok, false, 'at exactly 0 tokens the bucket is still empty');
  assert.equal(b.check(2501, T0 + 6000).ok, true);
});

void test('the platform limiter refuses a small batch when the debt is too deep, and keeps its tokens', () => {
  const clock = new ManualClock(T0);
  const p = new PlatformLimiter(clock, 1000);
  assert.deepEqual(p.admit(10_000), { ok: true });
  assert.equal(p.tokens(), -5000);
  assert.deepEqual(p.admit(1), { ok: false, retryAfter: 1 });
  assert.equal(p.tokens(), -5000);
  clock.advance(1000);
  assert.deepEqual(p.admit(1), { ok: true });
});

void test('a plan change keeps the tokens, clamped to the new bounds', () => {
  const b = new TokenBucket('tenant', 2000, T0);
  b.setRate(500, T0);
  assert.equal(b.tokensAt(T0), 2500, 'a full 10,000 is clamped to the new burst');
  b.take(5000, T0);
  assert.equal(b.tokensAt(T0), -2500);
  b.setRate(2000, T0);
  assert.equal(b.tokensAt(T0), -2500, 'debt is kept when the bounds widen');
  b.setRate(100, T0);
  assert.equal(b.tokensAt(T0), -500, 'debt is clamped to the new floor');
});

void test('a zero rate refuses every non-empty batch without looping', () => {
  const b = new TokenBucket('tenant', 0, T0);
  assert.deepEqual(b.check(1, T0), { ok: false, retryAfter: 60 });
  assert.deepEqual(b.check(0, T0), { ok: true });
});

void test('tenant buckets are made lazily at the tenant rate and follow its changes', () => {
  const clock = new ManualClock(T0);
  const reg = new TenantLimiters(clock);
  assert.equal(reg.size, 0);
  assert.equal(reg.tokens('a', 500), 2500);
  assert.deepEqual(reg.admit('a', 500, 2500), { ok: true });
  assert.deepEqual(reg.admit('b', 2000, 10_000), { ok: true });
  assert.equal(reg.size, 2);
  assert.equal(reg.tokens('a', 500), 0);
  reg.admit('a', 100, 0);
  assert.equal(reg.tokens('a', 100), 0);
});

void test('idle tenants are evicted once their bucket is full again', () => {
  const clock = new ManualClock(T0);
  const reg = new TenantLimiters(clock, { sweepEveryMs: 1000 });
  reg.admit('a', 500, 5000); // −2500: ten seconds to full
  reg.admit('b', 500, 1); // full again 2 ms later
  clock.advance(5000);
  assert.equal(reg.sweep(), 1);
  assert.equal(reg.tokens('a', 500), 0);
  clock.advance(5000);
  assert.equal(reg.sweep(), 1);
  assert.equal(reg.size, 0);
  reg.admit('c', 500, 1);
  clock.advance(60_000);
  reg.admit('d', 500, 1);
  assert.equal(reg.size, 1, 'the sweep also runs on its own as traffic arrives');
});

void test('a batch refused by one limiter takes nothing from the other', () => {
  const clock = new ManualClock(T0);
  const platform = new PlatformLimiter(clock, 1000);
  const tenants = new TenantLimiters(clock);
  platform.take(10_000);
  const r = admitIngest(platform, tenants, 't', 500, 10);
  assert.deepEqual(r, { ok: false, retryAfter: 1, limiter: 'platform' });
  assert.equal(tenants.tokens('t', 500), 2500);

  clock.advance(60_000);
  tenants.take('t', 500, 5000);
  const r2 = admitIngest(platform, tenants, 't', 500, 3000);
  assert.equal(r2.ok, false);
  assert.equal(r2.limiter, 'tenant');
  assert.equal(platform.tokens(), 5000);
  assert.deepEqual(admitIngest(platform, tenants, 't', 500, 100), { ok: true });
  assert.equal(platform.tokens(), 4900);
});

// ---- properties over random traffic, all on a ManualClock ----

const rateArb = fc.oneof(fc.constantFrom(1, 100, 500, 2000, 10_000, 50_000), fc.integer({ min: 1, max: 100_000 }), fc.double({ min: 0.5, max: 5000, noNaN: true }));
const stepArb = (rate: number) => fc.record({
  waitMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: 20_000 })),
  n: fc.oneof(fc.integer({ min: 0, max: Math.ceil(5 * rate) }), fc.integer({ min: 0, max: Math.ceil(25 * rate) })),
});
const trafficArb = rateArb.chain((rate) => fc.tuple(fc.constant(rate), fc.array(stepArb(rate), { minLength: 1, maxLength: 60 })));

/** Plays the traffic and checks every decision; returns how many refusals it met. */
function runTraffic(kind: LimiterKind, rate: number, steps: { waitMs: number; n: number }[]): number {
  let refusals = 0;
  const clock = new ManualClock(T0);
  const b = new TokenBucket(kind, rate, clock.now());
  const cap = 5 * rate;
  for (const { waitMs, n } of steps) {
    clock.advance(waitMs);
    const before = b.tokensAt(clock.now());
    const r = b.admit(n, clock.now());
    const after = b.tokensAt(clock.now());
    assert.ok(after >= -cap && after <= cap, 'tokens stay within [−5R, 5R]');
    if (kind === 'tenant') {
      if (n <= cap) assert.ok(r.ok, 'a batch inside the burst is never refused');
      assert.equal(r.ok, !(before <= 0 && before - n < -cap && n > cap));
    } else {
      assert.equal(r.ok, !(before - n < -cap));
    }
    if (r.ok) {
      assert.equal(after, Math.max(before - n, -cap));
      continue;
    }
    refusals++;
    assert.equal(after, before, 'a refusal takes nothing');
    assert.ok(Number.isInteger(r.retryAfter) && r.retryAfter >= 1);
    if (kind === 'platform' && n > 2 * cap) continue; // can never pass: reported separately
    if (r.retryAfter > 1) {
      clock.advance((r.retryAfter - 1) * 1000);
      assert.equal(b.check(n, clock.now()).ok, false, 'retry_after is the least whole wait');
      clock.advance(1000);
    } else {
      clock.advance(1000);
    }
    assert.deepEqual(b.admit(n, clock.now()), { ok: true }, 'waiting retry_after admits the same batch');
  }
  return refusals;
}

void test('property: the tenant bucket follows DESIGN §6, and waiting retry_after admits the same batch', () => {
  let refusals = 0;
  fc.assert(fc.property(trafficArb, ([rate, steps]) => {
    refusals += runTraffic('tenant', rate, steps);
  }), { numRuns: 500 });
  assert.ok(refusals > 50, `the traffic reached the refusal rule (${refusals} refusals)`);
});

void test('property: the platform limiter follows DESIGN §6, and waiting retry_after admits the same batch', () => {
  let refusals = 0;
  fc.assert(fc.property(trafficArb, ([rate, steps]) => {
    refusals += runTraffic('platform', rate, steps);
  }), { numRuns: 500 });
  assert.ok(refusals > 50, `the traffic reached the refusal rule (${refusals} refusals)`);
});

void test('property: a batch over 10R can never pass the platform limiter and is told to wait for a full bucket', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 50_000 }), fc.integer({ min: 1, max: 1000 }), (rate, extra) => {
    const b = new TokenBucket('platform', rate, T0);
    const r = b.check(10 * rate + extra, T0);
    assert.deepEqual(r, { ok: false, retryAfter: 1 });
  }));
});

void test('property: evicting idle buckets never changes a decision', () => {
  const tenantTraffic = fc.array(fc.record({
    tenant: fc.constantFrom('a', 'b', 'c'),
    waitMs: fc.integer({ min: 0, max: 15_000 }),
    n: fc.integer({ min: 0, max: 6000 }),
  }), { maxLength: 80 });
  fc.assert(fc.property(tenantTraffic, (steps) => {
    const clock = new ManualClock(T0);
    const swept = new TenantLimiters(clock, { sweepEveryMs: 0 });
    const kept = new TenantLimiters(clock, { sweepEveryMs: Number.MAX_SAFE_INTEGER });
    for (const { tenant, waitMs, n } of steps) {
      clock.advance(waitMs);
      assert.deepEqual(swept.admit(tenant, 500, n), kept.admit(tenant, 500, n));
    }
  }), { numRuns: 300 });
});

void test('a limiter refusal is a 429 rate_limited carrying its retry_after, counted under its limiter', () => {
  const t = limiterError({ retryAfter: 6, limiter: 'tenant' });
  assert.deepEqual([t.status, t.slug, t.detail, t.retryAfter, t.reason], [429, 'rate_limited', 'Rate limit exceeded', 6, 'rate_limited']);
  assert.equal(limiterError({ retryAfter: 2, limiter: 'platform' }).reason, 'platform_rate_limited');
});
