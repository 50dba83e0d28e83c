// Detectors and alerts over the real service (DESIGN §8, issue 9 items 3, 4, 7, 8): the catalog; each kind with a
// plain setup created over ingested data and evaluated through POST /admin/v1/detectors/evaluate with the test clock
// moved, pending → firing → resolved; the 422s (unknown kind, bad parameters, invalid queries with positions, the
// metrics gate, history too short with the time it will be met); trial_expired keeps evaluating and firing; a spent
// query rate defers evaluation (error, with the reason) without a false resolve; preview; /metrics. The scheduler,
// restarts and SIGKILL are in detectors-schedule.e2e.test.ts. This service runs with SIGHTLINE_EVAL_INTERVAL_MS=0,
// so every pass is one the test asks for.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, newAccount, startService, type RunningService, type TestAccount } from './support/service.js';
import { ingest, obj, show, waitForRows } from './support/load.js';
import {
  alertsOf, clockTo, createDetector, detectorApi, evaluate, expectIneligible, logsAt, MIN, type AlertJson,
} from './support/detectors.js';

/** Every test works in its own stretch of service time, a week back, so nothing it ingests is in the future. */
const BASE = Math.floor((Date.now() - 7 * 86_400_000) / MIN) * MIN;
let slot = 0;
const nextBase = (): number => BASE + (slot++) * 6 * 3_600_000;

let svc: RunningService;
before(async () => { svc = await startService({ env: { SIGHTLINE_EVAL_INTERVAL_MS: '0' } }); });
after(async () => { await svc.stop(); });

async function account(body: Record<string, unknown> = {}): Promise<TestAccount> {
  return newAccount(svc, body);
}

void describe('catalog', () => {
  test('GET /api/v1/detectors/catalog: every kind of DESIGN §8 with signal, params, history and eligibility, the same on every tier', async () => {
    const t = await clockTo(svc, nextBase());
    const trial = await account();
    const expired = await account({ tier: 'trial_expired', signup_at: new Date(t - 30 * 86_400_000).toISOString() });
    const get = (a: TestAccount) => call(`${svc.app}/api/v1/detectors/catalog`, { headers: { 'X-API-Key': a.key } });
    const r = await get(trial);
    assert.equal(r.status, 200, show(r));
    const kinds = (obj(r).kinds ?? []) as { kind: string; signal: string; params: unknown[]; min_history_s: number; eligibility: { id: string }[] }[];
    assert.deepEqual(kinds.map((k) => k.kind).sort(), [
      'absence', 'error_ratio', 'log_anomaly', 'log_threshold', 'metric_anomaly', 'metric_threshold', 'new_log_pattern', 'rum_error_spike', 'trace_latency',
    ]);
    for (const k of kinds) {
      assert.ok(['logs', 'metrics', 'traces', 'rum'].includes(k.signal), k.kind);
      assert.ok(Array.isArray(k.params) && k.params.length > 0, k.kind);
      assert.equal(typeof k.min_history_s, 'number');
      assert.ok(k.eligibility.some((e) => e.id === 'signal_enabled'), k.kind);
    }
    assert.deepEqual((await get(expired)).json, r.json, 'the catalog is not gated by plan');
    assert.equal((await call(`${svc.app}/api/v1/detectors/catalog`)).status, 401);
  });
});

void describe('log_threshold', () => {
  test('pending → firing after `for` → resolved, with labels, templated annotations and the notice stamps', async () => {
    const t = nextBase();
    const acct = await account();
    await clockTo(svc, t);
    const logs = [
      // In [T − 3 min, T): inside every window judged below until the last.
      ...logsAt(30, t - 3 * MIN, 3 * MIN, { _msg: 'payment failed', service: 'api' }),
      ...logsAt(3, t - 3 * MIN, 3 * MIN, { _msg: 'payment failed', service: 'web' }),
      ...logsAt(40, t - 3 * MIN, 3 * MIN, { _msg: 'payment ok', service: 'api' }),
    ];
    assert.equal((await ingest(svc.ingest, acct.key, JSON.stringify(logs))).status, 200);
    assert.equal((await waitForRows(svc, acct.tenantId, acct.key, 'payment', 73, 10_000, '&limit=1000')).rows.length, 73);

    const d = await createDetector(svc, acct, {
      name: 'Payments failing', kind: 'log_threshold', params: { query: 'failed', group_by: ['service'], threshold: 10 },
      window_s: 300, for_s: 120, labels: { team: 'payments' },
      annotations: { summary: '{{ $value }} failures on {{ $labels.service }}', runbook_url: 'https://runbooks/payments' },
    });
    assert.equal(d.kind, 'log_threshold');
    assert.equal((d.status as { health: string }).health, 'unknown');

    await clockTo(svc, t + 10_000);
    assert.deepEqual(await evaluate(svc, acct.tenantId), { evaluated: 1, firing: 0, resolved: 0, pending: 1, errors: 0, deferred: 0 });
    const [pending] = await alertsOf(svc, acct);
    assert.ok(pending);
    assert.equal(pending.state, 'pending');
    assert.deepEqual(pending.labels, { alertname: 'Payments failing', detector: d.id, service: 'api', team: 'payments', tenant: acct.tenantId });
    assert.deepEqual(pending.annotations, { summary: '30 failures on api', runbook_url: 'https://runbooks/payments' });
    assert.match(pending.fingerprint, /^[0-9a-f]{16}$/);

    await clockTo(svc, t + 70_000);
    assert.equal((await evaluate(svc, acct.tenantId)).pending, 1, 'still pending: `for` is 2 minutes');
    await clockTo(svc, t + 130_000);
    assert.deepEqual(await evaluate(svc, acct.tenantId), { evaluated: 1, firing: 1, resolved: 0, pending: 0, errors: 0, deferred: 0 });
    const [firing] = await alertsOf(svc, acct, 'firing');
    assert.ok(firing);
    assert.deepEqual([firing.fingerprint, firing.value, firing.active_at, firing.starts_at, firing.ends_at],
      [pending.fingerprint, 30, new Date(t + 10_000).toISOString(), new Date(t + 130_000).toISOString(), null]);
    assert.deepEqual([firing.last_notified_status, firing.notified_count, firing.last_notified_at], ['firing', 1, new Date(t + 130_000).toISOString()]);
    const one = await detectorApi(svc, acct, 'GET', `/alerts/${firing.fingerprint}`);
    assert.equal((obj(one).alert as AlertJson).state, 'firing');

    // The window [T+10m−10s−5m, T+10m−10s) holds none of the failures: the api alert resolves, with a second notice.
    await clockTo(svc, t + 10 * MIN);
    const pass = await evaluate(svc, acct.tenantId);
    assert.deepEqual([pass.resolved, pass.firing], [1, 0]);
    const resolved = (await alertsOf(svc, acct, 'resolved'))[0];
    assert.deepEqual([resolved?.fingerprint, resolved?.ends_at, resolved?.notified_count, resolved?.last_notified_status],
      [firing.fingerprint, new Date(t + 10 * MIN).toISOString(), 2, 'resolved']);
    const shown = obj(await detectorApi(svc, acct, 'GET', `/detectors/${d.id}`)).detector as { status: { health: string; last_eval_at: string; alerts: Record<string, number> } };
    assert.deepEqual([shown.status.health, shown.status.last_eval_at, shown.status.alerts.resolved], ['ok', new Date(t + 10 * MIN).toISOString(), 1]);
  });
});

