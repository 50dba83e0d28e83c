// The spec's credential table and Authentication rules 1–12 (interface-spec.md, Authentication; DESIGN §1
// "Caches", §5 header order) over HTTP on both planes. The ingest plane is reached on /api/v1/ingest through
// BOTH doors (the plane is chosen by path); the app plane on /api/v1/tenants/<t>/usage and
// /api/v1/tenants/<t>/select/logsql/query. Then rule 11: the key-lookup database goes away and comes back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import { admin, newAccount, sleep, startService, type RunningService, type TestAccount } from './support/service.js';
import { startPostgres, type PostgresServer } from './support/postgres-server.js';
import { basic, entries, Later, newKey, obj, raw, show, uid, type IssuedKey, type RawReply } from './support/load.js';
import { addUser, sessionOf, TestClock } from './support/sessions.js';

const TTL_MS = 1000; // SIGHTLINE_KEY_CACHE_TTL_MS of the test service (service.ts)

const started = new Later(() => startService());

/** The rule-11 service on PostgreSQL; it starts once the first one is up, while the table runs. */
interface Outage {
  pg: PostgresServer | null;
  svc?: RunningService;
  stop(): Promise<void>;
}
const startedOutage = new Later<Outage>(async () => {
  await started.get().catch(() => undefined);
  const pg = await startPostgres('sightline_cred_outage');
  const o: Outage = {
    pg,
    async stop() {
      await o.svc?.stop();
      await pg?.destroy();
    },
  };
  if (pg) {
    try {
      o.svc = await startService({ env: { SIGHTLINE_CONTROL_DB: pg.url, SIGHTLINE_KEY_CACHE_TTL_MS: String(TTL_MS) } });
    } catch (e) {
      await pg.destroy();
      throw e;
    }
  }
  return o;
});

let svc: RunningService;
let A: TestAccount;
let B: TestAccount;
/** Keys on A's tenant, one per scope set. */
let readOnly: IssuedKey;
let ingestOnly: IssuedKey;
let adminOnly: IssuedKey;

before(async () => {
  svc = await started.get();
  [A, B] = await Promise.all([newAccount(svc), newAccount(svc)]);
  [readOnly, ingestOnly, adminOnly] = await Promise.all([
    newKey(svc, A.tenantId, ['read']), newKey(svc, A.tenantId, ['ingest']), newKey(svc, A.tenantId, ['admin']),
  ]);
});
after(() => Promise.all([started.stop(), startedOutage.stop()]));

interface Expect {
  status: number;
  slug?: string;
  detail?: RegExp;
}

/** A status, or a status with the error slug and detail the body must carry. */
type Want = number | Expect;

interface Row {
  rule: string;
  headers: () => OutgoingHttpHeaders;
  /** Query string without `?` (the ingest path allows no ?api_key=, the app plane takes it as a last resort). */
  query?: () => string;
  ingest: Want;
  app: Want;
}

const K = (): string => A.key;
const q = encodeURIComponent;
const INVALID: Expect = { status: 403, slug: 'forbidden', detail: /^Invalid API key/ };
const NONE: Expect = { status: 401, slug: 'unauthorized' };

