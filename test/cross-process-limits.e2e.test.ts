// Limits stay correct across processes (DESIGN §10; issue 11 item 6): two `--role ingest` and two `--role app`
// processes on one PostgreSQL control store, each with its own data dir. Each limit is proven by counts, with
// tolerances wide enough that a slow machine cannot fail them, and tight enough that per-process limits would:
//  - the token bucket is split: a batch that a whole bucket would always admit is refused by each half;
//  - the daily byte cap holds exactly across two ingest doors sending at once;
//  - the query rate and the live-tail ceiling count requests to both app doors together;
//  - a killed ingest process's share returns to the survivor within seconds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, eventually, newAccount, sleep, type RunningService, type TestAccount } from './support/service.js';
import { entries, ingest, ndjson, obj, show, usageBytes } from './support/load.js';
import { announcedShare, startSplitCluster, waitForShare, type SplitCluster } from './support/split-cluster.js';

const cluster = await startSplitCluster({ dbName: 'sightline_limits_e2e', apps: 2, ingests: 2 });
const SKIP = 'PostgreSQL binaries (initdb, pg_ctl, postgres) not found: split roles need a shared control store';

if (cluster === null) {
  void describe('limits across processes', () => {
    void test('runs two ingest and two app processes on PostgreSQL', { skip: SKIP }, () => undefined);
  });
} else {
  const c: SplitCluster = cluster;
  const [app1, app2] = c.apps as [RunningService, RunningService];
  const [in1, in2] = c.ingests as [RunningService, RunningService];
  after(() => c.stop());
  before(async () => {
    assert.ok(await waitForShare(c.ingests, 2), `ingest processes did not see each other: ${c.ingests.map(announcedShare).join(', ')}`);
    assert.ok(await waitForShare(c.apps, 2), `app processes did not see each other: ${c.apps.map(announcedShare).join(', ')}`);
  });

  const account = (body: Record<string, unknown>): Promise<TestAccount> => newAccount(app1, body);
  const body = (n: number, tag: string, pad = 0): string => ndjson(entries(n, tag, pad > 0 ? { pad: 'x'.repeat(pad) } : {}));

  interface Tally { admitted: number; batches: number; refused: number; retryAfter: number[] }
  const tally = (): Tally => ({ admitted: 0, batches: 0, refused: 0, retryAfter: [] });

  /** Sends the same batch to `door` every `gapMs` until `untilMs`, counting admitted entries and 429s. */
  async function pump(door: string, key: string, batch: string, n: number, untilMs: number, gapMs: number): Promise<Tally> {
    const t = tally();
    while (Date.now() < untilMs) {
      const r = await ingest(door, key, batch);
      if (r.status === 200) {
        t.admitted += n;
        t.batches++;
      } else {
        assert.equal(r.status, 429, show(r));
        assert.equal(obj(r).detail, 'Rate limit exceeded');
        t.refused++;
        t.retryAfter.push(Number(obj(r).retry_after));
      }
      await sleep(gapMs);
    }
    return t;
  }

  void test('token bucket: each of two ingest processes holds half the rate, so both together admit about the rate', async () => {
    // R = 100/s: a whole bucket holds 5R = 500 and never refuses a batch of 260 (it fits the burst, spec rule 4);
    // a half bucket holds 250, so 260 is refused whenever the half is empty: each process then admits about one batch
    // per 5 s (from the −250 floor back above 0 at 50/s), about 104 entries/s for the two.
    const a = await account({ tier: 'custom', limits: { ingest_rate: 100 } });
    const n = 260;
    const batch = body(n, 'bucket');
    const windowMs = 10_000;
    const t0 = Date.now();
    const [t1, t2] = await Promise.all([in1, in2].map((s) => pump(s.ingest, a.key, batch, n, t0 + windowMs, 50)));
    assert.ok(t1 && t2);
    const seconds = (Date.now() - t0) / 1000;
    const admitted = t1.admitted + t2.admitted;
    const sent = t1.batches + t1.refused + t2.batches + t2.refused;
    console.log(`bucket split: ${admitted} entries admitted in ${seconds.toFixed(1)} s over 2 processes (${(admitted / seconds).toFixed(0)}/s at R=100/s), ` +
      `batches admitted ${t1.batches}+${t2.batches}, refused ${t1.refused}+${t2.refused} of ${sent} sent`);
    // Each process: the first batch from the full half, one more once the half refills above 0 (~1 s), then one per
    // 5 s: at most 2 + ceil(seconds / 5) batches each. Per-process buckets would have admitted every one of them.
    const most = 2 * n * (2 + Math.ceil(seconds / 5));
    assert.ok(admitted <= most, `admitted ${admitted} > ${most}: the bucket is not split`);
    assert.ok(t1.batches >= 1 && t2.batches >= 1, 'each process admits from its half');
    assert.ok(t1.refused + t2.refused >= sent / 2, `most batches are refused (${t1.refused + t2.refused} of ${sent})`);
    assert.ok([...t1.retryAfter, ...t2.retryAfter].every((s) => Number.isInteger(s) && s >= 1 && s <= 10), 'retry_after from the half bucket');
  });

  void test('daily volume: two ingest processes sending at once stop at the cap together, never past it', async () => {
    const cap = 400_000;
    const a = await account({ tier: 'custom', limits: { ingest_rate: 1_000_000, daily_included_bytes: cap, overage_ceiling_multiplier: 1 } });
    let accepted = 0;
    let largest = 0;
    const details: string[] = [];
    // Four senders, two per ingest door, with bodies of different sizes, each until its first daily-volume refusal.
    const sender = async (door: string, pad: number, tag: string): Promise<void> => {
      const batch = body(5, tag, pad);
      const size = Buffer.byteLength(batch);
      largest = Math.max(largest, size);
      for (;;) {
        const r = await ingest(door, a.key, batch);
        if (r.status === 200) {
          accepted += size;
          continue;
        }
        assert.equal(r.status, 429, show(r));
        details.push(String(obj(r).detail));
        return;
      }
    };
    await Promise.all([
      sender(in1.ingest, 900, 'v1a'), sender(in1.ingest, 1700, 'v1b'), sender(in2.ingest, 1300, 'v2a'), sender(in2.ingest, 2500, 'v2b'),
    ]);
    console.log(`daily volume: ${accepted} bytes accepted of a ${cap}-byte cap through 2 ingest doors (largest request ${largest} bytes)`);
    assert.ok(accepted <= cap, `accepted ${accepted} > cap ${cap}`);
    assert.ok(accepted > cap - largest, `stopped early: ${accepted} with room for ${cap - accepted}`);
    for (const d of details) assert.match(d, new RegExp(`^Daily volume limit exceeded \\(\\d+ of ${cap} bytes\\)$`));
    // The app door reports the same day's bytes once the ingest processes' counters have drained (every 500 ms).
    const reported = await eventually(async () => {
      const u = await usageBytes(app2, a.tenantId, a.key);
      return u === accepted ? u : 0;
    }, 10_000);
    assert.equal(reported, accepted);
  });

  void test('query rate: requests to two app processes share one rolling 60 s window', async () => {
    const a = await account({ tier: 'custom', limits: { query_rate_per_min: 20 } });
    const get = (svc: RunningService) => call(`${svc.app}/api/v1/tenants/${a.tenantId}/saved-searches`, { headers: { 'X-API-Key': a.key } });
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => get(i % 2 === 0 ? app1 : app2)));
    const ok = replies.filter((r) => r.status === 200).length;
    const limited = replies.filter((r) => r.status === 429);
    console.log(`query rate: ${ok} admitted, ${limited.length} refused of 30 over 2 app processes at 20/min`);
    assert.equal(ok, 20, replies.map((r) => r.status).join(','));
    assert.equal(limited.length, 10);
    for (const r of limited) {
      assert.equal(obj(r).error, 'rate_limited');
      const s = Number(obj(r).retry_after);
      assert.ok(s >= 1 && s <= 60, `retry_after ${s}`);
    }
  });

  void test('live tail: the ceiling counts streams on both app processes; a killed process frees its streams', async () => {
    const a = await account({ tier: 'trial' }); // live-tail ceiling 5 (DESIGN §6)
    const streams: AbortController[] = [];
    const open = async (svc: RunningService): Promise<number> => {
      const ctl = new AbortController();
      const res = await fetch(`${svc.app}/api/v1/tenants/${a.tenantId}/select/logsql/tail?query=*`, { headers: { 'X-API-Key': a.key }, signal: ctl.signal });
      if (res.status === 200) streams.push(ctl);
      else await res.text();
      return res.status;
    };
    try {
      const statuses: number[] = [];
      for (const svc of [app1, app2, app1, app2, app1, app2]) statuses.push(await open(svc));
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 403]);
      const refused = await call(`${app1.app}/api/v1/tenants/${a.tenantId}/select/logsql/tail?query=*`, { headers: { 'X-API-Key': a.key } });
      assert.equal(obj(refused).detail, 'Live-tail session limit reached (5)');
      // Closing a stream on app1 frees a slot that app2 can take.
      streams.shift()?.abort();
      assert.equal(await eventually(async () => (await open(app2)) === 200, 5000), true);
      // app2 holds 3 of the 5; killed, they stop counting once its heartbeats stop (4 s).
      await app2.kill();
      const reopened = await eventually(async () => (await open(app1)) === 200, 20_000);
      assert.equal(reopened, true, 'the killed process still holds its live-tail slots');
    } finally {
      for (const s of streams) s.abort();
    }
  });

  void test('a killed ingest process returns its share: the survivor holds the whole bucket within seconds', async () => {
    const a = await account({ tier: 'custom', limits: { ingest_rate: 100 } });
    const n = 260;
    const batch = body(n, 'share');
    const burst = async (svc: RunningService): Promise<number> => {
      let admitted = 0;
      for (let i = 0; i < 4; i++) if ((await ingest(svc.ingest, a.key, batch)).status === 200) admitted++;
      return admitted;
    };
    // Half a bucket (250) admits one batch of 260 and then refuses until it refills above 0.
    assert.ok((await burst(in1)) <= 2, 'a half bucket admits at most two back-to-back batches of 260');
    await in2.kill();
    assert.ok(await waitForShare([in1], 1, 20_000), `the survivor still counts ${announcedShare(in1)} live ingest processes`);
    // The whole bucket (500, refilling at 100/s) never refuses a batch that fits it (spec rule 4).
    assert.equal(await burst(in1), 4);
    console.log(`share returned: after the kill the survivor admits 4 of 4 batches of ${n} back to back`);
  });
}
