// Saved searches, dashboards, account users and live tail over HTTP (DESIGN §6 ceilings): each ceiling answers
// 403 "<Thing> limit reached (<n>)" at creation, deleting one frees a slot, a tier drop deletes nothing, and a
// live tail streams entries ingested after it opened, with the open streams per account bounded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, call, eventually, newAccount, startService, type Reply, type RunningService, type TestAccount } from './support/service.js';
import { ingest, Later, ndjson, show, uid } from './support/load.js';

const started = new Later(() => startService());
let svc: RunningService;

before(async () => { svc = await started.get(); });
after(() => started.stop());

const api = (acct: TestAccount, method: string, path: string, body?: unknown): Promise<Reply> =>
  call(svc.app + path.replace(':tenant', acct.tenantId), {
    method,
    headers: { 'X-API-Key': acct.key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const detail = (r: Reply): unknown => (r.json as { detail?: unknown } | undefined)?.detail;
const idOf = (r: Reply, key: string): string => ((r.json as Record<string, { id: string }>)[key]?.id ?? '');

/** Creates `n` things sequentially; every one must answer 201. */
async function createMany(n: number, make: (i: number) => Promise<Reply>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await make(i);
    assert.equal(r.status, 201, show(r));
    ids.push(r.text);
  }
  return ids;
}

const newSearch = (a: TestAccount, i: number) => api(a, 'POST', '/api/v1/tenants/:tenant/saved-searches', { name: `s${i}`, query: `level:error n:${i}` });
const newDashboard = (a: TestAccount, i: number) => api(a, 'POST', '/api/v1/tenants/:tenant/dashboards', { title: `d${i}`, panels: [{ q: `n:${i}` }] });
const newUser = (a: TestAccount, i: number | string) => api(a, 'POST', '/api/v1/account/users', { email: `user${i}@example.com`, role: 'member' });

void describe('ceilings on a trial_expired account (3 users, 25 dashboards, 50 saved searches)', () => {
  let X: TestAccount;
  before(async () => { X = await newAccount(svc, { tier: 'trial_expired' }); });

  void test('users: 409 on a duplicate email, 400 on a bad one, 403 at the ceiling, a delete frees a slot', async () => {
    const first = await newUser(X, 0);
    assert.equal(first.status, 201, show(first));
    // Added without a password: an invited user (DESIGN §7), whose invite lapses in 7 days.
    assert.deepEqual(
      { ...(first.json as { user: Record<string, unknown> }).user, id: '', created_at: '', invite_expires_at: '' },
      { id: '', email: 'user0@example.com', role: 'member', created_at: '', has_password: false, invite_expires_at: '' },
    );
    const dup = await api(X, 'POST', '/api/v1/account/users', { email: 'USER0@example.com', role: 'viewer' });
    assert.equal(dup.status, 409, show(dup));
    assert.equal((await api(X, 'POST', '/api/v1/account/users', { email: 'not-an-email', role: 'member' })).status, 400);
    assert.equal((await api(X, 'POST', '/api/v1/account/users', { email: 'a@b.example', role: 'owner' })).status, 400);
    await createMany(2, (i) => newUser(X, i + 1));
    const refused = await newUser(X, 9);
    assert.equal(refused.status, 403, show(refused));
    assert.equal(detail(refused), 'User limit reached (3)');
    const list = await api(X, 'GET', '/api/v1/account/users');
    const users = (list.json as { users: { id: string; email: string }[] }).users;
    assert.equal(users.length, 3);
    const del = await api(X, 'DELETE', `/api/v1/account/users/${users[0]?.id ?? ''}`);
    assert.equal(del.status, 204, show(del));
    assert.equal((await api(X, 'DELETE', `/api/v1/account/users/${users[0]?.id ?? ''}`)).status, 404);
    assert.equal((await newUser(X, 9)).status, 201, 'the freed slot takes a new user');
    assert.equal(detail(await newUser(X, 10)), 'User limit reached (3)');
  });

  void test('saved searches: the query is validated, 403 at 50, a delete frees a slot', async () => {
    const bad = await api(X, 'POST', '/api/v1/tenants/:tenant/saved-searches', { name: 'broken', query: 'level:(error' });
    assert.equal(bad.status, 400, show(bad));
    assert.match(String(detail(bad)), /^invalid query: /);
    assert.equal((await api(X, 'POST', '/api/v1/tenants/:tenant/saved-searches', { query: '*' })).status, 400, 'name is required');
    await createMany(50, (i) => newSearch(X, i));
    const refused = await newSearch(X, 50);
    assert.equal(refused.status, 403, show(refused));
    assert.equal(detail(refused), 'Saved search limit reached (50)');
    const list = (await api(X, 'GET', '/api/v1/tenants/:tenant/saved-searches')).json as { saved_searches: { id: string; name: string; query: string }[] };
    assert.equal(list.saved_searches.length, 50);
    assert.deepEqual({ name: list.saved_searches[0]?.name, query: list.saved_searches[0]?.query }, { name: 's0', query: 'level:error n:0' });
    const id = list.saved_searches[0]?.id ?? '';
    assert.equal((await api(X, 'DELETE', `/api/v1/tenants/:tenant/saved-searches/${id}`)).status, 204);
    assert.equal((await api(X, 'DELETE', `/api/v1/tenants/:tenant/saved-searches/${id}`)).status, 404);
    assert.equal((await newSearch(X, 51)).status, 201);
    assert.equal(detail(await newSearch(X, 52)), 'Saved search limit reached (50)');
  });

  void test('dashboards: read, replace, 403 at 25, a delete frees a slot', async () => {
    const first = await newDashboard(X, 0);
    assert.equal(first.status, 201, show(first));
    const id = idOf(first, 'dashboard');
    const put = await api(X, 'PUT', `/api/v1/tenants/:tenant/dashboards/${id}`, { title: 'renamed', panels: [{ type: 'logs', query: '*', w: 6 }] });
    assert.equal(put.status, 200, show(put));
    const got = (await api(X, 'GET', `/api/v1/tenants/:tenant/dashboards/${id}`)).json as { dashboard: { title: string; panels: unknown } };
    assert.deepEqual([got.dashboard.title, got.dashboard.panels], ['renamed', [{ type: 'logs', query: '*', w: 6 }]]);
    assert.equal((await api(X, 'POST', '/api/v1/tenants/:tenant/dashboards', { title: 't', panels: {} })).status, 400);
    await createMany(24, (i) => newDashboard(X, i + 1));
    const refused = await newDashboard(X, 99);
    assert.equal(refused.status, 403, show(refused));
    assert.equal(detail(refused), 'Dashboard limit reached (25)');
    assert.equal(((await api(X, 'GET', '/api/v1/tenants/:tenant/dashboards')).json as { dashboards: unknown[] }).dashboards.length, 25);
    assert.equal((await api(X, 'DELETE', `/api/v1/tenants/:tenant/dashboards/${id}`)).status, 204);
    assert.equal((await api(X, 'GET', `/api/v1/tenants/:tenant/dashboards/${id}`)).status, 404);
    assert.equal((await newDashboard(X, 100)).status, 201);
    assert.equal(detail(await newDashboard(X, 101)), 'Dashboard limit reached (25)');
  });

  void test('another tenant\'s key cannot see or delete these', async () => {
    const other = await newAccount(svc, { tier: 'custom' });
    const mine = (await api(X, 'GET', '/api/v1/tenants/:tenant/dashboards')).json as { dashboards: { id: string }[] };
    const id = mine.dashboards[0]?.id ?? '';
    assert.equal((await api(other, 'GET', `/api/v1/tenants/:tenant/dashboards/${id}`)).status, 404);
    assert.equal((await api(other, 'DELETE', `/api/v1/tenants/:tenant/dashboards/${id}`)).status, 404);
    assert.equal((await call(`${svc.app}/api/v1/tenants/${X.tenantId}/dashboards`, { headers: { 'X-API-Key': other.key } })).status, 403);
  });
});

void describe('a tier drop deletes nothing', () => {
  void test('growth → trial_expired keeps 4 users, 26 dashboards, 51 saved searches; creating is refused', async () => {
    const G = await newAccount(svc, { tier: 'growth' });
    await createMany(4, (i) => newUser(G, `g${i}`));
    await createMany(26, (i) => newDashboard(G, i));
    await createMany(51, (i) => newSearch(G, i));
    const patched = await admin(svc, 'PATCH', `/admin/v1/accounts/${G.accountId}`, { tier: 'trial_expired' });
    assert.equal(patched.status, 200, show(patched));
    // The key cache holds the old tier for up to SIGHTLINE_KEY_CACHE_TTL_MS (1 s in tests).
    const refused = await eventually(async () => {
      const r = await newUser(G, 'late');
      return r.status === 403 ? r : null;
    });
    assert.equal(refused && detail(refused), 'User limit reached (3)');
    assert.equal(detail(await newDashboard(G, 99)), 'Dashboard limit reached (25)');
    assert.equal(detail(await newSearch(G, 99)), 'Saved search limit reached (50)');
    assert.equal(((await api(G, 'GET', '/api/v1/account/users')).json as { users: unknown[] }).users.length, 4);
    assert.equal(((await api(G, 'GET', '/api/v1/tenants/:tenant/dashboards')).json as { dashboards: unknown[] }).dashboards.length, 26);
    assert.equal(((await api(G, 'GET', '/api/v1/tenants/:tenant/saved-searches')).json as { saved_searches: unknown[] }).saved_searches.length, 51);
  });
});

/** An open tail: the response has arrived (headers), the body keeps streaming until `close()`. */
interface Tail {
  status: number;
  /** Every line received so far. */
  lines: string[];
  close(): void;
}

async function openTail(acct: TestAccount, query: string): Promise<Tail> {
  const abort = new AbortController();
  const res = await fetch(`${svc.app}/api/v1/tenants/${acct.tenantId}/select/logsql/tail?${new URLSearchParams({ query }).toString()}`, {
    headers: { 'X-API-Key': acct.key }, signal: abort.signal,
  });
  const tail: Tail = { status: res.status, lines: [], close: () => abort.abort() };
  if (res.status !== 200) {
    tail.lines.push(await res.text());
    return tail;
  }
  const body = res.body;
  if (body) {
    void (async () => {
      let buf = '';
      const decoder = new TextDecoder();
      try {
        for await (const chunk of body) {
          buf += decoder.decode(chunk as Uint8Array, { stream: true });
          const parts = buf.split('\n');
          buf = parts.pop() ?? '';
          tail.lines.push(...parts.filter((l) => l !== ''));
        }
      } catch {
        // aborted by close()
      }
    })();
  }
  return tail;
}

void describe('live tail', () => {
  void test('streams an entry ingested after it opened, and only matching ones', async () => {
    const C = await newAccount(svc, { tier: 'custom' });
    const marker = uid('tail');
    const tail = await openTail(C, marker);
    try {
      assert.equal(tail.status, 200);
      const r = await ingest(svc.ingest, C.key, ndjson([{ _msg: `${marker} arrived`, service: 'e2e' }, { _msg: 'unrelated noise', service: 'e2e' }]));
      assert.equal(r.status, 200, show(r));
      const seen = await eventually(() => Promise.resolve(tail.lines.length > 0), 10_000);
      assert.ok(seen, 'the entry arrives on the open tail');
      const rows = tail.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(rows.map((x) => x._msg), [`${marker} arrived`]);
      assert.equal(typeof rows[0]?._time, 'string');
      const more = await ingest(svc.ingest, C.key, ndjson([{ _msg: `${marker} second`, service: 'e2e' }]));
      assert.equal(more.status, 200, show(more));
      assert.ok(await eventually(() => Promise.resolve(tail.lines.length > 1), 10_000));
      assert.deepEqual(tail.lines.map((l) => (JSON.parse(l) as Record<string, unknown>)._msg), [`${marker} arrived`, `${marker} second`], 'no repeats');
      // Entries that share a timestamp with one already written, arriving in a later request, still come through;
      // so does an exact repeat of an entry (N identical entries are N entries).
      const at = new Date().toISOString();
      const same = { _msg: `${marker} same time`, service: 'e2e', _time: at };
      assert.equal((await ingest(svc.ingest, C.key, ndjson([same]))).status, 200);
      assert.ok(await eventually(() => Promise.resolve(tail.lines.length > 2), 10_000));
      assert.equal((await ingest(svc.ingest, C.key, ndjson([{ ...same, _msg: `${marker} same time too` }, same]))).status, 200);
      assert.ok(await eventually(() => Promise.resolve(tail.lines.length > 4), 10_000), `got ${tail.lines.length} lines`);
      await new Promise((r) => setTimeout(r, 1500)); // a few more polls over the same window write nothing again
      assert.deepEqual(tail.lines.slice(2).map((l) => (JSON.parse(l) as Record<string, unknown>)._msg).sort(),
        [`${marker} same time`, `${marker} same time`, `${marker} same time too`]);
    } finally {
      tail.close();
    }
    const bad = await call(`${svc.app}/api/v1/tenants/${C.tenantId}/select/logsql/tail?query=${encodeURIComponent('a | stats count()')}`, { headers: { 'X-API-Key': C.key } });
    assert.equal(bad.status, 400, show(bad));
  });

  void test('a third concurrent tail on trial_expired is refused; closing one frees a slot', async () => {
    const X = await newAccount(svc, { tier: 'trial_expired' });
    const t1 = await openTail(X, '*');
    const t2 = await openTail(X, '*');
    const open: Tail[] = [t1, t2];
    try {
      assert.deepEqual([t1.status, t2.status], [200, 200]);
      const t3 = await openTail(X, '*');
      open.push(t3);
      assert.equal(t3.status, 403);
      assert.equal((JSON.parse(t3.lines[0] ?? '{}') as { detail?: string }).detail, 'Live-tail session limit reached (2)');
      t1.close();
      const t4 = await eventually(async () => {
        const t = await openTail(X, '*');
        open.push(t);
        return t.status === 200 ? t : null;
      });
      assert.equal(t4?.status, 200, 'a closed tail gives its slot back');
    } finally {
      for (const t of open) t.close();
    }
  });
});