const rows: Row[] = [
  // The credential table: each form on each plane.
  { rule: 'table: Authorization: Bearer <key>', headers: () => ({ Authorization: `Bearer ${K()}` }), ingest: 200, app: 200 },
  { rule: 'table: Authorization: Token <key> (app only)', headers: () => ({ Authorization: `Token ${K()}` }), ingest: NONE, app: 200 },
  { rule: 'table: Authorization: Basic <key:password> (key is the username)', headers: () => ({ Authorization: basic(K(), 'any-password') }), ingest: 200, app: 200 },
  { rule: 'table: Authorization: Basic with an empty password', headers: () => ({ Authorization: basic(K(), '') }), ingest: 200, app: 200 },
  { rule: 'table: X-API-Key: <key>', headers: () => ({ 'X-API-Key': K() }), ingest: 200, app: 200 },
  { rule: 'table: ?api_key=<key> (not on /api/v1/ingest; last resort on the app plane)', headers: () => ({}), query: () => `api_key=${q(K())}`, ingest: NONE, app: 200 },
  { rule: 'table: no credential at all', headers: () => ({}), ingest: NONE, app: NONE },
  // Rule 1: the HEC vendor's scheme is parsed nowhere.
  { rule: 'rule 1: Authorization: Splunk <key> is 401 on both planes', headers: () => ({ Authorization: `Splunk ${K()}` }), ingest: NONE, app: NONE },
  { rule: 'rule 1: a scheme outside the table (ApiKey) is no credential', headers: () => ({ Authorization: `ApiKey ${K()}` }), ingest: NONE, app: NONE },
  // Rule 2: scheme case matters on ingest only; header names never matter.
  { rule: 'rule 2: lower-case bearer is not parsed on ingest, accepted on app', headers: () => ({ Authorization: `bearer ${K()}` }), ingest: NONE, app: 200 },
  { rule: 'rule 2: BEARER is not parsed on ingest, accepted on app', headers: () => ({ Authorization: `BEARER ${K()}` }), ingest: NONE, app: 200 },
  { rule: 'rule 2: lower-case basic is not parsed on ingest, accepted on app', headers: () => ({ Authorization: basic(K()).replace('Basic', 'basic') }), ingest: NONE, app: 200 },
  { rule: 'rule 2: lower-case token is accepted on app', headers: () => ({ Authorization: `token ${K()}` }), ingest: NONE, app: 200 },
  { rule: 'rule 2: header names are case-insensitive (x-api-key)', headers: () => ({ 'x-api-key': K() }), ingest: 200, app: 200 },
  { rule: 'rule 2: header names are case-insensitive (AUTHORIZATION)', headers: () => ({ AUTHORIZATION: `Bearer ${K()}` }), ingest: 200, app: 200 },
  // Rule 3: an unparseable header does not shadow a query key where one is allowed.
  { rule: 'rule 3: an unparseable Authorization does not shadow ?api_key= on the app plane', headers: () => ({ Authorization: `Splunk ${K()}` }), query: () => `api_key=${q(K())}`, ingest: NONE, app: 200 },
  { rule: 'rule 3: Token on ingest plus ?api_key= on /api/v1/ingest is still no credential (query not allowed there)', headers: () => ({ Authorization: `Token ${K()}` }), query: () => `api_key=${q(K())}`, ingest: NONE, app: 200 },
  // Rule 4: a parseable wrong header shadows a correct query key.
  { rule: 'rule 4: Bearer <wrong> shadows a correct ?api_key= (403, not 401)', headers: () => ({ Authorization: 'Bearer sl_wrong' }), query: () => `api_key=${q(K())}`, ingest: INVALID, app: INVALID },
  { rule: 'rule 4: X-API-Key <wrong> shadows a correct ?api_key=', headers: () => ({ 'X-API-Key': 'sl_wrong' }), query: () => `api_key=${q(K())}`, ingest: INVALID, app: INVALID },
  // Rule 5: trimming; empty is none.
  { rule: 'rule 5: spaces around the key after Bearer are trimmed', headers: () => ({ Authorization: `Bearer    ${K()}   ` }), ingest: 200, app: 200 },
  { rule: 'rule 5: a padded Basic username is trimmed', headers: () => ({ Authorization: basic(`  ${K()}  `) }), ingest: 200, app: 200 },
  { rule: 'rule 5: a padded query key is trimmed', headers: () => ({}), query: () => `api_key=%20${q(K())}%20`, ingest: NONE, app: 200 },
  { rule: 'rule 5: an empty X-API-Key is no credential', headers: () => ({ 'X-API-Key': '' }), ingest: NONE, app: NONE },
  { rule: 'rule 5: a blank X-API-Key is no credential', headers: () => ({ 'X-API-Key': '   ' }), ingest: NONE, app: NONE },
  { rule: 'rule 5: an empty Bearer is no credential', headers: () => ({ Authorization: 'Bearer ' }), ingest: NONE, app: NONE },
  { rule: 'rule 5: an empty Basic username is no credential', headers: () => ({ Authorization: basic('', 'pw') }), ingest: NONE, app: NONE },
  { rule: 'rule 5: an empty ?api_key= is no credential', headers: () => ({}), query: () => 'api_key=', ingest: NONE, app: NONE },
  { rule: 'rule 5: an empty header falls through to the next form', headers: () => ({ 'X-API-Key': '', Authorization: `Bearer ${K()}` }), ingest: 200, app: 200 },
  { rule: 'rule 5: an empty Bearer falls through to ?api_key= on the app plane', headers: () => ({ Authorization: 'Bearer ' }), query: () => `api_key=${q(K())}`, ingest: NONE, app: 200 },
  // Rule 6 and DESIGN §5: two different keys in two headers; repeats of one header.
  { rule: 'rule 6: X-API-Key good + Authorization wrong — ingest reads X-API-Key first, app reads Authorization first', headers: () => ({ 'X-API-Key': K(), Authorization: 'Bearer sl_wrong' }), ingest: 200, app: INVALID },
  { rule: 'rule 6: X-API-Key wrong + Authorization good — the mirror image', headers: () => ({ 'X-API-Key': 'sl_wrong', Authorization: `Bearer ${K()}` }), ingest: INVALID, app: 200 },
  { rule: 'rule 6: X-API-Key read-only key + Bearer full key — each plane judges the key it reads first', headers: () => ({ 'X-API-Key': readOnly.key, Authorization: `Bearer ${K()}` }), ingest: { status: 403, detail: /does not have required scope: ingest/ }, app: 200 },
  { rule: 'DESIGN §5: X-API-Key repeated with the same value counts once', headers: () => ({ 'X-API-Key': [K(), K()] }), ingest: 200, app: 200 },
  { rule: 'DESIGN §5: Authorization repeated with the same value counts once', headers: () => ({ Authorization: [`Bearer ${K()}`, `Bearer ${K()}`] }), ingest: 200, app: 200 },
  { rule: 'DESIGN §5: X-API-Key repeated with different values is one unknown key (403)', headers: () => ({ 'X-API-Key': [K(), 'sl_other'] }), ingest: INVALID, app: INVALID },
  { rule: 'DESIGN §5: X-API-Key repeated with two different VALID keys of the tenant is still 403', headers: () => ({ 'X-API-Key': [K(), adminOnly.key] }), ingest: INVALID, app: INVALID },
  { rule: 'DESIGN §5: Authorization repeated with different keys is 403, not first-wins', headers: () => ({ Authorization: [`Bearer ${K()}`, 'Bearer sl_other'] }), ingest: INVALID, app: INVALID },
  // Rule 7: scopes.
  { rule: 'rule 7: a read-only key is refused on ingest with the scope detail; it reads', headers: () => ({ 'X-API-Key': readOnly.key }), ingest: { status: 403, slug: 'forbidden', detail: /does not have required scope: ingest/ }, app: 200 },
  { rule: 'rule 7: an ingest-only key ingests and is refused on the query plane', headers: () => ({ 'X-API-Key': ingestOnly.key }), ingest: 200, app: { status: 403, slug: 'forbidden', detail: /does not have required scope: read/ } },
  { rule: 'rule 7: an admin-only key neither ingests nor reads', headers: () => ({ 'X-API-Key': adminOnly.key }), ingest: { status: 403, detail: /scope: ingest/ }, app: { status: 403, detail: /scope: read/ } },
  // Rule 8: tenant match.
  { rule: 'rule 8: another account\'s valid key on this tenant\'s path is 403 (it still ingests into its own tenant)', headers: () => ({ 'X-API-Key': B.key }), ingest: 200, app: { status: 403, slug: 'forbidden', detail: /tenant/ } },
  // Rule 9: unknown key.
  { rule: 'rule 9: an unknown key is 403 forbidden "Invalid API key"', headers: () => ({ 'X-API-Key': 'sl_' + 'x'.repeat(43) }), ingest: INVALID, app: INVALID },
  // Rule 12: a key meant for a query string carries only the ingest scope, so it reads nothing.
  { rule: 'rule 12: an ingest-only key in ?api_key= reads nothing on the app plane', headers: () => ({}), query: () => `api_key=${q(ingestOnly.key)}`, ingest: NONE, app: { status: 403, detail: /scope: read/ } },
];

