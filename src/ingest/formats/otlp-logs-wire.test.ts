// Reading OTLP protobuf logs from the wire (otlp-logs-wire.ts) gives exactly protoLogEntries's entries, or leaves the
// body to the decoder: generated requests, bodies no exporter writes (fields given twice), and mutated bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { protoLogEntries } from './otlp-logs-proto.js';
import { wireLogEntries, wireLogWindows } from './otlp-logs-wire.js';
import { logsRequests } from './otlp-test-requests.js';
import { OtlpTypes, encodeMessage } from './otlp-proto.js';
import { mulberry32 } from '../../testing/prng.js';

const NOW = 1_800_000_000_000_000_000n;
const { ExportLogsServiceRequest: Request } = OtlpTypes;

const show = (request: unknown) => JSON.stringify(request, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('hex') : v));

void test('generated requests read from the wire give protoLogEntries\'s entries (2,000 requests, none left to the decoder)', () => {
  const nextRequest = logsRequests(11);
  for (let n = 0; n < 2_000; n++) {
    const request = nextRequest();
    const body = encodeMessage(Request, request);
    assert.deepEqual(wireLogEntries(body, NOW), protoLogEntries(Request.decode(body), NOW), `request ${n}: ${show(request)}`);
  }
});

/** `body` with the raw field `field` (wire type 2) holding `bytes` appended to the message at [start, end). */
function withField(body: Buffer, field: number, bytes: Buffer): Buffer {
  const w = protobuf.Writer.create();
  w.uint32((field << 3) | 2).bytes(bytes);
  return Buffer.concat([body, Buffer.from(w.finish())]);
}

void test('a message field or AnyValue member given twice is left to the decoder, from that record on', () => {
  const value = (v: Record<string, unknown>) => encodeMessage(OtlpTypes.AnyValue, v);
  const record = (extra: Buffer) => withField(encodeMessage(OtlpTypes.LogRecord, { body: { stringValue: 'first' } }), 5, extra);
  const requestOf = (logRecord: Buffer) => {
    const scopeLogs = withField(Buffer.alloc(0), 2, logRecord);
    const resourceLogs = withField(Buffer.alloc(0), 2, scopeLogs);
    return withField(Buffer.alloc(0), 1, resourceLogs);
  };
  // A second body: protobufjs decodes it into the first message (here the later member wins; lists would be joined).
  const twiceRecord = record(value({ intValue: 5 }));
  const twice = requestOf(twiceRecord);
  assert.equal(protoLogEntries(Request.decode(twice), NOW)[0]?.msg, '5');
  assert.deepEqual(wireLogEntries(twice, NOW), protoLogEntries(Request.decode(twice), NOW));
  // Two members in one AnyValue.
  const twoMembersRecord = withField(Buffer.alloc(0), 5, Buffer.concat([value({ stringValue: 'a' }), value({ boolValue: true })]));
  const twoMembers = requestOf(twoMembersRecord);
  assert.deepEqual(wireLogEntries(twoMembers, NOW), protoLogEntries(Request.decode(twoMembers), NOW));
  // The plain request reads.
  assert.equal(wireLogEntries(requestOf(encodeMessage(OtlpTypes.LogRecord, { body: { stringValue: 'only' } })), NOW)?.[0]?.msg, 'only');

  // Among plain records, read in windows of two: the windows before it come from the wire, and from the record that
  // is not plain on, the decoder's entries; together exactly the decoder's, in order.
  const plain = (n: number) => encodeMessage(OtlpTypes.LogRecord, { body: { stringValue: `plain ${n}` }, attributes: [{ key: 'n', value: { intValue: n } }] });
  let scopeLogs: Buffer = Buffer.alloc(0);
  for (const r of [plain(0), plain(1), plain(2), twiceRecord, plain(4), twoMembersRecord, plain(6)]) scopeLogs = withField(scopeLogs, 2, r);
  const mixed = withField(Buffer.alloc(0), 1, withField(Buffer.alloc(0), 2, scopeLogs));
  const windows = wireLogWindows(mixed, NOW, 2);
  assert.ok(windows !== null);
  const sizes = [...windows].map((w) => w.length);
  assert.deepEqual(sizes, [2, 2, 2, 1]);
  assert.deepEqual([...windows].flat(), protoLogEntries(Request.decode(mixed), NOW));
  assert.deepEqual([...windows].flat().map((e) => e.msg), ['plain 0', 'plain 1', 'plain 2', '5', 'plain 4', 'true', 'plain 6']);
});

void test('mutated bodies: where the decoder reads one, the wire gives its entries or leaves it to the decoder (4,000 bodies)', () => {
  const nextRequest = logsRequests(5);
  const rnd = mulberry32(3);
  let compared = 0;
  for (let n = 0; n < 4_000; n++) {
    const bytes = Buffer.from(encodeMessage(Request, nextRequest()));
    for (let k = 0; k < 1 + Math.floor(rnd() * 2) && bytes.length > 0; k++) bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
    let want;
    try {
      want = protoLogEntries(Request.decode(bytes), NOW);
    } catch {
      continue;
    }
    const got = wireLogEntries(bytes, NOW);
    if (got === null) continue;
    compared++;
    assert.deepEqual(got, want, `body ${bytes.toString('hex')}`);
    assert.deepEqual([...(wireLogWindows(bytes, NOW, 3) ?? [])].flat(), want, `body ${bytes.toString('hex')}, windows of 3`);
    // A body known to have passed the walk (FormatRequest.bodyWalked) reads the same without it.
    assert.deepEqual([...(wireLogWindows(bytes, NOW, 3, true) ?? [])].flat(), want, `body ${bytes.toString('hex')}, walked`);
  }
  assert.ok(compared > 400, `${compared} mutated bodies were read from the wire and compared`);
});
