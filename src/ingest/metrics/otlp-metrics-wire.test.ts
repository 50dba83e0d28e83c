// OTLP metrics read from the wire (otlp-metrics-wire.ts) against the decoder's path (parseOtlpMetrics): the same
// samples in the same order, bit for bit, the same labels and metadata, for every body the wire reader reads; the
// same count; null — the decoder's turn — for what it must not read. Bodies from the OTel JS SDK's own protobuf
// exporter among them.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ValueType, type Meter } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import protobuf from 'protobufjs';
import { isStaleMarker, type SampleColumns } from '../../model/metric.js';
import { encodeExportMetricsRequest } from './otlp-metrics-proto.js';
import { parseOtlpMetrics, protobufFirst } from './otlp-metrics.js';
import { otlpWireColumns, otlpWireCount } from './otlp-metrics-wire.js';
import type { MetricsRequest } from './parsed-metrics.js';
import { comparable, expand } from './sample-columns.fixtures.js';

const NOW = 1_750_000_000_000;
const req: MetricsRequest = { query: new URLSearchParams(), headers: { 'content-type': 'application/x-protobuf' }, nowMs: NOW };
const str = (v: string) => ({ stringValue: v });
const T = '1700000000123456789';

function assertSame(body: Buffer): SampleColumns {
  const columns = otlpWireColumns(body, NOW);
  assert.ok(columns, 'the wire reader reads the body');
  const parsed = parseOtlpMetrics(body, req);
  assert.equal(parsed.partialSuccess, undefined);
  assert.deepEqual(comparable(expand(columns)), comparable(parsed.samples));
  assert.deepEqual(columns.metadata, parsed.metadata);
  // A body whose count walked it reads the same without a second walk (FormatRequest.bodyWalked).
  assert.deepEqual(comparable(expand(otlpWireColumns(body, NOW, true) ?? assert.fail('walked read'))), comparable(parsed.samples));
  assertSameCount(body);
  return columns;
}

/** The request thread's count from the wire is the decoder's. */
function assertSameCount(body: Buffer): void {
  const parsed = parseOtlpMetrics(body, req);
  assert.deepEqual(otlpWireCount(body, NOW), { stats: parsed.stats, rows: parsed.samples.length + parsed.metadata.length });
}

const point = (value: Record<string, unknown>, attributes: unknown[] = [], extra: Record<string, unknown> = {}) =>
  ({ attributes, timeUnixNano: T, startTimeUnixNano: T, ...value, ...extra });

