// How sessions end and what the account pages read (DESIGN §7; spec rule 10), against the real service: a password
// change, removing a user and ageing (idle and absolute, on the test clock) end sessions with 401 Token expired;
// users are added with a password or an invite, change role and keep one admin; GET /api/v1/account and the usage
// history. The clock only moves forward here, so the ageing tests come last.
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, eventually, newAccount, sleep, startService, type Reply, type RunningService, type TestAccount } from './support/service.js';
import { entries, ingest, obj, show, usageBytes } from './support/load.js';
import { addUser, bearer, browser, cookieOnly, cookieToken, email, send, sessionOf, signIn, TestClock, type User } from './support/sessions.js';

let svc: RunningService;
let clock: TestClock;
let A: TestAccount;
let boss: User;
let bossToken = '';

before(async () => {
  svc = await startService();
  clock = new TestClock(svc);
  A = await newAccount(svc, { tier: 'team' });
  boss = await addUser(svc, A.key, 'admin');
  bossToken = await sessionOf(svc, boss);
});
after(() => svc.stop());

const EXPIRED = { detail: 'Token expired', error: 'token_expired' };
const usagePath = (t = A.tenantId): string => `/api/v1/tenants/${t}/usage`;

function expect(r: Reply, status: number, body?: Record<string, unknown>, what = ''): void {
  assert.equal(r.status, status, `${what}: ${show(r)}`);
  if (body) assert.deepEqual(obj(r), body, what);
}

/** The token is over: 401 Token expired on the session route and on a tenant path, by cookie and by Bearer. */
async function assertEnded(token: string, what: string): Promise<void> {
  expect(await send(svc, 'GET', '/api/v1/session', cookieOnly(token)), 401, EXPIRED, `${what}: GET session`);
  expect(await send(svc, 'GET', usagePath(), browser(token)), 401, EXPIRED, `${what}: tenant path by cookie`);
  expect(await send(svc, 'GET', usagePath(), bearer(token)), 401, EXPIRED, `${what}: tenant path by Bearer`);
}

/** A GET whose reply stays open (live tail): its status, and a promise that settles when the server ends it. */
function openStream(url: string, headers: Record<string, string>): Promise<{ status: number; end: Promise<void>; ended: () => boolean }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers, agent: false }, (res) => {
      let done = false;
      const end = new Promise<void>((settle) => {
        res.on('close', () => { done = true; settle(); });
      });
      res.resume();
      resolve({ status: res.statusCode ?? 0, end, ended: () => done });
    }).on('error', reject);
  });
}

const users = (method: string, sub: string, body?: unknown, headers = browser(bossToken)): Promise<Reply> =>
  send(svc, method, `/api/v1/account/users${sub}`, headers, body);

describe('password change', () => {
  test('ends every session of the user at once and answers a fresh one; the old password stops working', async () => {
    const u = await addUser(svc, A.key, 'member');
    const [one, two] = [await sessionOf(svc, u), await sessionOf(svc, u)];
    const change = (headers: Record<string, string>, current: string, next: string): Promise<Reply> =>
      send(svc, 'POST', '/api/v1/session/password', headers, { current_password: current, new_password: next });
    expect(await change(cookieOnly(one), u.password, 'new-password-1'), 403, undefined, 'a cookie write without X-Requested-With');
    expect(await change(browser(one), 'not-it', 'new-password-1'), 403, { detail: 'Current password is incorrect', error: 'forbidden' });
    const short = await change(browser(one), u.password, 'short');
    expect(short, 400);
    assert.equal(obj(short).detail, 'new_password must be at least 8 characters');
    const changed = await change(browser(one), u.password, 'new-password-1');
    expect(changed, 200);
    const fresh = cookieToken(String(changed.headers['set-cookie']));
    assert.match(fresh, /^sls_/);
    assert.equal((obj(changed).user as { id: string }).id, u.id);
    await assertEnded(one, 'the session that changed it');
    await assertEnded(two, 'another session of the user');
    expect(await send(svc, 'GET', usagePath(), browser(fresh)), 200, undefined, 'the fresh session');
    expect((await signIn(svc, u.email, u.password)).reply, 401, undefined, 'the old password');
    expect((await signIn(svc, u.email, 'new-password-1')).reply, 200, undefined, 'the new password');
  });
});