function check(r: RawReply, want: Want, what: string): void {
  const w: Expect = typeof want === 'number' ? { status: want } : want;
  assert.equal(r.status, w.status, `${what}: ${show(r)}`);
  if (w.status === 200) return;
  const body = obj(r);
  // Rule 9 / Errors: error bodies are JSON with `detail` always, and `error` on these paths.
  assert.equal(typeof body.detail, 'string', `${what}: JSON body with detail expected: ${show(r)}`);
  assert.equal(typeof body.error, 'string', `${what}: error slug expected: ${show(r)}`);
  if (w.slug !== undefined) assert.equal(body.error, w.slug, `${what}: ${show(r)}`);
  if (w.detail !== undefined) assert.match(String(body.detail), w.detail, `${what}: ${show(r)}`);
}

/** The ingest plane's path on both doors. */
async function onIngestPlane(headers: OutgoingHttpHeaders, query: string, want: Want, what: string): Promise<void> {
  for (const [door, base] of [['ingest door', svc.ingest], ['app door', svc.app]] as const) {
    const r = await raw(`${base}/api/v1/ingest${query ? `?${query}` : ''}`, {
      method: 'POST', body: JSON.stringify(entries(1, uid('cred'))), headers: { 'Content-Type': 'application/json', ...headers },
    });
    check(r, want, `ingest plane via the ${door}: ${what}`);
  }
}