test('gauges and sums of every kind: names, units, labels, metadata, target_info, as the decoder reads them', () => {
  const body = encodeExportMetricsRequest({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: str('checkout') }, { key: 'service.namespace', value: str('shop') },
          { key: 'service.instance.id', value: str('pod-1') }, { key: 'host.name', value: str('node-a') },
          { key: 'deployment.environment', value: str('prod') }] },
        scopeMetrics: [
          {
            scope: { name: 'io.opentelemetry.example', version: '1.2.0', attributes: [{ key: 'ignored', value: str('x') }] },
            metrics: [
              { name: 'system.memory.utilization', description: 'Memory in use', unit: '1', gauge: { dataPoints: [
                point({ asDouble: 0.25 }, [{ key: 'state', value: str('used') }]),
                point({ asDouble: 0.5 }, [{ key: 'state', value: str('free') }, { key: 'empty', value: str('') }]),
              ] } },
              { name: 'http.server.requests', description: 'Requests served', sum: { isMonotonic: true, aggregationTemporality: 2, dataPoints: [
                point({ asInt: '1024' }, [{ key: 'http.request.method', value: str('GET') }, { key: 'http.response.status_code', value: { intValue: 200 } }]),
                point({ asInt: '-9223372036854775808' }, [{ key: 'big', value: { intValue: '-9223372036854775807' } }]),
                point({ asInt: '9007199254740993' }, [{ key: 'flag', value: { boolValue: true } }, { key: 'off', value: { boolValue: false } }]),
              ] } },
              { name: 'network.io', unit: 'By', sum: { isMonotonic: true, aggregationTemporality: 1, dataPoints: [point({ asInt: '4096' })] } },
              { name: 'db.client.connections.usage', sum: { isMonotonic: false, aggregationTemporality: 1, dataPoints: [point({ asDouble: 7 })] } },
              { name: 'queue.depth', unit: '{items}', gauge: { dataPoints: [
                point({ asDouble: 1 }, [{ key: 'ratio', value: { doubleValue: 0.1 } }, { key: 'tiny', value: { doubleValue: 5e-324 } },
                  { key: 'inf', value: { doubleValue: Infinity } }, { key: 'raw', value: { bytesValue: Buffer.from([0, 255, 7]) } },
                  { key: 'none', value: {} }, { key: 'novalue' }, { key: '', value: str('no key') }, { key: '9lives', value: str('digit') },
                  { key: '_under', value: str('u') }, { key: 'é-ключ', value: str('😀') }]),
              ] } },
              { name: 'edge.values', gauge: { dataPoints: [
                point({ asDouble: NaN }), point({ asDouble: -0 }), point({ asDouble: Infinity }), point({ asDouble: -Infinity }),
                point({ asDouble: 3 }, [], { flags: 1 }), point({ asDouble: 3 }, [], { flags: 2 }),
                point({}), // neither value: 0
                point({ asDouble: 1 }, [], { timeUnixNano: '0' }), // no time: the receipt time
                point({ asDouble: 2 }, [], { timeUnixNano: '18446744073709551615' }),
                point({ asDouble: 2 }, [], { timeUnixNano: '999999' }),
                point({ asDouble: 4 }, [], { exemplars: [{ asDouble: 1, timeUnixNano: T }, { asInt: '2' }] }),
              ] } },
              { name: 'no.data' },
              { name: 'empty.gauge', gauge: {} },
            ],
          },
          { metrics: [{ name: 'unscoped', gauge: { dataPoints: [point({ asDouble: 9 }, [{ key: 'a.b', value: str('1') }, { key: 'a_b', value: str('2') }])] } }] },
        ],
      },
      // A resource with nothing but its identity: no target_info; one with others but no points: none either.
      { resource: { attributes: [{ key: 'service.name', value: str('solo') }] }, scopeMetrics: [{ metrics: [{ name: 'solo.up', gauge: { dataPoints: [point({ asInt: '1' })] } }] }] },
      { resource: { attributes: [{ key: 'host.name', value: str('idle') }] }, scopeMetrics: [{ metrics: [{ name: 'idle.gauge', gauge: {} }] }] },
      { scopeMetrics: [{ metrics: [{ name: 'bare', gauge: { dataPoints: [point({ asDouble: 1 })] } }] }] },
    ],
  });
  const columns = assertSame(body);
  const samples = expand(columns);
  assert.equal(samples.length, 23);
  assert.equal(samples.filter((s) => s.name === 'target_info').length, 1);
  assert.ok(isStaleMarker(samples.find((s) => s.name === 'edge_values' && Number.isNaN(s.value) && isStaleMarker(s.value))?.value ?? 0),
    'NO_RECORDED_VALUE is a stale marker, bits and all');
  // Two keys that make one label: their values joined in the order of the keys.
  assert.deepEqual(samples.find((s) => s.name === 'unscoped')?.labels, { a_b: '1;2', job: 'shop/checkout', instance: 'pod-1' });
  // No time, and a time under a millisecond: the receipt time.
  assert.equal(samples.filter((s) => s.timeMs === NOW).length, 2);
});

test('the bench\'s bodies and a body of many points read as the decoder reads them', () => {
  const dataPoints = Array.from({ length: 3000 }, (_, i) => ({
    attributes: [{ key: 'route', value: str(`/r/${i}`) }, { key: 'shard', value: str('7') }],
    timeUnixNano: T, startTimeUnixNano: T, asDouble: i * 1.5,
  }));
  const columns = assertSame(encodeExportMetricsRequest({
    resourceMetrics: [{ resource: { attributes: [{ key: 'service.name', value: str('bench') }] },
      scopeMetrics: [{ metrics: [{ name: 'queue.depth', unit: '1', gauge: { dataPoints } }] }] }],
  }));
  assert.equal(columns.count, 3000);
  assert.deepEqual(columns.series[2], { name: 'queue_depth_ratio', labels: { route: '/r/2', shard: '7', job: 'bench' } });
});

