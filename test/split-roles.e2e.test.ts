// Split roles end to end (DESIGN §1 `--role ingest|app`, §10 scale-out; issue 11 item 5): two `--role ingest`
// processes and one `--role app` process on the tests' own PostgreSQL and one shared ClickHouse — the HTTP fixture
// over an in-process chdb engine (test/support/clickhouse-http-fixture.ts), given to every process as
// SIGHTLINE_TELEMETRY_DB=http://127.0.0.1:<port>/<db>. Traffic goes in through both ingest doors (and through the
// app door, which hands log paths to an ingest process; an ingest door hands metric paths to the app) and is read
// back through the app door, the only one answering queries.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { call, eventually, newAccount, type RunningService, type TestAccount } from './support/service.js';
import { entries, ingest, ndjson, obj, query, show, waitForRows } from './support/load.js';
import { announcedShare, startSplitCluster, waitForShare, type SplitCluster } from './support/split-cluster.js';
import type { ClickhouseHttpFixture } from './support/clickhouse-http-fixture.js';

/** chdb is a dev dependency (issue 11 item 3); without it there is no shared ClickHouse to run on. */
async function startFixture(dir: string): Promise<ClickhouseHttpFixture | string> {
  try {
    const { startClickhouseHttpFixture } = await import('./support/clickhouse-http-fixture.js');
    return await startClickhouseHttpFixture(join(dir, 'engine'));
  } catch (e) {
    return `the ClickHouse HTTP fixture cannot start (is chdb installed? npm install --no-save chdb): ${String(e)}`;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'sightline-split-'));
const fixture = await startFixture(dir);
const cluster = typeof fixture === 'string' ? null : await startSplitCluster({
  dbName: 'sightline_split_e2e', apps: 1, ingests: 2, env: { SIGHTLINE_TELEMETRY_DB: `${fixture.url}/sightline_split` },
});
const skip = typeof fixture === 'string' ? fixture
  : cluster === null ? 'PostgreSQL binaries (initdb, pg_ctl, postgres) not found: split roles need a shared control store' : null;

after(async () => {
  await cluster?.stop();
  if (typeof fixture !== 'string') await fixture.close();
  rmSync(dir, { recursive: true, force: true });
});

if (skip !== null || cluster === null) {
  void describe('split roles end to end', () => {
    void test('two ingest processes and one app process on PostgreSQL and a shared ClickHouse', { skip: skip ?? 'not started' }, () => undefined);
  });
} else {
  const c: SplitCluster = cluster;
  const app = c.apps[0] as RunningService;
  const [in1, in2] = c.ingests as [RunningService, RunningService];
  let A: TestAccount;
  const marker = randomBytes(4).toString('hex');

  before(async () => {
    assert.ok(await waitForShare(c.ingests, 2), `ingest processes did not see each other: ${c.ingests.map(announcedShare).join(', ')}`);
    A = await newAccount(app, { tier: 'team' });
  });

  void test('logs sent through both ingest doors and through the app door are read back through the app door', async () => {
    const sends = await Promise.all([
      ingest(in1.ingest, A.key, ndjson(entries(30, `in1-${marker}`))),
      ingest(in2.ingest, A.key, ndjson(entries(20, `in2-${marker}`))),
      ingest(app.app, A.key, ndjson(entries(5, `app-${marker}`))), // handed to an ingest process (DESIGN §1)
    ]);
    for (const r of sends) assert.equal(r.status, 200, show(r));
    for (const [tag, n] of [[`in1-${marker}`, 30], [`in2-${marker}`, 20], [`app-${marker}`, 5]] as const) {
      const got = await waitForRows(app, A.tenantId, A.key, `tag:${tag}`, n, 20_000);
      assert.equal(got.rows.length, n, `${tag}: ${show(got.reply)}`);
    }
    const total = await query(app, A.tenantId, A.key, `_msg:${marker} | stats count() as n`);
    assert.deepEqual(total.rows.map((r) => String(r.n)), ['55']);
  });

  void test('a trace through one ingest door and a metric through the other (handed to the app) are read back', async () => {
    const traceId = randomBytes(16).toString('hex');
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    const otlp = {
      resourceSpans: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: `split-${marker}` } }] },
        scopeSpans: [{ scope: { name: 'split' }, spans: [{
          traceId, spanId: randomBytes(8).toString('hex'), name: `op-${marker}`, kind: 2,
          startTimeUnixNano: String(nowNs - 5_000_000n), endTimeUnixNano: String(nowNs),
        }] }],
      }],
    };
    const tr = await call(`${in1.ingest}/v1/traces`, { method: 'POST', body: JSON.stringify(otlp), headers: { 'X-API-Key': A.key, 'Content-Type': 'application/json' } });
    assert.equal(tr.status, 200, show(tr));
    const metric = `split_metric_${marker}`;
    const mw = await call(`${in2.ingest}/write?db=split`, { method: 'POST', body: `${metric},via=in2 value=7i\n`, headers: { 'X-API-Key': A.key, 'Content-Type': 'text/plain' } });
    assert.equal(mw.status, 204, show(mw));
    const own = (path: string) => call(`${app.app}/api/v1/tenants/${A.tenantId}/${path}`, { headers: { 'X-API-Key': A.key } });
    const sawTrace = await eventually(async () => (await own(`traces/${traceId}`)).text.includes(`op-${marker}`), 20_000);
    assert.ok(sawTrace, 'the trace is read back through the app door');
    // Line protocol names the series after measurement and field (`<measurement>_value`), hence the regex.
    const sawMetric = await eventually(async () => {
      const r = await own(`prometheus/api/v1/query?query=${encodeURIComponent(`{__name__=~"${metric}.*",via="in2"}`)}`);
      return r.status === 200 && JSON.stringify(obj(r)).includes('"7"') ? r : null;
    }, 20_000);
    assert.ok(sawMetric, 'the metric is read back through the app door');
  });
}
