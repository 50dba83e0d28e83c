// Sign-in and browser sessions over HTTP against the real service (DESIGN §7; spec rule 10): the first-start user,
// sign-in and its throttle, the cookie, GET/DELETE of the session, roles as scopes, tenants of another account, the
// cross-site check of cookie writes, sessions never ingesting, and the query rate. Ageing, password changes, invites,
// removal and the account pages are in sessions-lifecycle.e2e.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, call, newAccount, startService, type Reply, type RunningService, type TestAccount } from './support/service.js';
import { newKey, obj, raw, show } from './support/load.js';
import {
  addUser, bearer, browser, cookieOnly, email, send, sessionOf, signIn, signInFrom, TestClock, type Role, type User,
} from './support/sessions.js';

let svc: RunningService;
let clock: TestClock;
let A: TestAccount;
let B: TestAccount;
const users = {} as Record<Role, User>;
const tokens = {} as Record<Role, string>;

before(async () => {
  svc = await startService();
  clock = new TestClock(svc);
  [A, B] = await Promise.all([newAccount(svc, { tier: 'team' }), newAccount(svc, { tier: 'team' })]);
  for (const role of ['admin', 'member', 'viewer'] as const) {
    users[role] = await addUser(svc, A.key, role);
    tokens[role] = await sessionOf(svc, users[role]);
  }
});
after(() => svc.stop());

const UNAUTHORIZED = { detail: 'Invalid email or password', error: 'unauthorized' };
const CSRF = { detail: 'Cross-site request refused: send X-Requested-With: sightline', error: 'forbidden' };
const tenant = (sub: string, t = A.tenantId): string => `/api/v1/tenants/${t}/${sub}`;

function expect(r: Reply, status: number, body?: Record<string, unknown>, what = ''): void {
  assert.equal(r.status, status, `${what}: ${show(r)}`);
  if (body) assert.deepEqual(obj(r), body, what);
}

describe('first start', () => {
  test('admin@localhost gets a generated password printed once beside the API key, and signs in with it', async () => {
    const out = svc.output();
    const line = out.split('\n').find((l) => l.startsWith('app sign-in: '));
    assert.ok(line, `a sign-in line is printed:\n${out}`);
    assert.ok(!line.includes('API key'), 'the key line stays the first line that names the API key');
    assert.match(out, /API key \(shown once; scopes ingest,read,admin\): sl_/);
    const m = /^app sign-in: (admin@localhost) \/ (\S+)$/.exec(line.trim());
    assert.ok(m?.[1] && m[2], line);
    const s = await signIn(svc, m[1], m[2]);
    expect(s.reply, 200, undefined, 'sign-in with the printed password');
    const body = obj(s.reply) as { user: { role: string; email: string }; account: { id: string; tier: string }; tenants: { id: string }[] };
    assert.deepEqual([body.user.email, body.user.role, body.account.id, body.account.tier], ['admin@localhost', 'admin', 'default', 'custom']);
    assert.deepEqual(body.tenants.map((t) => t.id), ['default']);
    expect(await send(svc, 'GET', '/api/v1/tenants/default/keys', browser(s.token)), 200, undefined, 'the first admin manages keys');
  });
});

