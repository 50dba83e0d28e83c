// Further figures printed after the native NDJSON one, through the same running service: OTLP protobuf logs
// (the same ~300-byte entries as OTLP log records), Prometheus remote-write samples and OTLP metric points.
// Bodies are encoded with the project's own protobuf types, as the OTel and Prometheus senders encode them.
import type { RunningService, TestAccount } from '../test/support/service.js';
import { runLoad, type LoadResult } from './load.js';
import { waitForDrain } from './drain.js';
import { decodeOnlyRate } from './decode-only.js';
import { OtlpTypes, encodeMessage } from '../src/ingest/formats/otlp-proto.js';
import { encodeRemoteWrite } from '../src/ingest/metrics/remote-write-proto.js';
import { encodeExportMetricsRequest } from '../src/ingest/metrics/otlp-metrics-proto.js';
import { compress } from 'snappyjs';

export interface ExtraContext {
  svc: RunningService;
  acct: TestAccount;
  seconds: number;
  connections: number;
  line: (label: string, r: LoadResult) => string;
}

const str = (v: string) => ({ stringValue: v });

export function otlpLogBodies(count: number, recordsPerBody: number): { body: Buffer; entries: number }[] {
  const out: { body: Buffer; entries: number }[] = [];
  let id = 0;
  for (let b = 0; b < count; b++) {
    const records = Array.from({ length: recordsPerBody }, () => {
      id++;
      return {
        timeUnixNano: String(BigInt(Date.now()) * 1_000_000n + BigInt(id % 1000)),
        severityNumber: id % 10 === 0 ? 13 : 9, severityText: id % 10 === 0 ? 'WARN' : 'INFO',
        body: str(`GET /api/v2/orders/${id} completed with status 200 in ${(id % 97) + 3} ms for customer ${id % 5000}`),
        attributes: [
          { key: 'http.method', value: str('GET') }, { key: 'http.status_code', value: { intValue: 200 } },
          { key: 'http.route', value: str('/api/v2/orders/:id') }, { key: 'host.name', value: str(`node-${id % 16}`) },
        ],
        traceId: Buffer.from((id * 2654435761).toString(16).padStart(32, '0').slice(-32), 'hex'),
      };
    });
    const body = encodeMessage(OtlpTypes.ExportLogsServiceRequest, {
      resourceLogs: [{
        resource: { attributes: [{ key: 'service.name', value: str(`checkout-${b % 8}`) }, { key: 'cloud.region', value: str('eu-west-1') }] },
        scopeLogs: [{ scope: { name: 'bench' }, logRecords: records }],
      }],
    });
    out.push({ body, entries: recordsPerBody });
  }
  return out;
}

export function remoteWriteBodies(count: number, seriesPerBody: number, samplesPerSeries: number): { body: Buffer; entries: number }[] {
  const out: { body: Buffer; entries: number }[] = [];
  const now = Date.now();
  for (let b = 0; b < count; b++) {
    const timeseries = Array.from({ length: seriesPerBody }, (_, s) => ({
      labels: [{ name: '__name__', value: 'http_requests_total' }, { name: 'instance', value: `node-${s % 50}:9100` },
        { name: 'job', value: 'api' }, { name: 'route', value: `/r/${s}` }, { name: 'shard', value: String(b) }],
      samples: Array.from({ length: samplesPerSeries }, (_, i) => ({ value: i * 3 + s, timestamp: now - (samplesPerSeries - i) * 1000 })),
    }));
    const raw = encodeRemoteWrite(1, { timeseries });
    out.push({ body: Buffer.from(compress(raw)), entries: seriesPerBody * samplesPerSeries });
  }
  return out;
}

export function otlpMetricBodies(count: number, pointsPerBody: number): { body: Buffer; entries: number }[] {
  const out: { body: Buffer; entries: number }[] = [];
  const nowNs = String(BigInt(Date.now()) * 1_000_000n);
  for (let b = 0; b < count; b++) {
    const dataPoints = Array.from({ length: pointsPerBody }, (_, i) => ({
      attributes: [{ key: 'route', value: str(`/r/${i}`) }, { key: 'shard', value: str(String(b)) }],
      timeUnixNano: nowNs, startTimeUnixNano: nowNs, asDouble: i * 1.5,
    }));
    const body = encodeExportMetricsRequest({
      resourceMetrics: [{
        resource: { attributes: [{ key: 'service.name', value: str('bench') }] },
        scopeMetrics: [{ metrics: [{ name: 'queue.depth', unit: '1', gauge: { dataPoints } }] }],
      }],
    });
    out.push({ body, entries: pointsPerBody });
  }
  return out;
}

