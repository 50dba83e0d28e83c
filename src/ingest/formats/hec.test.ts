import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../errors.js';
import type { LogEntry } from '../../model/log-entry.js';
import { hecErrorFields, hecEventFormat, hecRawFormat, scanJsonObjects } from './hec.js';
import { hecAckHandler, hecHealthHandler } from './hec-companions.js';
import { NOW_NS, fakeContext, fixture, formatRequest } from './shipper-test-support.js';

const S = 1_000_000_000n;
const badRequest = (detail: RegExp) => (e: unknown) => e instanceof ServiceError && e.status === 400 && detail.test(e.detail);

async function events(body: Buffer | string): Promise<LogEntry[]> {
  return (await hecEventFormat.parse(Buffer.isBuffer(body) ? body : Buffer.from(body), formatRequest({ path: '/services/collector/event' }))).batch.logs;
}

async function raw(body: string, query: string): Promise<LogEntry[]> {
  return (await hecRawFormat.parse(Buffer.from(body), formatRequest({ path: '/services/collector/raw', query }))).batch.logs;
}

void test('concatenated HEC events (Splunk doc examples): with and without whitespace between', async () => {
  const logs = await events(fixture('hec/concatenated.txt'));
  assert.deepEqual(logs.map((e) => e.msg), [
    'Pony 1 has left the barn', 'Pony 2 has left the barn', 'Pony 3 has left the barn', 'Something happened',
    'a string with } and { and "quotes" and \\ backslash',
  ]);
  const [, , , full, last] = logs;
  assert.deepEqual([full?.timeNs, full?.service, full?.severity], [1426279439n * S, 'random-data-generator', 'INFO']);
  assert.deepEqual(full?.fields, {
    host: 'localhost', source: 'random-data-generator', sourcetype: 'my_sample_data', index: 'main', region: 'us-west-1', datacenter: '["us-west-1a","us-west-1b"]',
  });
  assert.equal(last?.timeNs, 1426279439n * S + 123_000_000n, 'time as a string of epoch seconds');
  assert.equal(logs[0]?.timeNs, NOW_NS);
});

void test('a key named __proto__ in an event or its fields is kept as data, like any other key', async () => {
  const [e] = await events('{"event":{"message":"m","__proto__":"from event","a":1},"fields":{"__proto__":"from fields","b":2}}');
  assert.equal(Object.getPrototypeOf(e?.fields), Object.prototype);
  assert.deepEqual(Object.keys(e?.fields ?? {}), ['__proto__', 'a', 'b']);
  assert.equal(Object.getOwnPropertyDescriptor(e?.fields, '__proto__')?.value, 'from fields', 'fields{} wins, as for any key');
  const [only] = await events('{"event":{"message":"m","__proto__":"kept"}}');
  assert.equal(Object.getOwnPropertyDescriptor(only?.fields, '__proto__')?.value, 'kept');
});

void test('an object event without message/log/line keeps its JSON text as the message and its keys as fields', async () => {
  const [obj, log, line, num] = await events('{"event":{"a":1,"b":{"c":"d"}}}{"event":{"log":"from log"}}{"event":{"line":"from line"},"fields":{"service":"svc"}}{"event":42}');
  assert.deepEqual([obj?.msg, obj?.fields], ['{"a":1,"b":{"c":"d"}}', { a: 1, 'b.c': 'd' }]);
  assert.deepEqual([log?.msg, line?.msg, line?.service, num?.msg], ['from log', 'from line', 'svc', '42']);
});

void test('a JSON array of events is accepted too', async () => {
  assert.deepEqual((await events('[{"event":"a"},{"event":"b"}]')).map((e) => e.msg), ['a', 'b']);
});