/** The app plane on usage and on the LogsQL query path of `tenantId` (A's by default). */
async function onAppPlane(headers: OutgoingHttpHeaders, query: string, want: Want, what: string, tenantId = A.tenantId): Promise<void> {
  for (const path of [`/api/v1/tenants/${tenantId}/usage`, `/api/v1/tenants/${tenantId}/select/logsql/query`]) {
    const qs = [path.endsWith('query') ? 'query=*&limit=1' : '', query].filter((s) => s !== '').join('&');
    const r = await raw(`${svc.app}${path}${qs ? `?${qs}` : ''}`, { headers });
    check(r, want, `app plane ${path.slice(path.lastIndexOf('/') + 1)}: ${what}`);
  }
}

/** Ingest paths with a body each format accepts; which of them honour ?api_key= and the Firehose header. */
function pathBodies(): { path: string; body: () => string; headers: OutgoingHttpHeaders; queryKey: boolean; firehose: boolean }[] {
  const json = { 'Content-Type': 'application/json' };
  const line = '<40>1 2026-01-01T00:00:00+00:00 host app web.1 - drain credential check\n';
  return [
    { path: '/api/v1/drain', body: () => JSON.stringify(entries(1, uid('drain'))), headers: json, queryKey: true, firehose: false },
    { path: '/api/v1/drain/heroku', body: () => `${Buffer.byteLength(line)} ${line}`, headers: { 'Content-Type': 'application/logplex-1', 'Logplex-Msg-Count': '1' }, queryKey: true, firehose: false },
    { path: '/api/v1/drain/vercel', body: () => JSON.stringify([{ id: uid(), message: 'vercel credential check', timestamp: Date.now(), source: 'lambda', projectId: 'p', deploymentId: 'd', host: 'h', level: 'info' }]), headers: json, queryKey: true, firehose: false },
    { path: '/gelf', body: () => JSON.stringify({ version: '1.1', host: 'h', short_message: 'gelf credential check' }), headers: json, queryKey: true, firehose: false },
    { path: '/api/v1/gelf', body: () => JSON.stringify({ version: '1.1', host: 'h', short_message: 'gelf credential check' }), headers: json, queryKey: true, firehose: false },
    { path: '/api/v1/firehose', body: firehoseBody, headers: json, queryKey: false, firehose: true },
    { path: '/api/v1/cloudwatch', body: firehoseBody, headers: json, queryKey: false, firehose: true },
    { path: '/api/v1/ingest', body: () => JSON.stringify(entries(1, uid('native'))), headers: json, queryKey: false, firehose: false },
    { path: '/services/collector/event', body: () => JSON.stringify({ event: 'hec credential check' }), headers: json, queryKey: false, firehose: false },
    { path: '/api/v1/vector', body: () => JSON.stringify([{ message: 'vector credential check' }]), headers: json, queryKey: false, firehose: false },
  ];
}

function firehoseBody(): string {
  const data = Buffer.from(JSON.stringify({ message: 'firehose credential check' })).toString('base64');
  return JSON.stringify({ requestId: uid('req'), timestamp: Date.now(), records: [{ data }] });
}

/** Like check(), for shipper paths whose success reply is 2xx in the shipper's own shape. */
function checkIngestPath(r: RawReply, want: Want, what: string): void {
  if (want === 200) {
    assert.ok(r.status >= 200 && r.status < 300, `${what}: expected 2xx, got ${show(r)}`);
    return;
  }
  check(r, want, what);
}

