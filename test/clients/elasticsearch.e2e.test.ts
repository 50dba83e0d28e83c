// The official Elasticsearch JS client (v9) against the real service (STYLE.md habit 7; wire-formats.md
// §3.3, §4 "@elastic/elasticsearch", §6). The client checks `X-Elastic-Product` on every reply, sends
// `headers` twice (`X-API-Key` and `x-api-key`, joined by Node into "key, key"), and its `apiKey` auth is
// `Authorization: ApiKey …`, which the spec's credential table refuses (401).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, errors } from '@elastic/elasticsearch';
import type { RunningService, TestAccount } from '../support/service.js';
import { startWithAccount, uid, waitLogs } from './support.js';

let svc: RunningService;
let acct: TestAccount;
const clients: Client[] = [];

before(async () => {
  ({ svc, acct } = await startWithAccount());
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await svc.stop();
});

/** A client that never retries, so that a refusal shows at once. */
function client(opts: { path?: string; auth?: { apiKey: string } | { username: string; password: string } } = {}): Client {
  const c = new Client({
    node: svc.ingest + (opts.path ?? ''),
    maxRetries: 0,
    ...(opts.auth ? { auth: opts.auth } : { headers: { 'X-API-Key': acct.key } }),
  });
  clients.push(c);
  return c;
}

// `node` with and without the `/insert/elasticsearch` prefix that VictoriaLogs-style setups use.
for (const path of ['', '/insert/elasticsearch']) {
  describe(`Client({ node: ingest${path === '' ? '' : ` + '${path}'`}, headers: { 'X-API-Key': key } })`, () => {
    test('info() passes the product check', async () => {
      const info = await client({ path }).info();
      assert.equal(info.tagline, 'You Know, for Search');
      assert.match(info.version.number, /^[89]\./);
    });

    test('bulk({ operations }) with index and create stores every document', async () => {
      const service = uid('es-bulk-');
      const index = uid('logs-');
      const ts = new Date(Date.now() - 60_000).toISOString();
      const reply = await client({ path }).bulk({
        operations: [
          { index: { _index: index, _id: 'doc-1' } },
          { '@timestamp': ts, message: 'indexed document', service: { name: service }, 'log.level': 'warn', user: { id: 7 } },
          { create: { _index: index } },
          { '@timestamp': ts, message: 'created document', service: { name: service }, tags: ['a', 'b'] },
        ],
      });
      assert.equal(reply.errors, false, JSON.stringify(reply));
      assert.equal(reply.items.length, 2);
      assert.equal(reply.items[0]?.index?.status, 201);
      assert.equal(reply.items[1]?.create?.status, 201);

      const rows = await waitLogs(svc, acct, `service:${service}`, 2);
      assert.equal(rows.length, 2);
      const indexed = rows.find((r) => r._msg === 'indexed document');
      assert.ok(indexed, JSON.stringify(rows));
      assert.equal(indexed.service, service);
      assert.equal(indexed.severity, 'warn');
      assert.equal(indexed._index, index);
      assert.equal(indexed._id, 'doc-1');
      assert.equal(String(indexed['user.id']), '7', 'nested objects become dotted fields');
      assert.equal(indexed._time, ts.replace(/\.(\d{3})Z$/, '.$1000000Z'), '@timestamp is the event time');
      assert.ok(rows.some((r) => r._msg === 'created document'));
    });

    test('bulk() with actions that name no _index stores every document (issue 12 item 7)', async () => {
      const service = uid('es-noindex-');
      const reply = await client({ path }).bulk({
        operations: [{ index: {} }, { message: 'no index named', service }, { create: {} }, { message: 'none here either', service }],
      });
      assert.equal(reply.errors, false, JSON.stringify(reply));
      assert.deepEqual(reply.items.map((it) => it.index?.status ?? it.create?.status), [201, 201]);
      assert.deepEqual(reply.items.map((it) => it.index?._index ?? it.create?._index), ['', '']);
      const rows = await waitLogs(svc, acct, `service:${service}`, 2);
      assert.equal(rows.length, 2);
    });

    test('helpers.bulk({ datasource, onDocument }) reports every document successful', async () => {
      const service = uid('es-helper-');
      const docs = Array.from({ length: 25 }, (_, i) => ({ message: `helper doc ${i}`, service, n: i }));
      const dropped: unknown[] = [];
      const stats = await client({ path }).helpers.bulk({
        datasource: docs,
        onDocument: () => ({ create: { _index: 'helper-index' } }),
        onDrop: (d) => dropped.push(d),
      });
      assert.deepEqual(dropped, []);
      assert.equal(stats.total, 25);
      assert.equal(stats.successful, 25);
      assert.equal(stats.failed, 0);
      const rows = await waitLogs(svc, acct, `service:${service}`, 25);
      assert.equal(rows.length, 25);
    });
  });
}

describe('single-document APIs of the client', () => {
  // Not in the spec's route table (bulk only), but `client.index()` is the client's most common write call.
  test('index({ index, document }) (POST /<index>/_doc) and create({ id }) (PUT /<index>/_create/<id>) store the document', async () => {
    const service = uid('es-doc-');
    const reply = await client().index({ index: 'single', document: { message: 'one document', service } });
    assert.equal(reply.result, 'created');
    const created = await client().create({ index: 'single', id: 'doc-7', document: { message: 'created document', service } });
    assert.equal(created._id, 'doc-7');
    const rows = await waitLogs(svc, acct, `service:${service}`, 2);
    assert.deepEqual(rows.map((r) => r._msg).sort(), ['created document', 'one document']);
  });

  test('ping() and indices.refresh() (pino-elasticsearch calls it when its stream ends) succeed', async () => {
    const c = client();
    assert.equal(await c.ping(), true);
    await c.indices.refresh({ index: 'any-index' });
  });
});

describe('credentials the client can be given', () => {
  test("auth: { apiKey } sends 'Authorization: ApiKey …', which the spec refuses with 401", async () => {
    await assert.rejects(
      client({ auth: { apiKey: acct.key } }).bulk({ operations: [{ index: { _index: 'x' } }, { message: 'never stored' }] }),
      (e: unknown) => e instanceof errors.ResponseError && e.meta.statusCode === 401,
    );
  });

  test('auth: { username: key, password } (Basic, key as the username) works', async () => {
    const service = uid('es-basic-');
    const c = client({ auth: { username: acct.key, password: 'x' } });
    assert.equal((await c.info()).tagline, 'You Know, for Search');
    const reply = await c.bulk({ operations: [{ index: { _index: 'basic' } }, { message: 'basic auth document', service }] });
    assert.equal(reply.errors, false, JSON.stringify(reply));
    const rows = await waitLogs(svc, acct, `service:${service}`);
    assert.equal(rows[0]?._msg, 'basic auth document');
  });
});
