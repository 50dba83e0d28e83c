// Detectors and alerts over the real service (DESIGN §8, issue 9 items 3, 4, 7, 8): the catalog; each kind with a
// plain setup created over ingested data and evaluated through POST /admin/v1/detectors/evaluate with the test clock
// moved, pending → firing → resolved; the 422s (unknown kind, bad parameters, invalid queries with positions, the
// metrics gate, history too short with the time it will be met); trial_expired keeps evaluating and firing; a spent
// query rate defers evaluation (error, with the reason) without a false resolve; preview; /metrics. The scheduler,
// restarts and SIGKILL are in detectors-schedule.e2e.test.ts. This service runs with SIGHTLINE_EVAL_INTERVAL_MS=0,
// so every pass is one the test asks for.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { admin, call, newAccount, startService, type RunningService, type TestAccount } from './support/service.js';
import { ingest, newKey, obj, show, waitForRows } from './support/load.js';
import { addUser, browser, sessionOf, type User } from './support/sessions.js';
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

/** A log_threshold detector over 30 "payment failed" entries of service api in [t − 3 min, t), `for` 0. */
async function firingSetup(acct: TestAccount, t: number, over: Record<string, unknown> = {}): Promise<{ id: string }> {
  const logs = logsAt(30, t - 3 * MIN, 3 * MIN, { _msg: 'payment failed', service: 'api' });
  assert.equal((await ingest(svc.ingest, acct.key, JSON.stringify(logs))).status, 200);
  await waitForRows(svc, acct.tenantId, acct.key, 'failed', 30, 10_000, '&limit=1000');
  return createDetector(svc, acct, { name: 'Payments failing', kind: 'log_threshold', params: { query: 'failed', group_by: ['service'], threshold: 10 }, ...over });
}

