import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { compress } from 'snappyjs';
import { ServiceError } from '../../errors.js';
import { isStaleMarker, staleMarker } from '../../model/metric.js';
import { fixtureHex } from '../../../test/fixtures/metrics/fixtures.js';
import type { MetricsRequest } from './parsed-metrics.js';
import { encodeRemoteWrite } from './remote-write-proto.js';
import {
  REMOTE_WRITE_MAX_COMPRESSED_BYTES, REMOTE_WRITE_MAX_DECODED_BYTES, checkRemoteWriteCompressedSize,
  checkRemoteWriteSampleCount, decodeRemoteWriteBody, parseRemoteWrite, parseRemoteWriteRequest, remoteWriteReplyHeaders,
  remoteWriteVersion, snappyDeclaredLength,
} from './remote-write.js';

const req = (headers: IncomingHttpHeaders = {}): MetricsRequest => ({ query: new URLSearchParams(), headers, nowMs: 0 });
const V2 = { 'content-type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request', 'x-prometheus-remote-write-version': '2.0.0' };
const snappy = (b: Buffer): Buffer => Buffer.from(compress(b));

function rejects(fn: () => unknown, status: number, detail: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ServiceError, 'a ServiceError');
    assert.equal(e.status, status);
    assert.match(e.detail, detail);
    return true;
  });
}

const series = (name: string, labels: Record<string, string> = {}) =>
  [{ name: '__name__', value: name }, ...Object.entries(labels).map(([n, value]) => ({ name: n, value }))];

void test('the hand-encoded WriteRequest fixture parses, and our encoder writes the same bytes', () => {
  const raw = fixtureHex('rw1-tiny.hex');
  assert.equal(raw.length, 42);
  const want = [{ name: 'up', labels: { job: 'a' }, timeMs: 1000, value: 1 }];
  assert.deepEqual(parseRemoteWrite(raw, req()).samples, want);
  assert.deepEqual(encodeRemoteWrite(1, { timeseries: [{ labels: series('up', { job: 'a' }), samples: [{ value: 1, timestamp: 1000 }] }] }), raw);
  const block = fixtureHex('rw1-tiny.snappy.hex');
  assert.deepEqual(decodeRemoteWriteBody(block, undefined), raw, 'hand-made snappy block, no Content-Encoding');
  assert.deepEqual(parseRemoteWriteRequest(block, req({ 'content-encoding': 'snappy' })).samples, want);
  assert.deepEqual(parseRemoteWriteRequest(snappy(raw), req()).samples, want, 'snappyjs-compressed, no header');
});

