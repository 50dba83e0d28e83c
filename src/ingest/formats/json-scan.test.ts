import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonObjectDepth } from './json-scan.js';
import { mulberry32 } from '../../testing/prng.js';

/** What JSON.parse says of the bytes, decoded as the service decodes a body: the object's depth, or -1. */
function byJsonParse(bytes: Buffer): number {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return -1;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? depthOf(value) : -1;
}

function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const children = Array.isArray(v) ? (v as unknown[]) : Object.values(v);
  return 1 + children.reduce<number>((m, c) => Math.max(m, depthOf(c)), 0);
}

function scan(bytes: Buffer): number {
  return jsonObjectDepth(bytes, 0, bytes.length);
}

void test('accepts exactly the objects JSON.parse accepts: hand-picked edges', () => {
  const cases = [
    '{}', ' {} ', '\t{\r\n}\r', '{"a":1}', '{"a":[]}', '{"a":{}}', '{"a":[1,[2,[3]]]}', '{"a":-0}', '{"a":0.5e-7}',
    '{"a":1E+2}', '{"a":true,"b":false,"c":null}', '{"\\u00e9\\ud800":"\\"\\\\\\/\\b\\f\\n\\r\\t"}', '{"a":"é中😀"}',
    '{"a" : 1 , "b" : [ 1 , 2 ] }', '{"a":1}{"b":2}', '{"a":1,}', '{,}', '{"a"}', '{"a":}', '{a:1}', "{'a':1}", '{"a":01}',
    '{"a":1.}', '{"a":.5}', '{"a":+1}', '{"a":1e}', '{"a":-}', '{"a":0x10}', '{"a":NaN}', '{"a":Infinity}', '{"a":tru}',
    '{"a":truex}', '{"a":nul}', '{"a":[1,]}', '{"a":[,1]}', '{"a":[1 2]}', '{"a":"\t"}', '{"a":"\\x"}', '{"a":"\\u12"}',
    '{"a":"\\u12G4"}', '{"a":"\u0000"}', '{"a":"\u007f"}', '{"a":"b}', '{"a":1', '{"a":1}}', '[{"a":1}]', '[]', '"x"', '1',
    'null', '', ' ', '{"a":1} x', '\u00a0{}', '{}\u00a0', '\ufeff{}', '{"a":"\ufeff"}', '{"a":1}\n', '{"a":[[[[]]]]}',
    '{"":""}', '{"a":"\\uDFFF"}', '{"a":1,"a":2}', '{"__proto__":{"x":1}}', '{"a":-01}', '{"a":1e5.5}', '{"a":00}',
  ];
  for (const text of cases) {
    const bytes = Buffer.from(text);
    assert.equal(scan(bytes), byJsonParse(bytes), JSON.stringify(text));
  }
  // Malformed UTF-8 inside a string decodes to U+FFFD (allowed); outside one it is an error either way.
  for (const bytes of [
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d]),
    Buffer.from([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]),
    Buffer.from([0x7b, 0xff, 0x7d]),
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 0xc3]),
  ]) {
    assert.equal(scan(bytes), byJsonParse(bytes), bytes.toString('hex'));
  }
});

void test('never reads past the end it is given', () => {
  const bytes = Buffer.from('{"a":1}\n{"b":2}');
  assert.equal(jsonObjectDepth(bytes, 0, 7), 1);
  assert.equal(jsonObjectDepth(bytes, 0, 6), -1);
  assert.equal(jsonObjectDepth(bytes, 8, bytes.length), 1);
  assert.equal(jsonObjectDepth(Buffer.from('{"a":"b"}'), 0, 8), -1); // the closing brace is past the end
  assert.equal(jsonObjectDepth(Buffer.from('{"a":true}'), 0, 8), -1);
  assert.equal(jsonObjectDepth(Buffer.from('{"a":"\\u00e9"}'), 0, 10), -1);
});

void test('reports the depth of deep values (no limit of its own)', () => {
  const deep = (n: number) => Buffer.from(`{"a":${'['.repeat(n)}1${']'.repeat(n)}}`);
  assert.equal(scan(deep(1)), 2);
  assert.equal(scan(deep(5_000)), 5_001);
  assert.equal(scan(Buffer.from(`{"a":${'['.repeat(5_000)}1${']'.repeat(4_999)}}`)), -1);
});

void test('accepts exactly the objects JSON.parse accepts: 40,000 generated and mutated lines', () => {
  const rnd = mulberry32(12);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const scalars = ['0', '-0', '12', '-3.25', '1e9', '2E-3', '6.02e+23', 'true', 'false', 'null', '""', '"text"', '"é"',
    '"\\u20ac"', '"\\n\\t\\"\\\\"', '"\\ud83d\\ude00"', '"😀"'];
  const space = ['', '', '', ' ', '\t', '\r', ' \r '];
  const value = (depth: number): string => {
    const r = rnd();
    if (depth > 4 || r < 0.55) return pick(scalars);
    if (r < 0.75) return `[${Array.from({ length: Math.floor(rnd() * 4) }, () => pick(space) + value(depth + 1) + pick(space)).join(',')}]`;
    return object(depth + 1);
  };
  const object = (depth: number): string => `{${Array.from({ length: Math.floor(rnd() * 5) },
    () => `${pick(space)}${pick(['"a"', '"key"', '""', '"\\u0041"', '"é"'])}${pick(space)}:${pick(space)}${value(depth)}${pick(space)}`).join(',')}}`;
  // Edits that break JSON in the ways real input does: a byte dropped, doubled or swapped for a structural one.
  const noise = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x2d, 0x2e, 0x30, 0x31, 0x65, 0x45, 0x2b, 0x75, 0x6e,
    0x74, 0x66, 0x20, 0x09, 0x00, 0x1f, 0x7f, 0x80, 0xc3, 0xff];
  let accepted = 0;
  for (let n = 0; n < 40_000; n++) {
    const bytes = Buffer.from(pick(space) + object(0) + pick(space));
    const edits = n % 4 === 0 ? 0 : 1 + Math.floor(rnd() * 2);
    let line = bytes;
    for (let e = 0; e < edits && line.length > 0; e++) {
      const at = Math.floor(rnd() * line.length);
      const kind = rnd();
      const piece = kind < 0.33 ? Buffer.alloc(0) : Buffer.from([pick(noise)]);
      line = Buffer.concat([line.subarray(0, at), piece, line.subarray(kind < 0.66 ? at + 1 : at)]);
    }
    const want = byJsonParse(line);
    const got = scan(line);
    if (want >= 0) accepted++;
    // A repeated key keeps only its last value, so the parsed object may be shallower than the text.
    assert.equal(got >= 0, want >= 0, `case ${n}: ${line.toString('hex')}`);
    assert.ok(got >= want, `case ${n}: depth ${got} < ${want}`);
  }
  assert.ok(accepted > 10_000 && accepted < 39_000, `a fair share of both outcomes (${accepted} accepted)`);
});
