// OTLP logs (wire-formats.md §3.2): the spec's JSON example, the same data as protobuf from our encoder,
// the JSON quirks, partial success, and the replies in the request's encoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countOtlpLogs, otlpLogWindows, otlpLogsFormat, parseOtlpLogs } from './otlp-logs.js';
import { OtlpTypes, encodeMessage } from './otlp-proto.js';
import { fixture, json, NOW_NS, outcome, rejects400, replyOf } from '../../../test/fixtures/ingest-formats/kit.js';

const JSON_CT = { 'content-type': 'application/json' };
const PROTO_CT = { 'content-type': 'application/x-protobuf' };

/** The OTLP/JSON tree as protobufjs input: hex ids become bytes (OTLP/JSON ids are hex, §3.2 quirk 2). */
function protoReady(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(protoReady);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) =>
    [k, /^(traceId|spanId|parentSpanId)$/.test(k) && typeof x === 'string' ? Buffer.from(x, 'hex') : protoReady(x)]));
}

function protoBody(tree: unknown): Buffer {
  return encodeMessage(OtlpTypes.ExportLogsServiceRequest, protoReady(tree) as Record<string, unknown>);
}

const EXAMPLE_ENTRY = {
  timeNs: 1544712660300000000n,
  observedNs: NOW_NS,
  service: 'my.service',
  severity: 'Information',
  msg: 'Example log record',
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: 'eee19b7ec3c1b174',
  stream: '',
  fields: {
    'service.name': 'my.service',
    'otel.scope.name': 'my.library',
    'otel.scope.version': '1.0.0',
    'otel.scope.attributes.my.scope.attribute': 'some scope attribute',
    'string.attribute': 'some string',
    'boolean.attribute': true,
    'int.attribute': 10,
    'double.attribute': 637.704,
    'array.attribute': '["many","values"]',
    'map.attribute.some.map.key': 'some value',
    'otel.severity_number': 10,
  },
};

void test('the OTLP spec JSON example becomes one flat entry', () => {
  const parsed = parseOtlpLogs(fixture('otlp-logs.json'), JSON_CT, NOW_NS);
  assert.deepEqual(parsed.batch.logs, [EXAMPLE_ENTRY]);
  assert.equal(parsed.signal, 'logs');
});

void test('the same data as protobuf gives the same entry', () => {
  const body = protoBody(json(fixture('otlp-logs.json')));
  assert.deepEqual(parseOtlpLogs(body, PROTO_CT, NOW_NS).batch.logs, [EXAMPLE_ENTRY]);
  assert.deepEqual(parseOtlpLogs(body, {}, NOW_NS).batch.logs, [EXAMPLE_ENTRY], 'no Content-Type: sniffed as protobuf');
});

void test('without a Content-Type a body starting with { is JSON', () => {
  const body = Buffer.concat([Buffer.from('  \n'), fixture('otlp-logs.json')]);
  assert.equal(parseOtlpLogs(body, {}, NOW_NS).batch.logs.length, 1);
});

void test('snake_case keys, enum names, base64 ids and numeric 64-bit values are read leniently', () => {
  const body = Buffer.from(JSON.stringify({
    resource_logs: [{
      resource: { attributes: [{ key: 'service.name', value: { string_value: 'svc' } }] },
      scope_logs: [{ log_records: [{
        time_unix_nano: 1700000000000000, severity_number: 'SEVERITY_NUMBER_WARN',
        trace_id: 'S/kvNXezTaajzpKdDg5HNg==', span_id: 'APBnqgupArc=',
        body: { int_value: 42 }, attributes: [{ key: 'big', value: { int_value: '9007199254740993' } },
          { key: 'nan', value: { double_value: 'NaN' } }, { key: 'raw', value: { bytes_value: 'AAE=' } }],
      }] }],
    }],
  }));
  const [e] = parseOtlpLogs(body, JSON_CT, NOW_NS).batch.logs;
  assert.ok(e);
  assert.equal(e.timeNs, 1700000000000000n);
  assert.equal(e.severity, 'WARN');
  assert.equal(e.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(e.spanId, '00f067aa0ba902b7');
  assert.equal(e.msg, '42');
  assert.equal(e.fields.big, '9007199254740993', 'past 2^53 an int stays exact as text');
  assert.equal(e.fields.nan, 'NaN');
  assert.equal(e.fields.raw, 'AAE=');
  assert.equal(e.service, 'svc');
});

void test('time falls back to observed time, then to the time of receipt; severity text to the number name', () => {
  const body = Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [
    { observedTimeUnixNano: '1700000000000000005', severityNumber: 18, body: { kvlistValue: { values: [{ key: 'a', value: { intValue: '1' } }] } } },
    { timeUnixNano: '0', body: { arrayValue: { values: [{ boolValue: false }, {}] } }, eventName: 'browser.click' },
  ] }] }] }));
  const [a, b] = parseOtlpLogs(body, JSON_CT, NOW_NS).batch.logs;
  assert.ok(a && b);
  assert.equal(a.timeNs, 1700000000000000005n);
  assert.equal(a.severity, 'ERROR2');
  assert.equal(a.msg, '{"a":1}');
  assert.equal(b.timeNs, NOW_NS);
  assert.equal(b.severity, '');
  assert.equal(b.msg, '[false,null]');
  assert.equal(b.fields['event.name'], 'browser.click');
  assert.equal(a.service, '', 'no service.name → no service');
});

