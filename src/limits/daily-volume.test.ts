import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ManualClock } from '../clock.js';
import { ServiceError } from '../errors.js';
import type { Tier } from '../stores/control/control-store.js';
import { DailyUsage, checkDailyVolume, checkIngestOpen } from './daily-volume.js';
import { effectivePlan } from './plans.js';

const plan = (tier: Tier, limits = {}) => effectivePlan({ tier, limits, features: {} });
const T0 = Date.UTC(2026, 0, 1, 12);

function refusal(d: { ok: true } | { ok: false; error: ServiceError }): ServiceError {
  assert.equal(d.ok, false);
  return d.error;
}

void test('a trial stops at its included volume: exactly the cap goes in, one byte past it does not', () => {
  const trial = plan('trial');
  assert.deepEqual(checkDailyVolume(trial, 73e9 - 100, 100), { ok: true });
  const e = refusal(checkDailyVolume(trial, 73e9 - 100, 101));
  assert.equal(e.status, 429);
  assert.equal(e.slug, 'rate_limited');
  assert.equal(e.detail, 'Daily volume limit exceeded (72999999900 of 73000000000 bytes)');
  assert.equal(e.retryAfter, 60);
});

void test('paid tiers run past included and stop at the 3× ceiling', () => {
  const team = plan('team');
  assert.deepEqual(checkDailyVolume(team, 34e9, 1e9), { ok: true });
  assert.deepEqual(checkDailyVolume(team, 101e9, 1e9), { ok: true });
  assert.equal(refusal(checkDailyVolume(team, 101e9, 1e9 + 1)).detail, 'Daily volume limit exceeded (101000000000 of 102000000000 bytes)');
  assert.equal(refusal(checkDailyVolume(plan('team', { overage_ceiling_multiplier: 1 }), 34e9, 1)).reason, 'daily_volume');
});

void test('trial_expired is refused with the trial-expired reply before anything else', () => {
  const expired = plan('trial_expired');
  for (const [used, size] of [[0, 0], [0, 1], [5e9, 10]] as const) {
    const e = refusal(checkDailyVolume(expired, used, size));
    assert.equal(e.reason, 'trial_expired');
    assert.match(e.detail, /daily ingest quota is 0 for this tier \(trial expired\)/);
  }
  assert.equal(refusal(checkIngestOpen(expired, 0)).reason, 'trial_expired');
});

void test('the early check refuses an account whose quota is already spent', () => {
  assert.deepEqual(checkIngestOpen(plan('trial'), 73e9 - 1), { ok: true });
  assert.equal(refusal(checkIngestOpen(plan('trial'), 73e9)).reason, 'daily_volume');
  assert.deepEqual(checkIngestOpen(plan('growth'), 135e9), { ok: true });
});

void test('concurrent requests cannot both pass the check: the first reservation counts for the second', () => {
  const usage = new DailyUsage(new ManualClock(T0));
  const trial = plan('trial', { daily_included_bytes: 1000 });
  const a = usage.tryReserve(trial, 'acc', 600);
  assert.equal(a.ok, true);
  const b = usage.tryReserve(trial, 'acc', 600);
  assert.equal(refusal(b).detail, 'Daily volume limit exceeded (600 of 1000 bytes)');
  assert.equal(usage.used('acc'), 600);
});

void test('a released reservation gives its bytes back; a committed one counts under its signal', () => {
  const usage = new DailyUsage(new ManualClock(T0));
  const day = usage.today();
  const r1 = usage.reserve('acc', day, 100);
  const r2 = usage.reserve('acc', day, 40);
  assert.equal(usage.used('acc', day), 140);
  usage.release(r1);
  usage.commit(r2, 'traces');
  usage.commit(r2, 'traces');
  usage.release(r2);
  assert.equal(usage.used('acc', day), 40, 'settling twice changes nothing');
  assert.deepEqual(usage.bySignal('acc', day), { logs: 0, traces: 40, metrics: 0, rum: 0, replay: 0 });
});

void test('the counter is one per account, summed over every signal', () => {
  const usage = new DailyUsage(new ManualClock(T0));
  const day = usage.today();
  for (const s of ['logs', 'traces', 'metrics', 'rum', 'replay'] as const) usage.commit(usage.reserve('acc', day, 10), s);
  usage.commit(usage.reserve('other', day, 7), 'logs');
  assert.equal(usage.used('acc'), 50);
  assert.equal(usage.used('other'), 7);
});