void test('remote write 1.0: samples, stale markers, metadata, exemplars and native histograms', () => {
  const body = encodeRemoteWrite(1, {
    timeseries: [
      { labels: series('http_requests_total', { code: '200', empty: '' }),
        samples: [{ value: 5, timestamp: 1000 }, { value: staleMarker(), timestamp: 2000 }],
        exemplars: [{ labels: [{ name: 'trace_id', value: 'abc' }], value: 1, timestamp: 1000 }] },
      { labels: series('latency_seconds'),
        histograms: [{ countInt: 5, sum: 2.5, schema: 0, zeroThreshold: 0, zeroCountInt: 1,
          negativeSpans: [{ offset: 1, length: 1 }], negativeDeltas: [1],
          positiveSpans: [{ offset: 0, length: 2 }], positiveDeltas: [2, -1], timestamp: 3000 }] },
    ],
    metadata: [{ type: 1, metricFamilyName: 'http_requests_total', help: 'Requests.', unit: '' }],
  });
  const parsed = parseRemoteWriteRequest(snappy(body), req({ 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' }));
  const [first, stale, ...hist] = parsed.samples;
  assert.deepEqual(first, { name: 'http_requests_total', labels: { code: '200' }, timeMs: 1000, value: 5 });
  assert.ok(stale && isStaleMarker(stale.value), 'the stale NaN keeps its bit pattern');
  assert.deepEqual(hist.map((x) => [x.name, x.labels.le, x.value, x.timeMs]), [
    ['latency_seconds_bucket', '-1', 1, 3000], ['latency_seconds_bucket', '0', 2, 3000],
    ['latency_seconds_bucket', '1', 4, 3000], ['latency_seconds_bucket', '2', 5, 3000],
    ['latency_seconds_bucket', '+Inf', 5, 3000], ['latency_seconds_sum', undefined, 2.5, 3000],
    ['latency_seconds_count', undefined, 5, 3000],
  ]);
  assert.deepEqual(parsed.metadata, [{ name: 'http_requests_total', type: 'counter', help: 'Requests.', unit: '' }]);
  assert.deepEqual(parsed.stats, { samples: 2, histograms: 1, exemplars: 1 });
});

void test('a label named __proto__ is kept as a label, not lost to the object\'s prototype', () => {
  const body = encodeRemoteWrite(1, { timeseries: [{ labels: series('up', { ['__proto__']: 'x', job: 'a' }), samples: [{ value: 1, timestamp: 1000 }] }] });
  const [sample] = parseRemoteWrite(body, req()).samples;
  assert.deepEqual(Object.entries(sample?.labels ?? {}), [['__proto__', 'x'], ['job', 'a']]);
  assert.equal(Object.getPrototypeOf(sample?.labels), Object.prototype);
});

void test('remote write 2.0: symbols, label refs, per-series metadata and the *-Written reply headers', () => {
  const symbols = ['', '__name__', 'cpu_seconds_total', 'mode', 'idle', 'CPU time.', 'seconds', 'temp', 'trace_id', 'x'];
  const body = encodeRemoteWrite(2, { symbols, timeseries: [
    { labelsRefs: [1, 2, 3, 4], samples: [{ value: 12.5, timestamp: 1000 }], metadata: { type: 1, helpRef: 5, unitRef: 6 },
      exemplars: [{ labelsRefs: [8, 9], value: 1, timestamp: 1000 }], createdTimestamp: 10 },
    { labelsRefs: [1, 7], samples: [{ value: staleMarker(), timestamp: 2000 }] },
    { labelsRefs: [1, 7], histograms: [{ countFloat: 3, sum: 1, schema: -53, customValues: [0.5, 1],
      positiveSpans: [{ offset: 0, length: 3 }], positiveCounts: [1, 1, 1], timestamp: 3000 }] },
  ] });
  const parsed = parseRemoteWriteRequest(snappy(body), req(V2));
  assert.deepEqual(parsed.samples[0], { name: 'cpu_seconds_total', labels: { mode: 'idle' }, timeMs: 1000, value: 12.5 });
  assert.ok(isStaleMarker(parsed.samples[1]?.value ?? 0));
  assert.deepEqual(parsed.samples.slice(2).map((x) => [x.name, x.labels.le, x.value]), [
    ['temp_bucket', '0.5', 1], ['temp_bucket', '1', 2], ['temp_bucket', '+Inf', 3], ['temp_sum', undefined, 1], ['temp_count', undefined, 3],
  ], 'custom buckets (schema -53) take their bounds from custom_values');
  assert.deepEqual(parsed.metadata, [{ name: 'cpu_seconds_total', type: 'counter', help: 'CPU time.', unit: 'seconds' }]);
  assert.deepEqual(remoteWriteReplyHeaders(parsed), {
    'X-Prometheus-Remote-Write-Samples-Written': '2',
    'X-Prometheus-Remote-Write-Histograms-Written': '1',
    'X-Prometheus-Remote-Write-Exemplars-Written': '1',
  });
});

void test('the version comes from the Content-Type proto parameter, then the version header', () => {
  const cases: [IncomingHttpHeaders, 1 | 2][] = [
    [{}, 1],
    [{ 'content-type': 'application/x-protobuf' }, 1],
    [{ 'x-prometheus-remote-write-version': '0.1.0' }, 1],
    [{ 'x-prometheus-remote-write-version': '2.0.0' }, 2],
    [{ 'content-type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request' }, 2],
    [{ 'content-type': 'application/x-protobuf; proto="io.prometheus.write.v2.Request"' }, 2],
    [{ 'content-type': 'application/x-protobuf;proto=prometheus.WriteRequest', 'x-prometheus-remote-write-version': '2.0.0' }, 1],
  ];
  for (const [headers, want] of cases) assert.equal(remoteWriteVersion(headers), want, JSON.stringify(headers));
  rejects(() => remoteWriteVersion({ 'content-type': 'application/x-protobuf;proto=io.prometheus.write.v3.Request' }), 415, /v3/);
});

void test('a declared uncompressed length over 64 MiB is refused before decompressing', () => {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
    return [...out, n];
  };
  // Garbage after the length: decompressing would fail with a 400, so a 413 proves we stopped first.
  const over = Buffer.from([...varint(REMOTE_WRITE_MAX_DECODED_BYTES + 1), 0xff, 0xff, 0xff]);
  assert.equal(snappyDeclaredLength(over), REMOTE_WRITE_MAX_DECODED_BYTES + 1);
  rejects(() => decodeRemoteWriteBody(over, undefined), 413, /declares 67108865 bytes uncompressed, over the limit of 67108864/);
  rejects(() => decodeRemoteWriteBody(over, 'snappy'), 413, /67108864/);
  const huge = Buffer.from([...varint(2 ** 32 - 1), 0x00]);
  rejects(() => decodeRemoteWriteBody(huge, undefined), 413, /4294967295/);
  rejects(() => decodeRemoteWriteBody(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), undefined), 400, /Corrupt snappy/);
  rejects(() => decodeRemoteWriteBody(Buffer.from([0x0a, 0xff, 0xff]), undefined), 400, /Corrupt snappy/);
});

void test('bodies over 8 MiB compressed are refused with the spec text', () => {
  checkRemoteWriteCompressedSize(REMOTE_WRITE_MAX_COMPRESSED_BYTES);
  rejects(() => checkRemoteWriteCompressedSize(REMOTE_WRITE_MAX_COMPRESSED_BYTES + 1), 413, /^metrics payload too large \(8MB cap\)$/);
});

void test('more than 500,000 samples (histograms included) is a 413 naming the limit', () => {
  checkRemoteWriteSampleCount(500_000);
  rejects(() => checkRemoteWriteSampleCount(500_001), 413, /^remote write request has 500001 samples, over the limit of 500000$/);
  const samples = Array.from({ length: 499_999 }, (_, i) => ({ value: i, timestamp: i }));
  const body = encodeRemoteWrite(1, { timeseries: [
    { labels: series('a'), samples },
    { labels: series('b'), histograms: [{ countInt: 0, schema: 0 }, { countInt: 0, schema: 0 }] },
  ] });
  rejects(() => parseRemoteWrite(body, req()), 413, /has 500001 samples/);
});

void test('malformed remote write requests are a 400 that says why', () => {
  const cases: [Buffer, IncomingHttpHeaders, RegExp][] = [
    [Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02]), {}, /not a remote write prometheus\.WriteRequest/],
    [encodeRemoteWrite(1, { timeseries: [{ labels: [{ name: 'job', value: 'x' }], samples: [{ value: 1 }] }] }), {}, /timeseries 0: no __name__/],
    [encodeRemoteWrite(1, { timeseries: [{ labels: [...series('a'), { name: '__name__', value: 'b' }] }] }), {}, /label __name__ appears twice/],
    [encodeRemoteWrite(2, { symbols: ['', '__name__', 'a'], timeseries: [{ labelsRefs: [1, 9] }] }), V2, /symbol reference 9 is outside the 3 symbols/],
    [encodeRemoteWrite(2, { symbols: ['', '__name__', 'a'], timeseries: [{ labelsRefs: [1, 2, 1] }] }), V2, /odd length/],
    [encodeRemoteWrite(1, { timeseries: [{ labels: series('h'), histograms: [{ schema: 0, positiveSpans: [{ offset: 0, length: 2 }], positiveDeltas: [1] }] }] }), {},
      /timeseries 0 histogram 0 positive: spans cover more buckets than the 1 given/],
    [encodeRemoteWrite(1, { timeseries: [{ labels: series('h'), histograms: [{ schema: 9 }] }] }), {}, /schema 9 is not supported/],
  ];
  for (const [body, headers, detail] of cases) rejects(() => parseRemoteWrite(body, req(headers)), 400, detail);
});

