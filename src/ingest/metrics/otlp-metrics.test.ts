import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { isStaleMarker, type MetricMetadata, type MetricSample } from '../../model/metric.js';
import { ServiceError } from '../../errors.js';
import { fixtureJson } from '../../../test/fixtures/metrics/fixtures.js';
import { decodeExportMetricsResponse, encodeExportMetricsRequest } from './otlp-metrics-proto.js';
import { otlpMetricsReply, parseOtlpMetrics } from './otlp-metrics.js';
import type { MetricsRequest } from './parsed-metrics.js';

const NOW = 1_750_000_000_000;
const T = 1_700_000_000_123;
const req = (headers: IncomingHttpHeaders = {}): MetricsRequest => ({ query: new URLSearchParams(), headers, nowMs: NOW });
const JSON_CT = { 'content-type': 'application/json' };
const PROTO_CT = { 'content-type': 'application/x-protobuf' };
const json = (doc: unknown): Buffer => Buffer.from(JSON.stringify(doc));

const BASE = { otel_scope_name: 'io.opentelemetry.example', otel_scope_version: '1.2.0', job: 'shop/checkout', instance: 'pod-1' };
const s = (name: string, labels: Record<string, string>, value: number, timeMs = T): MetricSample =>
  ({ name, labels: { ...labels, ...BASE }, timeMs, value });

const EXPECTED_SAMPLES: MetricSample[] = [
  s('system_memory_utilization_ratio', { state: 'used' }, 0.25),
  s('process_threads', {}, 12),
  s('http_server_requests_total', { http_request_method: 'GET', http_response_status_code: '200' }, 1024),
  s('db_client_connections_usage', {}, 7),
  s('network_io_bytes_total', {}, 4096),
  s('http_server_request_duration_seconds_bucket', { le: '0.1' }, 1),
  s('http_server_request_duration_seconds_bucket', { le: '0.5' }, 3),
  s('http_server_request_duration_seconds_bucket', { le: '+Inf' }, 6),
  s('http_server_request_duration_seconds_sum', {}, 1.5),
  s('http_server_request_duration_seconds_count', {}, 6),
  s('rpc_server_duration_milliseconds_bucket', { le: '-2' }, 1),
  s('rpc_server_duration_milliseconds_bucket', { le: '0' }, 2),
  s('rpc_server_duration_milliseconds_bucket', { le: '2' }, 4),
  s('rpc_server_duration_milliseconds_bucket', { le: '4' }, 7),
  s('rpc_server_duration_milliseconds_bucket', { le: '+Inf' }, 7),
  s('rpc_server_duration_milliseconds_sum', {}, 10.5),
  s('rpc_server_duration_milliseconds_count', {}, 7),
  s('rpc_client_latency_milliseconds', { quantile: '0.5' }, 4),
  s('rpc_client_latency_milliseconds', { quantile: '0.99' }, 9),
  s('rpc_client_latency_milliseconds_sum', {}, 20),
  s('rpc_client_latency_milliseconds_count', {}, 4),
  s('queue_depth', {}, NaN),
  s('edge_values', { which: 'pos' }, Infinity),
  s('edge_values', { which: 'neg' }, -Infinity),
  { name: 'target_info', labels: { host_name: 'node-a', deployment_environment: 'prod', job: 'shop/checkout', instance: 'pod-1' }, timeMs: T, value: 1 },
];

const m = (name: string, type: string, help = '', unit = ''): MetricMetadata => ({ name, type, help, unit });
const EXPECTED_METADATA: MetricMetadata[] = [
  m('system_memory_utilization_ratio', 'gauge', 'Memory in use', 'ratio'),
  m('process_threads', 'gauge'),
  m('http_server_requests_total', 'counter', 'Requests served'),
  m('db_client_connections_usage', 'gauge'),
  m('network_io_bytes_total', 'unknown', '', 'bytes'),
  m('http_server_request_duration_seconds', 'histogram', '', 'seconds'),
  m('rpc_server_duration_milliseconds', 'histogram', '', 'milliseconds'),
  m('rpc_client_latency_milliseconds', 'summary', '', 'milliseconds'),
  m('queue_depth', 'gauge'),
  m('edge_values', 'gauge'),
  m('target_info', 'gauge', 'Target metadata'),
];

const allKinds = (): Record<string, unknown> => fixtureJson('otlp-all-kinds.json');

function rejects(fn: () => unknown, status: number, detail: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ServiceError, 'a ServiceError');
    assert.equal(e.status, status);
    assert.match(e.detail, detail);
    return true;
  });
}

void test('every OTLP metric kind in JSON becomes the expected Prometheus series and metadata', () => {
  const parsed = parseOtlpMetrics(json(allKinds()), req(JSON_CT));
  assert.deepEqual(parsed.samples, EXPECTED_SAMPLES);
  assert.deepEqual(parsed.metadata, EXPECTED_METADATA);
  assert.deepEqual(parsed.stats, { samples: 11, histograms: 2, exemplars: 2 });
  assert.equal(parsed.encoding, 'json');
  assert.equal(parsed.partialSuccess, undefined);
});