describe('users', () => {
  test('added with a password, a user signs in at once; a short password is refused with a clear 400', async () => {
    const mail = email('pw');
    const added = await users('POST', '', { email: mail, role: 'viewer', password: 'long-enough-1' });
    expect(added, 201);
    assert.equal(obj(added).invite, undefined);
    assert.equal((obj(added).user as { has_password: boolean }).has_password, true);
    expect((await signIn(svc, mail, 'long-enough-1')).reply, 200);
    const short = await users('POST', '', { email: email('short'), role: 'viewer', password: '1234567' });
    expect(short, 400, { detail: 'password must be at least 8 characters', error: 'bad_request' });
  });

  test('added without a password, a user gets an invite link (7 days) that sets one and signs in, once', async () => {
    const mail = email('inv');
    const added = await users('POST', '', { email: mail, role: 'member' });
    expect(added, 201);
    const invite = obj(added).invite as { token: string; url: string; expires_at: string };
    assert.match(invite.token, /^sli_[A-Za-z0-9_-]{43}$/);
    assert.equal(invite.url, `/app/invite?token=${encodeURIComponent(invite.token)}`);
    assert.ok(Math.abs(Date.parse(invite.expires_at) - (clock.now() + 7 * 86_400_000)) < 60_000, invite.expires_at);
    assert.equal((obj(added).user as { has_password: boolean }).has_password, false);
    expect((await signIn(svc, mail, 'any-password')).reply, 401, undefined, 'no password yet');

    const accept = (token: string, password: string): Promise<Reply> => send(svc, 'POST', '/api/v1/session/invite', {}, { token, password });
    expect(await accept(invite.token, 'short'), 400, undefined, 'a short password');
    expect(await accept('sli_not-an-invite', 'invited-password'), 403, undefined, 'an unknown invite');
    const accepted = await accept(invite.token, 'invited-password');
    expect(accepted, 200);
    assert.deepEqual(obj(accepted).user, { id: (obj(added).user as { id: string }).id, email: mail, role: 'member' });
    assert.match(String(accepted.headers['set-cookie']), /^sightline_session=sls_/);
    expect(await accept(invite.token, 'invited-password'), 403, { detail: 'Invalid or already used invite', error: 'forbidden' }, 'used twice');
    expect((await signIn(svc, mail, 'invited-password')).reply, 200);
  });

  test('a new invite for an existing user resets its password and ends its sessions', async () => {
    const u = await addUser(svc, A.key, 'viewer');
    const old = await sessionOf(svc, u);
    const re = await users('POST', `/${u.id}/invite`);
    expect(re, 200);
    const token = (obj(re).invite as { token: string }).token;
    expect(await send(svc, 'POST', '/api/v1/session/invite', {}, { token, password: 'reset-password-1' }), 200);
    await assertEnded(old, 'a session from before the reset');
  });

  test('a role change takes effect on the user\'s live session at once', async () => {
    const v = await addUser(svc, A.key, 'viewer');
    const token = await sessionOf(svc, v);
    const write = (): Promise<Reply> => send(svc, 'POST', `/api/v1/tenants/${A.tenantId}/dashboards`, browser(token), { title: 't', panels: [] });
    expect(await write(), 403, undefined, 'as a viewer');
    const patched = await users('PATCH', `/${v.id}`, { role: 'member' });
    expect(patched, 200);
    assert.equal((obj(patched).user as { role: string }).role, 'member');
    expect(await write(), 201, undefined, 'the same session as a member');
    expect(await users('PATCH', `/${v.id}`, { role: 'owner' }), 400, undefined, 'an unknown role');
    const B = await newAccount(svc, { tier: 'team' });
    const theirs = await addUser(svc, B.key, 'viewer');
    expect(await users('PATCH', `/${theirs.id}`, { role: 'admin' }), 404, undefined, 'a user of another account');
  });

  test('removing a user ends its sessions at once', async () => {
    const u = await addUser(svc, A.key, 'member');
    const token = await sessionOf(svc, u);
    expect(await send(svc, 'GET', usagePath(), browser(token)), 200);
    expect(await users('DELETE', `/${u.id}`), 204);
    await assertEnded(token, 'a removed user\'s session');
    expect((await signIn(svc, u.email, u.password)).reply, 401);
  });

  test('a live tail opened by a session ends soon after the session does', async () => {
    const token = await sessionOf(svc, await addUser(svc, A.key, 'viewer'));
    const tail = await openStream(`${svc.app}/api/v1/tenants/${A.tenantId}/select/logsql/tail?query=*`, browser(token));
    assert.equal(tail.status, 200);
    await sleep(500);
    assert.equal(tail.ended(), false, 'the stream is open');
    expect(await send(svc, 'DELETE', '/api/v1/session', browser(token)), 204);
    const t0 = Date.now();
    await tail.end;
    assert.ok(Date.now() - t0 < 10_000, `ended ${Date.now() - t0} ms after sign-out`);
  });

  test('the last admin of an account can be neither demoted nor removed (409)', async () => {
    const L = await newAccount(svc, { tier: 'team' });
    const key = { 'X-API-Key': L.key };
    const first = await addUser(svc, L.key, 'admin');
    expect(await users('PATCH', `/${first.id}`, { role: 'member' }, key), 409, undefined, 'demote the only admin');
    expect(await users('DELETE', `/${first.id}`, undefined, key), 409, undefined, 'remove the only admin');
    const second = await addUser(svc, L.key, 'admin');
    expect(await users('PATCH', `/${first.id}`, { role: 'member' }, key), 200, undefined, 'with a second admin');
    const last = await users('DELETE', `/${second.id}`, undefined, key);
    expect(last, 409);
    assert.match(String(obj(last).detail), /last admin/);
  });
});

