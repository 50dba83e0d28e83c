import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonObjectDepth } from './json-scan.js';
import { mulberry32 } from '../../testing/prng.js';
import { EDGE_LINES, JSON_SPACE, jsonGenerator } from '../../testing/json-lines.js';

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
  for (const text of EDGE_LINES) {
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
  const { pick, object, edit } = jsonGenerator(rnd);
  let accepted = 0;
  for (let n = 0; n < 40_000; n++) {
    const bytes = Buffer.from(pick(JSON_SPACE) + object(0) + pick(JSON_SPACE));
    const line = edit(bytes, n % 4 === 0 ? 0 : 1 + Math.floor(rnd() * 2));
    const want = byJsonParse(line);
    const got = scan(line);
    if (want >= 0) accepted++;
    // A repeated key keeps only its last value, so the parsed object may be shallower than the text.
    assert.equal(got >= 0, want >= 0, `case ${n}: ${line.toString('hex')}`);
    assert.ok(got >= want, `case ${n}: depth ${got} < ${want}`);
  }
  assert.ok(accepted > 10_000 && accepted < 39_000, `a fair share of both outcomes (${accepted} accepted)`);
});