describe('sign-in', () => {
  test('right password: 200 with the session, and a cookie that is HttpOnly, SameSite=Strict, Path=/', async () => {
    const s = await signIn(svc, users.member.email, users.member.password);
    expect(s.reply, 200);
    assert.match(s.setCookie, /^sightline_session=sls_[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
    const body = obj(s.reply);
    assert.deepEqual(Object.keys(body).sort(), ['account', 'expires_at', 'tenants', 'user']);
    assert.deepEqual(body.user, { id: users.member.id, email: users.member.email, role: 'member' });
    const account = body.account as Record<string, unknown>;
    assert.deepEqual(Object.keys(account).sort(), ['id', 'name', 'tier', 'trial_ends_at']);
    assert.deepEqual([account.id, account.tier, account.trial_ends_at], [A.accountId, 'team', null]);
    assert.deepEqual(body.tenants, [{ id: A.tenantId, name: (body.tenants as { name: string }[])[0]?.name }]);
    const expires = Date.parse(String(body.expires_at));
    assert.ok(Math.abs(expires - (clock.now() + 12 * 3_600_000)) < 60_000, `expires_at 12 h on: ${String(body.expires_at)}`);
  });

  const refusals: { what: string; mail: () => string; password: () => string; status: number; body?: Record<string, unknown> }[] = [
    { what: 'a wrong password', mail: () => users.viewer.email, password: () => 'not-the-password', status: 401, body: UNAUTHORIZED },
    { what: 'an unknown email', mail: () => email('nobody'), password: () => 'whatever-password', status: 401, body: UNAUTHORIZED },
    { what: 'no password', mail: () => users.viewer.email, password: () => '', status: 400 },
  ];
  for (const r of refusals) {
    test(`${r.what} is ${r.status}${r.body ? ' with exactly the spec body' : ''}, and sets no cookie`, async () => {
      const s = await signIn(svc, r.mail(), r.password());
      expect(s.reply, r.status, r.body, r.what);
      assert.equal(s.setCookie, '');
    });
  }

  test('the email is matched without regard to case', async () => {
    expect((await signIn(svc, users.viewer.email.toUpperCase(), users.viewer.password)).reply, 200);
  });

  test('throttle: five wrong passwords for an email refuse it (429 with Retry-After) until the window passes; other emails go on', async () => {
    const victim = await addUser(svc, A.key, 'viewer');
    // A success clears the email's count: four failures, a success, four more, and it still signs in.
    for (let i = 0; i < 4; i++) expect((await signIn(svc, victim.email, 'wrong-password')).reply, 401);
    expect((await signIn(svc, victim.email, victim.password)).reply, 200, undefined, 'a success after four failures');
    for (let i = 0; i < 5; i++) expect((await signIn(svc, victim.email, 'wrong-password')).reply, 401, undefined, `failure ${i + 1}`);
    const refused = await signIn(svc, victim.email, victim.password);
    expect(refused.reply, 429, undefined, 'the right password after five failures');
    const b = obj(refused.reply);
    assert.equal(b.error, 'rate_limited');
    assert.ok(typeof b.retry_after === 'number' && b.retry_after > 0 && b.retry_after <= 900, show(refused.reply));
    assert.equal(refused.reply.headers['retry-after'], String(b.retry_after));
    expect((await signIn(svc, users.admin.email, users.admin.password)).reply, 200, undefined, 'another email from the same address');
    await clock.advance(15 * 60_000 + 1000);
    expect((await signIn(svc, victim.email, victim.password)).reply, 200, undefined, 'after 15 minutes');
  });

  test('throttle: twenty failures from one address refuse that address, for any email; other addresses go on', async () => {
    for (let i = 0; i < 20; i++) assert.equal((await signInFrom(svc, '127.0.0.2', email('guess'), 'guess-password')).status, 401);
    const refused = await signInFrom(svc, '127.0.0.2', users.viewer.email, users.viewer.password);
    assert.equal(refused.status, 429, refused.body);
    assert.equal((await signInFrom(svc, '127.0.0.3', users.viewer.email, users.viewer.password)).status, 200);
  });
});

describe('the session', () => {
  test('GET /api/v1/session answers the session by cookie or Bearer; 401 without one, 403 for an unknown token', async () => {
    const byCookie = await send(svc, 'GET', '/api/v1/session', cookieOnly(tokens.viewer));
    expect(byCookie, 200);
    assert.deepEqual((obj(byCookie).user as { role: string }).role, 'viewer');
    expect(await send(svc, 'GET', '/api/v1/session', bearer(tokens.viewer)), 200);
    expect(await send(svc, 'GET', '/api/v1/session', {}), 401, undefined, 'no credential');
    expect(await send(svc, 'GET', '/api/v1/session', { 'X-API-Key': A.key }), 401, undefined, 'an API key is not a session');
    expect(await send(svc, 'GET', '/api/v1/session', cookieOnly('sls_never-issued')), 403, undefined, 'unknown token (rule 9)');
    expect(await send(svc, 'GET', '/api/v1/session', bearer('sls_never-issued')), 403, undefined, 'unknown Bearer token');
  });

  test('DELETE /api/v1/session signs out: 204, the cookie cleared, the token then 401 Token expired everywhere', async () => {
    const token = await sessionOf(svc, users.member);
    expect(await send(svc, 'DELETE', '/api/v1/session', cookieOnly(token)), 403, CSRF, 'a cookie DELETE without the header');
    const out = await send(svc, 'DELETE', '/api/v1/session', browser(token));
    expect(out, 204);
    assert.match(String(out.headers['set-cookie']), /^sightline_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0$/);
    const expired = { detail: 'Token expired', error: 'token_expired' };
    expect(await send(svc, 'GET', '/api/v1/session', cookieOnly(token)), 401, expired, 'GET session after sign-out');
    expect(await send(svc, 'GET', tenant('usage'), browser(token)), 401, expired, 'a tenant path after sign-out');
    expect(await send(svc, 'GET', tenant('usage'), bearer(token)), 401, expired, 'the same token as Bearer');
    expect(await send(svc, 'DELETE', '/api/v1/session', browser(token)), 204, undefined, 'signing out twice is fine');
  });
});

describe('roles are scopes', () => {
  let dashId = '';
  before(async () => {
    const r = await send(svc, 'POST', tenant('dashboards'), { 'X-API-Key': A.key }, { title: 'seed', panels: [] });
    dashId = (obj(r).dashboard as { id: string }).id;
  });
  const VIEWER_WRITE = { detail: 'Your role (viewer) cannot change this', error: 'forbidden' };
  const rows: { what: string; method: string; path: () => string; body?: () => unknown; want: Record<Role, number> }[] = [
    { what: 'search logs', method: 'GET', path: () => tenant('select/logsql/query?query=*&limit=1'), want: { admin: 200, member: 200, viewer: 200 } },
    { what: 'read usage', method: 'GET', path: () => tenant('usage'), want: { admin: 200, member: 200, viewer: 200 } },
    { what: 'list dashboards', method: 'GET', path: () => tenant('dashboards'), want: { admin: 200, member: 200, viewer: 200 } },
    { what: 'create a dashboard', method: 'POST', path: () => tenant('dashboards'), body: () => ({ title: 'd', panels: [] }), want: { admin: 201, member: 201, viewer: 403 } },
    { what: 'change a dashboard', method: 'PUT', path: () => tenant(`dashboards/${dashId}`), body: () => ({ title: 'e' }), want: { admin: 200, member: 200, viewer: 403 } },
    { what: 'save a search', method: 'POST', path: () => tenant('saved-searches'), body: () => ({ name: 's', query: 'error' }), want: { admin: 201, member: 201, viewer: 403 } },
    { what: 'list API keys', method: 'GET', path: () => tenant('keys'), want: { admin: 200, member: 403, viewer: 403 } },
    { what: 'create an API key', method: 'POST', path: () => tenant('keys'), body: () => ({ scopes: ['read'] }), want: { admin: 201, member: 403, viewer: 403 } },
    { what: 'list users', method: 'GET', path: () => '/api/v1/account/users', want: { admin: 200, member: 403, viewer: 403 } },
    { what: 'read the account', method: 'GET', path: () => '/api/v1/account', want: { admin: 200, member: 200, viewer: 200 } },
    { what: 'create a project', method: 'POST', path: () => '/api/v1/account/projects', body: () => ({ name: 'p' }), want: { admin: 201, member: 403, viewer: 403 } },
  ];
  for (const row of rows) {
    test(`${row.what}: admin ${row.want.admin}, member ${row.want.member}, viewer ${row.want.viewer}`, async () => {
      for (const role of ['admin', 'member', 'viewer'] as const) {
        const r = await send(svc, row.method, row.path(), browser(tokens[role]), row.body?.());
        expect(r, row.want[role], undefined, `${role}: ${row.what}`);
        if (r.status === 403) assert.match(String(obj(r).detail), new RegExp(`^Your role \\(${role}\\) cannot`), `${role}: ${row.what}`);
      }
    });
  }

  test('a viewer\'s refusal has exactly the spec body; a read-scoped API key still writes dashboards as before', async () => {
    expect(await send(svc, 'DELETE', tenant(`dashboards/${dashId}`), browser(tokens.viewer)), 403, VIEWER_WRITE);
    const readKey = await newKey(svc, A.tenantId, ['read']);
    expect(await send(svc, 'POST', tenant('dashboards'), { 'X-API-Key': readKey.key }, { title: 'k', panels: [] }), 201);
  });

  test('a session never reaches another account\'s tenant, nor one that does not exist (403)', async () => {
    for (const t of [B.tenantId, 'no-such-tenant']) {
      const r = await send(svc, 'GET', tenant('usage', t), browser(tokens.admin));
      expect(r, 403, undefined, t);
      assert.equal(obj(r).error, 'forbidden');
    }
  });
});

describe('cross-site writes', () => {
  const create = (headers: Record<string, string>): Promise<Reply> => send(svc, 'POST', tenant('saved-searches'), headers, { name: 'c', query: 'x' });
  test('a cookie write needs X-Requested-With: sightline or a same-host Origin; Bearer and API keys need neither', async () => {
    expect(await create(cookieOnly(tokens.member)), 403, CSRF, 'cookie, no header');
    expect(await create({ ...cookieOnly(tokens.member), 'X-Requested-With': 'XMLHttpRequest' }), 403, CSRF, 'another X-Requested-With');
    expect(await create({ ...cookieOnly(tokens.member), Origin: 'http://evil.example' }), 403, CSRF, 'a foreign Origin');
    expect(await create(browser(tokens.member)), 201, undefined, 'cookie with X-Requested-With');
    expect(await create({ ...cookieOnly(tokens.member), Origin: svc.app }), 201, undefined, 'cookie with a same-host Origin');
    expect(await create(bearer(tokens.member)), 201, undefined, 'Bearer session, no header');
    expect(await create({ 'X-API-Key': A.key }), 201, undefined, 'API key, no header');
    expect(await send(svc, 'GET', tenant('saved-searches'), cookieOnly(tokens.member)), 200, undefined, 'reads need nothing');
  });
});

describe('a session never ingests', () => {
  test('an sls_ token on ingest paths is an unknown key (403) on both doors; the cookie is not read there (401)', async () => {
    const body = JSON.stringify([{ _msg: 'from a session', service: 's' }]);
    for (const door of [svc.ingest, svc.app]) {
      for (const headers of [bearer(tokens.admin), { 'X-API-Key': tokens.admin }]) {
        const r = await raw(`${door}/api/v1/ingest`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body });
        assert.equal(r.status, 403, `${door} ${JSON.stringify(headers)}: ${show(r)}`);
        assert.match(String(obj(r).detail), /^Invalid API key/);
      }
      const r = await raw(`${door}/api/v1/ingest`, { method: 'POST', headers: { ...browser(tokens.admin), 'Content-Type': 'application/json' }, body });
      assert.equal(r.status, 401, `cookie on ${door}: ${show(r)}`);
    }
    const metrics = await raw(`${svc.app}/api/v2/write`, { method: 'POST', headers: bearer(tokens.admin), body: 'm v=1' });
    assert.equal(metrics.status, 403, `metrics write with a session: ${show(metrics)}`);
  });
});

describe('query rate', () => {
  test('session requests count against the tenant\'s query rate with the key\'s', async () => {
    const Q = await newAccount(svc, { tier: 'team' });
    const token = await sessionOf(svc, await addUser(svc, Q.key, 'viewer')); // the users API call counts: 1
    expect(await admin(svc, 'PATCH', `/admin/v1/accounts/${Q.accountId}`, { limits: { query_rate_per_min: 5 } }), 200);
    const usage = `/api/v1/tenants/${Q.tenantId}/usage`;
    expect(await call(svc.app + usage, { headers: { 'X-API-Key': Q.key } }), 200, undefined, 'a key request'); // 2
    for (let i = 0; i < 3; i++) expect(await send(svc, 'GET', usage, browser(token)), 200, undefined, `session request ${i + 1}`); // 3–5
    const refused = await send(svc, 'GET', usage, browser(token));
    expect(refused, 429, undefined, 'the sixth request in a minute');
    assert.equal(obj(refused).error, 'rate_limited');
  });
});
