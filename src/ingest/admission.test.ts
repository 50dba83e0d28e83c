// Admission with split roles (DESIGN §10, issue 11 item 6): the buckets hold 1/N of each rate; with the shared daily
// total, a batch the bucket refuses after its bytes were reserved gives them back, and an admitted batch's bytes are
// counted per signal for the usage reply. Without a share or a shared total, admission is the one-process one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, utcDay } from '../clock.js';
import type { Account, ControlStore } from '../stores/control/control-store.js';
import type { ByteReservation, ClusterStore } from '../stores/control/cluster-records.js';
import { Metering } from '../metering/metering.js';
import { PlatformLimiter, TenantLimiters } from '../limits/token-bucket.js';
import { SharedDailyVolume } from '../limits/shared-daily-volume.js';
import { ServiceError } from '../errors.js';
import { Admission } from './admission.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const account: Account = {
  id: 'acc', name: 'a', tier: 'custom', signupAt: 0, trialEndsAt: null, paymentMethod: true, features: {},
  limits: { ingest_rate: 100, daily_included_bytes: 10_000, overage_ceiling_multiplier: 1 },
};

class Totals implements Pick<ClusterStore, 'dailyBytes' | 'reserveDailyBytes' | 'releaseDailyBytes'> {
  used = 0;
  dailyBytes(): Promise<number> {
    return Promise.resolve(this.used);
  }
  reserveDailyBytes(_a: string, _d: string, bytes: number, cap: number): Promise<ByteReservation> {
    if (this.used + bytes > cap) return Promise.resolve({ ok: false, totalBytes: this.used });
    this.used += bytes;
    return Promise.resolve({ ok: true, totalBytes: this.used });
  }
  releaseDailyBytes(_a: string, _d: string, bytes: number): Promise<void> {
    this.used -= bytes;
    return Promise.resolve();
  }
}

function admission(share: number, totals?: Totals): { a: Admission; metering: Metering; tenants: TenantLimiters } {
  const clock = new ManualClock(T0);
  const tenants = new TenantLimiters(clock);
  // The store is never reached: the shared path keeps counters in memory until a flush, which no test runs.
  const metering = new Metering({} as ControlStore, clock, () => undefined, totals !== undefined);
  const a = new Admission({
    clock, metering, platform: new PlatformLimiter(clock), tenants, share: () => share,
    ...(totals ? { volume: new SharedDailyVolume(totals, clock, () => undefined) } : {}),
  });
  return { a, metering, tenants };
}

const admits = async (a: Admission, entries: number, bytes = 10): Promise<boolean> => {
  try {
    await a.admit(account, 'ten', a.planOf(account), entries, bytes);
    return true;
  } catch (e) {
    if (e instanceof ServiceError && e.status === 429) return false;
    throw e;
  }
};

void test('with N live processes the tenant bucket holds rate/N: a batch the whole bucket takes twice, half takes once', async () => {
  const totals = new Totals();
  const whole = admission(1, totals).a;
  assert.deepEqual([await admits(whole, 260), await admits(whole, 260)], [true, true]);
  const half = admission(2, new Totals()).a;
  assert.deepEqual([await admits(half, 260), await admits(half, 260)], [true, false]);
});

void test('a batch refused by the bucket after its bytes were reserved gives them back', async () => {
  const totals = new Totals();
  const { a, tenants } = admission(2, totals);
  // While this batch's bytes are being reserved, another request empties the half bucket (250 − 260 = −10).
  const reserve = totals.reserveDailyBytes.bind(totals);
  totals.reserveDailyBytes = (acc, day, bytes, cap) => {
    tenants.take('ten', 50, 260);
    return reserve(acc, day, bytes, cap);
  };
  assert.equal(await admits(a, 260, 100), false);
  await Promise.resolve();
  assert.equal(totals.used, 0, 'the refused batch holds no bytes');
});

void test('an admitted batch counts its bytes per signal for the usage reply; a failed one gives them back', async () => {
  const totals = new Totals();
  const { a, metering } = admission(2, totals);
  const plan = a.planOf(account);
  const r1 = await a.admit(account, 'ten', plan, 1, 400);
  a.commit(r1, 'logs');
  const r2 = await a.admit(account, 'ten', plan, 1, 300);
  a.release(r2);
  await Promise.resolve();
  assert.equal(totals.used, 400);
  assert.deepEqual(metering.daily.bySignal('acc', utcDay(T0)), { logs: 400, traces: 0, metrics: 0, rum: 0, replay: 0 });
  await assert.rejects(a.admit(account, 'ten', plan, 1, 9_601), /Daily volume limit exceeded \(400 of 10000 bytes\)/);
});
