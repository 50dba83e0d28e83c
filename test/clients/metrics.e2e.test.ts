// Real metrics senders against the real service's app plane, read back through its Prometheus API
// (STYLE.md habit 7; wire-formats.md §3.14, §3.16, §4 "OTLP exporters" and "Prometheus / Alloy remote_write",
// §6): the OTel JS metrics SDK with both OTLP exporters, the npm `prometheus-remote-write` client, and
// Debian's Prometheus 2.42 remote-writing its own metrics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { pushMetrics, pushTimeseries } from 'prometheus-remote-write';
import { eventually, type RunningService, type TestAccount } from '../support/service.js';
import { prom, sampleWith, startWithAccount, uid, waitProm, type PromSample } from './support.js';

let svc: RunningService;
let acct: TestAccount;

before(async () => {
  ({ svc, acct } = await startWithAccount());
});
after(async () => {
  await svc.stop();
});

const valueOf = (result: PromSample[], labels: Record<string, string>): number | undefined => {
  const s = sampleWith(result, labels);
  return s === undefined ? undefined : Number(s.value[1]);
};

/** Keeps every result the exporter's export callback reported. */
function recording(inner: PushMetricExporter): { exporter: PushMetricExporter; results: ExportResult[] } {
  const results: ExportResult[] = [];
  const exporter: PushMetricExporter = {
    export: (metrics, cb) => inner.export(metrics, (r) => {
      results.push(r);
      cb(r);
    }),
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    selectAggregationTemporality: inner.selectAggregationTemporality?.bind(inner),
  };
  return { exporter, results };
}

const variants = [
  { name: 'JSON (-otlp-http)', proto: false, gzip: false },
  { name: 'protobuf (-otlp-proto)', proto: true, gzip: false },
  { name: 'protobuf (-otlp-proto), gzip', proto: true, gzip: true },
] as const;

describe('OTel JS sdk-metrics: MeterProvider + PeriodicExportingMetricReader → /v1/metrics', () => {
  for (const v of variants) {
    test(`${v.name}: counter, up-down counter, histogram and observable gauge read back with job = service.name`, async () => {
      const job = uid('otel-metrics-');
      const config = {
        url: `${svc.app}/v1/metrics`, headers: { 'X-API-Key': acct.key },
        ...(v.gzip ? { compression: CompressionAlgorithm.GZIP } : {}),
      };
      const { exporter, results } = recording(v.proto ? new ProtoMetricExporter(config) : new JsonMetricExporter(config));
      const provider = new MeterProvider({
        resource: resourceFromAttributes({ 'service.name': job, 'service.instance.id': 'pod-1' }),
        readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 })],
      });
      const meter = provider.getMeter('client-e2e');
      const requests = meter.createCounter('http.server.requests');
      requests.add(3, { route: '/checkout' });
      requests.add(2, { route: '/checkout' });
      requests.add(1, { route: '/health' });
      const inflight = meter.createUpDownCounter('jobs.inflight');
      inflight.add(5);
      inflight.add(-2);
      const duration = meter.createHistogram('http.server.duration', { unit: 'ms' });
      for (const ms of [5, 50, 500]) duration.record(ms, { route: '/checkout' });
      meter.createObservableGauge('queue.depth').addCallback((r) => r.observe(17, { queue: 'emails' }));

      await provider.forceFlush();
      await provider.shutdown(); // the SDK exports once more on shutdown
      assert.ok(results.length >= 1, 'the exporter was called');
      for (const r of results) assert.equal(r.code, ExportResultCode.SUCCESS, `export failed: ${String(r.error)}`);

      const sel = `{job="${job}"}`;
      const total = await waitProm(svc, acct, `http_server_requests_total${sel}`, 2);
      assert.equal(valueOf(total, { route: '/checkout' }), 5, JSON.stringify(total));
      assert.equal(valueOf(total, { route: '/health' }), 1);
      assert.equal(sampleWith(total, { route: '/health' })?.metric.instance, 'pod-1', 'instance = service.instance.id');

      assert.equal(valueOf(await prom(svc, acct, `jobs_inflight${sel}`), {}), 3, 'a non-monotonic sum is a gauge');
      assert.equal(valueOf(await prom(svc, acct, `queue_depth${sel}`), { queue: 'emails' }), 17);

      const buckets = await prom(svc, acct, `http_server_duration_milliseconds_bucket${sel}`);
      const le = (bound: string) => valueOf(buckets, { le: bound, route: '/checkout' });
      assert.deepEqual([le('0'), le('5'), le('10'), le('50'), le('500'), le('+Inf')], [0, 1, 1, 2, 3, 3], JSON.stringify(buckets));
      assert.equal(valueOf(await prom(svc, acct, `http_server_duration_milliseconds_sum${sel}`), {}), 555);
      assert.equal(valueOf(await prom(svc, acct, `http_server_duration_milliseconds_count${sel}`), {}), 3);
      assert.equal(valueOf(await prom(svc, acct, `histogram_quantile(1, sum by (le) (http_server_duration_milliseconds_bucket${sel}))`), {}), 500);
    });
  }

  // Counters and gauges alone: the bodies the store reads from the wire (otlp-metrics-wire.ts), each series twice.
  test('protobuf (-otlp-proto), counters and gauges only, two collections: every point of both reads back', async () => {
    const job = uid('otel-wire-');
    const { exporter, results } = recording(new ProtoMetricExporter({ url: `${svc.app}/v1/metrics`, headers: { 'X-API-Key': acct.key } }));
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': job, 'host.name': 'node-a' }),
      readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 })],
    });
    const meter = provider.getMeter('client-e2e');
    const requests = meter.createCounter('http.server.requests');
    let depth = 10;
    meter.createObservableGauge('queue.depth').addCallback((r) => r.observe(depth, { queue: 'emails' }));
    requests.add(3, { route: '/checkout', 'http.response.status_code': 200 });
    await provider.forceFlush();
    requests.add(4, { route: '/checkout', 'http.response.status_code': 200 });
    depth = 12;
    await provider.shutdown();
    assert.ok(results.length >= 2, 'two exports');
    for (const r of results) assert.equal(r.code, ExportResultCode.SUCCESS, `export failed: ${String(r.error)}`);

    const sel = `{job="${job}"}`;
    // Both exports were acknowledged, so both are durable; the second lands in the store a moment later.
    const checkout = { route: '/checkout', http_response_status_code: '200' };
    assert.ok(await eventually(async () => valueOf(await prom(svc, acct, `count_over_time(http_server_requests_total${sel}[5m])`), checkout) === 2, 10_000),
      'both points of the series are stored');
    assert.equal(valueOf(await prom(svc, acct, `http_server_requests_total${sel}`), checkout), 7);
    assert.equal(valueOf(await prom(svc, acct, `queue_depth${sel}`), { queue: 'emails' }), 12);
    assert.equal(valueOf(await prom(svc, acct, `target_info${sel}`), { host_name: 'node-a' }), 1);
  });
});

