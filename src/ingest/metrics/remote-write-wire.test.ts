// Remote write 1.0 read from the wire (remote-write-wire.ts) against the decoder's path (parseRemoteWrite): the same
// samples in the same order, bit for bit, and the same metadata, for every body the wire reader reads; the same
// count as countRemoteWrite; null — the decoder's turn — for what it must not read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import { isStaleMarker, staleMarker, type SampleColumns } from '../../model/metric.js';
import { fixtureHex } from '../../../test/fixtures/metrics/fixtures.js';
import type { MetricsRequest } from './parsed-metrics.js';
import { comparable, expand } from './sample-columns.fixtures.js';
import { encodeRemoteWrite } from './remote-write-proto.js';
import { countRemoteWrite, decodeRemoteWriteBody, parseRemoteWrite } from './remote-write.js';
import { wireSampleColumns } from './remote-write-wire.js';
import { wireCount } from './remote-write-count.js';

const req: MetricsRequest = { query: new URLSearchParams(), headers: {}, nowMs: 0 };

function assertSame(body: Buffer): SampleColumns {
  const columns = wireSampleColumns(body);
  assert.ok(columns, 'the wire reader reads the body');
  const parsed = parseRemoteWrite(body, req);
  assert.deepEqual(comparable(expand(columns)), comparable(parsed.samples));
  assert.deepEqual(columns.metadata, parsed.metadata);
  // A body whose count walked it reads the same without a second walk (FormatRequest.bodyWalked).
  assert.deepEqual(comparable(expand(wireSampleColumns(body, true) ?? assert.fail('walked read'))), comparable(parsed.samples));
  // The request thread's count from the wire is the decoder's count.
  assert.deepEqual(wireCount(body), countRemoteWrite(body, req));
  return columns;
}

test('the samples, labels and metadata of ordinary bodies are the decoder\'s, and a series is one entry', () => {
  const body = encodeRemoteWrite(1, {
    timeseries: Array.from({ length: 50 }, (_, s) => ({
      labels: [{ name: '__name__', value: `http_requests_total_${s % 3}` }, { name: 'instance', value: `node-${s}:9100` },
        { name: 'job', value: 'api' }, { name: 'empty', value: '' }, { name: 'zone', value: 'é-ключ-😀' }],
      samples: Array.from({ length: 7 }, (_, i) => ({ value: i * 3.25 - s, timestamp: 1_714_564_800_000 + i * 15_000 })),
    })),
    metadata: [
      { type: 1, metricFamilyName: 'http_requests_total_0', help: 'Requests.', unit: 'requests' },
      { type: 2, metricFamilyName: 'http_requests_total_0', help: 'a second one is not kept', unit: '' },
      { type: 99, metricFamilyName: 'odd', help: '', unit: '' },
      { type: 3, metricFamilyName: '', help: 'no name: not kept', unit: '' },
    ],
  });
  const columns = assertSame(body);
  assert.equal(columns.count, 350);
  assert.equal(columns.series.length, 50);
  assert.deepEqual(columns.series[1], { name: 'http_requests_total_1', labels: { instance: 'node-1:9100', job: 'api', zone: 'é-ключ-😀' } });
  assert.deepEqual(columns.metadata.map((m) => m.type), ['counter', 'unknown']);
});

test('timestamps and values at their edges: negative, past 2^53, stale markers, NaN, -0, infinities', () => {
  const timestamps = [0, -1, -(2 ** 40), 2 ** 31, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER, '9007199254740993', '-9223372036854775808',
    '9223372036854775807'];
  // Not through an array of numbers: V8 keeps one NaN in an array of doubles, and the stale marker would be lost.
  const valueSamples = [{ value: staleMarker(), timestamp: 0 }, ...[Number.NaN, -0, Infinity, -Infinity, 5e-324, 1.7976931348623157e308]
    .map((value, i) => ({ value, timestamp: i + 1 }))];
  const body = encodeRemoteWrite(1, {
    timeseries: [
      { labels: [{ name: '__name__', value: 'edge' }], samples: timestamps.map((timestamp, i) => ({ value: i, timestamp })) },
      { labels: [{ name: '__name__', value: 'values' }], samples: valueSamples },
    ],
  });
  const columns = assertSame(body);
  assert.ok(isStaleMarker(columns.values[timestamps.length] ?? 0), 'a stale marker keeps its bits');
});

test('the fixture body Prometheus sent, snappy and all', () => {
  assertSame(decodeRemoteWriteBody(fixtureHex('rw1-tiny.snappy.hex'), 'snappy'));
});

