// Each detector kind with a plain setup, over data ingested through the real front doors and evaluated by the real
// service (DESIGN §8): metric_threshold over Influx line protocol, absence of a heartbeat, trace_latency against a
// fixed bound over OTLP spans, error_ratio's burn rate over logs, and new_log_pattern with a learned baseline. The
// kinds' own known-answer tests are in src/detectors/kinds; these show the same answers come out of the service.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { call, newAccount, startService, type RunningService, type TestAccount } from './support/service.js';
import { ingest, show, waitForRows } from './support/load.js';
import { alertsOf, clockTo, createDetector, evaluate, logsAt, MIN } from './support/detectors.js';

const BASE = Math.floor((Date.now() - 7 * 86_400_000) / MIN) * MIN;
let slot = 0;
const nextBase = (): number => BASE + (slot++) * 6 * 3_600_000;

let svc: RunningService;
before(async () => { svc = await startService({ env: { SIGHTLINE_EVAL_INTERVAL_MS: '0' } }); });
after(async () => { await svc.stop(); });

/** Ingests the entries and waits until `query` finds `total` entries (default: these). */
async function sendLogs(acct: TestAccount, logs: Record<string, unknown>[], query: string, total = logs.length): Promise<void> {
  const r = await ingest(svc.ingest, acct.key, JSON.stringify(logs));
  assert.equal(r.status, 200, show(r));
  await waitForRows(svc, acct.tenantId, acct.key, query, total, 10_000, '&limit=10000');
}

const firingLabels = async (acct: TestAccount, label: string): Promise<string[]> =>
  (await alertsOf(svc, acct, 'firing')).map((a) => a.labels[label] ?? '').sort();