void test('browser resources (telemetry.sdk.language=webjs) are metered as rum, mixed requests as logs', () => {
  const res = (lang: string) => ({ resource: { attributes: [{ key: 'telemetry.sdk.language', value: { stringValue: lang } }] },
    scopeLogs: [{ logRecords: [{ body: { stringValue: 'x' } }] }] });
  const one = Buffer.from(JSON.stringify({ resourceLogs: [res('webjs')] }));
  const mixed = Buffer.from(JSON.stringify({ resourceLogs: [res('webjs'), res('nodejs')] }));
  assert.equal(parseOtlpLogs(one, JSON_CT, NOW_NS).signal, 'rum');
  assert.equal(parseOtlpLogs(protoBody(json(one)), PROTO_CT, NOW_NS).signal, 'rum');
  assert.equal(parseOtlpLogs(mixed, JSON_CT, NOW_NS).signal, 'logs');
});

void test('an unreadable id is dropped but the record is kept; an attribute named __proto__ is data', () => {
  const body = Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [
    { traceId: 'not-an-id', spanId: '0000000000000000', body: { stringValue: 'x' },
      attributes: [{ key: '__proto__', value: { stringValue: 'p' } }] },
  ] }] }] }));
  const [e] = parseOtlpLogs(body, JSON_CT, NOW_NS).batch.logs;
  assert.ok(e);
  assert.equal(e.traceId, '');
  assert.equal(e.spanId, '');
  assert.equal(Object.getOwnPropertyDescriptor(e.fields, '__proto__')?.value, 'p');
});

void test('an attribute named __proto__ whose value is a list is kept as its JSON text, like any other list', () => {
  const tree = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'x' },
    attributes: [{ key: '__proto__', value: { arrayValue: { values: [{ intValue: 1 }, { stringValue: 'b' }] } } }] }] }] }] };
  for (const [b, ct] of [[Buffer.from(JSON.stringify(tree)), JSON_CT], [protoBody(tree), PROTO_CT]] as const) {
    const [e] = parseOtlpLogs(b, ct, NOW_NS).batch.logs;
    assert.equal(Object.getOwnPropertyDescriptor(e?.fields, '__proto__')?.value, '[1,"b"]');
  }
});

void test('a resource attribute named __proto__ is copied into each record as data (copyFields), in both encodings', () => {
  const body = Buffer.from(JSON.stringify({ resourceLogs: [{
    resource: { attributes: [{ key: '__proto__', value: { stringValue: 'r' } }, { key: 'service.name', value: { stringValue: 's' } }] },
    scopeLogs: [{ logRecords: [{ body: { stringValue: 'a' } }, { body: { stringValue: 'b' } }] }],
  }] }));
  for (const [b, ct] of [[body, JSON_CT], [protoBody(json(body)), PROTO_CT]] as const) {
    const logs = parseOtlpLogs(b, ct, NOW_NS).batch.logs;
    assert.equal(logs.length, 2);
    for (const e of logs) {
      assert.equal(Object.getPrototypeOf(e.fields), Object.prototype);
      assert.equal(Object.getOwnPropertyDescriptor(e.fields, '__proto__')?.value, 'r');
      assert.deepEqual(Object.keys(e.fields), ['__proto__', 'service.name']);
    }
  }
});