describe('account and usage history', () => {
  test('GET /api/v1/account answers any valid key or session of the account with the plan, credits and no banner', async () => {
    const ingestOnly = await admin(svc, 'POST', `/admin/v1/tenants/${A.tenantId}/keys`, { scopes: ['ingest'] });
    const key = (obj(ingestOnly).api_key as { key: string }).key;
    for (const headers of [{ 'X-API-Key': key }, browser(bossToken)]) {
      const r = await send(svc, 'GET', '/api/v1/account', headers);
      expect(r, 200);
      const b = obj(r) as Record<string, Record<string, unknown>>;
      assert.deepEqual(Object.keys(b).sort(), ['account', 'ai', 'plan']);
      assert.deepEqual(Object.keys(b.account ?? {}).sort(), ['features', 'id', 'name', 'signup_at', 'tier', 'trial_ends_at']);
      assert.equal(b.account?.tier, 'team');
      assert.deepEqual(b.plan, {
        ingest_rate: 500, daily_included_bytes: 34e9, overage_ceiling_multiplier: 3, query_rate_per_min: 1200, retention_days: 30,
        ceilings: { users: 10, api_keys: 25, live_tail: 10, dashboards: 100, saved_searches: 250, projects: 3 }, ai_daily_credits: 200,
      });
      assert.deepEqual(b.ai, { used_today: 0, remaining: 200 });
    }
    expect(await send(svc, 'GET', '/api/v1/account', {}), 401);
  });

  test('an expired trial gets the spec\'s banner and no AI; a custom account\'s unlimited values are null', async () => {
    const E = await newAccount(svc, { tier: 'trial_expired' });
    const e = obj(await send(svc, 'GET', '/api/v1/account', { 'X-API-Key': E.key }));
    assert.equal(e.banner, 'daily ingest quota is 0 for this tier (trial expired) — add a payment method to resume ingest');
    assert.deepEqual(e.ai, { used_today: 0, remaining: 0 });
    const C = await newAccount(svc, { tier: 'custom' });
    const c = obj(await send(svc, 'GET', '/api/v1/account', { 'X-API-Key': C.key })) as { plan: Record<string, unknown>; ai: unknown };
    assert.equal(c.plan.query_rate_per_min, null);
    assert.equal((c.plan.ceilings as Record<string, unknown>).users, null);
    assert.deepEqual(c.ai, { used_today: 0, remaining: null });
  });

  test('usage history: every day present, oldest first, today as the usage endpoint counts it; days bounded', async () => {
    const body = JSON.stringify(entries(5, 'hist'));
    expect(await ingest(svc.ingest, A.key, body), 200);
    const today = await eventually(async () => (await usageBytes(svc, A.tenantId, A.key)) >= body.length ? usageBytes(svc, A.tenantId, A.key) : 0);
    const r = await send(svc, 'GET', `/api/v1/tenants/${A.tenantId}/usage/history?days=30`, browser(bossToken));
    expect(r, 200);
    const h = obj(r) as { included_bytes: number; ceiling_bytes: number; days: { day: string; bytes_accepted: number; by_signal: Record<string, number> }[] };
    assert.deepEqual([h.included_bytes, h.ceiling_bytes], [34e9, 102e9]);
    assert.equal(h.days.length, 30);
    assert.equal(h.days.at(-1)?.day, new Date(clock.now()).toISOString().slice(0, 10));
    for (let i = 1; i < h.days.length; i++) {
      assert.equal(Date.parse(`${h.days[i]?.day ?? ''}T00:00:00Z`) - Date.parse(`${h.days[i - 1]?.day ?? ''}T00:00:00Z`), 86_400_000, 'consecutive days');
    }
    assert.equal(h.days.at(-1)?.bytes_accepted, today);
    assert.deepEqual(Object.keys(h.days[0]?.by_signal ?? {}).sort(), ['logs', 'metrics', 'replay', 'rum', 'traces']);
    assert.deepEqual(h.days[0], { day: h.days[0]?.day, bytes_accepted: 0, overage_bytes: 0, overage_cost_usd: 0, by_signal: { logs: 0, traces: 0, metrics: 0, rum: 0, replay: 0 } });
    const many = obj(await send(svc, 'GET', `/api/v1/tenants/${A.tenantId}/usage/history?days=365`, browser(bossToken)));
    assert.equal((many.days as unknown[]).length, 90);
    expect(await send(svc, 'GET', `/api/v1/tenants/${A.tenantId}/usage/history?days=ten`, browser(bossToken)), 400);
    const dflt = obj(await send(svc, 'GET', `/api/v1/tenants/${A.tenantId}/usage/history`, { 'X-API-Key': A.key }));
    assert.equal((dflt.days as unknown[]).length, 30);
  });
});