void test('the counter resets at 00:00 UTC', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 23, 59, 59, 999));
  const usage = new DailyUsage(clock);
  usage.commit(usage.reserve('acc', usage.today(), 500), 'logs');
  assert.equal(usage.today(), '2026-01-01');
  assert.equal(usage.used('acc'), 500);
  clock.advance(1);
  assert.equal(usage.today(), '2026-01-02');
  assert.equal(usage.used('acc'), 0);
  assert.equal(usage.used('acc', '2026-01-01'), 500, 'the past day keeps its figure until it is flushed');
});

void test('a request reserved before midnight is counted on the day it was checked against', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 23, 59, 59, 900));
  const usage = new DailyUsage(clock);
  const r = usage.tryReserve(plan('trial'), 'acc', 10);
  assert.ok(r.ok);
  clock.advance(200);
  usage.commit(r.reservation, 'logs');
  assert.deepEqual(usage.drainDeltas(), [{ accountId: 'acc', day: '2026-01-01', name: 'bytes:logs', delta: 10 }]);
  assert.equal(usage.size, 0, 'a flushed past day is forgotten');
});

void test('drained deltas carry committed bytes once, by counter name, and can be put back after a failed flush', () => {
  const usage = new DailyUsage(new ManualClock(T0));
  const day = usage.today();
  usage.commit(usage.reserve('acc', day, 100), 'logs');
  usage.commit(usage.reserve('acc', day, 50), 'logs');
  usage.commit(usage.reserve('acc', day, 7), 'replay');
  usage.reserve('acc', day, 999); // in flight: not a delta
  usage.record('acc', day, 'ai:total', 2);
  const deltas = usage.drainDeltas();
  assert.deepEqual(deltas, [
    { accountId: 'acc', day, name: 'bytes:logs', delta: 150 },
    { accountId: 'acc', day, name: 'bytes:replay', delta: 7 },
    { accountId: 'acc', day, name: 'ai:total', delta: 2 },
  ]);
  assert.deepEqual(usage.drainDeltas(), []);
  assert.equal(usage.used('acc'), 150 + 7 + 999, 'draining does not change what is counted');
  usage.requeue(deltas);
  assert.equal(usage.drainDeltas().length, 3);
});

void test('load seeds the day from the durable store, keeping what is not yet flushed', () => {
  const usage = new DailyUsage(new ManualClock(T0));
  const day = usage.today();
  assert.equal(usage.isLoaded('acc'), false);
  usage.commit(usage.reserve('acc', day, 10), 'logs');
  usage.load('acc', day, { 'bytes:logs': 1000, 'bytes:metrics': 200, 'ai:total': 3 });
  assert.equal(usage.isLoaded('acc'), true);
  assert.equal(usage.used('acc'), 1210);
  assert.deepEqual(usage.counters('acc'), { 'bytes:logs': 1010, 'bytes:metrics': 200, 'ai:total': 3 });
  assert.deepEqual(usage.drainDeltas(), [{ accountId: 'acc', day, name: 'bytes:logs', delta: 10 }]);
});

void test('property: reservations never let the day pass its cap, whatever the interleaving', () => {
  const ops = fc.array(fc.oneof(
    fc.record({ op: fc.constant('reserve' as const), size: fc.integer({ min: 0, max: 400 }) }),
    fc.record({ op: fc.constantFrom('commit' as const, 'release' as const), pick: fc.nat() }),
  ), { maxLength: 100 });
  fc.assert(fc.property(fc.integer({ min: 0, max: 2000 }), ops, (cap, steps) => {
    const usage = new DailyUsage(new ManualClock(T0));
    const p = plan('trial', { daily_included_bytes: cap });
    const open: import('./daily-volume.js').Reservation[] = [];
    let committed = 0;
    for (const s of steps) {
      if (s.op === 'reserve') {
        const before = usage.used('acc');
        const r = usage.tryReserve(p, 'acc', s.size);
        assert.equal(r.ok, before + s.size <= cap);
        if (r.ok) open.push(r.reservation);
      } else if (open.length > 0) {
        const [r] = open.splice(s.pick % open.length, 1);
        if (!r) continue;
        if (s.op === 'commit') {
          usage.commit(r, 'logs');
          committed += r.bytes;
        } else usage.release(r);
      }
      assert.ok(usage.used('acc') <= cap);
      assert.equal(usage.bySignal('acc').logs, committed);
    }
  }), { numRuns: 300 });
});
