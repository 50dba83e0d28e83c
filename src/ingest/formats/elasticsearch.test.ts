// Elasticsearch bulk (wire-formats.md §3.3, §4): bodies as Filebeat, Logstash, Vector and Fluent Bit send
// them, the four actions, pairing, per-item failures, and the reply ES clients read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ELASTIC_PRODUCT_HEADER_NAME, elasticsearchBulkFormat, indexFromPath, parseBulk } from './elasticsearch.js';
import { NOW_NS, fixture, json, rejects400, replyOf, request } from '../../../test/fixtures/ingest-formats/kit.js';

const bulk = (...lines: unknown[]) => Buffer.from(lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');

interface Item { _index: string; _id: string; status: number; result?: string; error?: { type: string; reason: string }; _seq_no?: number }
type Reply = { took: number; errors: boolean; items: Record<string, Item>[]; status: string; accepted: number };

async function reply(body: Buffer, path = '/_bulk'): Promise<{ reply: Reply; headers: Headers }> {
  const parsed = await elasticsearchBulkFormat.parse(body, request({ path }));
  const r = await replyOf(elasticsearchBulkFormat, parsed);
  assert.equal(r.status, 200);
  return { reply: json(r.body) as Reply, headers: r.headers };
}

void test('Filebeat 8: create actions into a data stream; ECS fields flattened, message/time/service/level/trace taken', () => {
  const [a, b] = parseBulk(fixture('es-filebeat.ndjson'), '/_bulk', NOW_NS).batch.logs;
  assert.ok(a && b);
  assert.equal(a.msg, 'GET /health 200');
  assert.equal(a.timeNs, 1714564800123000000n);
  assert.equal(a.service, 'checkout');
  assert.equal(a.severity, 'info');
  assert.equal(a.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(a.fields._index, 'logs-generic-default');
  assert.equal(a.fields['log.file.path'], '/var/log/app.log');
  assert.equal(a.fields['data_stream.dataset'], 'generic');
  assert.equal(a.fields.tags, '["prod","eu"]');
  assert.equal(a.fields['service.name'], 'checkout');
  assert.equal(a.fields.message, undefined);
  assert.equal(a.fields['@timestamp'], undefined);
  assert.equal(a.observedNs, NOW_NS);
  assert.equal(b.service, 'billing', 'fields.service (Filebeat custom fields)');
  assert.equal(b.severity, 'error');
  assert.equal(b.timeNs, 1714564801500000000n);
});

void test('Logstash: index actions with null _id get generated ids; a given _id is kept; service from a plain field', async () => {
  const parsed = parseBulk(fixture('es-logstash.ndjson'), '/_bulk', NOW_NS);
  const [a, b] = parsed.batch.logs;
  assert.equal(a?.service, 'auth');
  assert.equal(a.fields.service, undefined, 'a bare service key is the column, not a field');
  assert.equal(a.fields['event.original'], 'user login ok');
  assert.equal(b?.fields._id, 'order-42');
  assert.equal(b.fields.amount, 12.5);
  const { reply: r } = await reply(fixture('es-logstash.ndjson'));
  assert.equal(r.items.length, 2);
  assert.match(r.items[0]?.index?._id ?? '', /^[A-Za-z0-9_-]{20}$/);
  assert.equal(r.items[1]?.index?._id, 'order-42');
});

void test('Vector: `timestamp` is the time; a JSON-looking message stays the message text', () => {
  const [e] = parseBulk(fixture('es-vector.ndjson'), '/_bulk', NOW_NS).batch.logs;
  assert.equal(e?.timeNs, 1714564804250000001n);
  assert.equal(e.msg, '{"level":"warn","msg":"disk 91% full"}');
  assert.equal(e.fields.source_type, 'demo_logs');
  assert.equal(e.fields._index, 'vector-2024.05.01');
});

void test('Fluent Bit: `log` is the message; CRLF line ends are tolerated', () => {
  const [e] = parseBulk(fixture('es-fluentbit.ndjson'), '/_bulk', NOW_NS).batch.logs;
  assert.equal(e?.msg, 'plain line from a container');
  assert.equal(e.fields['kubernetes.labels.app'], 'api');
  assert.equal(e.fields.stream, 'stdout');
});

void test('the reply is the ES bulk response: one item per action, in order, keyed by action, plus status/accepted', async () => {
  const { reply: r, headers } = await reply(fixture('es-filebeat.ndjson'));
  assert.equal(headers.get(ELASTIC_PRODUCT_HEADER_NAME), 'Elasticsearch');
  assert.match(headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(r.errors, false);
  assert.equal(r.status, 'ok');
  assert.equal(r.accepted, 2);
  assert.equal(typeof r.took, 'number');
  assert.deepEqual(r.items.map((it) => Object.keys(it)), [['create'], ['create']]);
  const first = r.items[0]?.create;
  assert.deepEqual({ ...first, _id: 'x' }, {
    _index: 'logs-generic-default', _id: 'x', _version: 1, result: 'created',
    _shards: { total: 1, successful: 1, failed: 0 }, _seq_no: 0, _primary_term: 1, status: 201,
  });
  assert.equal(r.items[1]?.create?._seq_no, 1);
});

void test('update stores its doc as a new entry; delete removes nothing and answers not_found; pairing holds', async () => {
  const body = bulk(
    { delete: { _index: 'logs', _id: 'd1' } },
    { update: { _index: 'logs', _id: 'u1' } }, { doc: { message: 'patched' }, doc_as_upsert: true },
    { delete: { _index: 'logs', _id: 'd2' } },
    { update: { _index: 'logs', _id: 'u2' } }, { script: { source: 'ctx._source.n += 1' } },
    { index: { _index: 'logs' } }, { message: 'after' },
  );
  const parsed = parseBulk(body, '/_bulk', NOW_NS);
  assert.deepEqual(parsed.batch.logs.map((e) => e.msg), ['patched', 'after']);
  const { reply: r } = await reply(body);
  assert.deepEqual(r.items.map((it) => Object.entries(it).map(([k, v]) => `${k}:${v.status}:${v.result ?? v.error?.type ?? ''}`)[0]), [
    'delete:404:not_found', 'update:201:created', 'delete:404:not_found',
    'update:400:illegal_argument_exception', 'index:201:created',
  ]);
  assert.equal(r.errors, true, 'the scripted update failed');
  assert.equal(r.items[0]?.delete?._id, 'd1');
});

void test('a malformed document line fails only its item (400, errors:true); the rest are stored', async () => {
  const body = bulk(
    { index: { _index: 'a' } }, '{"message": "broken',
    { create: { _index: 'a' } }, '[1,2]',
    { create: { _index: 'a' } }, { message: 'fine' },
  );
  const parsed = parseBulk(body, '/_bulk', NOW_NS);
  assert.deepEqual(parsed.batch.logs.map((e) => e.msg), ['fine']);
  const { reply: r } = await reply(body);
  assert.equal(r.errors, true);
  assert.equal(r.accepted, 1);
  assert.deepEqual(r.items.map((it) => Object.values(it)[0]?.status), [400, 400, 201]);
  assert.equal(r.items[0]?.index?.error?.type, 'mapper_parsing_exception');
  assert.match(r.items[0].index.error.reason, /not valid JSON/);
  assert.match(r.items[1]?.create?.error?.reason ?? '', /must be a JSON object/);
});

void test('an action without _index on the bare /_bulk is stored, its item _index empty (issue 12 item 7)', async () => {
  const body = bulk({ create: {} }, { message: 'no index anywhere' }, { index: {} }, { message: 'nor here' });
  const parsed = parseBulk(body, '/_bulk', NOW_NS);
  assert.deepEqual(parsed.batch.logs.map((e) => e.msg), ['no index anywhere', 'nor here']);
  assert.equal(parsed.batch.logs[0]?.fields._index, undefined, 'no _index field is invented');
  const { reply: r } = await reply(body);
  assert.equal(r.errors, false);
  assert.deepEqual(r.items.map((it) => [Object.keys(it)[0], Object.values(it)[0]?.status, Object.values(it)[0]?._index]),
    [['create', 201, ''], ['index', 201, '']]);
});

void test('a trailing action without its document line is a per-item failure; the final newline is optional', async () => {
  const body = Buffer.from('{"index":{"_index":"a"}}\n{"message":"x"}\n\n{"create":{"_index":"a"}}');
  const { reply: r } = await reply(body);
  assert.deepEqual(r.items.map((it) => Object.values(it)[0]?.status), [201, 400]);
  assert.match(r.items[1]?.create?.error?.reason ?? '', /no document line/);
});

void test('the index comes from the path when the action has none; an action _index wins', () => {
  assert.equal(indexFromPath('/my-idx/_bulk'), 'my-idx');
  assert.equal(indexFromPath('/insert/elasticsearch/my%2Didx/_bulk'), 'my-idx');
  assert.equal(indexFromPath('/_bulk'), '');
  assert.equal(indexFromPath('/insert/elasticsearch/_bulk'), '');
  const body = bulk({ index: {} }, { msg: 'a' }, { index: { _index: 'other' } }, { _msg: 'b' });
  const logs = parseBulk(body, '/insert/elasticsearch/from-path/_bulk', NOW_NS).batch.logs;
  assert.deepEqual(logs.map((e) => [e.fields._index, e.msg]), [['from-path', 'a'], ['other', 'b']]);
});

void test('a document without @timestamp gets the time of receipt; an unreadable one is kept as a field', () => {
  const logs = parseBulk(bulk({ index: { _index: 'a' } }, { message: 'x', '@timestamp': 'last tuesday' }), '/_bulk', NOW_NS).batch.logs;
  assert.equal(logs[0]?.timeNs, NOW_NS);
  assert.equal(logs[0].fields['@timestamp'], 'last tuesday');
});

void test('a body that is not bulk NDJSON is 400 naming the line, never its content', async () => {
  await rejects400(() => parseBulk(Buffer.from('SECRET plain text\n'), '/_bulk', NOW_NS), /line 1 is not a JSON action object/, 'SECRET');
  await rejects400(() => parseBulk(bulk({ index: { _index: 'a' } }, { m: 1 }, { upsert: { _index: 'a' } }), '/_bulk', NOW_NS),
    /line 3 must be one of index, create, update, delete/);
  await rejects400(() => parseBulk(bulk({ index: 'a' }), '/_bulk', NOW_NS), /line 1: the index metadata must be an object/);
  await rejects400(() => parseBulk(bulk({ index: {}, create: {} }), '/_bulk', NOW_NS), /line 1 must be one of/);
  await rejects400(() => parseBulk(Buffer.from('\n\n'), '/_bulk', NOW_NS), /no actions/);
});
