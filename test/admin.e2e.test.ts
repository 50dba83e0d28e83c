// The operator admin API (DESIGN §3), row by row with its exact reply shapes, the tenant-scoped key API
// (DESIGN §4 keys) and project creation (spec App plane paths, Plan gates; DESIGN §4). Plan defaults per tier
// come from the spec's Limits tables and DESIGN §6.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, call, newAccount, sleep, startService, type Reply, type RunningService } from './support/service.js';
import { startPostgres, type PostgresServer } from './support/postgres-server.js';
import { entries, ingest, Later, newKey, obj, raw, show, uid, waitForRows } from './support/load.js';

const DAY = 86_400_000;
const started = new Later(() => startService());

/**
 * The second service: without SIGHTLINE_TEST_CLOCK (PUT /admin/v1/clock must not exist there), and on the
 * PostgreSQL control store when PostgreSQL is installed (DESIGN §1: the same suite on every backend present).
 * It starts once the first one is up, while the first one's tests run.
 */
interface Second {
  svc: RunningService;
  onPostgres: boolean;
  stop(): Promise<void>;
}
const startedSecond = new Later<Second>(async () => {
  await started.get().catch(() => undefined);
  const pg: PostgresServer | null = await startPostgres('sightline_admin_e2e');
  try {
    const env: Record<string, string> = { SIGHTLINE_TEST_CLOCK: '0', ...(pg ? { SIGHTLINE_CONTROL_DB: pg.url } : {}) };
    const svc2 = await startService({ env });
    return {
      svc: svc2, onPostgres: pg !== null,
      async stop() {
        await svc2.stop();
        await pg?.destroy();
      },
    };
  } catch (e) {
    await pg?.destroy();
    throw e;
  }
});

let svc: RunningService;

before(async () => {
  svc = await started.get();
});
after(() => Promise.all([started.stop(), startedSecond.stop()]));

type Json = Record<string, unknown>;
const field = (v: unknown, name: string): Json => {
  assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v), `${name} must be an object: ${JSON.stringify(v)}`);
  return v as Json;
};
const isoString = (v: unknown, what: string): number => {
  assert.equal(typeof v, 'string', `${what} must be an RFC 3339 string: ${JSON.stringify(v)}`);
  const ms = Date.parse(String(v));
  assert.ok(Number.isFinite(ms), `${what}: ${String(v)}`);
  return ms;
};

function assertAccountShape(a: Json): void {
  for (const k of ['id', 'name', 'tier']) assert.equal(typeof a[k], 'string', `account.${k}`);
  isoString(a.signup_at, 'account.signup_at');
  assert.ok(a.trial_ends_at === null || typeof a.trial_ends_at === 'string', 'account.trial_ends_at');
  const f = field(a.features, 'account.features');
  for (const k of ['metrics', 'replay', 'multi_project']) assert.equal(typeof f[k], 'boolean', `features.${k}`);
  field(a.limits, 'account.limits');
}

function assertTenantShape(t: Json, accountId: string): void {
  assert.deepEqual(Object.keys(t).sort(), ['account_id', 'disabled', 'id', 'name'].sort(), JSON.stringify(t));
  assert.equal(typeof t.id, 'string');
  assert.equal(t.account_id, accountId);
  assert.equal(typeof t.disabled, 'boolean');
}

function assertKeyShape(k: Json, tenantId: string, withSecret: boolean): void {
  assert.equal(typeof k.id, 'string', 'api_key.id');
  if (withSecret) assert.equal(typeof k.key, 'string', 'api_key.key (the secret, shown once)');
  else assert.ok(!('key' in k), `a listed key must not carry its secret: ${JSON.stringify(k)}`);
  assert.ok(Array.isArray(k.scopes), 'api_key.scopes');
  assert.ok(k.expires_at === null || typeof k.expires_at === 'string', 'api_key.expires_at');
  assert.equal(k.tenant_id, tenantId);
}

function assertError(r: Reply, status: number, detail?: RegExp, what = ''): void {
  assert.equal(r.status, status, `${what} ${show(r)}`);
  const b = obj(r);
  assert.equal(typeof b.detail, 'string', `${what}: JSON error with detail: ${show(r)}`);
  if (detail) assert.match(String(b.detail), detail, `${what}: ${show(r)}`);
}

