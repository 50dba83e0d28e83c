// The wire walk (proto-walk.ts) against protobufjs's decoder: it may say "not sure" of a body the decoder reads, but
// never "decodes" of one the decoder refuses, and it sees the same fields the decoder builds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { decodesCleanly } from './proto-walk.js';
import { OtlpTypes, encodeMessage } from './otlp-proto.js';

const { ExportLogsServiceRequest: Request, ScopeLogs, AnyValue } = OtlpTypes;

const value = (depth: number, i: number): Record<string, unknown> => {
  if (depth <= 0) return [{ stringValue: `é ${i} ✓` }, { intValue: -i }, { boolValue: true }, { doubleValue: i / 3 }, { bytesValue: Buffer.from([i, 255]) }][i % 5] ?? {};
  return i % 2 === 0
    ? { arrayValue: { values: [value(depth - 1, i + 1), value(depth - 1, i + 2)] } }
    : { kvlistValue: { values: [{ key: `k${i}`, value: value(depth - 1, i + 3) }] } };
};

function request(resources: number, records: number): Buffer {
  return encodeMessage(Request, {
    resourceLogs: Array.from({ length: resources }, (_r, r) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: `svc-${r}` } }], droppedAttributesCount: r },
      scopeLogs: [{ scope: { name: 'scope', version: '1' }, logRecords: Array.from({ length: records }, (_l, i) => ({
        timeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i)), observedTimeUnixNano: '1', severityNumber: i % 25,
        severityText: 'INFO', body: value(i % 4, i), attributes: [{ key: 'a', value: value(1, i) }], droppedAttributesCount: 2,
        flags: 1, traceId: Buffer.alloc(16, i), spanId: Buffer.alloc(8, i), eventName: 'e',
      })) }, { logRecords: [] }],
      schemaUrl: 'https://opentelemetry.io/schemas/1.21.0',
    })),
  });
}

/** Raw protobuf: a tag, then the bytes given. */
function field(number: number, wire: number, ...bytes: number[]): number[] {
  const out: number[] = [];
  for (let tag = number * 8 + wire; ; tag >>>= 7) {
    if (tag < 0x80) {
      out.push(tag);
      break;
    }
    out.push((tag & 0x7f) | 0x80);
  }
  return [...out, ...bytes];
}

/** A length-delimited field holding `bytes`. */
function delimited(number: number, bytes: number[]): number[] {
  return field(number, 2, bytes.length, ...bytes);
}

function decodes(body: Uint8Array, type: protobuf.Type): boolean {
  try {
    type.decode(body);
    return true;
  } catch {
    return false;
  }
}

void test('the walk sees every log record and resource the decoder builds, and nothing the decoder would refuse', () => {
  const body = request(3, 7);
  let records = 0;
  let resources = 0;
  assert.equal(decodesCleanly(body, Request, (type, number) => {
    if (type === ScopeLogs && number === 2) records++;
    if (type === OtlpTypes.ResourceLogs && number === 1) resources++;
  }), true);
  assert.equal(records, 21);
  assert.equal(resources, 3);
});

void test('a body the walk passes always decodes: 6,000 bodies cut short, with bytes flipped, inserted or removed', () => {
  const whole = request(2, 5);
  let seed = 7;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  let passed = 0;
  let decoded = 0;
  for (let i = 0; i < 6000; i++) {
    let bytes = [...whole.subarray(0, i % 4 === 0 ? rnd(whole.length) : whole.length)];
    for (let k = 0; k < 1 + rnd(3); k++) {
      const at = rnd(bytes.length + 1);
      const change = rnd(3);
      if (change === 0) bytes[at] = rnd(256);
      else if (change === 1) bytes = [...bytes.slice(0, at), rnd(256), ...bytes.slice(at)];
      else bytes = [...bytes.slice(0, at), ...bytes.slice(at + 1)];
    }
    const body = Buffer.from(bytes);
    const ok = decodes(body, Request);
    if (ok) decoded++;
    if (decodesCleanly(body, Request)) {
      passed++;
      assert.ok(ok, `the walk passed a body the decoder refuses: ${body.toString('hex')}`);
    }
  }
  // Both outcomes occur (439 of 6,000 pass), and the walk passes nearly all that decode (439 of 451; the rest have a
  // field moved onto a wrong wire type, which the decoder skips).
  assert.ok(passed > 200 && passed < 5800, `passed ${passed}`);
  assert.ok(passed >= decoded * 0.9, `passed ${passed} of ${decoded} that decode`);
});