void test('the same request in protobuf gives the same samples', () => {
  const body = encodeExportMetricsRequest(allKinds());
  const parsed = parseOtlpMetrics(body, req(PROTO_CT));
  assert.deepEqual(parsed.samples, EXPECTED_SAMPLES);
  assert.deepEqual(parsed.metadata, EXPECTED_METADATA);
  assert.deepEqual(parsed.stats, { samples: 11, histograms: 2, exemplars: 2 });
  assert.equal(parsed.encoding, 'protobuf');
});

void test('NO_RECORDED_VALUE is stored as a Prometheus stale marker in every series of the point', () => {
  const parsed = parseOtlpMetrics(json(allKinds()), req(JSON_CT));
  const queue = parsed.samples.find((x) => x.name === 'queue_depth');
  assert.ok(queue && isStaleMarker(queue.value));
  const doc = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'h', histogram: { dataPoints: [
    { timeUnixNano: '1000000', flags: 1, count: '0', sum: 0, bucketCounts: ['0', '0'], explicitBounds: [1] },
  ] } }] }] }] };
  const h = parseOtlpMetrics(json(doc), req()).samples;
  assert.deepEqual(h.map((x) => x.name), ['h_bucket', 'h_bucket', 'h_sum', 'h_count']);
  assert.ok(h.every((x) => isStaleMarker(x.value) && x.timeMs === 1));
});

function snakeKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snakeKeys);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeKeys(x)]));
}

void test('snake_case keys, 64-bit numbers as JSON numbers and enum names are accepted', () => {
  const parsed = parseOtlpMetrics(json(snakeKeys(allKinds())), req(JSON_CT));
  assert.deepEqual(parsed.samples, EXPECTED_SAMPLES);
  const doc = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'c', sum: {
    isMonotonic: true, aggregationTemporality: 'AGGREGATION_TEMPORALITY_DELTA',
    dataPoints: [{ asInt: 42, timeUnixNano: 1_700_000_000_000_000_000 }],
  } }] }] }] };
  const one = parseOtlpMetrics(json(doc), req());
  assert.deepEqual(one.samples, [{ name: 'c_total', labels: {}, timeMs: 1_700_000_000_000, value: 42 }]);
  assert.deepEqual(one.metadata, [m('c_total', 'unknown')], 'a DELTA sum is stored as sent, typed unknown');
});

void test('Content-Type decides the encoding, the first byte decides without one, and a wrong label falls back', () => {
  const j = json(allKinds());
  const p = encodeExportMetricsRequest(allKinds());
  const cases: [Buffer, IncomingHttpHeaders, 'json' | 'protobuf'][] = [
    [j, JSON_CT, 'json'], [p, PROTO_CT, 'protobuf'], [j, {}, 'json'], [p, {}, 'protobuf'],
    [Buffer.concat([Buffer.from(' \r\n\t'), j]), {}, 'json'],
    [j, PROTO_CT, 'json'], [p, JSON_CT, 'protobuf'],
    [j, { 'content-type': 'application/json; charset=utf-8' }, 'json'],
    [p, { 'content-type': 'application/protobuf' }, 'protobuf'],
  ];
  for (const [body, headers, want] of cases) {
    const parsed = parseOtlpMetrics(body, req(headers));
    assert.equal(parsed.encoding, want, JSON.stringify(headers));
    assert.equal(parsed.samples.length, EXPECTED_SAMPLES.length);
  }
  const empty = parseOtlpMetrics(Buffer.alloc(0), req(JSON_CT));
  assert.deepEqual([empty.samples, empty.encoding], [[], 'json'], 'an empty body is an empty request');
});

void test('bytes that are neither OTLP JSON nor OTLP protobuf are a 400', () => {
  const cases: [Buffer, RegExp][] = [
    [Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02]), /neither OTLP JSON nor OTLP protobuf/],
    [Buffer.from('{"resourceMetrics": [1, 2'), /neither/],
    [Buffer.from('[{"resourceMetrics": []}]'), /neither/],
    [Buffer.from('hello world'), /neither/],
    [json({ resourceMetrics: 5 }), /resourceMetrics must be an array/],
    [json({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'x', gauge: { dataPoints: [{ asDouble: 'abc' }] } }] }] }] }),
      /resourceMetrics\[0\]\.scopeMetrics\[0\]\.metrics\[0\]\.gauge\.dataPoints\[0\]\.asDouble must be a number/],
    [json({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'x', sum: { dataPoints: [{ asInt: '1.5' }] } }] }] }] }),
      /asInt must be an integer/],
  ];
  for (const [body, detail] of cases) rejects(() => parseOtlpMetrics(body, req()), 400, detail);
});