void test('HEC event errors name the event number', async () => {
  await assert.rejects(events('{"event":"a"}{"event":"b"}{"time":1}'), badRequest(/^Event field is required \(event 3\)$/));
  await assert.rejects(events('{"event":""}'), badRequest(/Event field cannot be blank \(event 1\)/));
  await assert.rejects(events('{"event":"a"} x'), badRequest(/expected a JSON object at event 2/));
  await assert.rejects(events('{"event":"a"}{"event":"b'), badRequest(/event 2 is incomplete/));
  await assert.rejects(events('{"event":"a",}'), badRequest(/event 1 is not valid JSON/));
  await assert.rejects(events('{"event":"a","time":"soon"}'), badRequest(/Invalid time: expected epoch seconds \(event 1\)/));
});

void test('raw: each line is an event, metadata from the query, the channel tolerated', async () => {
  const logs = await raw('line one\r\nline two\n\n', 'channel=0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba&sourcetype=access_combined&source=nginx&host=web-1&index=main&time=1700000000.5');
  assert.deepEqual(logs.map((e) => [e.msg, e.service, e.timeNs]), [['line one', 'nginx', 1700000000n * S + 500_000_000n], ['line two', 'nginx', 1700000000n * S + 500_000_000n]]);
  assert.deepEqual(logs[0]?.fields, { host: 'web-1', source: 'nginx', sourcetype: 'access_combined', index: 'main' });
  assert.equal((await raw('x', ''))[0]?.timeNs, NOW_NS);
  await assert.rejects(raw('x', 'time=yesterday'), badRequest(/Invalid time query parameter/));
});

void test('the success reply is HEC-shaped and carries the spec fields', async () => {
  const parsed = await hecEventFormat.parse(Buffer.from('{"event":"a"}'), formatRequest());
  for (const format of [hecEventFormat, hecRawFormat]) {
    const { ctx, out } = fakeContext();
    format.reply?.(ctx, 1, parsed);
    assert.deepEqual([out.status, out.json()], [200, { text: 'Success', code: 0, status: 'ok', accepted: 1 }]);
  }
});

void test('health and ack companions', async () => {
  const health = fakeContext('GET', '/services/collector/health');
  await hecHealthHandler(health.ctx);
  assert.deepEqual([health.out.status, health.out.json()], [200, { text: 'HEC is healthy', code: 17 }]);
  const ack = fakeContext('POST', '/services/collector/ack', '{"acks":[0,1,7]}');
  await hecAckHandler(ack.ctx);
  assert.deepEqual([ack.out.status, ack.out.json()], [200, { acks: { 0: true, 1: true, 7: true } }]);
  const bad = fakeContext('POST', '/services/collector/ack', '{"ack":1}');
  await hecAckHandler(bad.ctx);
  assert.equal(bad.out.status, 400);
  assert.match((bad.out.json() as { detail: string }).detail, /Ack query must be a JSON object/);
});

const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
const separator = fc.constantFrom('', ' ', '\n', '\r\n', '\t \n');

void test('property: the scanner splits any concatenation of JSON objects back into those objects', () => {
  fc.assert(fc.property(fc.array(fc.tuple(jsonObject, separator), { maxLength: 10 }), separator, (items, lead) => {
    const texts = items.map(([o]) => JSON.stringify(o));
    const body = lead + items.map(([, sep], i) => `${texts[i] ?? ''}${sep}`).join('');
    assert.deepEqual(scanJsonObjects(body), texts);
  }));
});

void test('property: the scanner answers any text with objects or a 400, nothing else', () => {
  fc.assert(fc.property(fc.string({ maxLength: 100, unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', 'a', ' ', ':', ',') }), (text) => {
    try {
      for (const objText of scanJsonObjects(text)) assert.equal(objText[0], '{');
    } catch (e) {
      assert.ok(e instanceof ServiceError && e.status === 400);
    }
  }));
});

void test('HEC error fields: every refusal carries a non-zero Splunk code, so HEC clients never read it as success', () => {
  for (const status of [400, 401, 403, 413, 429, 500, 503]) {
      const f = hecErrorFields({ status });
      assert.notEqual(f.code, 0, `status ${status}`);
      assert.equal(typeof f.text, 'string');
    }
    assert.deepEqual(hecErrorFields({ status: 401 }), { text: 'Token is required', code: 2 });
});