void test('what the walk is not sure of, the decoder decides', () => {
  const cases: [string, number[], boolean][] = [
    // [what, body, does the decoder read it]
    ['an unknown field of each plain wire type', [...field(9, 0, 0x96, 0x01), ...field(9, 1, 1, 2, 3, 4, 5, 6, 7, 8), ...field(9, 5, 1, 2, 3, 4), ...field(9, 2, 2, 0x41, 0x42)], true],
    ['a group', [...field(9, 3), ...field(9, 4)], true],
    ['wire type 6', field(9, 6), false],
    ['field number 0', field(0, 0, 1), false],
    ['a known field on the wrong wire type (the decoder skips it)', field(1, 0, 5), true],
    ['a string that is not UTF-8', delimited(1, delimited(1, [0xc3, 0x28])), false],
  ];
  for (const [what, bytes, reads] of cases) {
    const body = Buffer.from(bytes);
    assert.equal(decodes(body, what.includes('string') ? ScopeLogs : Request), reads, `decoder on ${what}`);
    assert.equal(decodesCleanly(body, what.includes('string') ? ScopeLogs : Request), what.startsWith('an unknown'), what);
  }
  // The string case above is InstrumentationScope.name inside ScopeLogs.scope; valid UTF-8 there passes.
  assert.equal(decodesCleanly(Buffer.from(delimited(1, delimited(1, [0xc3, 0xa9]))), ScopeLogs), true);
});

void test('nesting deeper than the walk checks is left to the decoder', () => {
  let nested: Record<string, unknown> = { stringValue: 'x' };
  for (let i = 0; i < 40; i++) nested = { arrayValue: { values: [nested] } };
  const body = encodeMessage(AnyValue, nested);
  assert.equal(decodes(body, AnyValue), true);
  assert.equal(decodesCleanly(body, AnyValue), false);
  let shallow: Record<string, unknown> = { stringValue: 'x' };
  for (let i = 0; i < 20; i++) shallow = { arrayValue: { values: [shallow] } };
  assert.equal(decodesCleanly(encodeMessage(AnyValue, shallow), AnyValue), true);
});

void test('fields numbered past the walk\'s table are known or unknown as the type says', () => {
  const root = protobuf.parse('syntax = "proto3"; message Wide { string low = 3; string high = 100; Wide child = 200; }').root;
  const Wide = root.lookupType('Wide');
  const cases: [string, number[], boolean][] = [
    // [what, body, does the walk say it decodes]
    ['a known string numbered 100', delimited(100, [0x41]), true],
    ['a known string numbered 100 that is not UTF-8', delimited(100, [0xc3, 0x28]), false],
    ['a known string numbered 100 on a varint', field(100, 0, 1), false],
    ['a known message numbered 200, nesting', delimited(200, delimited(100, [0x42])), true],
    ['a known message numbered 200 holding bad UTF-8', delimited(200, delimited(3, [0xff])), false],
    ['unknown fields numbered 65 and 100,000', [...field(65, 0, 1), ...delimited(100_000, [0xff])], true],
  ];
  for (const [what, bytes, walks] of cases) {
    const body = Buffer.from(bytes);
    assert.equal(decodesCleanly(body, Wide), walks, what);
    if (walks) assert.ok(decodes(body, Wide), `the decoder reads ${what}`);
  }
});
