// The count made as a body's chunks arrive (NativeCountAhead) against countNative over the whole body: wherever it
// answers, the same count, and never an answer for a body countNative refuses or reads another way (an array, one
// pretty-printed object, a line nested past the flattening's limit), however the body is cut into chunks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { NativeCountAhead, countNative } from './native.js';

const goodLines = ['{"msg":"a"}', '{"msg":"b","n":[1,{"x":2}]}', '  {"k":"v"}  ', '', '   ', '{}', '{"é":"ключ 😀"}', '{"a":1}\r'];
// Nested 600 deep countNative reads whole and takes; 5,000 deep it refuses (too deep to store).
const otherLines = ['{"bad":', '[1,2]', '"text"', `${'{"a":'.repeat(600)}1${'}'.repeat(600)}`, `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, '{'];
const line = fc.oneof({ arbitrary: fc.constantFrom(...goodLines), weight: 12 }, { arbitrary: fc.constantFrom(...otherLines), weight: 1 });
const body = fc.record({
  bom: fc.boolean(),
  parts: fc.array(line, { maxLength: 12 }),
  crlf: fc.boolean(),
  finalNewline: fc.boolean(),
});

function countOf(bytes: Buffer): number | 'refused' {
  try {
    return countNative(bytes, 0n);
  } catch {
    return 'refused';
  }
}

/** `bytes` cut at `cuts` (positions, any order). */
function chunksOf(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    if (c > from) out.push(bytes.subarray(from, c));
    from = Math.max(from, c);
  }
  return out;
}

test('the count ahead is countNative\'s wherever it answers, however the body is cut', () => {
  let answered = 0;
  fc.assert(fc.property(body, fc.array(fc.nat(2000), { maxLength: 8 }), (gen, cuts) => {
    const text = (gen.bom ? '\uFEFF' : '') + gen.parts.join(gen.crlf ? '\r\n' : '\n') + (gen.finalNewline ? '\n' : '');
    const bytes = Buffer.from(text);
    const ahead = new NativeCountAhead();
    for (const chunk of chunksOf(bytes, cuts)) ahead.push(chunk);
    const counted = ahead.entries();
    if (counted === null) return;
    answered++;
    assert.equal(counted, countOf(bytes), JSON.stringify(text.slice(0, 200)));
    assert.equal(countNative(bytes, 0n, { push: () => undefined, entries: () => counted }), counted);
  }), { numRuns: 4000 });
  assert.ok(answered > 1000, `answered ${answered} of 4000`);
});

test('a body of lines cut inside a line, a CR, a multi-byte character and the BOM is counted whole', () => {
  const text = '\uFEFF{"msg":"é😀"}\r\n\n{"b":1}\n   \n{"c":[{"d":2}]}';
  const bytes = Buffer.from(text);
  for (let size = 1; size <= bytes.length; size++) {
    const ahead = new NativeCountAhead();
    for (let at = 0; at < bytes.length; at += size) ahead.push(bytes.subarray(at, at + size));
    // A first chunk shorter than a BOM leaves the count to countNative.
    assert.equal(ahead.entries(), size < 3 ? null : 3, `chunks of ${size}`);
  }
  assert.equal(new NativeCountAhead().entries(), null, 'no chunk at all: an empty body is countNative\'s');
});