/** TimeSeries and Sample bytes by hand: fields in any order, given twice, unknown ones. */
function handWritten(): Buffer {
  const w = protobuf.Writer.create();
  const label = (name: string, value: string) => protobuf.Writer.create().uint32((1 << 3) | 2).string(name).uint32((2 << 3) | 2).string(value).finish();
  const sample = (parts: (writer: protobuf.Writer) => void) => {
    const s = protobuf.Writer.create();
    parts(s);
    return s.finish();
  };
  const series = protobuf.Writer.create();
  // A sample before the labels; a value given twice (the last counts); an unknown varint and an unknown string.
  series.uint32((2 << 3) | 2).bytes(sample((s) => s.uint32((1 << 3) | 1).double(1).uint32((1 << 3) | 1).double(2).uint32((2 << 3) | 0).int64(77)
    .uint32((9 << 3) | 0).uint32(5).uint32((10 << 3) | 2).string('x')));
  series.uint32((1 << 3) | 2).bytes(label('job', 'late'));
  series.uint32((3 << 3) | 2).bytes(protobuf.Writer.create().uint32((2 << 3) | 1).double(9).finish()); // an exemplar
  series.uint32((1 << 3) | 2).bytes(label('__name__', 'hand'));
  series.uint32((2 << 3) | 2).bytes(sample(() => undefined)); // every field at its default
  series.uint32((12 << 3) | 5).fixed32(3); // unknown, 32-bit
  w.uint32((15 << 3) | 0).uint32(1); // unknown field of the request, before the series
  w.uint32((1 << 3) | 2).bytes(series.finish());
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

test('fields in another order, given twice or unknown, and exemplars, read as the decoder reads them', () => {
  const columns = assertSame(handWritten());
  assert.deepEqual(expand(columns), [
    { name: 'hand', labels: { job: 'late' }, timeMs: 77, value: 2 },
    { name: 'hand', labels: { job: 'late' }, timeMs: 0, value: 0 },
  ]);
});

test('what the wire reader leaves to the decoder: histograms, refused labels, broken bytes', () => {
  const withHistogram = encodeRemoteWrite(1, { timeseries: [{
    labels: [{ name: '__name__', value: 'h' }], samples: [{ value: 1, timestamp: 1 }],
    histograms: [{ countInt: 1, sum: 1, schema: 0, zeroThreshold: 0, zeroCountInt: 0, timestamp: 1 }],
  }] });
  assert.equal(wireSampleColumns(withHistogram), null);
  assert.equal(wireCount(withHistogram), null);
  const twice = encodeRemoteWrite(1, { timeseries: [{ labels: [{ name: '__name__', value: 'a' }, { name: 'job', value: 'x' }, { name: 'job', value: 'y' }], samples: [{ value: 1, timestamp: 1 }] }] });
  assert.equal(wireSampleColumns(twice), null);
  const nameless = encodeRemoteWrite(1, { timeseries: [{ labels: [{ name: 'job', value: 'x' }], samples: [{ value: 1, timestamp: 1 }] }] });
  assert.equal(wireSampleColumns(nameless), null);
  assert.equal(wireCount(nameless), null);
  assert.equal(wireCount(twice), null);
  assert.equal(wireSampleColumns(Buffer.from(handWritten().subarray(0, 20))), null);
  // And an empty body is an empty request.
  assert.deepEqual(wireSampleColumns(Buffer.alloc(0))?.count, 0);
});

test('a series read before hands out the same labels object; other label bytes read afresh, and refusals are never kept', () => {
  const series = (labels: { name: string; value: string }[]) => encodeRemoteWrite(1, { timeseries: [{ labels, samples: [{ value: 1, timestamp: 1 }] }] });
  const up = [{ name: '__name__', value: 'kept_up' }, { name: 'job', value: 'api' }];
  const first = wireSampleColumns(series(up))?.series[0];
  assert.ok(first && wireSampleColumns(series(up))?.series[0] === first, 'the same object, body after body');
  const reordered = assertSame(series([...up].reverse())).series[0];
  assert.notEqual(reordered, first);
  assert.deepEqual(reordered, first);
  const twice = series([...up, { name: 'job', value: 'again' }]);
  for (let i = 0; i < 2; i++) assert.equal(wireSampleColumns(twice), null, 'refused each time');
});

test('the series that came next the time before is taken only when its bytes are all the same', () => {
  const named = (labels: [string, string][]) => ({ labels: labels.map(([name, value]) => ({ name, value })), samples: [{ value: 1, timestamp: 1 }] });
  const a = named([['__name__', 'order_a'], ['job', 'api']]);
  const b = named([['__name__', 'order_b'], ['job', 'api'], ['route', '/users/1234']]);
  const c = named([['__name__', 'order_c'], ['job', 'api']]);
  const first = assertSame(encodeRemoteWrite(1, { timeseries: [a, b, c] }));
  const again = assertSame(encodeRemoteWrite(1, { timeseries: [a, b, c] }));
  assert.ok(again.series.every((s, i) => s === first.series[i]), 'the same objects, found in order');
  // After `a` comes what differs from `b` in its last byte, is `b` cut short, or is `b` with one more label.
  for (const other of [
    named([['__name__', 'order_b'], ['job', 'api'], ['route', '/users/1235']]),
    named([['__name__', 'order_b'], ['job', 'api'], ['route', '/users/123']]),
    named([['__name__', 'order_b'], ['job', 'api']]),
    named([['__name__', 'order_b'], ['job', 'api'], ['route', '/users/1234'], ['zone', 'z']]),
  ]) {
    const read = assertSame(encodeRemoteWrite(1, { timeseries: [a, other, c] }));
    assert.notEqual(read.series[1], first.series[1]);
    assert.equal(read.series[0], first.series[0]);
    assert.equal(read.series[2], first.series[2]);
  }
});

test('past the most series kept, the store starts again and every series still reads as its own labels', () => {
  const many = 100_001; // one past known-series.ts MAX_KNOWN_SERIES
  const named = (i: number) => ({ labels: [{ name: '__name__', value: 'wide' }, { name: 'n', value: String(i) }], samples: [{ value: i, timestamp: i }] });
  const all = wireSampleColumns(encodeRemoteWrite(1, { timeseries: Array.from({ length: many }, (_, i) => named(i)) }));
  assert.ok(all);
  assert.equal(all.series.length, many);
  for (const i of [0, 1, 99_999, 100_000]) assert.deepEqual(all.series[i], { name: 'wide', labels: { n: String(i) } });
  // The first series, dropped when the store started again, and the last, kept after: read in the order they came.
  const again = assertSame(encodeRemoteWrite(1, { timeseries: [named(0), named(100_000), named(1), named(2)] }));
  assert.deepEqual(again.series.map((s) => s.labels['n']), ['0', '100000', '1', '2']);
  assert.equal(again.series[1], all.series[100_000], 'kept after the start again');
});