void test('a stale native histogram writes stale markers in all its series', () => {
  const body = encodeRemoteWrite(1, { timeseries: [{ labels: series('h'), histograms: [{ countInt: 0, sum: staleMarker(), schema: 0, timestamp: 5 }] }] });
  const got = parseRemoteWrite(body, req()).samples;
  assert.deepEqual(got.map((x) => [x.name, x.labels.le]),
    [['h_bucket', '0'], ['h_bucket', '+Inf'], ['h_sum', undefined], ['h_count', undefined]], 'the zero bucket is always written');
  assert.ok(got.every((x) => isStaleMarker(x.value)));
});

void test('an empty body is an empty request; identity bodies pass through undecoded', () => {
  assert.deepEqual(parseRemoteWriteRequest(Buffer.alloc(0), req()).samples, []);
  const raw = fixtureHex('rw1-tiny.hex');
  assert.equal(decodeRemoteWriteBody(raw, 'identity'), raw);
});

void test('remoteWriteFormat.count (the request thread when the WAL keeps the body) gives what parse does, or its refusal', async () => {
  const { remoteWriteFormat } = await import('./metrics-formats.js');
  const formatReq = (headers: IncomingHttpHeaders) => ({ path: '/api/v1/write', query: new URLSearchParams(), headers, nowNs: 0n });
  const parseOutcome = async (body: Buffer, headers: IncomingHttpHeaders): Promise<string> => {
    try {
      const p = await remoteWriteFormat.parse(body, formatReq(headers));
      const rows = (p.batch.samples?.length ?? 0) + (p.batch.metadata?.length ?? 0); // as pipeline.ts readEntries counts
      return `ok ${rows} ${JSON.stringify((p.replyData as { stats: unknown }).stats)}`;
    } catch (e) {
      return e instanceof ServiceError ? `${e.status} ${e.detail}` : `threw ${String(e)}`;
    }
  };
  const countOutcome = async (body: Buffer, headers: IncomingHttpHeaders): Promise<string> => {
    try {
      const c = await remoteWriteFormat.count?.(body, formatReq(headers));
      assert.ok(c);
      assert.equal(c.entries, 0);
      return `ok ${c.rows} ${JSON.stringify((c.replyData as { stats: unknown }).stats)}`;
    } catch (e) {
      return e instanceof ServiceError ? `${e.status} ${e.detail}` : `threw ${String(e)}`;
    }
  };
  const v1 = { 'content-encoding': 'identity' };
  const samples = (n: number) => Array.from({ length: n }, (_, i) => ({ value: i, timestamp: 1000 + i }));
  const cases: [Buffer, IncomingHttpHeaders][] = [
    [Buffer.alloc(0), v1],
    [encodeRemoteWrite(1, { timeseries: [{ labels: series('up', { job: 'a', empty: '' }), samples: samples(3),
      exemplars: [{ labels: [{ name: 'trace_id', value: 'abc' }], value: 1, timestamp: 1000 }] }] }), v1],
    [encodeRemoteWrite(1, { timeseries: [], metadata: [{ type: 1, metricFamilyName: 'up', help: 'h', unit: '' },
      { type: 1, metricFamilyName: 'up', help: 'again', unit: '' }, { type: 2, metricFamilyName: '', help: '', unit: '' }] }), v1],
    [snappy(encodeRemoteWrite(1, { timeseries: [{ labels: series('a'), samples: samples(2) }, { labels: series('b'), samples: [] }] })), {}],
    [encodeRemoteWrite(1, { timeseries: [{ labels: series('a'), samples: samples(2) }, { labels: [{ name: 'job', value: 'x' }], samples: samples(1) }] }), v1],
    [encodeRemoteWrite(1, { timeseries: [{ labels: [...series('a'), { name: '__name__', value: 'b' }], samples: samples(1) }] }), v1],
    [encodeRemoteWrite(1, { timeseries: [{ labels: series('h'), histograms: [{ countInt: 5, sum: 2.5, schema: 0, zeroCountInt: 1,
      positiveSpans: [{ offset: 0, length: 2 }], positiveDeltas: [2, -1], timestamp: 3000 }] }] }), v1],
    [encodeRemoteWrite(1, { timeseries: [{ labels: series('h'), histograms: [{ schema: 9 }] }] }), v1],
    [encodeRemoteWrite(1, { timeseries: [{ labels: series('a'), samples: samples(500_001) }] }), v1],
    [encodeRemoteWrite(2, { symbols: ['', '__name__', 'a'], timeseries: [{ labelsRefs: [1, 2], samples: samples(2) }] }), { ...V2, ...v1 }],
    [encodeRemoteWrite(2, { symbols: ['', '__name__', 'a'], timeseries: [{ labelsRefs: [1, 9] }] }), { ...V2, ...v1 }],
    [Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02]), v1],
    [Buffer.from([0x0a, 0x05, 0x0a, 0x03]), v1],
  ];
  for (const [body, headers] of cases) {
    assert.equal(await countOutcome(body, headers), await parseOutcome(body, headers), `body ${body.toString('hex').slice(0, 60)}`);
  }
});
