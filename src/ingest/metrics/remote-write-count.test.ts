// The request thread's count from the walk (remote-write-count.ts) against the decoder's (countRemoteWrite), over
// generated bodies whose labels often repeat a name, lack `__name__`, give a Label's fields twice or not at all, and
// carry exemplars with labels of their own and metadata families named twice or not at all. Where the count takes a
// body, the store worker's read (wireSampleColumns) must take it too: a body acknowledged on the count's word and then
// refused by the store would be lost.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import type { MetricsRequest } from './parsed-metrics.js';
import { countRemoteWrite } from './remote-write.js';
import { wireCount } from './remote-write-count.js';
import { wireSampleColumns } from './remote-write-wire.js';

const req: MetricsRequest = { query: new URLSearchParams(), headers: {}, nowMs: 0 };

/** A Label's fields as written: 1 is the name, 2 the value, in any order, each any number of times. */
type LabelFields = [1 | 2, string][];
interface GenSeries { labels: LabelFields[]; samples: number; exemplarLabels: LabelFields[][]; exemplarsFirst?: boolean }
interface GenBody { series: GenSeries[]; families: string[] }

const text = fc.constantFrom('__name__', 'job', 'instance', 'é', 'ключ', '', '__name', '__name__x', 'a', 'b');
const labelFields = fc.array(fc.tuple(fc.constantFrom<1 | 2>(1, 2), text), { maxLength: 3 });
const series = fc.record({
  labels: fc.array(labelFields, { maxLength: 6 }),
  samples: fc.nat(3),
  exemplarLabels: fc.array(fc.array(labelFields, { maxLength: 2 }), { maxLength: 2 }),
  exemplarsFirst: fc.boolean(),
});
const body = fc.record({ series: fc.array(series, { maxLength: 4 }), families: fc.array(text, { maxLength: 4 }) });

function label(fields: LabelFields): Uint8Array {
  const w = protobuf.Writer.create();
  for (const [field, value] of fields) w.uint32((field << 3) | 2).string(value);
  return w.finish();
}

function encode(gen: GenBody): Buffer {
  const w = protobuf.Writer.create();
  for (const s of gen.series) {
    const ts = protobuf.Writer.create();
    const exemplars = (): void => {
      for (const labels of s.exemplarLabels) {
        const ex = protobuf.Writer.create();
        for (const l of labels) ex.uint32((1 << 3) | 2).bytes(label(l));
        ts.uint32((3 << 3) | 2).bytes(ex.uint32((2 << 3) | 1).double(1).finish());
      }
    };
    // Fields of a series may come in any order: an exemplar's labels before the series' own must not become theirs.
    if (s.exemplarsFirst === true) exemplars();
    for (const l of s.labels) ts.uint32((1 << 3) | 2).bytes(label(l));
    for (let i = 0; i < s.samples; i++) ts.uint32((2 << 3) | 2).bytes(protobuf.Writer.create().uint32((1 << 3) | 1).double(i).uint32(2 << 3).int64(i).finish());
    if (s.exemplarsFirst !== true) exemplars();
    w.uint32((1 << 3) | 2).bytes(ts.finish());
  }
  for (const family of gen.families) {
    w.uint32((3 << 3) | 2).bytes(protobuf.Writer.create().uint32(1 << 3).uint32(1).uint32((2 << 3) | 2).string(family).finish());
  }
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function decoderCount(bytes: Buffer): ReturnType<typeof countRemoteWrite> | null {
  try {
    return countRemoteWrite(bytes, req);
  } catch {
    return null;
  }
}

test('the count from the walk is the decoder\'s, refusals included, and the store\'s read takes what it takes', () => {
  let refused = 0;
  fc.assert(fc.property(body, (gen) => {
    const bytes = encode(gen);
    const expected = decoderCount(bytes);
    if (expected === null) refused++;
    assert.deepEqual(wireCount(bytes), expected);
    assert.equal(wireSampleColumns(bytes) === null, expected === null);
  }), { numRuns: 3000 });
  assert.ok(refused > 300 && refused < 2700, `both answers generated (${refused} refused of 3000)`);
});

test('a series of many labels: a name given twice far apart is found, distinct ones pass', () => {
  const many = (names: string[]): Buffer => encode({
    series: [{ labels: [[[1, '__name__'], [2, 'm']], ...names.map((n): LabelFields => [[1, n], [2, 'v']])], samples: 1, exemplarLabels: [] }],
    families: [],
  });
  const distinct = Array.from({ length: 200 }, (_, i) => `label_${i}`);
  assert.deepEqual(wireCount(many(distinct)), { stats: { samples: 1, histograms: 0, exemplars: 0 }, rows: 1 });
  assert.equal(wireCount(many([...distinct, 'label_3'])), null);
  assert.equal(wireCount(many([...distinct.slice(0, 10), 'label_3'])), null);
  assert.equal(wireCount(many([...distinct, '__name__'])), null);
});

test('a `__name__` with no value names no series; an empty value of another label is no label', () => {
  const one = (labels: LabelFields[]): Buffer => encode({ series: [{ labels, samples: 2, exemplarLabels: [] }], families: [] });
  assert.equal(wireCount(one([[[1, '__name__']], [[1, 'job'], [2, 'x']]])), null);
  assert.equal(wireCount(one([[[1, '__name__'], [2, 'x'], [2, '']]])), null, 'the last value is the one');
  assert.deepEqual(wireCount(one([[[1, '__name__'], [2, ''], [2, 'x']], [[1, 'job']]]))?.stats.samples, 2);
  assert.equal(wireCount(one([[[1, 'job'], [1, '__name__'], [2, 'x']], [[1, '__name__'], [2, 'y']]])), null, 'the last name is the one');
});
