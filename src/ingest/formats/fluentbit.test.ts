import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encode, ExtensionCodec } from '@msgpack/msgpack';
import type { IncomingHttpHeaders } from 'node:http';
import { ServiceError } from '../../errors.js';
import type { LogEntry } from '../../model/log-entry.js';
import { fluentbitFormat, isMsgpack } from './fluentbit.js';
import { NOW_NS, fixture, formatRequest } from './shipper-test-support.js';

const iso = (s: string) => BigInt(Date.parse(s)) * 1_000_000n;
const badRequest = (detail: RegExp) => (e: unknown) => e instanceof ServiceError && e.status === 400 && detail.test(e.detail);

async function parse(body: Buffer | string, headers: IncomingHttpHeaders = {}): Promise<LogEntry[]> {
  return (await fluentbitFormat.parse(Buffer.isBuffer(body) ? body : Buffer.from(body), formatRequest({ headers }))).batch.logs;
}

/** Fluent's EventTime as the real encoder writes it: ext 0, big-endian uint32 seconds + uint32 nanoseconds. */
class EventTime {
  constructor(readonly sec: number, readonly nsec: number) {}
}
const codec = new ExtensionCodec();
codec.register({
  type: 0,
  encode: (v) => {
    if (!(v instanceof EventTime)) return null;
    const b = Buffer.alloc(8);
    b.writeUInt32BE(v.sec, 0);
    b.writeUInt32BE(v.nsec, 4);
    return b;
  },
  decode: () => null,
});
const pack = (...events: unknown[]) => Buffer.concat(events.map((e) => encode(e, { extensionCodec: codec })));

void test('Fluent Bit json with the default double date: exact time, log message, kubernetes fields kept', async () => {
  const [k8s, journald] = await parse(fixture('fluentbit/json-double.json'));
  assert.ok(k8s && journald);
  assert.deepEqual([k8s.timeNs, k8s.msg, k8s.service], [1714564800123456000n, 'GET /healthz 200', 'api']);
  assert.deepEqual([k8s.fields.stream, k8s.fields['kubernetes.pod_name'], k8s.fields['kubernetes.labels.app'], k8s.fields.date], ['stdout', 'api-7d9c', 'api', undefined]);
  assert.deepEqual([journald.msg, journald.severity, journald.service, journald.timeNs], ['Started Session 1 of user root.', 'info', 'systemd', 1714564801500000000n]);
  assert.equal(journald.fields._HOSTNAME, 'node-1');
});

void test('every Fluent Bit json_date_format is read', async () => {
  const cases: [string, unknown, bigint][] = [
    ['double', 1714564800.25, iso('2024-05-01T12:00:00.250Z')],
    ['epoch', 1714564800, iso('2024-05-01T12:00:00Z')],
    ['epoch_ms', 1714564800123, iso('2024-05-01T12:00:00.123Z')],
    ['iso8601', '2024-05-01T12:00:00.123456Z', iso('2024-05-01T12:00:00Z') + 123_456_000n],
    ['java_sql_timestamp', '2024-05-01 12:00:00.123456', iso('2024-05-01T12:00:00Z') + 123_456_000n],
  ];
  for (const [name, date, want] of cases) {
    const [e] = await parse(JSON.stringify([{ date, log: name }]));
    assert.equal(e?.timeNs, want, name);
    assert.equal(e.fields.date, undefined, name);
  }
});

void test('json_lines (NDJSON) and a message under message / MESSAGE / _msg', async () => {
  const logs = await parse('{"date":1714564800,"message":"m1"}\r\n\n{"MESSAGE":"m2"}\n{"_msg":"m3","log":"not this"}\n{"no":"message"}\n');
  assert.deepEqual(logs.map((e) => e.msg), ['m1', 'm2', 'm3', '']);
  assert.equal(logs[2]?.fields.log, 'not this');
  assert.equal(logs[1]?.timeNs, NOW_NS, 'no date: receive time');
});