void test('unknown fields are ignored; points without a time take the time of receipt', () => {
  const doc = { extra: true, resourceMetrics: [{ someday: 1, scopeMetrics: [{ metrics: [
    { name: 'g', gauge: { dataPoints: [{ asDouble: 1.5, newField: 'x' }] } },
    { name: 'no_data' },
  ] }] }] };
  const parsed = parseOtlpMetrics(json(doc), req());
  assert.deepEqual(parsed.samples, [{ name: 'g', labels: {}, timeMs: NOW, value: 1.5 }]);
});

void test('job is service.name alone without a namespace; no target_info without other resource attributes', () => {
  const doc = { resourceMetrics: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'api' } }] },
    scopeMetrics: [{ scope: { name: '' }, metrics: [{ name: 'g', gauge: { dataPoints: [{ asInt: '1', timeUnixNano: '5000000' }] } }] }] }] };
  assert.deepEqual(parseOtlpMetrics(json(doc), req()).samples, [{ name: 'g', labels: { job: 'api' }, timeMs: 5, value: 1 }]);
});

void test('attribute values of every AnyValue type become label strings', () => {
  const attrs = [
    { key: 'b', value: { boolValue: true } }, { key: 'i', value: { intValue: '-3' } }, { key: 'd', value: { doubleValue: 0.5 } },
    { key: 'big', value: { intValue: '9007199254740993' } },
    { key: 'by', value: { bytesValue: 'AQI=' } }, { key: 'a', value: { arrayValue: { values: [{ stringValue: 'x' }, { intValue: '1' }] } } },
    { key: 'kv', value: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } } },
  ];
  const doc = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'g', gauge: { dataPoints: [{ asInt: '1', attributes: attrs }] } }] }] }] };
  for (const body of [json(doc), encodeExportMetricsRequest(doc)]) {
    assert.deepEqual(parseOtlpMetrics(body, req()).samples[0]?.labels,
      { b: 'true', i: '-3', d: '0.5', big: '9007199254740993', by: 'AQI=', a: '["x","1"]', kv: '{"k":"v"}' });
  }
});

void test('refused points are reported as partial success, in the request encoding', () => {
  const doc = { resourceMetrics: [{ scopeMetrics: [{ metrics: [
    { name: 'ok', gauge: { dataPoints: [{ asInt: '1' }] } },
    { name: 'bad', histogram: { dataPoints: [{ count: '3', bucketCounts: ['1', '2'], explicitBounds: [1, 2] }] } },
    { name: 'exp', exponentialHistogram: { dataPoints: [{ count: '1', scale: 21 }] } },
    { name: '...', gauge: { dataPoints: [{ asInt: '1' }, { asInt: '2' }] } },
  ] }] }] };
  const parsed = parseOtlpMetrics(json(doc), req(JSON_CT));
  assert.deepEqual(parsed.samples.map((x) => x.name), ['ok']);
  assert.equal(parsed.partialSuccess?.rejectedDataPoints, 4);
  assert.match(parsed.partialSuccess.errorMessage, /2 bucket counts for 2 bounds/);
  assert.match(parsed.partialSuccess.errorMessage, /scale 21/);
  assert.deepEqual(parsed.dropped, { rejected_point: 4 });
  const jsonReply = otlpMetricsReply(parsed);
  assert.equal(jsonReply.contentType, 'application/json');
  assert.deepEqual(JSON.parse(jsonReply.body.toString()),
    { partialSuccess: { rejectedDataPoints: '4', errorMessage: parsed.partialSuccess.errorMessage } });
  const protoReply = otlpMetricsReply({ ...parsed, encoding: 'protobuf' });
  assert.equal(protoReply.contentType, 'application/x-protobuf');
  assert.deepEqual(decodeExportMetricsResponse(protoReply.body),
    { partialSuccess: { rejectedDataPoints: 4, errorMessage: parsed.partialSuccess.errorMessage } });
});

void test('a fully accepted request gets an empty ExportMetricsServiceResponse', () => {
  const parsed = parseOtlpMetrics(json(allKinds()), req(JSON_CT));
  assert.equal(otlpMetricsReply(parsed).body.toString(), '{}');
  assert.equal(otlpMetricsReply({ ...parsed, encoding: 'protobuf' }).body.length, 0);
});

void test('an exponential histogram at scale 1 gets √2-spaced bounds and a zero bucket at its threshold', () => {
  const doc = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'e', exponentialHistogram: { dataPoints: [{
    count: '4', sum: 3, scale: 1, zeroCount: '1', zeroThreshold: 0.001, positive: { offset: -1, bucketCounts: ['1', '2'] },
  }] } }] }] }] };
  const got = parseOtlpMetrics(encodeExportMetricsRequest(doc), req()).samples
    .filter((x) => x.name === 'e_bucket').map((x) => [x.labels.le, x.value]);
  assert.deepEqual(got, [['0.001', 1], ['1', 2], ['1.4142135623730951', 4], ['+Inf', 4]]);
});
