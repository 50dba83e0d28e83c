// The part of the control-store contract that split roles need (DESIGN §10, issue 11 item 6; cluster-records.ts):
// heartbeats count live processes per role and a clean leave is seen at once; the daily byte total never passes its
// cap under concurrent reservations; the query window admits at most N in any rolling window under concurrency; the
// live-tail count is shared and a silent process stops holding its sessions. pglite.test.ts and postgres.test.ts
// run it, each on its own backend.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ControlStore } from './control-store.js';
import type { OpenedControlStore } from './control-store.contract.js';

const uid = (): string => randomBytes(6).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LIVE_MS = 60_000;

export function clusterContract(name: string, open: () => Promise<OpenedControlStore>): void {
  void describe(`control store contract, cluster: ${name}`, () => {
    let h: OpenedControlStore | undefined;
    const s = (): ControlStore => {
      if (!h) throw new Error('store not open');
      return h.store;
    };
    before(async () => { h = await open(); });
    after(async () => { await h?.cleanup(); });

    void it('heartbeats count live processes per role, themselves included; a leave is seen at once', async () => {
      // Other tests' processes may be live in the same database: count relative to the first beat.
      const a = `p-${uid()}`;
      const b = `p-${uid()}`;
      const one = await s().heartbeat(a, 'ingest', 1, LIVE_MS);
      assert.ok(one.ingest >= 1);
      const two = await s().heartbeat(b, 'ingest', 2, LIVE_MS);
      assert.equal(two.ingest, one.ingest + 1);
      assert.equal((await s().heartbeat(a, 'ingest', 1, LIVE_MS)).ingest, two.ingest, 'a second beat is the same process');
      await s().leaveCluster(b);
      assert.equal((await s().heartbeat(a, 'ingest', 1, LIVE_MS)).ingest, one.ingest);
      await s().leaveCluster(a);
    });

    void it('a process unseen within the window is no longer live', async () => {
      const a = `p-${uid()}`;
      await s().heartbeat(a, 'app', 0, LIVE_MS);
      await sleep(300);
      const me = `p-${uid()}`;
      const seen = await s().heartbeat(me, 'app', 0, 150);
      assert.equal(seen.app, 1, 'only the caller: the other beat 300 ms ago, outside a 150 ms window');
      await s().leaveCluster(a);
      await s().leaveCluster(me);
    });

    void it('daily bytes: concurrent reservations never pass the cap; refusals report the total before them', async () => {
      const acct = `acc_${uid()}`;
      const day = '2026-03-01';
      const results = await Promise.all(Array.from({ length: 40 }, () => s().reserveDailyBytes(acct, day, 100, 2550)));
      assert.equal(results.filter((r) => r.ok).length, 25);
      assert.equal(await s().dailyBytes(acct, day), 2500);
      assert.deepEqual(results.find((r) => !r.ok), { ok: false, totalBytes: 2500 });
      assert.deepEqual(results.filter((r) => r.ok).map((r) => r.totalBytes).sort((x, y) => x - y), Array.from({ length: 25 }, (_, i) => 100 * (i + 1)));
      assert.deepEqual(await s().reserveDailyBytes(acct, day, 51, 2550), { ok: false, totalBytes: 2500 });
      assert.deepEqual(await s().reserveDailyBytes(acct, day, 50, 2550), { ok: true, totalBytes: 2550 });
      await s().releaseDailyBytes(acct, day, 50);
      assert.equal(await s().dailyBytes(acct, day), 2500);
      assert.deepEqual(await s().reserveDailyBytes(acct, day, 10 ** 9, Infinity), { ok: true, totalBytes: 10 ** 9 + 2500 }, 'no cap, no check');
      assert.equal(await s().dailyBytes(acct, '2026-03-02'), 0, 'another day starts at zero');
    });

    void it('daily bytes: the first read of a day starts from the bytes already flushed to the counters', async () => {
      const a = await s().createAccount({ name: `c ${uid()}`, tier: 'team', signupAt: 0, trialEndsAt: null });
      const day = '2026-03-03';
      await s().addCounters([
        { accountId: a.id, day, name: 'bytes:logs', delta: 700 },
        { accountId: a.id, day, name: 'bytes:metrics', delta: 300 },
        { accountId: a.id, day, name: 'ai:total', delta: 9 },
      ]);
      assert.deepEqual(await s().reserveDailyBytes(a.id, day, 1, 1000), { ok: false, totalBytes: 1000 });
      assert.equal(await s().dailyBytes(a.id, day), 1000);
    });

    void it('query window: at most N in any rolling window under concurrency; the oldest stamp says when', async () => {
      const tenant = `ten_${uid()}`;
      const t0 = Date.UTC(2026, 2, 1);
      const first = await Promise.all(Array.from({ length: 12 }, (_, i) => s().admitQuery(tenant, t0 + i, 5, 60_000)));
      assert.equal(first.filter((r) => r.ok).length, 5);
      const later = await s().admitQuery(tenant, t0 + 30_000, 5, 60_000);
      assert.ok(!later.ok);
      const oldest = later.oldestMs;
      assert.ok(oldest >= t0 && oldest <= t0 + 11);
      // Once the oldest leaves the window one more fits, and only one.
      assert.deepEqual(await s().admitQuery(tenant, oldest + 60_000, 5, 60_000), { ok: true });
      assert.equal((await s().admitQuery(tenant, oldest + 60_000, 5, 60_000)).ok, false);
      // A lower limit is judged on the newest stamps alone; other tenants are untouched.
      assert.equal((await s().admitQuery(tenant, oldest + 60_000, 2, 60_000)).ok, false);
      assert.deepEqual(await s().admitQuery(`ten_${uid()}`, t0, 1, 60_000), { ok: true });
    });

    void it('live tail: the count is shared by processes; a closed or silent process frees its slots', async () => {
      const acct = `acc_${uid()}`;
      const [p1, p2] = [`p-${uid()}`, `p-${uid()}`];
      await s().heartbeat(p1, 'app', 0, LIVE_MS);
      await s().heartbeat(p2, 'app', 0, LIVE_MS);
      const openers = [p1, p2, p1, p2, p1];
      const opened = await Promise.all(openers.map((p) => s().openTailSession(acct, p, 3, LIVE_MS)));
      assert.equal(opened.filter((o) => o.ok).length, 3);
      assert.deepEqual(opened.find((o) => !o.ok), { ok: false, open: 3 });
      assert.equal(await s().countTailSessions(acct, LIVE_MS), 3);
      // Which three opened is up to the race: count p2's, as leaving p1 must leave exactly those.
      const mineAt = opened.findIndex((o) => o.ok);
      const mine = opened[mineAt];
      assert.ok(mine?.ok);
      await s().closeTailSession(mine.id);
      const p2Held = opened.filter((o, i) => o.ok && i !== mineAt && openers[i] === p2).length;
      assert.equal((await s().openTailSession(acct, p2, 3, LIVE_MS)).ok, true);
      assert.equal((await s().openTailSession(acct, p2, Infinity, LIVE_MS)).ok, true, 'unlimited opens without a check');
      await s().leaveCluster(p1);
      assert.equal(await s().countTailSessions(acct, LIVE_MS), p2Held + 2, 'a process that leaves takes its sessions with it');
      // p2 falls silent: with a window shorter than its silence its sessions no longer count.
      await sleep(200);
      assert.equal(await s().countTailSessions(acct, 100), 0);
      await s().heartbeat(p1, 'app', 0, LIVE_MS);
      assert.equal((await s().openTailSession(acct, p1, 1, 100)).ok, true, 'the silent process no longer holds any');
      await s().leaveCluster(p2);
      await s().leaveCluster(p1);
    });
  });
}