/** Bytes by hand: fields in another order, given twice, unknown ones. */
function handWritten(): Buffer {
  const kv = (key: string, value: string) => protobuf.Writer.create().uint32((1 << 3) | 2).string(key)
    .uint32((2 << 3) | 2).bytes(protobuf.Writer.create().uint32((1 << 3) | 2).string(value).finish()).finish();
  const pt = protobuf.Writer.create();
  pt.uint32((4 << 3) | 1).double(1).uint32((7 << 3) | 2).bytes(kv('late', 'attr')).uint32((4 << 3) | 1).double(2); // value twice: the last
  pt.uint32((3 << 3) | 1).fixed64(5_000_000).uint32((3 << 3) | 1).fixed64(7_000_000); // time twice: the last
  pt.uint32((20 << 3) | 0).uint32(9).uint32((21 << 3) | 5).fixed32(1).uint32((22 << 3) | 2).string('unknown');
  const sum = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(pt.finish()).uint32((3 << 3) | 0).bool(true).uint32((2 << 3) | 0).uint32(2);
  // The data before the name, the name twice (the last counts), an unknown field.
  const metric = protobuf.Writer.create().uint32((7 << 3) | 2).bytes(sum.finish()).uint32((1 << 3) | 2).string('first')
    .uint32((30 << 3) | 0).uint32(1).uint32((1 << 3) | 2).string('hand.made');
  // The metrics before the scope.
  const scopeMetrics = protobuf.Writer.create().uint32((2 << 3) | 2).bytes(metric.finish())
    .uint32((1 << 3) | 2).bytes(protobuf.Writer.create().uint32((1 << 3) | 2).string('s').finish());
  // The scopes before the resource.
  const resourceMetrics = protobuf.Writer.create().uint32((2 << 3) | 2).bytes(scopeMetrics.finish())
    .uint32((1 << 3) | 2).bytes(protobuf.Writer.create().uint32((1 << 3) | 2).bytes(kv('service.name', 'svc')).finish());
  const bytes = protobuf.Writer.create().uint32((9 << 3) | 0).uint32(3).uint32((1 << 3) | 2).bytes(resourceMetrics.finish()).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

test('fields in another order, given twice or unknown, read as the decoder reads them', () => {
  const columns = assertSame(handWritten());
  assert.deepEqual(expand(columns), [{ name: 'hand_made_total', labels: { late: 'attr', otel_scope_name: 's', job: 'svc' }, timeMs: 7, value: 2 }]);
});

test('what the wire reader leaves to the decoder, and what it only counts', () => {
  const body = (metric: Record<string, unknown>, resource: unknown[] = []) =>
    encodeExportMetricsRequest({ resourceMetrics: [{ resource: { attributes: resource }, scopeMetrics: [{ metrics: [metric] }] }] });
  const histogram = body({ name: 'h', histogram: { dataPoints: [{ count: '1', bucketCounts: ['1'], timeUnixNano: T }] } });
  const summary = body({ name: 's', summary: { dataPoints: [{ count: '1', sum: 1, timeUnixNano: T }] } });
  const exponential = body({ name: 'e', exponentialHistogram: { dataPoints: [{ count: '1', scale: 0, timeUnixNano: T }] } });
  const nameless = body({ name: '...', gauge: { dataPoints: [point({ asDouble: 1 })] } });
  const arrayOnResource = body({ name: 'g', gauge: { dataPoints: [point({ asDouble: 1 })] } }, [{ key: 'list', value: { arrayValue: { values: [str('a')] } } }]);
  for (const refused of [histogram, summary, exponential, nameless, arrayOnResource]) {
    assert.equal(otlpWireColumns(refused, NOW), null);
    assert.equal(otlpWireCount(refused, NOW), null);
  }
  // An array or a map on a point: its label is the decoder's JSON, but its count is the wire's.
  const listOnPoint = body({ name: 'g', gauge: { dataPoints: [point({ asDouble: 1 }, [{ key: 'm', value: { kvlistValue: { values: [{ key: 'k', value: str('v') }] } } }])] } });
  assert.equal(otlpWireColumns(listOnPoint, NOW), null);
  assertSameCount(listOnPoint);
  // A point with both values, a metric with two kinds of data: the decoder's.
  const pt = protobuf.Writer.create().uint32((4 << 3) | 1).double(1).uint32((6 << 3) | 1).sfixed64(2).finish();
  const gauge = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(pt).finish();
  const wrap = (metric: Uint8Array) => {
    const sm = protobuf.Writer.create().uint32((2 << 3) | 2).bytes(metric).finish();
    const rm = protobuf.Writer.create().uint32((2 << 3) | 2).bytes(sm).finish();
    return Buffer.from(protobuf.Writer.create().uint32((1 << 3) | 2).bytes(rm).finish());
  };
  const bothValues = wrap(protobuf.Writer.create().uint32((1 << 3) | 2).string('g').uint32((5 << 3) | 2).bytes(gauge).finish());
  const twoKinds = wrap(protobuf.Writer.create().uint32((1 << 3) | 2).string('g').uint32((5 << 3) | 2).bytes(Buffer.alloc(0))
    .uint32((7 << 3) | 2).bytes(Buffer.alloc(0)).finish());
  for (const twice of [bothValues, twoKinds]) assert.equal(otlpWireColumns(twice, NOW), null);
  // Cut bytes: not read, left to the decoder's refusal.
  assert.equal(otlpWireColumns(Buffer.from(handWritten().subarray(0, 30)), NOW), null);
  // JSON, and an empty body, are never read here.
  assert.equal(protobufFirst(Buffer.from('{"resourceMetrics":[]}'), 'application/json'), false);
  assert.equal(protobufFirst(Buffer.from('{"resourceMetrics":[]}'), undefined), false);
  assert.equal(protobufFirst(Buffer.alloc(0), 'application/x-protobuf'), false);
  assert.equal(protobufFirst(histogram, 'application/x-protobuf'), true);
  assert.equal(protobufFirst(histogram, undefined), true);
});

/** The bodies the OTel JS SDK's protobuf exporter sends, caught by a local server that answers as the service does. */
async function exporterBodies(record: (meter: Meter) => void, collections: number): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': 'wire', 'service.instance.id': 'pod-7', 'host.name': 'node-a' }),
      readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: `http://127.0.0.1:${port}/v1/metrics` }), exportIntervalMillis: 60_000 })],
    });
    record(provider.getMeter('wire-test', '1.0.0'));
    for (let i = 1; i < collections; i++) await provider.forceFlush();
    await provider.shutdown();
  } finally {
    server.close();
  }
  return bodies;
}

