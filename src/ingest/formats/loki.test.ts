// Loki push (wire-formats.md §3.4, §2, §6): JSON with structured metadata, the legacy shape, and protobuf
// PushRequest in snappy block framing without Content-Encoding, as Promtail, Alloy and winston-loki send it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import snappy from 'snappyjs';
import { PushRequest, createLokiFormat, lokiFormat, lokiReadyHandler, parseLokiPush } from './loki.js';
import { ServiceError } from '../../../src/errors.js';
import { NOW_NS, fixture, json, rejects400, replyOf, request, roundTrip } from '../../../test/fixtures/ingest-formats/kit.js';

const JSON_CT = { 'content-type': 'application/json' };
const PROTO_CT = { 'content-type': 'application/x-protobuf' };

function encodePush(value: Record<string, unknown>): Buffer {
  const bytes = PushRequest.encode(PushRequest.fromObject(value)).finish();
  return Buffer.from(bytes);
}

// PushRequest{streams:[{labels:'{a="b"}', entries:[{timestamp:{seconds:1,nanos:2}, line:"x"}]}]}
//   Timestamp 08 01 10 02 | Entry 0a 04 <ts> 12 01 78 (9) | Stream 0a 07 '{a="b"}' 12 09 <entry> (20)
//   PushRequest 0a 14 <stream> (22 bytes). Snappy block, literal only: varint 22 (16), tag (22-1)<<2 (54).
const HAND_PUSH = '0a14' + '0a07' + '7b613d2262227d' + '1209' + '0a04' + '08011002' + '120178';
const HAND_SNAPPY = '16' + '54' + HAND_PUSH;

void test('the PushRequest schema encodes a small push to the hand-computed bytes', () => {
  const value = { streams: [{ labels: '{a="b"}', entries: [{ timestamp: { seconds: 1, nanos: 2 }, line: 'x' }] }] };
  assert.equal(encodePush(value).toString('hex'), HAND_PUSH);
  assert.equal(Buffer.from(snappy.uncompress(Buffer.from(HAND_SNAPPY, 'hex'))).toString('hex'), HAND_PUSH);
});

void test('a hand-made snappy block without Content-Encoding is decompressed and parsed', () => {
  const [e] = parseLokiPush(Buffer.from(HAND_SNAPPY, 'hex'), PROTO_CT, NOW_NS).batch.logs;
  assert.deepEqual(e, {
    timeNs: 1_000_000_002n, observedNs: NOW_NS, service: '', severity: '', msg: 'x', traceId: '', spanId: '',
    stream: '{a="b"}', fields: { a: 'b' },
  });
});

