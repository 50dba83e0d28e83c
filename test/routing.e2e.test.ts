// Routing rules 1–5 of the spec (Endpoints, Routing rules) and DESIGN §6 "Unknown paths", over HTTP on both
// front doors of one running service. The plane is chosen by path, never by host; query, account and admin
// paths do not exist on the ingest door, and that 404 comes before any authentication.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, call, newAccount, startService, type Reply, type RunningService, type TestAccount } from './support/service.js';
import { entries, Later, obj, raw, show, uid } from './support/load.js';

const started = new Later(() => startService());
let svc: RunningService;
let A: TestAccount;

before(async () => {
  svc = await started.get();
  A = await newAccount(svc);
});
after(() => started.stop());

const door = (name: 'ingest' | 'app'): string => (name === 'ingest' ? svc.ingest : svc.app);

function assertJsonError(r: Reply, status: number, slug: string, what: string): void {
  assert.equal(r.status, status, `${what}: ${show(r)}`);
  const body = obj(r);
  assert.equal(typeof body.detail, 'string', `${what}: error body must be JSON with a detail: ${show(r)}`);
  assert.equal(body.error, slug, `${what}: ${show(r)}`);
  assert.match(String(r.headers['content-type']), /application\/json/, what);
}

describe('rule 1 and rule 5: native ingest is served on both doors by the ingest plane', () => {
  for (const d of ['ingest', 'app'] as const) {
    test(`POST /api/v1/ingest on the ${d} door answers 200 {status: "ok", accepted}`, async () => {
      const tag = uid('route');
      const r = await call(door(d) + '/api/v1/ingest', {
        method: 'POST', body: JSON.stringify(entries(3, tag)), headers: { 'X-API-Key': A.key, 'Content-Type': 'application/json' },
      });
      assert.equal(r.status, 200, show(r));
      assert.deepEqual(r.json, { status: 'ok', accepted: 3 });
    });
  }

  test('the app door hands the ingest path on with the ingest plane\'s credential rules (Token is no credential there)', async () => {
    const r = await call(svc.app + '/api/v1/ingest', {
      method: 'POST', body: JSON.stringify(entries(1, uid())), headers: { Authorization: `Token ${A.key}`, 'Content-Type': 'application/json' },
    });
    assertJsonError(r, 401, 'unauthorized', 'Token on an ingest path via the app door');
    const lower = await call(svc.app + '/api/v1/ingest', {
      method: 'POST', body: JSON.stringify(entries(1, uid())), headers: { Authorization: `bearer ${A.key}`, 'Content-Type': 'application/json' },
    });
    assert.equal(lower.status, 401, `lower-case bearer on an ingest path via the app door: ${show(lower)}`);
  });

  test('an app path keeps the app plane\'s credential rules on the app door (Token accepted)', async () => {
    const r = await call(`${svc.app}/api/v1/tenants/${A.tenantId}/usage`, { headers: { Authorization: `Token ${A.key}` } });
    assert.equal(r.status, 200, show(r));
  });
});