describe('ageing on service time (the test clock)', () => {
  test('yesterday\'s bytes come from the durable daily counters', async () => {
    const before = await usageBytes(svc, A.tenantId, A.key);
    await sleep(1200); // the metering flush runs every 500 ms
    await clock.advance(86_400_000);
    const h = obj(await send(svc, 'GET', `/api/v1/tenants/${A.tenantId}/usage/history?days=2`, { 'X-API-Key': A.key }));
    const days = h.days as { bytes_accepted: number }[];
    assert.deepEqual(days.map((d) => d.bytes_accepted), [before, 0]);
  });

  test('idle: a session unused for 12 h is 401 Token expired', async () => {
    const u = await addUser(svc, A.key, 'viewer');
    const token = await sessionOf(svc, u);
    await clock.advance(11 * 3_600_000);
    expect(await send(svc, 'GET', usagePath(), browser(token)), 200, undefined, 'used after 11 h');
    await clock.advance(12 * 3_600_000 + 120_000);
    await assertEnded(token, 'idle for 12 h');
  });

  test('absolute: a session used every 11 h still ends 7 days after sign-in', async () => {
    const u = await addUser(svc, A.key, 'member');
    const token = await sessionOf(svc, u);
    for (let i = 1; i <= 15; i++) {
      await clock.advance(11 * 3_600_000);
      expect(await send(svc, 'GET', '/api/v1/session', cookieOnly(token)), 200, undefined, `after ${i * 11} h`);
    }
    await clock.advance(11 * 3_600_000); // 176 h > 168 h
    await assertEnded(token, 'past 7 days');
    bossToken = await sessionOf(svc, boss); // the admin's own session aged out meanwhile
  });

  test('an invite lapses after 7 days', async () => {
    const added = await users('POST', '', { email: email('late'), role: 'viewer' });
    const token = (obj(added).invite as { token: string }).token;
    await clock.advance(7 * 86_400_000 + 60_000);
    const late = await send(svc, 'POST', '/api/v1/session/invite', {}, { token, password: 'too-late-password' });
    expect(late, 403, { detail: 'The invite has expired: ask an admin for a new one', error: 'forbidden' });
  });
});
