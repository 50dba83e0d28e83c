// The shared query rate decides as the in-process one does (DESIGN §6 "Query rate"): the same admissions and the
// same retry_after for any sequence of requests, over a store that keeps the window as migration 8's
// sightline_query_window does (the SQL itself is checked by the control-store cluster contract).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ManualClock } from '../clock.js';
import type { ClusterStore, QueryAdmission } from '../stores/control/cluster-records.js';
import { QueryRateLimiter } from './query-rate.js';
import { SharedQueryRate } from './shared-query-rate.js';

const T0 = Date.UTC(2026, 0, 1);

/** The newest `limit` stamps after now − window, oldest first; admitted when fewer than `limit` remain. */
class WindowStore implements Pick<ClusterStore, 'admitQuery'> {
  readonly windows = new Map<string, number[]>();
  calls = 0;

  admitQuery(tenantId: string, nowMs: number, limit: number, windowMs: number): Promise<QueryAdmission> {
    this.calls++;
    const kept = (this.windows.get(tenantId) ?? []).filter((s) => s > nowMs - windowMs).sort((a, b) => a - b).slice(-limit);
    if (kept.length < limit) {
      this.windows.set(tenantId, [...kept, nowMs]);
      return Promise.resolve({ ok: true });
    }
    return Promise.resolve({ ok: false, oldestMs: kept[0] ?? nowMs });
  }
}

// Each tenant keeps one limit through a sequence: after a limit is lowered and raised again inside one window the two
// may differ (the in-process log forgets what a lower limit trimmed; the store keeps what it last wrote).
void test('shared and in-process limiters agree on every request of any sequence', async () => {
  await fc.assert(fc.asyncProperty(
    fc.record({ a: fc.constantFrom(1, 3, 5), b: fc.constantFrom(1, 2, 10) }),
    fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 20_000 }), tenant: fc.constantFrom('a' as const, 'b' as const) }), { maxLength: 60 }),
    async (limits, steps) => {
      const clock = new ManualClock(T0);
      const local = new QueryRateLimiter(clock);
      const shared = new SharedQueryRate(new WindowStore(), clock);
      for (const s of steps) {
        clock.advance(s.gapMs);
        assert.deepEqual(await shared.admit(s.tenant, limits[s.tenant]), local.admit(s.tenant, limits[s.tenant]));
      }
    },
  ));
});

void test('a burst of N from two processes sharing the store admits N in all, not N each', async () => {
  const store = new WindowStore();
  const clock = new ManualClock(T0);
  const p1 = new SharedQueryRate(store, clock);
  const p2 = new SharedQueryRate(store, clock);
  const verdicts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? p1 : p2).admit('t', 10)));
  assert.equal(verdicts.filter((v) => v.ok).length, 10);
  assert.deepEqual(verdicts.at(-1), { ok: false, retryAfter: 60 });
});

void test('unlimited and zero limits are decided without the store', async () => {
  const store = new WindowStore();
  const q = new SharedQueryRate(store, new ManualClock(T0));
  assert.deepEqual(await q.admit('t', Infinity), { ok: true });
  assert.deepEqual(await q.admit('t', 0), { ok: false, retryAfter: 60 });
  assert.equal(store.calls, 0);
});