describe('rules 1, 2 and 5: every log/trace path and every app write path is served on both doors', () => {
  // Spec "Ingest plane paths" with DESIGN §5 path words and aliases.
  const INGEST_PATHS = [
    '/api/v1/ingest', '/v1/logs', '/v1/traces', '/_bulk', '/insert/elasticsearch/_bulk', '/loki/api/v1/push', '/api/v1/syslog',
    '/api/v1/fluentbit', '/api/v1/vector', '/api/v1/fluentd', '/api/v1/logstash', '/api/v1/cloudwatch', '/api/v1/firehose',
    '/services/collector/event', '/services/collector/raw', '/gelf', '/api/v1/gelf', '/api/v1/drain', '/api/v1/drain/heroku',
    '/api/v1/drain/vercel',
  ];
  test('without a key each log/trace path is 401 JSON with detail and error on both doors (it exists; it is the ingest plane)', async () => {
    for (const p of INGEST_PATHS) {
      for (const d of ['ingest', 'app'] as const) {
        const r = await call(door(d) + p, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
        assertJsonError(r, 401, 'unauthorized', `${p} on the ${d} door`);
      }
    }
  });

  test('with Token (an app-plane-only form) each log/trace path is 401 on both doors: the plane follows the path', async () => {
    for (const p of INGEST_PATHS) {
      for (const d of ['ingest', 'app'] as const) {
        const r = await call(door(d) + p, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json', Authorization: `Token ${A.key}` } });
        assert.equal(r.status, 401, `${p} on the ${d} door: ${show(r)}`);
      }
    }
  });

  test('without a key each app write path is 401 on both doors; metrics errors carry detail only', async () => {
    for (const p of ['/v1/metrics', '/api/v1/otel/v1/metrics', '/api/v1/write', '/write', '/api/v2/write', '/v1/rum/replay']) {
      for (const d of ['ingest', 'app'] as const) {
        const r = await call(door(d) + p, { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain' } });
        assert.equal(r.status, 401, `${p} on the ${d} door: ${show(r)}`);
        assert.equal(typeof obj(r).detail, 'string', `${p}: ${show(r)}`);
        if (p !== '/v1/rum/replay') assert.ok(!('error' in obj(r)), `${p}: metrics errors carry detail only: ${show(r)}`);
      }
    }
  });

  test('with Token each app write path is accepted on both doors (app-plane rules, even through the ingest door)', async () => {
    for (const p of ['/write?db=routing', '/api/v2/write?bucket=routing&org=o']) {
      for (const d of ['ingest', 'app'] as const) {
        const r = await call(door(d) + p, { method: 'POST', body: 'routing_metric,host=a value=1i\n', headers: { 'Content-Type': 'text/plain', Authorization: `Token ${A.key}` } });
        assert.equal(r.status, 204, `${p} on the ${d} door: ${show(r)}`);
      }
    }
  });
});

describe('rule 4 (and DESIGN §3): tenant, account and admin paths are 404 on the ingest door, before authentication', () => {
  const paths = (): { method: string; path: string; body?: string }[] => [
    { method: 'GET', path: `/api/v1/tenants/${A.tenantId}/usage` },
    { method: 'GET', path: `/api/v1/tenants/${A.tenantId}/select/logsql/query?query=*` },
    { method: 'POST', path: `/api/v1/tenants/${A.tenantId}/select/logsql/query`, body: 'query=*' },
    { method: 'GET', path: `/api/v1/tenants/${A.tenantId}/select/logsql/hits?query=*` },
    { method: 'GET', path: `/api/v1/tenants/${A.tenantId}/select/logsql/field_names` },
    { method: 'GET', path: `/api/v1/tenants/${A.tenantId}/keys` },
    { method: 'POST', path: `/api/v1/tenants/${A.tenantId}/keys`, body: '{"scopes":["read"]}' },
    { method: 'GET', path: `/api/v1/tenants/${A.tenantId}/traces/0123456789abcdef0123456789abcdef` },
    { method: 'GET', path: '/api/v1/tenants/no-such-tenant/usage' },
    { method: 'POST', path: '/api/v1/account/projects', body: '{"name":"p"}' },
    { method: 'POST', path: '/admin/v1/accounts', body: '{"name":"x"}' },
    { method: 'GET', path: `/admin/v1/accounts/${A.accountId}` },
    { method: 'POST', path: '/admin/v1/sweep' },
    { method: 'PUT', path: '/admin/v1/clock', body: '{"now":"2030-01-01T00:00:00Z"}' },
    { method: 'DELETE', path: `/admin/v1/keys/${A.keyId}` },
  ];
  const credentials = (): { name: string; headers: Record<string, string> }[] => [
    { name: 'no credential', headers: {} },
    { name: 'a valid key', headers: { 'X-API-Key': A.key } },
    { name: 'a valid key as Bearer', headers: { Authorization: `Bearer ${A.key}` } },
    { name: 'an unknown key', headers: { 'X-API-Key': 'sl_unknown' } },
    { name: 'the admin token', headers: { Authorization: `Bearer ${svc.adminToken}` } },
  ];

  test('every such path with every credential is a JSON 404, never 401/403/405', async () => {
    for (const p of paths()) {
      for (const c of credentials()) {
        const r = await call(svc.ingest + p.path, {
          method: p.method, headers: { 'Content-Type': 'application/json', ...c.headers }, ...(p.body === undefined ? {} : { body: p.body }),
        });
        assertJsonError(r, 404, 'not_found', `${p.method} ${p.path} on the ingest door with ${c.name}`);
      }
    }
  });

  test('the same paths exist on the app door (so the 404 is the door\'s, not a missing route)', async () => {
    const usage = await call(`${svc.app}/api/v1/tenants/${A.tenantId}/usage`, { headers: { 'X-API-Key': A.key } });
    assert.equal(usage.status, 200, show(usage));
    const acct = await admin(svc, 'GET', `/admin/v1/accounts/${A.accountId}`);
    assert.equal(acct.status, 200, show(acct));
    const noKey = await call(`${svc.app}/api/v1/tenants/${A.tenantId}/usage`);
    assert.equal(noKey.status, 401, `without a key the app door asks for one: ${show(noKey)}`);
  });

  test('the ingest door 404s a tenant path even when the request is otherwise malformed (route decides first)', async () => {
    const r = await raw(`${svc.ingest}/api/v1/tenants/${A.tenantId}/select/logsql/query`, {
      method: 'POST', headers: { 'Content-Encoding': 'br', 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(64 * 1024 * 1024) },
      body: 'query=*', timeoutMs: 5000,
    });
    assert.equal(r.status, 404, show(r));
  });
});

describe('rule 3: the ingest door forwards exactly six paths to the app plane', () => {
  const SIX = ['/v1/metrics', '/api/v1/otel/v1/metrics', '/api/v1/write', '/write', '/api/v2/write', '/v1/rum/replay'];

  test('each of the six answers on the ingest door exactly as on the app door', async () => {
    for (const p of SIX) {
      const send = (base: string) => call(base + p, { method: 'POST', body: 'x', headers: { 'X-API-Key': A.key, 'Content-Type': 'text/plain' } });
      const [viaIngest, viaApp] = [await send(svc.ingest), await send(svc.app)];
      assert.equal(viaIngest.status, viaApp.status, `${p}: ingest door ${show(viaIngest)} vs app door ${show(viaApp)}`);
      assert.equal(viaIngest.text, viaApp.text, p);
    }
  });

  test('the app plane\'s other paths next to them (Influx /ping, /health, /query) are not forwarded: 404 on the ingest door', async () => {
    for (const [method, p] of [['GET', '/ping'], ['GET', '/health'], ['POST', '/query']] as const) {
      const viaApp = await call(svc.app + p, { method, headers: { 'X-API-Key': A.key }, ...(method === 'POST' ? { body: 'q=x' } : {}) });
      assert.ok(viaApp.status < 300, `${p} exists on the app door: ${show(viaApp)}`);
      const r = await call(svc.ingest + p, { method, headers: { 'X-API-Key': A.key }, ...(method === 'POST' ? { body: 'q=x' } : {}) });
      assertJsonError(r, 404, 'not_found', `${p} on the ingest door`);
    }
  });

  test('near misses of the six (sub-paths, prefixes) are not forwarded: 404 on the ingest door', async () => {
    for (const p of ['/v1/metrics/extra', '/api/v1/write/more', '/v1/rum', '/v1/rum/replay/x', '/api/v2', '/write/x']) {
      const r = await call(svc.ingest + p, { method: 'POST', body: 'x', headers: { 'X-API-Key': A.key } });
      assertJsonError(r, 404, 'not_found', `${p} on the ingest door`);
    }
  });
});

describe('DESIGN §6: unknown paths are 404 JSON on both doors', () => {
  const unknown = [
    { method: 'POST', path: '/no/such/path' },
    { method: 'GET', path: '/api/v1/no-such-endpoint' },
    { method: 'POST', path: '/api/v1/ingest/extra' },
    { method: 'POST', path: '/api/v2/ingest' },
    { method: 'GET', path: '/admin/v1/nothing-here' },
    { method: 'DELETE', path: '/v1/nothing' },
    { method: 'POST', path: '/api/v1/tenants' },
  ];
  for (const d of ['ingest', 'app'] as const) {
    test(`unknown paths on the ${d} door, with and without a key`, async () => {
      for (const u of unknown) {
        for (const headers of [{}, { 'X-API-Key': A.key }] as Record<string, string>[]) {
          const r = await call(door(d) + u.path, { method: u.method, headers, ...(u.method === 'GET' ? {} : { body: '{}' }) });
          assertJsonError(r, 404, 'not_found', `${u.method} ${u.path} on the ${d} door`);
        }
      }
    });
  }
});

describe('a known path with another method is 405 with Allow', () => {
  const cases = (): { door: 'ingest' | 'app'; method: string; path: string; allow: string }[] => [
    { door: 'ingest', method: 'GET', path: '/api/v1/ingest', allow: 'POST' },
    { door: 'ingest', method: 'PUT', path: '/api/v1/ingest', allow: 'POST' },
    { door: 'ingest', method: 'DELETE', path: '/api/v1/ingest', allow: 'POST' },
    { door: 'app', method: 'GET', path: '/api/v1/ingest', allow: 'POST' },
    { door: 'app', method: 'POST', path: `/api/v1/tenants/${A.tenantId}/usage`, allow: 'GET' },
    { door: 'app', method: 'DELETE', path: `/api/v1/tenants/${A.tenantId}/select/logsql/query`, allow: 'GET' },
    { door: 'app', method: 'GET', path: '/api/v1/account/projects', allow: 'POST' },
    { door: 'app', method: 'GET', path: '/admin/v1/accounts', allow: 'POST' },
    { door: 'app', method: 'GET', path: '/admin/v1/sweep', allow: 'POST' },
    { door: 'app', method: 'POST', path: '/admin/v1/clock', allow: 'PUT' },
  ];

  test('405 JSON, whether or not a credential is sent', async () => {
    for (const c of cases()) {
      for (const headers of [{}, { 'X-API-Key': A.key }] as Record<string, string>[]) {
        const r = await call(door(c.door) + c.path, { method: c.method, headers, ...(c.method === 'GET' ? {} : { body: '{}' }) });
        assertJsonError(r, 405, 'method_not_allowed', `${c.method} ${c.path} on the ${c.door} door`);
        assert.match(String(r.headers.allow), new RegExp(c.allow), `${c.method} ${c.path}: Allow header ${String(r.headers.allow)}`);
      }
    }
  });
});