test('the credential table and Authentication rules 1–12, over HTTP on both planes', async (t) => {
  for (const row of rows) {
    await t.test(row.rule, async () => {
      const headers = row.headers();
      const query = row.query?.() ?? '';
      await onIngestPlane(headers, query, row.ingest, row.rule);
      await onAppPlane(headers, query, row.app, row.rule);
    });
  }

  await t.test('table: ?api_key= is honoured on the drains and GELF only; rules 3 and 4 there; elsewhere it is no credential', async () => {
    const k = q(K());
    for (const p of pathBodies()) {
      for (const [what, headers, query, want] of [
        ['?api_key=', {}, `api_key=${k}`, p.queryKey ? 200 : NONE],
        ['rule 3: Token header + ?api_key=', { Authorization: `Token ${K()}` }, `api_key=${k}`, p.queryKey ? 200 : NONE],
        ['rule 3: bearer (lower case) + ?api_key=', { Authorization: `bearer ${K()}` }, `api_key=${k}`, p.queryKey ? 200 : NONE],
        ['rule 4: Bearer <wrong> + ?api_key=', { Authorization: 'Bearer sl_wrong' }, `api_key=${k}`, INVALID],
        ['rule 5: padded ?api_key=', {}, `api_key=%20${k}%20`, p.queryKey ? 200 : NONE],
        ['X-Amz-Firehose-Access-Key', { 'X-Amz-Firehose-Access-Key': K() }, '', p.firehose ? 200 : NONE],
        ['X-API-Key', { 'X-API-Key': K() }, '', 200],
      ] as [string, OutgoingHttpHeaders, string, Want][]) {
        for (const base of [svc.ingest, svc.app]) {
          const r = await raw(`${base}${p.path}${query ? `?${query}` : ''}`, { method: 'POST', body: p.body(), headers: { ...p.headers, ...headers } });
          checkIngestPath(r, want, `${p.path} via ${base === svc.ingest ? 'the ingest door' : 'the app door'}: ${what}`);
        }
      }
    }
  });

  await t.test('rule 1: the HEC vendor scheme (Authorization: Splunk) is 401 on the HEC paths too; X-API-Key and Bearer work there', async () => {
    for (const path of ['/services/collector/event', '/services/collector/raw', '/services/collector']) {
      const body = path.endsWith('raw') ? 'raw hec line' : JSON.stringify({ event: 'hec credential check' });
      for (const [headers, want] of [
        [{ Authorization: `Splunk ${K()}` }, NONE], [{ 'X-API-Key': K() }, 200], [{ Authorization: `Bearer ${K()}` }, 200],
      ] as [OutgoingHttpHeaders, Want][]) {
        checkIngestPath(await raw(svc.ingest + path, { method: 'POST', body, headers }), want, `${path} ${JSON.stringify(headers).slice(0, 30)}`);
      }
    }
  });

  await t.test('the app plane\'s write path /write follows app-plane rules (Token, case-insensitive scheme, ?api_key=) with the ingest scope, on both doors; metrics errors carry detail only', async () => {
    const line = 'cred_metric,host=a value=1i\n';
    const rowsW: [string, OutgoingHttpHeaders, string, number, RegExp?][] = [
      ['Bearer', { Authorization: `Bearer ${K()}` }, '', 204], ['bearer', { Authorization: `bearer ${K()}` }, '', 204],
      ['Token', { Authorization: `Token ${K()}` }, '', 204], ['Basic', { Authorization: basic(K()) }, '', 204],
      ['X-API-Key', { 'X-API-Key': K() }, '', 204], ['?api_key=', {}, `&api_key=${q(K())}`, 204],
      ['Splunk', { Authorization: `Splunk ${K()}` }, '', 401], ['none', {}, '', 401],
      ['Bearer wrong + ?api_key=', { Authorization: 'Bearer sl_wrong' }, `&api_key=${q(K())}`, 403, /^Invalid API key/],
      ['read-only key', { 'X-API-Key': readOnly.key }, '', 403, /scope: ingest/], ['ingest-only key', { 'X-API-Key': ingestOnly.key }, '', 204],
    ];
    for (const [what, headers, query, status, detail] of rowsW) {
      for (const base of [svc.ingest, svc.app]) {
        const r = await raw(`${base}/write?db=cred${query}`, { method: 'POST', body: line, headers: { 'Content-Type': 'text/plain', ...headers } });
        const where = `/write via ${base === svc.ingest ? 'the ingest door' : 'the app door'}: ${what}`;
        assert.equal(r.status, status, `${where}: ${show(r)}`);
        if (status >= 400) {
          const b = obj(r);
          assert.equal(typeof b.detail, 'string', `${where}: ${show(r)}`);
          assert.ok(!('error' in b), `${where}: metrics errors carry detail only: ${show(r)}`);
          if (detail) assert.match(String(b.detail), detail, where);
        }
      }
    }
  });

  await t.test('rule 7: the tenant key API needs the admin scope', async () => {
    const path = `${svc.app}/api/v1/tenants/${A.tenantId}/keys`;
    for (const k of [readOnly, ingestOnly]) {
      check(await raw(path, { headers: { 'X-API-Key': k.key } }), { status: 403, slug: 'forbidden', detail: /scope: admin/ }, `GET keys with scopes ${k.scopes.join(',')}`);
    }
    check(await raw(path, { headers: { 'X-API-Key': adminOnly.key } }), 200, 'GET keys with an admin-only key');
    check(await raw(path, { headers: { 'X-API-Key': A.key } }), 200, 'GET keys with the first key (ingest,read,admin)');
    check(await raw(path), NONE, 'GET keys without a key');
  });

  await t.test('rule 8: a key on another tenant\'s path is 403 on every app path, also with the admin scope', async () => {
    for (const sub of ['usage', 'select/logsql/query?query=*', 'select/logsql/hits?query=*', 'select/logsql/field_names', 'keys']) {
      const r = await raw(`${svc.app}/api/v1/tenants/${B.tenantId}/${sub}`, { headers: { 'X-API-Key': A.key } });
      check(r, { status: 403, slug: 'forbidden' }, `A's key on B's ${sub}`);
    }
    check(await raw(`${svc.app}/api/v1/tenants/no-such-tenant/usage`, { headers: { 'X-API-Key': A.key } }), { status: 403 }, 'a tenant that does not exist');
  });

  await t.test('rule 10: an aged-out browser session token is 401 "Token expired" on the app front door', async () => {
    // Its own account, so that the jump in service time touches no other test's tenant (query-rate windows).
    const D = await newAccount(svc);
    const token = await sessionOf(svc, await addUser(svc, D.key, 'viewer'));
    const byCookie = { Cookie: `sightline_session=${token}` };
    const byBearer = { Authorization: `Bearer ${token}` };
    await onAppPlane(byCookie, '', 200, 'a fresh session by cookie', D.tenantId);
    await onAppPlane(byBearer, '', 200, 'a fresh session by Bearer', D.tenantId);
    const clock = new TestClock(svc);
    await clock.advance(12 * 3_600_000 + 120_000); // past SIGHTLINE_SESSION_IDLE_MS (DESIGN §7: 12 h)
    try {
      const expired: Expect = { status: 401, slug: 'token_expired', detail: /^Token expired$/ };
      await onAppPlane(byCookie, '', expired, 'an aged-out session by cookie', D.tenantId);
      await onAppPlane(byBearer, '', expired, 'an aged-out session by Bearer', D.tenantId);
      const r = await raw(`${svc.app}/api/v1/tenants/${D.tenantId}/usage`, { headers: byCookie });
      assert.deepEqual(obj(r), { detail: 'Token expired', error: 'token_expired' }, 'exactly the body of DESIGN §7');
    } finally {
      await clock.reset();
    }
    // Rule 9 still holds for session tokens: one never issued is 403; and no session token is an ingest credential.
    await onAppPlane({ Authorization: 'Bearer sls_never-issued' }, '', { status: 403, slug: 'forbidden' }, 'an unknown session token', D.tenantId);
    await onIngestPlane(byBearer, '', INVALID, 'a session token on the ingest plane');
  });

  await t.test('rule 9: disabled tenant, expired, rotated and revoked keys are 403 (app at once, ingest within the cache TTL)', async () => {
    const D = await newAccount(svc);
    const [toRotate, toRevoke] = await Promise.all([newKey(svc, A.tenantId, ['ingest', 'read']), newKey(svc, A.tenantId, ['ingest', 'read'])]);
    const expiresAt = Date.now() + 2000;
    const toExpire = await newKey(svc, A.tenantId, ['ingest', 'read'], { expires_at: new Date(expiresAt).toISOString() });
    assert.equal(toExpire.expires_at, new Date(expiresAt).toISOString());
    // Every key works, and is now in the ingest plane's cache.
    for (const key of [D.key, toRotate.key, toRevoke.key, toExpire.key]) {
      await onIngestPlane({ 'X-API-Key': key }, '', 200, 'before the change');
      await onAppPlane({ 'X-API-Key': key }, '', 200, 'before the change', key === D.key ? D.tenantId : A.tenantId);
    }

    const changedAt = Date.now();
    const rotated = await admin(svc, 'POST', `/admin/v1/keys/${toRotate.id}/rotate`);
    assert.equal(rotated.status, 200, show(rotated));
    const newSecret = String((obj(rotated).api_key as Record<string, unknown>).key);
    assert.notEqual(newSecret, toRotate.key);
    const revoked = await admin(svc, 'DELETE', `/admin/v1/keys/${toRevoke.id}`);
    assert.equal(revoked.status, 204, show(revoked));
    const disabled = await admin(svc, 'PATCH', `/admin/v1/tenants/${D.tenantId}`, { disabled: true });
    assert.equal(disabled.status, 200, show(disabled));

    // App plane: at once (DESIGN §3 rotate: "refused (403) at once on the app plane").
    await onAppPlane({ 'X-API-Key': toRotate.key }, '', INVALID, 'rotated key on the app plane at once');
    await onAppPlane({ 'X-API-Key': newSecret }, '', 200, 'the rotated key\'s new secret');
    await onAppPlane({ 'X-API-Key': toRevoke.key }, '', INVALID, 'revoked key on the app plane at once');
    await onAppPlane({ 'X-API-Key': D.key }, '', { status: 403, slug: 'forbidden', detail: /disabled/i }, 'disabled tenant on the app plane at once', D.tenantId);
    await onIngestPlane({ 'X-API-Key': newSecret }, '', 200, 'the new secret ingests at once');

    // Ingest plane: within the cache TTL (plus a margin for a loaded machine).
    await sleep(Math.max(0, changedAt + TTL_MS + 300 - Date.now()), );
    await onIngestPlane({ 'X-API-Key': toRotate.key }, '', INVALID, 'rotated key on ingest after the TTL');
    await onIngestPlane({ 'X-API-Key': toRevoke.key }, '', INVALID, 'revoked key on ingest after the TTL');
    await onIngestPlane({ 'X-API-Key': D.key }, '', { status: 403, slug: 'forbidden', detail: /disabled/i }, 'disabled tenant on ingest after the TTL');

    // Expiry is judged on every request against service time, cached grant or not.
    await sleep(Math.max(0, expiresAt + 100 - Date.now()));
    const expired: Expect = { status: 403, slug: 'forbidden', detail: /^Invalid API key.*expired/ };
    await onIngestPlane({ 'X-API-Key': toExpire.key }, '', expired, 'expired key on ingest');
    await onAppPlane({ 'X-API-Key': toExpire.key }, '', expired, 'expired key on the app plane');

    // Re-enabling the tenant lets its key back in.
    assert.equal((await admin(svc, 'PATCH', `/admin/v1/tenants/${D.tenantId}`, { disabled: false })).status, 200);
    await onAppPlane({ 'X-API-Key': D.key }, '', 200, 're-enabled tenant', D.tenantId);
  });

  await t.test('rule 9: a key expired by moving service time (PUT /admin/v1/clock) is 403; a key without expiry is not', async () => {
    const k = await newKey(svc, A.tenantId, ['ingest', 'read'], { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    await onIngestPlane({ 'X-API-Key': k.key }, '', 200, 'an hour before expiry');
    const moved = await admin(svc, 'PUT', '/admin/v1/clock', { now: new Date(Date.now() + 2 * 3_600_000).toISOString() });
    assert.equal(moved.status, 200, show(moved));
    try {
      await onIngestPlane({ 'X-API-Key': k.key }, '', { status: 403, detail: /expired/ }, 'after the clock passed expires_at');
      await onAppPlane({ 'X-API-Key': k.key }, '', { status: 403, detail: /expired/ }, 'after the clock passed expires_at');
      await onAppPlane({ 'X-API-Key': A.key }, '', 200, 'a key without expiry');
    } finally {
      assert.equal((await admin(svc, 'PUT', '/admin/v1/clock', { now: new Date().toISOString() })).status, 200);
    }
  });
});

// Rule 11 and DESIGN §1 "Caches": the key-lookup database is PostgreSQL, and it goes away.
test('rule 11: with the control database down, cached keys keep ingesting, unseen keys get 503 auth_unavailable, and it all recovers', async (t) => {
  const outage = await startedOutage.get();
  const { pg } = outage;
  const first = outage.svc;
  if (pg === null || first === undefined) {
    t.skip('PostgreSQL binaries are not installed');
    return;
  }
  let s: RunningService = first;
  const acct = await newAccount(s);
  const unseen = await newKey(s, acct.tenantId, ['ingest', 'read']);
  let acknowledged = 0;
  const timed = async (what: string, req: () => Promise<RawReply>): Promise<RawReply> => {
    const t0 = Date.now();
    const r = await req();
    assert.ok(Date.now() - t0 < 5000, `${what}: answered after ${Date.now() - t0} ms — a DB outage must not hang requests`);
    assert.notEqual(r.status, 0, `${what}: no reply (${r.error ?? ''})`);
    return r;
  };
  const ing = async (key: string | null, what: string): Promise<RawReply> => {
    const body = JSON.stringify(entries(2, uid('outage')));
    const r = await timed(what, () => raw(`${s.ingest}/api/v1/ingest`, {
      method: 'POST', body, headers: { 'Content-Type': 'application/json', ...(key === null ? {} : { 'X-API-Key': key }) }, timeoutMs: 15_000,
    }));
    if (r.status === 200) acknowledged += Buffer.byteLength(body);
    return r;
  };
  const usage = (key: string, what: string) => timed(what, () => raw(`${s.app}/api/v1/tenants/${acct.tenantId}/usage`, { headers: { 'X-API-Key': key }, timeoutMs: 15_000 }));

  check(await ing(acct.key, 'before the outage'), 200, 'ingest before the outage');
  check(await usage(acct.key, 'before the outage'), 200, 'usage before the outage');

  await pg.stop();
  try {
    const authDown: Expect = { status: 503, slug: 'auth_unavailable', detail: /authentication/i };
    check(await ing(acct.key, 'cached key during the outage'), 200, 'a key used within the TTL still ingests (stale cache answer)');
    await sleep(TTL_MS + 200);
    check(await ing(acct.key, 'cached key, TTL passed'), 200, 'a key seen before keeps ingesting past the TTL while the store is down');
    check(await ing(unseen.key, 'unseen key'), authDown, 'a never-seen key on ingest');
    check(await ing('sl_never_issued', 'unknown key'), authDown, 'an unknown key cannot be judged without the store');
    check(await ing(null, 'no credential'), NONE, 'no credential is still 401 (no lookup needed)');
    check(await usage(unseen.key, 'unseen key on the app plane'), authDown, 'a never-seen key on the app plane');
    const adminDuring = await timed('admin API during the outage', async () => admin(s, 'GET', `/admin/v1/accounts/${acct.accountId}`));
    assert.ok(adminDuring.status >= 500, `the admin API cannot answer without its store: ${show(adminDuring)}`);
  } finally {
    await pg.start();
  }

  // Recovery: the pool reconnects by itself.
  const deadline = Date.now() + 15_000;
  let r = await ing(unseen.key, 'after recovery');
  while (r.status !== 200 && Date.now() < deadline) {
    await sleep(250);
    r = await ing(unseen.key, 'after recovery');
  }
  check(r, 200, 'the unseen key ingests once PostgreSQL is back');
  check(await usage(unseen.key, 'after recovery'), 200, 'the app plane reads again');
  check(await ing(acct.key, 'after recovery'), 200, 'the cached key still ingests');
  const acctReply = await admin(s, 'GET', `/admin/v1/accounts/${acct.accountId}`);
  assert.equal(acctReply.status, 200, show(acctReply));

  // The metering increments that could not be written during the outage are written after it (DESIGN §6):
  // a clean restart shows every acknowledged byte exactly once.
  const before = Number(obj(await usage(acct.key, 'usage before restart')).bytes_accepted);
  assert.equal(await s.stop({ keepData: true }), 0);
  s = await startService({ dataDir: s.dataDir, adminToken: s.adminToken, env: { SIGHTLINE_CONTROL_DB: pg.url, SIGHTLINE_KEY_CACHE_TTL_MS: String(TTL_MS) } });
  outage.svc = s;
  const after = Number(obj(await usage(acct.key, 'usage after restart')).bytes_accepted);
  assert.equal(before, acknowledged, 'usage counts every acknowledged byte, those of the outage included');
  assert.equal(after, acknowledged, 'usage after a restart equals the bytes acknowledged');
});