void test('records that cannot become entries are counted in partial_success, the rest are kept', async () => {
  const body = Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [
    5, { timeUnixNano: 'yesterday', body: { stringValue: 'bad time' } }, { body: { stringValue: 'ok' } },
  ] }] }] }));
  const parsed = parseOtlpLogs(body, JSON_CT, NOW_NS);
  assert.deepEqual(parsed.batch.logs.map((e) => e.msg), ['ok']);
  const r = await replyOf(otlpLogsFormat, parsed);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(json(r.body), {
    partialSuccess: { rejectedLogRecords: '2', errorMessage: '2 log records rejected; first: a log record is not an object' },
    status: 'ok', accepted: 1,
  });
});

void test('a JSON request gets {} plus status/accepted; a protobuf request gets protobuf bytes', async () => {
  const jsonReply = await replyOf(otlpLogsFormat, parseOtlpLogs(fixture('otlp-logs.json'), JSON_CT, NOW_NS));
  assert.deepEqual(json(jsonReply.body), { status: 'ok', accepted: 1 });

  const protoReply = await replyOf(otlpLogsFormat, parseOtlpLogs(protoBody(json(fixture('otlp-logs.json'))), PROTO_CT, NOW_NS));
  assert.equal(protoReply.status, 200);
  assert.equal(protoReply.headers.get('content-type'), 'application/x-protobuf');
  assert.equal(protoReply.body.length, 0, 'an empty ExportLogsServiceResponse is zero bytes');

  const bad = protoBody({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'x' } }] }] }] });
  const parsed = parseOtlpLogs(bad, PROTO_CT, NOW_NS);
  (parsed.replyData as { rejected: number; errorMessage: string }).rejected = 1; // as if one record had failed
  (parsed.replyData as { rejected: number; errorMessage: string }).errorMessage = 'why';
  const withPartial = await replyOf(otlpLogsFormat, parsed);
  const t = OtlpTypes.ExportLogsServiceResponse;
  assert.deepEqual(t.toObject(t.decode(withPartial.body), { longs: String }),
    { partialSuccess: { rejectedLogRecords: '1', errorMessage: 'why' } });
});

void test('a malformed value inside a record is read as empty rather than failing the request', () => {
  const body = Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [
    { body: { arrayValue: { values: 5 } }, attributes: [{ key: 'm', value: { kvlistValue: { values: 'x' } } }, 7, { key: 'n' }] },
  ] }] }] }));
  const [e] = parseOtlpLogs(body, JSON_CT, NOW_NS).batch.logs;
  assert.equal(e?.msg, '[]');
  assert.deepEqual(e.fields, { m: '{}', n: null });
});

void test('an empty protobuf body is a valid empty request', () => {
  assert.equal(parseOtlpLogs(Buffer.alloc(0), PROTO_CT, NOW_NS).batch.logs.length, 0);
});

void test('malformed bodies are 400 with a detail that names the problem and not the body', async () => {
  await rejects400(() => parseOtlpLogs(Buffer.from('{"resourceLogs": [SECRET'), JSON_CT, NOW_NS), /not valid JSON/, 'SECRET');
  await rejects400(() => parseOtlpLogs(Buffer.from('[1,2]'), JSON_CT, NOW_NS), /must be a ExportLogsServiceRequest object/);
  await rejects400(() => parseOtlpLogs(Buffer.from('{"resourceLogs":{"a":1}}'), JSON_CT, NOW_NS), /request\.resourceLogs must be an array/);
  await rejects400(() => parseOtlpLogs(Buffer.from('{"resourceLogs":[7]}'), JSON_CT, NOW_NS), /resourceLogs\[0\] must be an object/);
  await rejects400(() => parseOtlpLogs(Buffer.from([0x0a, 0xff]), PROTO_CT, NOW_NS), /does not decode as ExportLogsServiceRequest/);
  await rejects400(() => parseOtlpLogs(Buffer.from('not otlp at all'), PROTO_CT, NOW_NS), /does not decode/);
});