void describe('detectors API', () => {
  test('list, get, update, disable (its firing alert resolves with a notice), delete; read keys read, other tenants see nothing', async () => {
    const t = await clockTo(svc, nextBase());
    const acct = await account();
    const d = await firingSetup(acct, t);
    await clockTo(svc, t + 10_000);
    assert.equal((await evaluate(svc, acct.tenantId)).firing, 1);

    const reader = await newKey(svc, acct.tenantId, ['read']);
    const listed = await detectorApi(svc, acct, 'GET', '/detectors', undefined, reader.key);
    assert.deepEqual((obj(listed).detectors as { id: string }[]).map((x) => x.id), [d.id]);
    const refused = await detectorApi(svc, acct, 'POST', '/detectors', { name: 'x', kind: 'log_threshold', params: { query: '*', threshold: 1 } }, reader.key);
    assert.equal(refused.status, 403, show(refused));
    assert.match(String(obj(refused).detail), /scope: admin/);
    assert.equal((await detectorApi(svc, acct, 'DELETE', `/detectors/${d.id}`, undefined, reader.key)).status, 403);
    const other = await account();
    assert.equal((await detectorApi(svc, other, 'GET', `/detectors/${d.id}`)).status, 404, 'another tenant\'s detector is not found');
    assert.equal((await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/detectors`, { headers: { 'X-API-Key': other.key } })).status, 403);
    const noChannel = await detectorApi(svc, acct, 'PUT', `/detectors/${d.id}`, { channel_ids: ['chan_nope'] });
    assert.equal(noChannel.status, 400, show(noChannel));

    const renamed = await detectorApi(svc, acct, 'PUT', `/detectors/${d.id}`, { name: 'Payments failing (api)', for_s: '2m', keep_firing_for_s: 60 });
    assert.equal(renamed.status, 200, show(renamed));
    assert.deepEqual(Object.fromEntries(['name', 'for_s', 'keep_firing_for_s', 'window_s', 'repeat_interval_s', 'enabled']
      .map((k) => [k, (obj(renamed).detector as Record<string, unknown>)[k]])),
    { name: 'Payments failing (api)', for_s: 120, keep_firing_for_s: 60, window_s: 300, repeat_interval_s: 14_400, enabled: true });
    const disabled = await detectorApi(svc, acct, 'PUT', `/detectors/${d.id}`, { enabled: false });
    assert.equal(disabled.status, 200, show(disabled));
    const [after] = await alertsOf(svc, acct);
    assert.deepEqual([after?.state, after?.reason, after?.notified_count, after?.last_notified_status], ['resolved', 'detector disabled', 2, 'resolved']);
    assert.equal((await evaluate(svc, acct.tenantId)).evaluated, 0, 'a disabled detector is not evaluated');

    assert.equal((await detectorApi(svc, acct, 'DELETE', `/detectors/${d.id}`)).status, 204);
    assert.equal((await detectorApi(svc, acct, 'GET', `/detectors/${d.id}`)).status, 404);
    assert.deepEqual(await alertsOf(svc, acct), []);
    assert.equal((await detectorApi(svc, acct, 'GET', '/alerts?state=burning')).status, 400);
  });

  test('sessions: a member writes detectors, a viewer reads them and the catalog but may not write', async () => {
    await clockTo(svc, nextBase());
    const acct = await account();
    const [member, viewer] = [await addUser(svc, acct.key, 'member'), await addUser(svc, acct.key, 'viewer')];
    const as = async (user: User, method: string, path: string, body?: unknown) => call(`${svc.app}${path}`, {
      method, headers: { ...browser(await sessionOf(svc, user)), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const base = `/api/v1/tenants/${acct.tenantId}/detectors`;
    const body = { name: 'by a member', kind: 'log_threshold', params: { query: 'error', threshold: 3 } };
    const made = await as(member, 'POST', base, body);
    assert.equal(made.status, 201, show(made));
    const id = (obj(made).detector as { id: string }).id;
    const refused = await as(viewer, 'POST', base, body);
    assert.equal(refused.status, 403, show(refused));
    assert.equal((await as(viewer, 'DELETE', `${base}/${id}`)).status, 403);
    assert.equal((await as(viewer, 'GET', `${base}/${id}`)).status, 200);
    assert.equal((await as(viewer, 'GET', '/api/v1/detectors/catalog')).status, 200);
    assert.equal((await as(member, 'DELETE', `${base}/${id}`)).status, 204);
  });

  test('preview: what a stored or an unsaved detector would have fired on past data, nothing recorded', async () => {
    const t = await clockTo(svc, nextBase());
    const acct = await account();
    const d = await firingSetup(acct, t - 60 * MIN, { for_s: 60 });
    await clockTo(svc, t);
    const q = new URLSearchParams({ start: new Date(t - 90 * MIN).toISOString(), end: new Date(t - 30 * MIN).toISOString(), step: '60' });
    const r = await detectorApi(svc, acct, 'GET', `/detectors/${d.id}/preview?${q.toString()}`);
    assert.equal(r.status, 200, show(r));
    const p = obj(r) as { evaluations: number; queries: number; firing: { labels: Record<string, string>; starts_at: string; ends_at: string | null }[]; transitions: { from: string; to: string }[] };
    assert.equal(p.evaluations, 61);
    assert.equal(p.queries, 61);
    assert.equal(p.firing.length, 1);
    assert.equal(p.firing[0]?.labels.service, 'api');
    assert.deepEqual(p.transitions.map((x) => `${x.from}→${x.to}`).filter((x) => !x.includes('nodata')), ['inactive→pending', 'pending→firing', 'firing→resolved']);
    assert.deepEqual(await alertsOf(svc, acct), [], 'a preview records nothing');
    const unsaved = await detectorApi(svc, acct, 'POST', '/detectors/preview', {
      name: 'draft', kind: 'log_threshold', params: { query: 'failed', threshold: 100 }, start: q.get('start'), end: q.get('end'), step: '5m',
    });
    assert.equal(unsaved.status, 200, show(unsaved));
    assert.deepEqual([obj(unsaved).evaluations, (obj(unsaved).firing as unknown[]).length], [13, 0]);
    const tooMany = await detectorApi(svc, acct, 'GET', `/detectors/${d.id}/preview?start=${(t - 30 * 86_400_000) / 1000}&end=${t / 1000}&step=60`);
    assert.equal(tooMany.status, 400, show(tooMany));
  });
});

void describe('plans', () => {
  test('trial_expired: detectors keep evaluating on existing data and alerts keep firing', async () => {
    const t = await clockTo(svc, nextBase());
    const acct = await account();
    await firingSetup(acct, t);
    const patched = await admin(svc, 'PATCH', `/admin/v1/accounts/${acct.accountId}`, { tier: 'trial_expired' });
    assert.equal((obj(patched).account as { tier: string }).tier, 'trial_expired');
    await clockTo(svc, t + 10_000);
    assert.deepEqual(await evaluate(svc, acct.tenantId), { evaluated: 1, firing: 1, resolved: 0, pending: 0, errors: 0, deferred: 0 });
    const [a] = await alertsOf(svc, acct, 'firing');
    assert.equal(a?.notified_count, 1, 'and it is notified');
    assert.equal((await detectorApi(svc, acct, 'POST', '/detectors', { name: 'more', kind: 'log_threshold', params: { query: '*', threshold: 1 } })).status, 201,
      'the catalog is not gated by plan');
  });

  test('a spent query rate defers evaluation: the alert shows error with the reason, keeps firing underneath, is re-sent, never resolved', async () => {
    const t = await clockTo(svc, nextBase());
    const acct = await account({ tier: 'team', limits: { query_rate_per_min: 30 } });
    const d = await firingSetup(acct, t, { repeat_interval_s: 3600, window_s: 7200 });
    // A minute on, the reads of the setup have left the rolling window of the rate.
    await clockTo(svc, t + 70_000);
    assert.equal((await evaluate(svc, acct.tenantId)).firing, 1);
    const spend = async (): Promise<void> => {
      for (let i = 0; i < 60; i++) if ((await detectorApi(svc, acct, 'GET', '/detectors')).status === 429) return;
      assert.fail('the query rate never ran out');
    };
    await clockTo(svc, t + 3 * MIN);
    await spend();
    assert.deepEqual(await evaluate(svc, acct.tenantId), { evaluated: 1, firing: 0, resolved: 0, pending: 0, errors: 0, deferred: 1 });
    // Reading needs the rate too: a minute later it has room again (and no evaluation ran in between).
    await clockTo(svc, t + 4 * MIN + 1000);
    let [a] = await alertsOf(svc, acct);
    assert.deepEqual([a?.state, a?.prior_state, a?.ends_at, a?.notified_count], ['error', 'firing', null, 1]);
    assert.match(String(a?.reason), /evaluation deferred: the tenant's query rate \(30\/min\) is spent; next try in \d+ s/);
    const status = (obj(await detectorApi(svc, acct, 'GET', `/detectors/${d.id}`)).detector as { status: { health: string; last_error: string } }).status;
    assert.deepEqual([status.health, /query rate/.test(status.last_error)], ['error', true]);

    // An hour on, still throttled: the last known state (firing) is re-sent per repeat_interval.
    await clockTo(svc, t + 70_000 + 60 * MIN);
    await spend();
    assert.equal((await evaluate(svc, acct.tenantId)).deferred, 1);
    await clockTo(svc, t + 70_000 + 61 * MIN + 1000);
    [a] = await alertsOf(svc, acct);
    assert.deepEqual([a?.state, a?.notified_count, a?.last_notified_status, a?.last_notified_at], ['error', 2, 'firing', new Date(t + 70_000 + 60 * MIN).toISOString()]);

    // The rate frees up: the evaluation runs, and the alert is firing as it was, from when it started.
    await clockTo(svc, t + 70_000 + 63 * MIN);
    assert.equal((await evaluate(svc, acct.tenantId)).firing, 1);
    [a] = await alertsOf(svc, acct);
    assert.deepEqual([a?.state, a?.starts_at, a?.notified_count, a?.reason], ['firing', new Date(t + 70_000).toISOString(), 2, null]);
  });
});

test('/metrics counts evaluations by outcome, their duration, failures and notices', async () => {
  const r = await admin(svc, 'GET', '/metrics');
  assert.equal(r.status, 200);
  const value = (name: string): number => Number(new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(r.text)?.[1] ?? NaN);
  assert.ok(value('sightline_detector_evaluations_total{outcome="ok"}') > 0, r.text);
  assert.ok(value('sightline_detector_evaluations_total{outcome="deferred"}') >= 2);
  assert.equal(value('sightline_detector_evaluation_failures_total{reason="query_rate"}'), value('sightline_detector_evaluations_total{outcome="deferred"}'));
  assert.ok(value('sightline_detector_evaluation_duration_seconds_count') > 0);
  assert.ok(value('sightline_alert_notices_enqueued_total{status="firing"}') > 0);
  assert.ok(value('sightline_alert_notices_enqueued_total{status="resolved"}') > 0);
  assert.ok(value('sightline_detector_last_pass_seconds') >= 0);
});