void test('msgpack: [int, record], [float, record], [EventTime, record] and forward v1 [[EventTime, meta], record]', async () => {
  const body = pack(
    [1714564800, { log: 'int' }],
    [1714564800.5, { log: 'float' }],
    [new EventTime(1714564800, 123456789), { log: 'eventtime', nested: { a: 1 }, bin: new Uint8Array(Buffer.from('raw')) }],
    [[new EventTime(1714564801, 1), {}], { message: 'v2 empty meta' }],
    [[new EventTime(1714564802, 2), { otlp: { severity: 'x' } }], { message: 'v2 meta' }],
  );
  assert.equal(body[0], 0x92, 'fixarray of two: the sniffed first byte');
  const logs = await parse(body);
  assert.deepEqual(logs.map((e) => [e.msg, e.timeNs]), [
    ['int', 1714564800000000000n],
    ['float', 1714564800500000000n],
    ['eventtime', 1714564800123456789n],
    ['v2 empty meta', 1714564801000000001n],
    ['v2 meta', 1714564802000000002n],
  ]);
  assert.deepEqual([logs[2]?.fields['nested.a'], logs[2]?.fields.bin], [1, 'raw']);
  assert.equal(logs[4]?.fields['metadata.otlp.severity'], 'x');
});

void test('msgpack is chosen by Content-Type or by an array marker first byte', () => {
  const body = pack([1, { log: 'x' }]);
  assert.equal(isMsgpack(body, {}), true);
  assert.equal(isMsgpack(Buffer.from([0xdc, 0, 2]), {}), true);
  assert.equal(isMsgpack(Buffer.from('[{"log":"x"}]'), {}), false);
  assert.equal(isMsgpack(Buffer.from('whatever'), { 'content-type': 'application/x-msgpack' }), true);
  assert.equal(isMsgpack(Buffer.from('whatever'), { 'content-type': 'application/msgpack' }), true);
});

void test('broken msgpack is a 400 naming the event', async () => {
  const good = pack([1714564800, { log: 'a' }]);
  const truncated = Buffer.concat([good, pack([1714564800, { log: 'b'.repeat(40) }]).subarray(0, 20)]);
  await assert.rejects(parse(truncated), badRequest(/^msgpack event 2 is truncated/));
  await assert.rejects(parse(Buffer.concat([good, pack([1714564800])])), badRequest(/msgpack event 2 is not a \[timestamp, record\] array/));
  await assert.rejects(parse(pack([1714564800, 'not a map'])), badRequest(/msgpack event 1: the record is not a map/));
  await assert.rejects(parse(Buffer.from([0x91, 0xc1])), badRequest(/msgpack event 1 is not valid msgpack/));
});

void test('Logstash json_batch: message, @timestamp, ECS log.level and host object', async () => {
  const [e] = await parse(fixture('fluentbit/logstash-batch.json'));
  assert.deepEqual([e?.msg, e?.timeNs, e?.severity], ['user logged in', iso('2024-05-01T12:00:00Z'), 'INFO']);
  assert.deepEqual([e?.fields['host.name'], e?.fields['@version'], e?.fields['event.original']], ['web-1', '1', 'user logged in']);
  const [single] = await parse('{"message":"one event","@timestamp":"2024-05-01T12:00:00Z","service":{"name":"billing"}}');
  assert.deepEqual([single?.msg, single?.service], ['one event', 'billing']);
});

void test('malformed JSON is a 400 naming the line', async () => {
  await assert.rejects(parse('{"log":"a"}\n{"log":'), badRequest(/^Fluent Bit line 2 is not valid JSON$/));
  await assert.rejects(parse('[{"log":"a"},'), badRequest(/not a valid JSON array/));
});

void test('an empty body is accepted with no entries', async () => {
  assert.equal((await parse('')).length, 0);
  assert.equal((await parse('', { 'content-type': 'application/msgpack' })).length, 0);
});