const accountOf = (r: Reply): Json => field(obj(r).account, 'account');
const tenantApi = (key: string, method: string, path: string, body?: unknown): Promise<Reply> => call(svc.app + path, {
  method, headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

describe('POST /admin/v1/accounts → 201 {account, tenant, api_key}', () => {
  test('without tier: a 14-day trial from now, first tenant and a key with scopes ingest, read, admin', async () => {
    const before = Date.now();
    const r = await admin(svc, 'POST', '/admin/v1/accounts', { name: 'acme' });
    assert.equal(r.status, 201, show(r));
    const body = obj(r);
    const a = field(body.account, 'account');
    assertAccountShape(a);
    assert.equal(a.name, 'acme');
    assert.equal(a.tier, 'trial');
    const signup = isoString(a.signup_at, 'signup_at');
    assert.ok(signup >= before - 1000 && signup <= Date.now() + 1000, 'signup_at defaults to now');
    assert.equal(isoString(a.trial_ends_at, 'trial_ends_at') - signup, 14 * DAY);
    assert.deepEqual(a.features, { metrics: true, replay: true, multi_project: false });
    const t = field(body.tenant, 'tenant');
    assertTenantShape(t, String(a.id));
    assert.equal(t.disabled, false);
    const k = field(body.api_key, 'api_key');
    assertKeyShape(k, String(t.id), true);
    assert.deepEqual(k.scopes, ['ingest', 'read', 'admin']);
    assert.equal(k.expires_at, null);
    // The key works on both planes for that tenant.
    assert.equal((await ingest(svc.ingest, String(k.key), JSON.stringify(entries(1, uid())))).status, 200);
    assert.equal((await tenantApi(String(k.key), 'GET', `/api/v1/tenants/${String(t.id)}/usage`)).status, 200);
  });

  test('signup_at given: the trial ends 14 days after it', async () => {
    const r = await admin(svc, 'POST', '/admin/v1/accounts', { name: uid('s'), signup_at: '2026-11-01T08:30:00Z' });
    assert.equal(r.status, 201, show(r));
    const a = accountOf(r);
    assert.equal(isoString(a.signup_at, 'signup_at'), Date.parse('2026-11-01T08:30:00Z'));
    assert.equal(isoString(a.trial_ends_at, 'trial_ends_at'), Date.parse('2026-11-15T08:30:00Z'));
  });

  test('features given at creation override the tier defaults', async () => {
    const r = await admin(svc, 'POST', '/admin/v1/accounts', { name: uid('f'), features: { metrics: false, multi_project: true } });
    assert.equal(r.status, 201, show(r));
    assert.deepEqual(accountOf(r).features, { metrics: false, replay: true, multi_project: true });
  });

  // Spec "Per-plan limits" and "AI credits", DESIGN §6 ceilings (projects) and Custom defaults.
  const plans: { tier: string; ingest_rate: number | null; daily: number; query: number | null; retention: number; projects: number | null; ai: number | null; multi: boolean }[] = [
    { tier: 'trial', ingest_rate: 500, daily: 73e9, query: 1200, retention: 14, projects: 1, ai: 200, multi: false },
    { tier: 'team', ingest_rate: 500, daily: 34e9, query: 1200, retention: 30, projects: 3, ai: 200, multi: true },
    { tier: 'growth', ingest_rate: 2000, daily: 135e9, query: 3000, retention: 30, projects: 10, ai: 500, multi: true },
    { tier: 'custom', ingest_rate: 10000, daily: 500e9, query: null, retention: 90, projects: null, ai: null, multi: true },
    { tier: 'trial_expired', ingest_rate: 100, daily: 0, query: 300, retention: 14, projects: 1, ai: 0, multi: false },
  ];
  for (const p of plans) {
    test(`tier ${p.tier} given: the plan's limits and features`, async () => {
      const r = await admin(svc, 'POST', '/admin/v1/accounts', { name: uid(p.tier), tier: p.tier });
      assert.equal(r.status, 201, show(r));
      const a = accountOf(r);
      assert.equal(a.tier, p.tier);
      if (p.tier === 'trial' || p.tier === 'trial_expired') assert.equal(typeof a.trial_ends_at, 'string');
      else assert.equal(a.trial_ends_at, null, 'a paid tier has no trial end');
      assert.deepEqual(a.features, { metrics: true, replay: true, multi_project: p.multi });
      const l = field(a.limits, 'limits');
      assert.equal(l.ingest_rate, p.ingest_rate, 'ingest_rate');
      assert.equal(l.daily_included_bytes, p.daily, 'daily_included_bytes');
      assert.equal(l.query_rate_per_min, p.query, 'query_rate_per_min');
      assert.equal(l.retention_days, p.retention, 'retention_days');
      assert.equal(l.project_limit, p.projects, 'project_limit');
      assert.equal(l.ai_daily_credits, p.ai, 'ai_daily_credits');
      if (p.tier === 'team' || p.tier === 'growth' || p.tier === 'custom') assert.equal(l.overage_ceiling_multiplier, 3, 'paid tiers: 3x safety ceiling');
    });
  }

  const bad: [string, unknown, RegExp][] = [
    ['no name', {}, /name/],
    ['a number as name', { name: 5 }, /name/],
    ['an unknown tier', { name: 'x', tier: 'gold' }, /tier/],
    ['a signup_at that is no time', { name: 'x', signup_at: 'yesterday' }, /signup_at/],
    ['an unknown feature', { name: 'x', features: { bogus: true } }, /bogus/],
    ['a feature that is not a boolean', { name: 'x', features: { metrics: 'yes' } }, /metrics/],
    ['features not an object', { name: 'x', features: [] }, /features/],
    ['an unknown limit', { name: 'x', limits: { speed: 1 } }, /speed/],
  ];
  for (const [what, body, detail] of bad) {
    test(`400 naming the field: ${what}`, async () => {
      assertError(await admin(svc, 'POST', '/admin/v1/accounts', body), 400, detail, what);
    });
  }

  test('400 for a body that is not a JSON object', async () => {
    for (const text of ['not json', '[1,2]', '"x"', '{"name":']) {
      const r = await call(svc.app + '/admin/v1/accounts', { method: 'POST', body: text, headers: { Authorization: `Bearer ${svc.adminToken}`, 'Content-Type': 'application/json' } });
      assertError(r, 400, undefined, text);
    }
  });
});

describe('GET and PATCH /admin/v1/accounts/:id → 200 {account}', () => {
  test('GET: tier, trial_ends_at, features, limits and usage_today with the bytes of today', async () => {
    const acct = await newAccount(svc);
    const body = JSON.stringify(entries(3, uid('usage')));
    assert.equal((await ingest(svc.ingest, acct.key, body)).status, 200);
    const r = await admin(svc, 'GET', `/admin/v1/accounts/${acct.accountId}`);
    assert.equal(r.status, 200, show(r));
    const a = accountOf(r);
    assertAccountShape(a);
    assert.equal(a.id, acct.accountId);
    assert.equal(a.tier, 'trial');
    const u = field(a.usage_today, 'usage_today');
    assert.equal(u.day, new Date().toISOString().slice(0, 10));
    assert.equal(u.bytes_accepted, Buffer.byteLength(body));
    assert.equal(u.tier, 'trial');
    assert.deepEqual(u.by_signal, { logs: Buffer.byteLength(body), traces: 0, metrics: 0, rum: 0, replay: 0 });
    for (const k of ['included_bytes', 'ceiling_bytes', 'overage_bytes', 'overage_cost_usd']) assert.ok(k in u, `usage_today.${k}`);
  });

  test('GET of an unknown account is 404', async () => {
    assertError(await admin(svc, 'GET', '/admin/v1/accounts/acc_nope'), 404);
  });

  test('PATCH tier, trial_ends_at, limits and features, each reflected in the reply and in GET', async () => {
    const acct = await newAccount(svc);
    const path = `/admin/v1/accounts/${acct.accountId}`;
    const steps: [unknown, (a: Json) => void][] = [
      [{ tier: 'growth' }, (a) => { assert.equal(a.tier, 'growth'); assert.equal(field(a.limits, 'limits').ingest_rate, 2000); }],
      [{ trial_ends_at: '2027-03-01T00:00:00Z' }, (a) => assert.equal(isoString(a.trial_ends_at, 'trial_ends_at'), Date.parse('2027-03-01T00:00:00Z'))],
      [{ limits: { ingest_rate: 123, daily_included_bytes: 5000, overage_ceiling_multiplier: 2, query_rate_per_min: 7, retention_days: 3, project_limit: 4, ai_daily_credits: 9 } },
        (a) => assert.deepEqual(a.limits, { ingest_rate: 123, daily_included_bytes: 5000, overage_ceiling_multiplier: 2, query_rate_per_min: 7, retention_days: 3, project_limit: 4, ai_daily_credits: 9 })],
      [{ limits: { ingest_rate: 456 } }, (a) => { const l = field(a.limits, 'limits'); assert.equal(l.ingest_rate, 456); assert.equal(l.query_rate_per_min, 7, 'other limits stay'); }],
      [{ features: { metrics: false } }, (a) => assert.deepEqual(a.features, { metrics: false, replay: true, multi_project: true })],
      [{ features: { replay: false, multi_project: false } }, (a) => assert.deepEqual(a.features, { metrics: false, replay: false, multi_project: false })],
    ];
    for (const [body, check] of steps) {
      const r = await admin(svc, 'PATCH', path, body);
      assert.equal(r.status, 200, `${JSON.stringify(body)}: ${show(r)}`);
      check(accountOf(r));
      check(accountOf(await admin(svc, 'GET', path)));
    }
  });

  test('PATCH payment_method on trial_expired → team; with tier → that tier; ingest resumes within the cache TTL', async () => {
    const e1 = await newAccount(svc, { tier: 'trial_expired' });
    const blocked = await ingest(svc.ingest, e1.key, JSON.stringify(entries(1, uid())));
    assertError(blocked, 429, /trial expired/, 'trial_expired ingest');
    const r1 = await admin(svc, 'PATCH', `/admin/v1/accounts/${e1.accountId}`, { payment_method: true });
    assert.equal(r1.status, 200, show(r1));
    assert.equal(accountOf(r1).tier, 'team');
    const e2 = await newAccount(svc, { tier: 'trial_expired' });
    const r2 = await admin(svc, 'PATCH', `/admin/v1/accounts/${e2.accountId}`, { payment_method: true, tier: 'growth' });
    assert.equal(accountOf(r2).tier, 'growth');
    await sleep(1300);
    assert.equal((await ingest(svc.ingest, e1.key, JSON.stringify(entries(1, uid())))).status, 200, 'ingest resumes');
    // On a trial, a payment method is recorded and the tier stays.
    const trial = await newAccount(svc);
    const r3 = await admin(svc, 'PATCH', `/admin/v1/accounts/${trial.accountId}`, { payment_method: true });
    assert.equal(accountOf(r3).tier, 'trial');
  });

  const badPatch: [string, unknown, RegExp][] = [
    ['an unknown tier', { tier: 'gold' }, /tier/],
    ['trial_ends_at no time', { trial_ends_at: 'soon' }, /trial_ends_at/],
    ['a negative limit', { limits: { ingest_rate: -1 } }, /ingest_rate/],
    ['a limit that is text', { limits: { query_rate_per_min: 'fast' } }, /query_rate_per_min/],
    ['an unknown limit', { limits: { bogus: 1 } }, /bogus/],
    ['limits not an object', { limits: [1] }, /limits/],
    ['a feature that is not a boolean', { features: { replay: 1 } }, /replay/],
    ['payment_method not a boolean', { payment_method: 'yes' }, /payment_method/],
  ];
  for (const [what, body, detail] of badPatch) {
    test(`PATCH 400 naming the field, and nothing changes: ${what}`, async () => {
      const acct = await newAccount(svc);
      const r = await admin(svc, 'PATCH', `/admin/v1/accounts/${acct.accountId}`, { tier: 'growth', ...(body as Json) });
      assertError(r, 400, detail, what);
      assert.equal(accountOf(await admin(svc, 'GET', `/admin/v1/accounts/${acct.accountId}`)).tier, 'trial', 'a refused PATCH changes nothing');
    });
  }

  test('PATCH of an unknown account is 404', async () => {
    assertError(await admin(svc, 'PATCH', '/admin/v1/accounts/acc_nope', { tier: 'team' }), 404);
  });
});

describe('tenants, disable, keys, rotate, revoke', () => {
  test('POST /admin/v1/accounts/:id/tenants → 201 {tenant}; 400 without name; 404 for an unknown account', async () => {
    const acct = await newAccount(svc);
    const r = await admin(svc, 'POST', `/admin/v1/accounts/${acct.accountId}/tenants`, { name: 'staging' });
    assert.equal(r.status, 201, show(r));
    const t = field(obj(r).tenant, 'tenant');
    assertTenantShape(t, acct.accountId);
    assert.equal(t.name, 'staging');
    assert.equal(t.disabled, false);
    assert.notEqual(t.id, acct.tenantId);
    assertError(await admin(svc, 'POST', `/admin/v1/accounts/${acct.accountId}/tenants`, {}), 400, /name/);
    assertError(await admin(svc, 'POST', '/admin/v1/accounts/acc_nope/tenants', { name: 'x' }), 404);
  });

  test('PATCH /admin/v1/tenants/:id {disabled} → 200 {tenant}; the tenant\'s keys are refused, then accepted again', async () => {
    const acct = await newAccount(svc);
    const path = `/admin/v1/tenants/${acct.tenantId}`;
    const r = await admin(svc, 'PATCH', path, { disabled: true });
    assert.equal(r.status, 200, show(r));
    const t = field(obj(r).tenant, 'tenant');
    assertTenantShape(t, acct.accountId);
    assert.equal(t.disabled, true);
    assertError(await tenantApi(acct.key, 'GET', `/api/v1/tenants/${acct.tenantId}/usage`), 403, /disabled/i);
    const back = await admin(svc, 'PATCH', path, { disabled: false });
    assert.equal(field(obj(back).tenant, 'tenant').disabled, false);
    assert.equal((await tenantApi(acct.key, 'GET', `/api/v1/tenants/${acct.tenantId}/usage`)).status, 200);
    assertError(await admin(svc, 'PATCH', path, {}), 400, /disabled/);
    assertError(await admin(svc, 'PATCH', path, { disabled: 'yes' }), 400, /disabled/);
    assertError(await admin(svc, 'PATCH', '/admin/v1/tenants/ten_nope', { disabled: true }), 404);
  });

  test('POST /admin/v1/tenants/:id/keys → 201 {api_key: {id, key, scopes, expires_at, tenant_id}}', async () => {
    const acct = await newAccount(svc);
    const expires = '2030-01-02T03:04:05.000Z';
    const r = await admin(svc, 'POST', `/admin/v1/tenants/${acct.tenantId}/keys`, { scopes: ['read'], expires_at: expires, name: 'dashboards' });
    assert.equal(r.status, 201, show(r));
    const k = field(obj(r).api_key, 'api_key');
    assertKeyShape(k, acct.tenantId, true);
    assert.deepEqual(k.scopes, ['read']);
    assert.equal(k.expires_at, expires);
    assert.equal((await tenantApi(String(k.key), 'GET', `/api/v1/tenants/${acct.tenantId}/usage`)).status, 200, 'a read key reads');
    assertError(await ingest(svc.ingest, String(k.key), JSON.stringify(entries(1, uid()))), 403, /scope: ingest/);
    const badKeys: [unknown, RegExp][] = [
      [{}, /scopes/], [{ scopes: [] }, /scopes/], [{ scopes: 'read' }, /scopes/], [{ scopes: ['write'] }, /scope/],
      [{ scopes: ['read'], expires_at: 'soon' }, /expires_at/], [{ scopes: ['read'], name: 5 }, /name/],
    ];
    for (const [body, detail] of badKeys) assertError(await admin(svc, 'POST', `/admin/v1/tenants/${acct.tenantId}/keys`, body), 400, detail, JSON.stringify(body));
    assertError(await admin(svc, 'POST', '/admin/v1/tenants/ten_nope/keys', { scopes: ['read'] }), 404);
  });

  test('POST /admin/v1/keys/:id/rotate → 200 {api_key} with a new key; the old one is refused at once on the app plane', async () => {
    const acct = await newAccount(svc);
    const r = await admin(svc, 'POST', `/admin/v1/keys/${acct.keyId}/rotate`);
    assert.equal(r.status, 200, show(r));
    const k = field(obj(r).api_key, 'api_key');
    assertKeyShape(k, acct.tenantId, true);
    assert.equal(k.id, acct.keyId, 'rotation keeps the key id');
    assert.notEqual(k.key, acct.key);
    assert.deepEqual(k.scopes, ['ingest', 'read', 'admin'], 'rotation keeps the scopes');
    assertError(await tenantApi(acct.key, 'GET', `/api/v1/tenants/${acct.tenantId}/usage`), 403, /^Invalid API key/);
    assert.equal((await tenantApi(String(k.key), 'GET', `/api/v1/tenants/${acct.tenantId}/usage`)).status, 200);
    assertError(await admin(svc, 'POST', '/admin/v1/keys/key_nope/rotate'), 404);
  });

  test('DELETE /admin/v1/keys/:id → 204 with no body, then 404; the key is refused', async () => {
    const acct = await newAccount(svc);
    const k = await newKey(svc, acct.tenantId, ['read']);
    const r = await admin(svc, 'DELETE', `/admin/v1/keys/${k.id}`);
    assert.equal(r.status, 204, show(r));
    assert.equal(r.text, '');
    assertError(await admin(svc, 'DELETE', `/admin/v1/keys/${k.id}`), 404);
    assertError(await admin(svc, 'POST', `/admin/v1/keys/${k.id}/rotate`), 404, undefined, 'a revoked key cannot be rotated back to life');
    assertError(await tenantApi(k.key, 'GET', `/api/v1/tenants/${acct.tenantId}/usage`), 403, /^Invalid API key/);
  });
});

describe('POST /admin/v1/sweep → 200 {transitions: [{account_id, from, to}]}', () => {
  test('a trial past its end moves to trial_expired once; trials still running and paid tiers stay', async () => {
    const expired = await newAccount(svc, { signup_at: new Date(Date.now() - 15 * DAY).toISOString() });
    const running = await newAccount(svc, { signup_at: new Date(Date.now() - 13 * DAY).toISOString() });
    const paid = await newAccount(svc, { tier: 'team', signup_at: new Date(Date.now() - 400 * DAY).toISOString() });
    assert.equal(accountOf(await admin(svc, 'GET', `/admin/v1/accounts/${expired.accountId}`)).tier, 'trial', 'until the sweep runs');
    const r = await admin(svc, 'POST', '/admin/v1/sweep');
    assert.equal(r.status, 200, show(r));
    const transitions = obj(r).transitions as Json[];
    assert.ok(Array.isArray(transitions), show(r));
    for (const t of transitions) assert.deepEqual(Object.keys(t).sort(), ['account_id', 'from', 'to']);
    assert.deepEqual(transitions.filter((t) => t.account_id === expired.accountId), [{ account_id: expired.accountId, from: 'trial', to: 'trial_expired' }]);
    assert.ok(!transitions.some((t) => t.account_id === running.accountId || t.account_id === paid.accountId), JSON.stringify(transitions));
    assert.equal(accountOf(await admin(svc, 'GET', `/admin/v1/accounts/${expired.accountId}`)).tier, 'trial_expired');
    const again = obj(await admin(svc, 'POST', '/admin/v1/sweep')).transitions as Json[];
    assert.ok(!again.some((t) => t.account_id === expired.accountId), 'a second sweep does not move it again');
  });

});

describe('the admin token', () => {
  const routes = (): [string, string, unknown?][] => [
    ['POST', '/admin/v1/accounts', { name: 'x' }], ['GET', '/admin/v1/accounts/acc_x'], ['PATCH', '/admin/v1/accounts/acc_x', { tier: 'team' }],
    ['POST', '/admin/v1/accounts/acc_x/tenants', { name: 'x' }], ['PATCH', '/admin/v1/tenants/ten_x', { disabled: true }],
    ['POST', '/admin/v1/tenants/ten_x/keys', { scopes: ['read'] }], ['POST', '/admin/v1/keys/key_x/rotate'], ['DELETE', '/admin/v1/keys/key_x'],
    ['POST', '/admin/v1/sweep'], ['PUT', '/admin/v1/clock', { now: '2030-01-01T00:00:00Z' }],
  ];
  test('every admin route answers 401 JSON without the token, with a wrong one, or in another form', async () => {
    const acct = await newAccount(svc);
    const forms: [string, Record<string, string>][] = [
      ['no header', {}], ['a wrong token', { Authorization: 'Bearer wrong-admin-token-000' }], ['an API key as Bearer', { Authorization: `Bearer ${acct.key}` }],
      ['the token with scheme Token', { Authorization: `Token ${svc.adminToken}` }], ['the token in X-API-Key', { 'X-API-Key': svc.adminToken }],
      ['the token as Basic user', { Authorization: 'Basic ' + Buffer.from(`${svc.adminToken}:`).toString('base64') }],
      ['the token with a suffix', { Authorization: `Bearer ${svc.adminToken}x` }],
    ];
    for (const [method, path, body] of routes()) {
      for (const [what, headers] of forms) {
        const r = await raw(svc.app + path, { method, headers: { 'Content-Type': 'application/json', ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        assertError(r, 401, undefined, `${method} ${path} with ${what}`);
        assert.equal(typeof obj(r).error, 'string');
      }
    }
  });
});

describe('tenant key API /api/v1/tenants/<t>/keys (scope admin; plan ceilings)', () => {
  test('list, create, rotate, revoke with an admin-scoped key', async () => {
    const acct = await newAccount(svc);
    const base = `/api/v1/tenants/${acct.tenantId}/keys`;
    const list = async (): Promise<Json[]> => {
      const r = await tenantApi(acct.key, 'GET', base);
      assert.equal(r.status, 200, show(r));
      return obj(r).keys as Json[];
    };
    const first = await list();
    assert.equal(first.length, 1);
    assertKeyShape(first[0] ?? {}, acct.tenantId, false);
    assert.equal(first[0]?.id, acct.keyId);

    const created = await tenantApi(acct.key, 'POST', base, { scopes: ['ingest'], name: 'shipper', expires_at: '2031-01-01T00:00:00Z' });
    assert.equal(created.status, 201, show(created));
    const k = field(obj(created).api_key, 'api_key');
    assertKeyShape(k, acct.tenantId, true);
    assert.deepEqual(k.scopes, ['ingest']);
    assert.equal(k.expires_at, '2031-01-01T00:00:00.000Z');
    assert.equal((await ingest(svc.ingest, String(k.key), JSON.stringify(entries(1, uid())))).status, 200);
    assert.deepEqual((await list()).map((x) => x.id).sort(), [acct.keyId, String(k.id)].sort());

    const rotated = await tenantApi(acct.key, 'POST', `${base}/${String(k.id)}/rotate`);
    assert.equal(rotated.status, 200, show(rotated));
    const rk = field(obj(rotated).api_key, 'api_key');
    assert.equal(rk.id, k.id);
    assert.notEqual(rk.key, k.key);

    const del = await tenantApi(acct.key, 'DELETE', `${base}/${String(k.id)}`);
    assert.equal(del.status, 204, show(del));
    assert.deepEqual((await list()).map((x) => x.id), [acct.keyId]);
    assertError(await tenantApi(acct.key, 'DELETE', `${base}/${String(k.id)}`), 404);
    await sleep(1300);
    assertError(await ingest(svc.ingest, String(rk.key), JSON.stringify(entries(1, uid()))), 403, /^Invalid API key/);
  });

  test('a key of another tenant cannot be listed, rotated or revoked through this tenant\'s path', async () => {
    const [a, b] = await Promise.all([newAccount(svc), newAccount(svc)]);
    const base = `/api/v1/tenants/${a.tenantId}/keys`;
    assertError(await tenantApi(a.key, 'POST', `${base}/${b.keyId}/rotate`), 404);
    assertError(await tenantApi(a.key, 'DELETE', `${base}/${b.keyId}`), 404);
    assert.equal((await tenantApi(b.key, 'GET', `/api/v1/tenants/${b.tenantId}/usage`)).status, 200, 'B\'s key still works');
    assertError(await tenantApi(a.key, 'GET', `/api/v1/tenants/${b.tenantId}/keys`), 403);
  });

  test('scope admin is required; no key is 401; bad bodies are 400', async () => {
    const acct = await newAccount(svc);
    const base = `/api/v1/tenants/${acct.tenantId}/keys`;
    const reader = await newKey(svc, acct.tenantId, ['read', 'ingest']);
    assertError(await tenantApi(reader.key, 'GET', base), 403, /scope: admin/);
    assertError(await tenantApi(reader.key, 'POST', base, { scopes: ['admin'] }), 403, /scope: admin/);
    assertError(await call(svc.app + base), 401);
    assertError(await tenantApi(acct.key, 'POST', base, { scopes: ['superuser'] }), 400, /scope/);
  });

  test('trial_expired ceiling: at most 2 live API keys ("API key limit reached (2)"); a revoked key frees its place', async () => {
    const acct = await newAccount(svc, { tier: 'trial_expired' });
    const base = `/api/v1/tenants/${acct.tenantId}/keys`;
    const second = await tenantApi(acct.key, 'POST', base, { scopes: ['read'] });
    assert.equal(second.status, 201, show(second));
    assertError(await tenantApi(acct.key, 'POST', base, { scopes: ['read'] }), 403, /^API key limit reached \(2\)$/);
    const secondId = String(field(obj(second).api_key, 'api_key').id);
    assert.equal((await tenantApi(acct.key, 'DELETE', `${base}/${secondId}`)).status, 204);
    assert.equal((await tenantApi(acct.key, 'POST', base, { scopes: ['read'] })).status, 201);
  });
});

describe('POST /api/v1/account/projects', () => {
  const create = (key: string, name: unknown = uid('proj')): Promise<Reply> => tenantApi(key, 'POST', '/api/v1/account/projects', { name });

  test('a trial (multi_project off) gets 403 "Multi-project is not enabled"', async () => {
    const acct = await newAccount(svc);
    assertError(await create(acct.key), 403, /^Multi-project is not enabled$/);
  });

  test('with multi_project on but the trial\'s one project used by the first tenant: 403 "Project limit reached"', async () => {
    const acct = await newAccount(svc, { features: { multi_project: true } });
    assertError(await create(acct.key), 403, /^Project limit reached$/);
  });

  test('growth with project_limit 2: 201 {project: {id, name, tenant_id}}, then 403 "Project limit reached"', async () => {
    const acct = await newAccount(svc, { tier: 'growth' });
    assert.equal((await admin(svc, 'PATCH', `/admin/v1/accounts/${acct.accountId}`, { limits: { project_limit: 2 } })).status, 200);
    const r = await create(acct.key, 'checkout');
    assert.equal(r.status, 201, show(r));
    const p = field(obj(r).project, 'project');
    assert.deepEqual(Object.keys(p).sort(), ['id', 'name', 'tenant_id']);
    assert.equal(p.name, 'checkout');
    assert.equal(typeof p.id, 'string');
    assert.equal(typeof p.tenant_id, 'string');
    assert.notEqual(p.tenant_id, acct.tenantId);
    assertError(await create(acct.key), 403, /^Project limit reached$/);
  });

  test('team: three projects counting the first tenant', async () => {
    const acct = await newAccount(svc, { tier: 'team' });
    assert.equal((await create(acct.key)).status, 201);
    assert.equal((await create(acct.key)).status, 201);
    assertError(await create(acct.key), 403, /^Project limit reached$/);
  });

  test('the new project\'s tenant ingests with a key made through the admin API, and keeps its data to itself', async () => {
    const acct = await newAccount(svc, { tier: 'growth' });
    const r = await create(acct.key, 'mobile');
    assert.equal(r.status, 201, show(r));
    const tenantId = String(field(obj(r).project, 'project').tenant_id);
    const k = await newKey(svc, tenantId, ['ingest', 'read']);
    assert.equal(k.tenant_id, tenantId);
    const tag = uid('proj');
    assert.equal((await ingest(svc.ingest, k.key, JSON.stringify(entries(2, tag)))).status, 200);
    assert.equal((await waitForRows(svc, tenantId, k.key, `tag:=${tag}`, 2)).rows.length, 2);
    assertError(await tenantApi(acct.key, 'GET', `/api/v1/tenants/${tenantId}/select/logsql/query?query=*`), 403, undefined, 'the first tenant\'s key on the project');
    assert.equal((await waitForRows(svc, acct.tenantId, acct.key, `tag:=${tag}`, 0, 300)).rows.length, 0, 'the first tenant does not see the project\'s data');
    const usage = await tenantApi(k.key, 'GET', `/api/v1/tenants/${tenantId}/usage`);
    assert.equal(usage.status, 200, 'the project meters into the account');
  });

  test('admin scope required, a key is required, a name is required', async () => {
    const acct = await newAccount(svc, { tier: 'growth' });
    const reader = await newKey(svc, acct.tenantId, ['read', 'ingest']);
    assertError(await create(reader.key), 403, /scope: admin/);
    assertError(await call(svc.app + '/api/v1/account/projects', { method: 'POST', body: '{"name":"x"}', headers: { 'Content-Type': 'application/json' } }), 401);
    assertError(await create(acct.key, ''), 400, /name/);
  });
});

// Ceilings and the sweep must hold when requests race, on every control-store backend (DESIGN §1, §6).
describe('concurrent requests cannot pass a ceiling or repeat a transition', () => {
  const RACE = 24;
  const ROUNDS = 3;
  const BACKENDS: { name: string; get: () => Promise<RunningService | undefined> }[] = [
    { name: 'PGlite', get: () => Promise.resolve(svc) },
    { name: 'PostgreSQL', get: async () => ((await startedSecond.get()).onPostgres ? (await startedSecond.get()).svc : undefined) },
  ];
  const post = (s: RunningService, key: string, path: string, body: unknown): Promise<Reply> => call(s.app + path, {
    method: 'POST', body: JSON.stringify(body), headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
  });
  for (const { name, get } of BACKENDS) {

    test(`${name}: ${RACE} concurrent project creations under a limit of 2 create exactly one project`, async (t) => {
      const s = await get();
      if (!s) {
        t.skip('PostgreSQL is not installed');
        return;
      }
      for (let round = 0; round < ROUNDS; round++) {
        const acct = await newAccount(s, { tier: 'growth' });
        assert.equal((await admin(s, 'PATCH', `/admin/v1/accounts/${acct.accountId}`, { limits: { project_limit: 2 } })).status, 200);
        const replies: Reply[] = await Promise.all(Array.from({ length: RACE }, () => post(s, acct.key, '/api/v1/account/projects', { name: uid('p') })));
        const created = replies.filter((r) => r.status === 201).length;
        assert.equal(created, 1, `round ${round}: ${created} projects created under a limit of 2 (the first tenant counts)`);
      }
    });

    test(`${name}: ${RACE} concurrent key creations on trial_expired (ceiling 2) create exactly one key`, async (t) => {
      const s = await get();
      if (!s) {
        t.skip('PostgreSQL is not installed');
        return;
      }
      for (let round = 0; round < ROUNDS; round++) {
        const acct = await newAccount(s, { tier: 'trial_expired' });
        const replies: Reply[] = await Promise.all(Array.from({ length: RACE }, () => post(s, acct.key, `/api/v1/tenants/${acct.tenantId}/keys`, { scopes: ['read'] })));
        const created = replies.filter((r) => r.status === 201).length;
        assert.equal(created, 1, `round ${round}: ${created} keys created under a ceiling of 2 (the first key counts)`);
      }
    });

    test(`${name}: concurrent sweeps report a trial's expiry once in all`, async (t) => {
      const s = await get();
      if (!s) {
        t.skip('PostgreSQL is not installed');
        return;
      }
      for (let round = 0; round < ROUNDS; round++) {
        const expired = await newAccount(s, { signup_at: new Date(Date.now() - 20 * DAY).toISOString() });
        const replies: Reply[] = await Promise.all([1, 2, 3, 4].map(() => admin(s, 'POST', '/admin/v1/sweep')));
        const mentions = replies.flatMap((r) => (obj(r).transitions as Json[]).filter((x) => x.account_id === expired.accountId));
        assert.equal(mentions.length, 1, `round ${round}: the same trial→trial_expired transition was reported ${mentions.length} times`);
      }
    });
  }
});

// Last: this moves service time.
describe('PUT /admin/v1/clock', () => {
  test('400 without a valid now', async () => {
    assertError(await admin(svc, 'PUT', '/admin/v1/clock', {}), 400, /now/);
    assertError(await admin(svc, 'PUT', '/admin/v1/clock', { now: 'tomorrow' }), 400, /now/);
  });

  test('200 {now}; service time runs on from there (the usage day follows it)', async () => {
    const acct = await newAccount(svc);
    const target = new Date(Date.now() + 3 * DAY);
    target.setUTCHours(12, 0, 0, 0);
    const r = await admin(svc, 'PUT', '/admin/v1/clock', { now: target.toISOString() });
    assert.equal(r.status, 200, show(r));
    assert.deepEqual(Object.keys(obj(r)), ['now']);
    const now = isoString(obj(r).now, 'now');
    assert.ok(Math.abs(now - target.getTime()) < 2000, `${String(obj(r).now)} vs ${target.toISOString()}`);
    const usage = await tenantApi(acct.key, 'GET', `/api/v1/tenants/${acct.tenantId}/usage`);
    assert.equal(obj(usage).day, target.toISOString().slice(0, 10));
    const created = accountOf(await admin(svc, 'POST', '/admin/v1/accounts', { name: uid('later') }));
    assert.ok(Math.abs(isoString(created.signup_at, 'signup_at') - target.getTime()) < 5000, 'signup_at follows service time');
  });

  test('404 when SIGHTLINE_TEST_CLOCK is unset; the rest of the admin API is there', async () => {
    const noClock = (await startedSecond.get()).svc;
    assertError(await admin(noClock, 'PUT', '/admin/v1/clock', { now: '2030-01-01T00:00:00Z' }), 404);
    assert.equal((await admin(noClock, 'POST', '/admin/v1/accounts', { name: 'x' })).status, 201);
  });
});