/** Acked, and acked and stored (the run plus the time its backlog took to land), each as a share of decode-only. */
function ratioLine(label: string, service: LoadResult, drainS: number, decodeRate: number): string {
  const acked = service.entries / service.seconds;
  const stored = service.entries / (service.seconds + drainS);
  const pct = (rate: number) => `${((rate / decodeRate) * 100).toFixed(1)} %`;
  return `${label.padEnd(34)} decode-only ${Math.round(decodeRate).toLocaleString('en').padStart(10)} entries/s; ` +
    `service / decode-only: acked ${pct(acked)}, acked and stored ${pct(stored)} (${Math.round(stored).toLocaleString('en')}/s, ` +
    `backlog landed ${drainS.toFixed(1)} s after the run)`;
}

export async function extraBenchmarks(ctx: ExtraContext): Promise<void> {
  const { svc, acct, seconds, connections, line } = ctx;
  const key = { 'X-API-Key': acct.key };
  // Each figure starts once the previous one's backlog is in the store, so none pays for another's.
  const logBodies = otlpLogBodies(24, 4000);
  const otlpLogs = await runLoad({
    url: `${svc.ingest}/v1/logs`, headers: { ...key, 'Content-Type': 'application/x-protobuf' },
    bodies: logBodies, connections, seconds,
  });
  const otlpLogsDrainS = await waitForDrain(svc);
  console.log(line('sightline OTLP protobuf logs', otlpLogs));
  console.log(ratioLine('  OTLP logs', otlpLogs, otlpLogsDrainS,
    await decodeOnlyRate(logBodies, 'otlp-logs', Math.min(5, seconds))));
  // The store worker no longer decodes these bodies with protobufjs: it reads each record's spans in place from the
  // wire. Its reader's own rate (rows read, nothing stored) is printed beside the ratio, so that the ratio's baseline —
  // the codec a Node receiver would use, and the one the service falls back to — is not mistaken for the worker's cost.
  const wireRate = await decodeOnlyRate(logBodies, 'otlp-logs-plain', Math.min(5, seconds));
  console.log(`  OTLP logs, the worker's in-place reader (otlp-logs-plain.ts) alone, one thread: ${Math.round(wireRate).toLocaleString('en')} entries/s ` +
    `into rows; acked and stored ${((otlpLogs.entries / (otlpLogs.seconds + otlpLogsDrainS) / wireRate) * 100).toFixed(1)} % of it`);

  const rwBodies = remoteWriteBodies(16, 2000, 10);
  const rw = await runLoad({
    url: `${svc.app}/api/v1/write`,
    headers: { ...key, 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Write-Version': '0.1.0' },
    bodies: rwBodies, connections, seconds,
  });
  const rwDrainS = await waitForDrain(svc);
  console.log(line('sightline remote write (samples)', rw));
  console.log(ratioLine('  remote write', rw, rwDrainS,
    await decodeOnlyRate(rwBodies, 'remote-write', Math.min(5, seconds))));

  const metricBodies = otlpMetricBodies(16, 5000);
  const otlpMetrics = await runLoad({
    url: `${svc.app}/v1/metrics`, headers: { ...key, 'Content-Type': 'application/x-protobuf' },
    bodies: metricBodies, connections, seconds,
  });
  const metricsDrainS = await waitForDrain(svc);
  console.log(line('sightline OTLP metrics (points)', otlpMetrics));
  console.log(ratioLine('  OTLP metrics', otlpMetrics, metricsDrainS, await decodeOnlyRate(metricBodies, 'otlp-metrics', Math.min(5, seconds))));
  // As for OTLP logs: gauges and sums are read from the wire now (otlp-metrics-wire.ts), series kept between requests.
  const metricsWireRate = await decodeOnlyRate(metricBodies, 'otlp-metrics-wire', Math.min(5, seconds));
  console.log(`  OTLP metrics, the worker's wire reader (otlp-metrics-wire.ts) alone, one thread: ${Math.round(metricsWireRate).toLocaleString('en')} points/s ` +
    `into columns; acked and stored ${((otlpMetrics.entries / (otlpMetrics.seconds + metricsDrainS) / metricsWireRate) * 100).toFixed(1)} % of it`);
}