/** The package's fetch option: it otherwise `require`s node-fetch, an optional peer dependency that is not installed. */
const fetchForRemoteWrite = (url: string, init?: { method: string; headers: Record<string, string>; body: ArrayBufferLike }) =>
  fetch(url, { method: init?.method ?? 'POST', headers: init?.headers ?? {}, body: init ? new Uint8Array(init.body) : null });

describe('prometheus-remote-write (npm) → /api/v1/write', () => {
  test('pushTimeseries with labels and explicit timestamps reads back', async () => {
    const name = uid('rw_ts_');
    const now = Date.now();
    const result = await pushTimeseries([
      { labels: { __name__: name, job: 'rw-client', instance: 'a' }, samples: [{ value: 1, timestamp: now - 20_000 }, { value: 2.5, timestamp: now - 10_000 }] },
      { labels: { __name__: name, job: 'rw-client', instance: 'b' }, samples: [{ value: -7, timestamp: now - 10_000 }] },
    ], { url: `${svc.app}/api/v1/write`, headers: { 'X-API-Key': acct.key }, fetch: fetchForRemoteWrite });
    assert.ok(result.status >= 200 && result.status < 300, JSON.stringify(result));
    const got = await waitProm(svc, acct, `${name}{job="rw-client"}`, 2);
    assert.equal(valueOf(got, { instance: 'a' }), 2.5, 'the newest sample of the series');
    assert.equal(valueOf(got, { instance: 'b' }), -7);
    const range = await prom(svc, acct, `count_over_time(${name}{instance="a"}[1m])`);
    assert.equal(valueOf(range, {}), 2, 'both samples of the series are stored');
  });

  test('pushMetrics with common labels (timestamp = now) reads back', async () => {
    const a = uid('rw_a_');
    const b = uid('rw_b_');
    const result = await pushMetrics({ [a]: 42, [b]: 0.5 }, {
      url: `${svc.app}/api/v1/write`, headers: { 'X-API-Key': acct.key }, labels: { job: 'rw-metrics', env: 'test' }, fetch: fetchForRemoteWrite,
    });
    assert.ok(result.status >= 200 && result.status < 300, JSON.stringify(result));
    assert.equal(valueOf(await waitProm(svc, acct, `${a}{job="rw-metrics",env="test"}`), {}), 42);
    assert.equal(valueOf(await prom(svc, acct, b), { job: 'rw-metrics' }), 0.5);
  });

  test('a refused write reports the status (401 without a key)', async () => {
    const result = await pushMetrics({ [uid('rw_refused_')]: 1 }, { url: `${svc.app}/api/v1/write`, fetch: fetchForRemoteWrite });
    assert.equal(result.status, 401, JSON.stringify(result));
  });
});

const PROMETHEUS = '/usr/bin/prometheus';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

describe('Prometheus 2.42 (Debian) remote_write of its own metrics', () => {
  test('prometheus_build_info and up arrive through remote_write and read back', {
    skip: existsSync(PROMETHEUS) ? false : `${PROMETHEUS} is not installed (apt-get install prometheus)`,
    timeout: 90_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sightline-prometheus-'));
    const port = await freePort();
    const job = uid('prom-self-');
    writeFileSync(join(dir, 'prometheus.yml'), [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      `  - job_name: ${job}`,
      '    static_configs:',
      `      - targets: ['127.0.0.1:${port}']`,
      'remote_write:',
      `  - url: ${svc.app}/api/v1/write`,
      '    authorization:',
      `      credentials: ${acct.key}`, // Authorization: Bearer <key>
      '    queue_config:',
      '      batch_send_deadline: 1s',
      '',
    ].join('\n'));
    const child = spawn(PROMETHEUS, [
      `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr.on('data', (d: Buffer) => {
      log = (log + d.toString()).slice(-20_000);
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const build = await waitProm(svc, acct, `prometheus_build_info{job="${job}"}`, 1, 60_000);
      assert.equal(build.length, 1, `prometheus_build_info never arrived; Prometheus said:\n${log.slice(-3000)}`);
      assert.match(build[0]?.metric.version ?? '', /^2\.42\./, 'Debian reports 2.42.0+ds');
      assert.equal(build[0]?.metric.instance, `127.0.0.1:${port}`);
      const up = await waitProm(svc, acct, `up{job="${job}"}`);
      assert.equal(valueOf(up, {}), 1);
      assert.ok(!/remote.*(error|fail)/i.test(log), `Prometheus reported remote-write trouble:\n${log.slice(-3000)}`);
    } finally {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
