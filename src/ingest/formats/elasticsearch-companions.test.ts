// The ES companion endpoints (wire-formats.md §3.3, §4, §6), registered on the project's own router
// (find-my-way) at the root and under /insert/elasticsearch, answered over a real socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router } from '../../front-doors/router.js';
import { ELASTICSEARCH_COMPANION_ROUTES, ES_VERSION } from './elasticsearch-companions.js';
import { json, roundTrip, type HttpReply } from '../../../test/fixtures/ingest-formats/kit.js';

const router = new Router();
for (const r of ELASTICSEARCH_COMPANION_ROUTES) router.on(r.methods, r.pattern, r.handler);

async function call(method: string, pathAndQuery: string): Promise<HttpReply> {
  return roundTrip((ctx) => {
    const m = router.match(ctx.method, ctx.path);
    if (m.kind !== 'handler') {
      ctx.res.writeHead(m.kind === 'none' ? 404 : 405);
      ctx.res.end();
      return;
    }
    ctx.params = m.params;
    return m.handler(ctx);
  }, method, pathAndQuery);
}

for (const prefix of ['', '/insert/elasticsearch']) {
  void test(`GET and HEAD ${prefix || '/'}: the 8.x version document with the product header`, async () => {
    const r = await call('GET', prefix || '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-elastic-product'), 'Elasticsearch');
    const body = json(r.body) as { version: { number: string }; tagline: string };
    assert.equal(body.version.number, ES_VERSION);
    assert.match(body.version.number, /^8\./);
    assert.equal(body.tagline, 'You Know, for Search');
    const head = await call('HEAD', `${prefix}/`);
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('x-elastic-product'), 'Elasticsearch');
    assert.equal(head.body.length, 0);
  });

  const CASES: [string, string, number, unknown][] = [
    ['GET', '/_license', 200, { license: { type: 'basic', status: 'active' } }],
    ['GET', '/_cluster/health', 200, { status: 'green' }],
    ['GET', '/_nodes/http', 200, { _nodes: { total: 1 } }],
    ['GET', '/_xpack', 200, { features: {} }],
    ['GET', '/_ilm/policy/filebeat', 200, {}],
    ['PUT', '/_ilm/policy/filebeat', 200, { acknowledged: true }],
    ['HEAD', '/_index_template/logstash', 200, undefined],
    ['PUT', '/_index_template/logstash', 200, { acknowledged: true }],
    ['GET', '/_ingest/pipeline/x', 200, {}],
    ['PUT', '/_logstash/pipeline/main', 200, { acknowledged: true }],
    ['GET', '/_data_stream/logs-generic-default', 200, { data_streams: [] }],
    ['GET', '/_cat/indices?format=json', 200, []],
    ['GET', '/pino-logs/_refresh', 200, { _shards: { total: 1, successful: 1, failed: 0 } }],
    ['POST', '/pino-logs/_refresh', 200, { _shards: { failed: 0 } }],
  ];
  for (const [method, path, status, shape] of CASES) {
    void test(`${method} ${prefix}${path} answers ${status} with the product header`, async () => {
      const r = await call(method, `${prefix}${path}`);
      assert.equal(r.status, status);
      assert.equal(r.headers.get('x-elastic-product'), 'Elasticsearch');
      if (shape !== undefined) assertSubset(json(r.body), shape);
    });
  }
}

void test('GET /_cat/indices without format=json is an empty text table', async () => {
  const r = await call('GET', '/_cat/indices');
  assert.equal(r.status, 200);
  assert.equal(r.body.length, 0);
  assert.equal(r.headers.get('x-elastic-product'), 'Elasticsearch');
});

void test('the companion patterns do not swallow the bulk paths or unrelated paths', () => {
  assert.equal(router.match('POST', '/_bulk').kind, 'none');
  assert.equal(router.match('POST', '/logs/_bulk').kind, 'none');
  assert.equal(router.match('POST', '/insert/elasticsearch/_bulk').kind, 'none');
  assert.equal(router.match('POST', '/api/v1/ingest').kind, 'none');
});

function assertSubset(actual: unknown, expected: unknown): void {
  if (typeof expected !== 'object' || expected === null) return assert.deepEqual(actual, expected);
  if (Array.isArray(expected)) return assert.deepEqual(actual, expected);
  assert.ok(typeof actual === 'object' && actual !== null, `expected an object, got ${JSON.stringify(actual)}`);
  for (const [k, v] of Object.entries(expected)) assertSubset((actual as Record<string, unknown>)[k], v);
  if (Object.keys(expected).length === 0) assert.deepEqual(actual, {});
}