void test('the JSON push: labels and structured metadata as fields, sorted _stream, service from service_name or job', () => {
  const parsed = parseLokiPush(fixture('loki-push.json'), JSON_CT, NOW_NS);
  assert.equal(parsed.signal, 'logs');
  const [a, b, c] = parsed.batch.logs;
  assert.deepEqual(a, {
    timeNs: 1700000000123456789n, observedNs: NOW_NS, service: 'api', severity: 'info', msg: 'GET /orders 200',
    traceId: '', spanId: '', stream: '{env="prod",job="api",level="info"}', fields: { job: 'api', env: 'prod', level: 'info' },
  });
  assert.equal(b?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.deepEqual(b.fields, { job: 'api', env: 'prod', level: 'info', trace_id: '4BF92F3577B34DA6A3CE929D0E0E4736', duration_ms: '812' });
  assert.equal(c?.service, 'worker');
  assert.equal(c.timeNs, NOW_NS, 'an empty timestamp means now');
  assert.equal(c.stream, '{job="batch",pod="w-\\"1\\"",service_name="worker"}');
});

void test('a label wins over metadata of the same name in the fields; level and ids are read from the metadata first', () => {
  const body = Buffer.from(JSON.stringify({ streams: [{
    stream: { service: 'svc', level: 'info', zone: 'a', trace_id: '0'.repeat(31) + '1' },
    values: [['1', 'line', { level: 'error', extra: 'x', zone: 'meta', span_id: 'ABCDEF0123456789' }]],
  }] }));
  const [e] = parseLokiPush(body, JSON_CT, NOW_NS).batch.logs;
  assert.ok(e);
  assert.equal(e.service, 'svc');
  assert.equal(e.severity, 'error');
  assert.equal(e.traceId, '0'.repeat(31) + '1');
  assert.equal(e.spanId, 'abcdef0123456789');
  assert.deepEqual(Object.entries(e.fields), [
    ['level', 'info'], ['extra', 'x'], ['zone', 'a'], ['span_id', 'ABCDEF0123456789'], ['trace_id', '0'.repeat(31) + '1'],
  ]);
});

void test('the legacy labels/entries shape with RFC 3339 times is read too', () => {
  const logs = parseLokiPush(fixture('loki-legacy.json'), JSON_CT, NOW_NS).batch.logs;
  assert.deepEqual(logs.map((e) => [e.timeNs, e.msg, e.stream, e.service]), [
    [1714564800500000000n, 'from promtail 1.x', '{host="h-1",job="legacy"}', 'legacy'],
    [1714564801000000000n, 'second', '{host="h-1",job="legacy"}', 'legacy'],
  ]);
});

void test('a snappy protobuf push (as Promtail/Alloy/winston-loki send it) gives the same entries as its JSON twin', () => {
  const push = encodePush({ streams: [
    { labels: '{job="api", env="prod", level="info"}', entries: [
      { timestamp: { seconds: 1700000000, nanos: 123456789 }, line: 'GET /orders 200' },
      { timestamp: { seconds: 1700000001, nanos: 0 }, line: 'slow query',
        structuredMetadata: [{ name: 'trace_id', value: '4BF92F3577B34DA6A3CE929D0E0E4736' }, { name: 'duration_ms', value: '812' }] },
    ] },
  ] });
  const fromProto = parseLokiPush(Buffer.from(snappy.compress(push)), PROTO_CT, NOW_NS).batch.logs;
  const fromJson = parseLokiPush(fixture('loki-push.json'), JSON_CT, NOW_NS).batch.logs.slice(0, 2);
  assert.deepEqual(fromProto, fromJson);
});

void test('when Content-Encoding was set the pipeline already decoded the body: it is not decompressed twice', () => {
  const push = encodePush({ streams: [{ labels: '{job="x"}', entries: [{ line: 'once' }] }] });
  const [e] = parseLokiPush(push, { ...PROTO_CT, 'content-encoding': 'snappy' }, NOW_NS).batch.logs;
  assert.equal(e?.msg, 'once');
  assert.equal(e.timeNs, NOW_NS, 'no timestamp → now');
  // Still snappy after the pipeline's pass would mean it was compressed twice by the sender: refused.
  return rejects400(() => parseLokiPush(Buffer.from(snappy.compress(push)), { ...PROTO_CT, 'content-encoding': 'snappy' }, NOW_NS),
    /does not decode as PushRequest/);
});

void test('an uncompressed protobuf push without Content-Encoding is accepted as it is', () => {
  const push = encodePush({ streams: [{ labels: '{service="s"}', entries: [{ line: 'plain' }] }] });
  const [e] = parseLokiPush(push, PROTO_CT, NOW_NS).batch.logs;
  assert.equal(e?.msg, 'plain');
  assert.equal(e.service, 's');
  assert.deepEqual(e.fields, {}, 'the service label is the service column, not a field');
});

void test('a snappy body that would decode past the cap is 413 before decoding', () => {
  const push = encodePush({ streams: [{ labels: '{a="b"}', entries: [{ line: 'y'.repeat(5000) }] }] });
  assert.throws(() => createLokiFormat(1000).parse(Buffer.from(snappy.compress(push)), request({ headers: PROTO_CT })),
    (e: unknown) => e instanceof ServiceError && e.status === 413 && /over the limit of 1000 bytes/.test(e.detail));
});

void test('the reply is 200 {"status":"ok","accepted":N} (any 2xx is success for Loki clients)', async () => {
  const parsed = await lokiFormat.parse(fixture('loki-push.json'), request({ headers: JSON_CT }));
  const r = await replyOf(lokiFormat, parsed);
  assert.equal(r.status, 200);
  assert.deepEqual(json(r.body), { status: 'ok', accepted: 3 });
});

void test('/ready answers 200 ready', async () => {
  const r = await roundTrip(lokiReadyHandler);
  assert.equal(r.status, 200);
  assert.equal(r.body.toString(), 'ready\n');
});

void test('without a Content-Type: JSON is sniffed, and a snappy block that happens to start with { is still protobuf', () => {
  assert.equal(parseLokiPush(fixture('loki-push.json'), {}, NOW_NS).batch.logs.length, 3);
  let line = '';
  let push = encodePush({ streams: [{ labels: '{a="b"}', entries: [{ line }] }] });
  while (push.length < 123) push = encodePush({ streams: [{ labels: '{a="b"}', entries: [{ line: (line += 'z') }] }] });
  const compressed = Buffer.from(snappy.compress(push));
  assert.equal(compressed[0], 0x7b, 'the length varint 123 is the byte {');
  assert.equal(parseLokiPush(compressed, {}, NOW_NS).batch.logs[0]?.msg, line);
});

void test('an empty body is an empty push', () => {
  assert.equal(parseLokiPush(Buffer.alloc(0), PROTO_CT, NOW_NS).batch.logs.length, 0);
});

void test('malformed pushes are 400 with the path of the bad element', async () => {
  const bad = (v: unknown) => Buffer.from(JSON.stringify(v));
  await rejects400(() => parseLokiPush(Buffer.from('{"streams":[SECRET'), JSON_CT, NOW_NS), /not valid JSON/, 'SECRET');
  await rejects400(() => parseLokiPush(bad([1]), JSON_CT, NOW_NS), /must be an object with "streams"/);
  await rejects400(() => parseLokiPush(bad({ streams: {} }), JSON_CT, NOW_NS), /"streams" must be an array/);
  await rejects400(() => parseLokiPush(bad({ streams: [{ stream: 'job=x', values: [] }] }), JSON_CT, NOW_NS), /streams\[0\]\.stream must be an object/);
  await rejects400(() => parseLokiPush(bad({ streams: [{ stream: {}, values: [['1']] }] }), JSON_CT, NOW_NS), /streams\[0\]\.values\[0\] must be \[timestamp, line\]/);
  await rejects400(() => parseLokiPush(bad({ streams: [{ stream: {}, values: [['soon', 'x']] }] }), JSON_CT, NOW_NS), /values\[0\]: invalid timestamp/);
  await rejects400(() => parseLokiPush(bad({ streams: [{ stream: {}, values: [['1', 'x', 'meta']] }] }), JSON_CT, NOW_NS), /structured metadata must be an object/);
  await rejects400(() => parseLokiPush(bad({ streams: [{ labels: '{a=b}', entries: [] }] }), JSON_CT, NOW_NS), /streams\[0\]\.labels: invalid stream labels at character 4/);
  const badLabels = encodePush({ streams: [{ labels: '{job=~"x"}', entries: [{ line: 'x' }] }] });
  await rejects400(() => parseLokiPush(Buffer.from(snappy.compress(badLabels)), PROTO_CT, NOW_NS), /streams\[0\]\.labels: .*must use '='/);
  await rejects400(() => parseLokiPush(Buffer.from('\x00\xff garbage'), PROTO_CT, NOW_NS), /neither a snappy-compressed nor a plain PushRequest/);
});
