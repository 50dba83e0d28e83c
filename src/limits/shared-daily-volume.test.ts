// The daily volume shared by processes (DESIGN §6 Metering, §10): the same refusals as in one process, the early
// check answered from what this process last saw, bytes given back on failure, and several processes together
// never past the cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, utcDay } from '../clock.js';
import type { ByteReservation, ClusterStore } from '../stores/control/cluster-records.js';
import { ControlStoreUnavailableError } from '../stores/control/control-store.js';
import { ServiceError } from '../errors.js';
import { effectivePlan } from './plans.js';
import { SharedDailyVolume } from './shared-daily-volume.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const CAP = 1000;
const plan = effectivePlan({ tier: 'custom', limits: { daily_included_bytes: CAP, overage_ceiling_multiplier: 1 }, features: {} });

/** Totals by account and day, reserved as the store's one-statement UPDATE does. */
class TotalsStore implements Pick<ClusterStore, 'dailyBytes' | 'reserveDailyBytes' | 'releaseDailyBytes'> {
  readonly totals = new Map<string, number>();
  reads = 0;

  dailyBytes(accountId: string, day: string): Promise<number> {
    this.reads++;
    return Promise.resolve(this.totals.get(`${accountId}/${day}`) ?? 0);
  }

  reserveDailyBytes(accountId: string, day: string, bytes: number, capBytes: number): Promise<ByteReservation> {
    const k = `${accountId}/${day}`;
    const used = this.totals.get(k) ?? 0;
    if (used + bytes > capBytes) return Promise.resolve({ ok: false, totalBytes: used });
    this.totals.set(k, used + bytes);
    return Promise.resolve({ ok: true, totalBytes: used + bytes });
  }

  releaseDailyBytes(accountId: string, day: string, bytes: number): Promise<void> {
    const k = `${accountId}/${day}`;
    this.totals.set(k, Math.max(0, (this.totals.get(k) ?? 0) - bytes));
    return Promise.resolve();
  }
}

const quiet = (): void => undefined;

void test('two processes reserving at once stop at the cap together; the refusal names the total before it', async () => {
  const store = new TotalsStore();
  const clock = new ManualClock(T0);
  const [p1, p2] = [new SharedDailyVolume(store, clock, quiet), new SharedDailyVolume(store, clock, quiet)];
  const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? p1 : p2).reserve(plan, 'acc', 70)));
  assert.equal(results.filter((r) => r.ok).length, 14);
  assert.equal(store.totals.get(`acc/${utcDay(T0)}`), 980);
  const refused = results.find((r) => !r.ok);
  assert.ok(refused && !refused.ok);
  assert.equal(refused.error.detail, `Daily volume limit exceeded (980 of ${CAP} bytes)`);
  assert.equal((await p1.reserve(plan, 'acc', 20)).ok, true, 'a request that fits exactly is admitted');
});

void test('the early check reads the store once a day, then follows what this process reserves', async () => {
  const store = new TotalsStore();
  const clock = new ManualClock(T0);
  const v = new SharedDailyVolume(store, clock, quiet);
  store.totals.set(`acc/${utcDay(T0)}`, 300);
  assert.equal(await v.usedToday('acc'), 300);
  assert.equal(await v.usedToday('acc'), 300);
  assert.equal(store.reads, 1);
  const r = await v.reserve(plan, 'acc', 200);
  assert.ok(r.ok);
  assert.equal(await v.usedToday('acc'), 500);
  v.release(r.reservation);
  assert.equal(await v.usedToday('acc'), 300);
  await Promise.resolve();
  assert.equal(store.totals.get(`acc/${utcDay(T0)}`), 300, 'the bytes went back to the store');
  clock.advance(86_400_000); // 00:00 UTC reset: a new day is read afresh
  assert.equal(await v.usedToday('acc'), 0);
  assert.equal(store.reads, 2);
});

void test('commit keeps the bytes; a settled reservation is not released twice; a blocked tier never reaches the store', async () => {
  const store = new TotalsStore();
  const v = new SharedDailyVolume(store, new ManualClock(T0), quiet);
  const r = await v.reserve(plan, 'acc', 100);
  assert.ok(r.ok && v.holds(r.reservation));
  v.commit(r.reservation);
  assert.equal(v.holds(r.reservation), false);
  v.release(r.reservation);
  await Promise.resolve();
  assert.equal(store.totals.get(`acc/${utcDay(T0)}`), 100);
  const expired = effectivePlan({ tier: 'trial_expired', limits: {}, features: {} });
  const refused = await v.reserve(expired, 'acc', 1);
  assert.ok(!refused.ok && /trial expired/.test(refused.error.detail));
  assert.equal(store.totals.get(`acc/${utcDay(T0)}`), 100);
});

void test('an unreachable control store refuses with the transient 503, never admits past an unseen cap', async () => {
  const store = new TotalsStore();
  store.reserveDailyBytes = () => Promise.reject(new ControlStoreUnavailableError(new Error('ECONNREFUSED')));
  const v = new SharedDailyVolume(store, new ManualClock(T0), quiet);
  await assert.rejects(v.reserve(plan, 'acc', 1), (e: unknown) => e instanceof ServiceError && e.status === 503 && /uthentication/.test(e.detail));
});