void test('countOtlpLogs (the request thread when the WAL keeps the body) gives what parseOtlpLogs does, or its refusal', () => {
  const res = (lang: string | null, records: unknown[]) => ({
    resource: lang === null ? undefined : { attributes: [
      { key: 'telemetry.sdk.language', value: { stringValue: 'nodejs' } }, { key: 'telemetry.sdk.language', value: { stringValue: lang } },
    ] },
    scopeLogs: [{ scope: { name: 's' }, logRecords: records }, { logRecords: [] }],
  });
  const rec = (i: number) => ({ timeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i)), body: { stringValue: `m${i}` },
    severityNumber: 9, traceId: Buffer.alloc(16, i + 1).toString('hex'), attributes: [{ key: 'k', value: { intValue: i } }] });
  const trees = [
    {}, { resourceLogs: [] }, { resourceLogs: [res('webjs', [rec(1), rec(2)])] }, { resourceLogs: [res('webjs', [rec(1)]), res('nodejs', [rec(2)])] },
    { resourceLogs: [res(null, [rec(1), rec(2), rec(3)]), res('webjs', [])] }, { resourceLogs: [res(null, [])] },
    { resourceLogs: [res('webjs', [{}, { timeUnixNano: '18446744073709551615' }])] },
  ];
  const bodies: { body: Buffer; headers: Record<string, string> }[] = [];
  for (const tree of trees) {
    bodies.push({ body: protoBody(tree), headers: PROTO_CT });
    bodies.push({ body: Buffer.from(JSON.stringify(tree)), headers: JSON_CT });
  }
  bodies.push({ body: Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [5, { timeUnixNano: 'x' }, {}] }] }] })), headers: JSON_CT });
  bodies.push({ body: Buffer.from('{"resourceLogs":[7]}'), headers: JSON_CT }, { body: Buffer.from([0x0a, 0xff]), headers: PROTO_CT });
  // Bodies cut short and bytes flipped: whatever protobufjs makes of them, count must make the same.
  const whole = protoBody(trees[3] ?? {});
  let seed = 12;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let i = 0; i < 300; i++) {
    const b = Buffer.from(whole.subarray(0, i % 3 === 0 ? rnd(whole.length) : whole.length));
    if (b.length > 0) for (let k = 0; k < 1 + rnd(3); k++) b[rnd(b.length)] = rnd(256);
    bodies.push({ body: b, headers: PROTO_CT });
  }
  let refused = 0;
  for (const { body, headers } of bodies) {
    const parsed = outcome(() => {
      const p = parseOtlpLogs(body, headers, NOW_NS);
      return { entries: p.batch.logs.length, signal: p.signal, replyData: p.replyData };
    });
    assert.equal(outcome(() => countOtlpLogs(body, headers, NOW_NS)), parsed, `body ${body.toString('hex').slice(0, 80)}`);
    if (!parsed.startsWith('ok')) refused++;
  }
  assert.ok(refused > 20 && refused < bodies.length - 20, `both outcomes are exercised (${refused} of ${bodies.length} refused)`);
});

void test('as windows for a store that parses as it appends (otlpLogWindows), a body gives parseOtlpLogs\'s entries', () => {
  const body = protoBody(json(fixture('otlp-logs.json')));
  const want = parseOtlpLogs(body, PROTO_CT, NOW_NS).batch.logs;
  const bad: string[] = [];
  const windows = otlpLogWindows(body, PROTO_CT, NOW_NS, want.length, (why) => bad.push(why));
  assert.equal(windows.count, want.length);
  assert.equal(windows.wholeBodySample, true);
  assert.deepEqual([...windows.windows()].flat(), want);
  assert.deepEqual([...windows.windows()].flat(), want, 'each call starts over');
  assert.deepEqual(windows.sample(want.length), want);
  // A body that no longer decodes (a parser changed since it was acknowledged) gives nothing and says why.
  const broken = otlpLogWindows(Buffer.from([0x0a, 0xff]), PROTO_CT, NOW_NS, 1, (why) => bad.push(why));
  assert.deepEqual([...broken.windows()].flat(), []);
  assert.equal(bad.length, 1);
  assert.match(bad[0] ?? '', /does not decode/);
});