test('the OTel JS protobuf exporter\'s counters and gauges read as the decoder reads them, its histograms are the decoder\'s', async () => {
  let gaugeValue = 17;
  const bodies = await exporterBodies((meter) => {
    const requests = meter.createCounter('http.server.requests');
    requests.add(3, { route: '/checkout', 'http.response.status_code': 200, cached: false, ratio: 0.5 });
    requests.add(1, { route: '/health' });
    meter.createUpDownCounter('jobs.inflight', { valueType: ValueType.INT }).add(-2, { queue: 'emails' });
    meter.createObservableGauge('queue.depth', { unit: '{items}' }).addCallback((r) => r.observe(gaugeValue++, { queue: 'emails' }));
  }, 2);
  assert.equal(bodies.length, 2, 'one body per collection');
  const [first = [], second = []] = bodies.map((b) => expand(assertSame(b)));
  assert.equal(first.length, 5, 'two counter points, one up-down, one gauge, target_info');
  assert.deepEqual(first.find((s) => s.labels.route === '/checkout')?.labels, {
    route: '/checkout', http_response_status_code: '200', cached: 'false', ratio: '0.5',
    otel_scope_name: 'wire-test', otel_scope_version: '1.0.0', job: 'wire', instance: 'pod-7',
  });
  assert.equal(second.find((s) => s.name === 'queue_depth')?.value, 18, 'the second collection\'s gauge');

  const withHistogram = await exporterBodies((meter) => meter.createHistogram('http.server.duration', { unit: 'ms' }).record(5), 1);
  assert.equal(withHistogram.length, 1);
  assert.equal(otlpWireColumns(withHistogram[0] ?? Buffer.alloc(0), NOW), null);
});

test('a series read before hands out the same labels; the same attributes under another name, scope or resource do not', () => {
  const attributes = [{ key: 'route', value: str('/kept') }];
  const body = (service: string, scope: string, name: string) => encodeExportMetricsRequest({ resourceMetrics: [{
    resource: { attributes: [{ key: 'service.name', value: str(service) }] },
    scopeMetrics: [{ scope: { name: scope }, metrics: [{ name, gauge: { dataPoints: [point({ asDouble: 1 }, attributes), point({ asDouble: 2 }, attributes)] } }] }],
  }] });
  const seriesOf = (b: Buffer) => (otlpWireColumns(b, NOW) ?? assert.fail('read')).series;
  const [a1, a2] = seriesOf(body('svc', 'scope', 'kept.gauge'));
  const [again] = seriesOf(body('svc', 'scope', 'kept.gauge'));
  assert.ok(a1 && a1 === a2 && a1 === again, 'one series object for every point of the series, request after request');
  for (const other of [body('other', 'scope', 'kept.gauge'), body('svc', 'other', 'kept.gauge'), body('svc', 'scope', 'other.gauge')]) {
    const [s] = seriesOf(other);
    assert.notEqual(s, a1);
    assertSame(other);
  }
});

test('an attribute named __proto__ is a label like any other, on the wire reader\'s path and the decoder\'s', () => {
  const body = encodeExportMetricsRequest({ resourceMetrics: [{
    resource: { attributes: [{ key: 'service.name', value: str('svc') }] },
    scopeMetrics: [{ metrics: [{ name: 'proto.gauge', gauge: { dataPoints: [
      point({ asDouble: 1 }, [{ key: '__proto__', value: str('polluted?') }, { key: 'route', value: str('/a') }]),
    ] } }] }],
  }] });
  const [series] = assertSame(body).series;
  assert.deepEqual(Object.entries(series?.labels ?? {}), [['__proto__', 'polluted?'], ['route', '/a'], ['job', 'svc']]);
  assert.equal(Object.getPrototypeOf(series?.labels), Object.prototype);
});