void describe('eligibility: 422 naming the condition', () => {
  test('unknown kind, bad parameters, invalid LogsQL and PromQL with the position', async () => {
    await clockTo(svc, nextBase());
    const acct = await account();
    await expectIneligible(svc, acct, { name: 'x', kind: 'log_magic', params: {} }, 'kind', /unknown kind "log_magic"; the catalog .* has .*log_threshold/);
    await expectIneligible(svc, acct, { name: 'x', kind: 'log_threshold', params: { query: 'error', threshold: 'ten' } }, 'params', /params\.threshold/);
    await expectIneligible(svc, acct, { name: 'x', kind: 'log_threshold', params: { query: 'error', threshold: 1, bogus: 1 } }, 'params', /bogus: unknown parameter/);
    const bad = await expectIneligible(svc, acct, { name: 'x', kind: 'log_threshold', params: { query: 'error AND (', threshold: 1 } }, 'query_valid', /query/);
    assert.match(String(bad.detail), /position|column|at \d/i);
    await expectIneligible(svc, acct, { name: 'x', kind: 'metric_threshold', params: { expr: 'rate(http_requests_total[5m]', threshold: 1 } },
      'query_valid', /1:\d+: parse error/);
    const listed = await detectorApi(svc, acct, 'GET', '/detectors');
    assert.deepEqual(obj(listed).detectors, [], 'nothing was created');
  });

  test('signal_enabled: a metrics kind on an account whose metrics feature is off', async () => {
    await clockTo(svc, nextBase());
    const acct = await account({ features: { metrics: false } });
    await expectIneligible(svc, acct, { name: 'cpu', kind: 'metric_threshold', params: { expr: 'cpu_usage', threshold: 90 } }, 'signal_enabled', /metrics feature is off/);
    await expectIneligible(svc, acct, { name: 'gone', kind: 'absence', params: { expr: 'up' } }, 'signal_enabled', /absence as configured reads metrics/);
    const ok = await detectorApi(svc, acct, 'POST', '/detectors', { name: 'logs are fine', kind: 'log_threshold', params: { query: 'error', threshold: 5 } });
    assert.equal(ok.status, 201, show(ok));
  });

  test('min_history: too little history says how much is needed, how much exists and when it will be met', async () => {
    const t = nextBase();
    await clockTo(svc, t);
    const acct = await account();
    const body = { name: 'new patterns', kind: 'new_log_pattern', params: { query: 'service:=shop' } };
    const none = await expectIneligible(svc, acct, body, 'min_history', /needs 1 d \(86400 s\) of logs history and there is none yet/);
    assert.ok(Math.abs(Date.parse(String(none.met_at)) - (t + 86_400_000)) < 5000, `met_at ${String(none.met_at)}: a day from now`);
    const oldest = t - 2 * 3_600_000;
    assert.equal((await ingest(svc.ingest, acct.key, JSON.stringify(logsAt(5, oldest, 60 * MIN, { _msg: 'cart updated', service: 'shop' })))).status, 200);
    await waitForRows(svc, acct.tenantId, acct.key, 'service:=shop', 5, 10_000);
    const metAt = new Date(oldest + 86_400_000).toISOString();
    const short = await expectIneligible(svc, acct, body, 'min_history',
      new RegExp(`oldest data is from ${new Date(oldest).toISOString()}, 2 h of history; it will be met at ${metAt}`));
    assert.equal(short.met_at, metAt);
    await clockTo(svc, oldest + 86_400_000);
    assert.equal((await detectorApi(svc, acct, 'POST', '/detectors', body)).status, 201, 'met at the time it said');
  });
});