test('metric_threshold: the series over the bound fires (Influx line protocol in, PromQL out), and resolves when it drops', async () => {
  const t = await clockTo(svc, nextBase());
  const acct = await newAccount(svc);
  const lines: string[] = [];
  for (let i = 1; i <= 10; i++) {
    lines.push(`disk,host=a used_pct=${90 + (i % 3)} ${t - i * MIN}`, `disk,host=b used_pct=40 ${t - i * MIN}`);
  }
  const w = await call(`${svc.app}/api/v2/write?org=o&bucket=b&precision=ms`, {
    method: 'POST', headers: { Authorization: `Token ${acct.key}`, 'Content-Type': 'text/plain' }, body: lines.join('\n'),
  });
  assert.equal(w.status, 204, show(w));
  const end = Date.now() + 10_000;
  for (;;) {
    const q = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/prometheus/api/v1/query?query=count(disk_used_pct)&time=${(t - MIN) / 1000}`, { headers: { 'X-API-Key': acct.key } });
    if (JSON.stringify(q.json).includes('"2"')) break;
    assert.ok(Date.now() < end, `series not queryable: ${show(q)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
  await createDetector(svc, acct, { name: 'Disk full', kind: 'metric_threshold', params: { expr: 'disk_used_pct', op: '>', threshold: 85 } });
  await clockTo(svc, t + 10_000);
  assert.equal((await evaluate(svc, acct.tenantId)).firing, 1);
  assert.deepEqual(await firingLabels(acct, 'host'), ['a']);
  // Five minutes past the last sample the series is gone (Prometheus' lookback): the alert resolves.
  await clockTo(svc, t + 10 * MIN);
  assert.equal((await evaluate(svc, acct.tenantId)).resolved, 1);
});

test('absence: a heartbeat that stops fires after a whole window without it, and resolves when it comes back', async () => {
  const t = await clockTo(svc, nextBase());
  const acct = await newAccount(svc);
  await sendLogs(acct, logsAt(10, t - 20 * MIN, 10 * MIN, { _msg: 'beat', service: 'heartbeat' }), 'service:=heartbeat');
  await createDetector(svc, acct, { name: 'Heartbeat gone', kind: 'absence', params: { query: 'service:=heartbeat' }, window_s: 300 });
  await clockTo(svc, t + 10_000);
  assert.equal((await evaluate(svc, acct.tenantId)).firing, 1, 'no beat in [T − 5 min, T)');
  await sendLogs(acct, logsAt(2, t + MIN, MIN, { _msg: 'beat', service: 'heartbeat' }), 'service:=heartbeat', 12);
  await clockTo(svc, t + 3 * MIN);
  const pass = await evaluate(svc, acct.tenantId);
  assert.deepEqual([pass.resolved, pass.firing], [1, 0]);
});

test('trace_latency with a fixed bound: the slow (service, span) fires with its p99 in ms', async () => {
  const t = await clockTo(svc, nextBase());
  const acct = await newAccount(svc);
  const span = (service: string, name: string, startMs: number, durMs: number) => ({
    resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
    scopeSpans: [{ scope: { name: 'e2e' }, spans: [{
      traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), name, kind: 2,
      startTimeUnixNano: String(BigInt(startMs) * 1_000_000n), endTimeUnixNano: String(BigInt(startMs + durMs) * 1_000_000n),
    }] }],
  });
  const resourceSpans = Array.from({ length: 40 }, (_, i) => [
    span('checkout', 'POST /pay', t - 4 * MIN + i * 5000, 900 + i),
    span('search', 'GET /q', t - 4 * MIN + i * 5000, 40),
  ]).flat();
  const r = await call(`${svc.ingest}/v1/traces`, { method: 'POST', body: JSON.stringify({ resourceSpans }), headers: { 'X-API-Key': acct.key, 'Content-Type': 'application/json' } });
  assert.equal(r.status, 200, show(r));
  await new Promise((res) => setTimeout(res, 1500));
  await createDetector(svc, acct, { name: 'Slow spans', kind: 'trace_latency', params: { threshold_ms: 500, quantile: 0.99 } });
  await clockTo(svc, t + 10_000);
  assert.equal((await evaluate(svc, acct.tenantId)).firing, 1);
  const [a] = await alertsOf(svc, acct, 'firing');
  assert.deepEqual([a?.labels.service, a?.labels.span_name], ['checkout', 'POST /pay']);
  assert.ok((a?.value ?? 0) > 900, `p99 ${String(a?.value)}`);
});

test('error_ratio over logs: a burn of the error budget fires on both windows of a pair', async () => {
  const t = await clockTo(svc, nextBase());
  const acct = await newAccount(svc);
  // An hour of requests, 20 % failing in the last hour: far past 14.4 × the 0.1 % budget on 1 h and 5 min.
  const logs = [
    ...logsAt(400, t - 60 * MIN, 60 * MIN, { _msg: 'GET /api 200', service: 'api', status: '200' }),
    ...logsAt(100, t - 60 * MIN, 60 * MIN, { _msg: 'GET /api 500', service: 'api', status: '500' }),
  ];
  await sendLogs(acct, logs, 'service:=api');
  await createDetector(svc, acct, {
    name: 'API burning budget', kind: 'error_ratio',
    params: { errors_query: 'service:=api status:=500', total_query: 'service:=api', slo: 0.999, windows: ['1h:5m:14.4'] },
  });
  await clockTo(svc, t + 10_000);
  const pass = await evaluate(svc, acct.tenantId);
  assert.deepEqual([pass.errors, pass.firing], [0, 1]);
});

test('new_log_pattern: a message template unseen in the baseline fires once it occurs min_count times', async () => {
  const t = await clockTo(svc, nextBase());
  const acct = await newAccount(svc);
  const known = Array.from({ length: 60 }, (_, i) => ({
    _time: new Date(t - 2 * 3_600_000 + i * MIN).toISOString(), _msg: `user ${1000 + i} logged in from 10.0.0.${i % 200}`, service: 'auth',
  }));
  await sendLogs(acct, known, 'service:=auth');
  await createDetector(svc, acct, {
    name: 'New auth messages', kind: 'new_log_pattern', params: { query: 'service:=auth', baseline: '1h', min_count: 3 }, window_s: 300,
  });
  await clockTo(svc, t + 10_000);
  assert.deepEqual([(await evaluate(svc, acct.tenantId)).firing], [0], 'the baseline is learned: nothing new');
  const fresh = logsAt(4, t + MIN, MIN, { _msg: 'token signature invalid for key kid-7', service: 'auth' });
  await sendLogs(acct, fresh, 'service:=auth', known.length + fresh.length);
  await clockTo(svc, t + 3 * MIN);
  const pass = await evaluate(svc, acct.tenantId);
  assert.equal(pass.errors, 0);
  assert.equal(pass.firing, 1);
  const [a] = await alertsOf(svc, acct, 'firing');
  assert.match(JSON.stringify(a?.annotations), /token signature invalid/);
});

test('rum_error_spike: browser errors of a page far above its day of baseline fire, per page', async () => {
  const t = await clockTo(svc, nextBase());
  const acct = await newAccount(svc);
  const rum = (timeMs: number, page: string) => ({
    _time: new Date(timeMs).toISOString(), _msg: 'TypeError: cannot read properties of undefined', level: 'error',
    'telemetry.sdk.language': 'webjs', 'url.full': page, service: 'shop-web',
  });
  // A day and two hours of one error an hour per page, then a burst on /checkout in the last three minutes.
  const baseline = Array.from({ length: 26 }, (_, h) => [rum(t - (h + 1) * 3_600_000, 'https://shop/checkout'), rum(t - (h + 1) * 3_600_000 + 1000, 'https://shop/cart')]).flat();
  const burst = Array.from({ length: 20 }, (_, i) => rum(t - 3 * MIN + i * 5000, 'https://shop/checkout'));
  await sendLogs(acct, [...baseline, ...burst], 'service:=shop-web');
  await createDetector(svc, acct, { name: 'Checkout errors', kind: 'rum_error_spike', params: {} });
  await clockTo(svc, t + 10_000);
  const pass = await evaluate(svc, acct.tenantId);
  assert.deepEqual([pass.errors, pass.firing], [0, 1]);
  assert.deepEqual(await firingLabels(acct, 'url.full'), ['https://shop/checkout']);
});
