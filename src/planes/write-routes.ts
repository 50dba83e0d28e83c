// The app plane's write paths (spec, App plane paths): metrics in three wire formats and session replay,
// on the same pipeline as logs with app-plane credential rules, the metrics error shape (detail only),
// the metric caps of the spec's Limits, and the plan gates.
import type { Router } from '../front-doors/router.js';
import type { Handler } from '../front-doors/context.js';
import type { IngestPipeline, IngestRoute } from '../ingest/pipeline.js';
import type { IngestFormat } from '../ingest/format.js';
import { otlpMetricsFormat, remoteWriteFormat, influxFormat } from '../ingest/metrics/metrics-formats.js';
import { replayFormat } from '../ingest/formats/replay.js';
import { remoteWriteErrors } from '../ingest/metrics/remote-write.js';
import { requireMetrics, requireReplay } from '../limits/gates.js';
import { errors } from '../errors.js';
import { sendEmpty, sendJson } from '../front-doors/reply.js';

const MIB = 1024 * 1024;
/** Spec Limits: metrics 8 MB after decompression; remote write 8 MB compressed, 64 MB decompressed. */
const METRICS_CAP = 8 * MIB;
const REMOTE_WRITE_DECODED_CAP = 64 * MIB;
/** DESIGN §6: session replay 16 MB decompressed. */
const REPLAY_CAP = 16 * MIB;

export function registerWriteRoutes(router: Router, pipeline: IngestPipeline): void {
  const route = (format: IngestFormat, r: Omit<IngestRoute, 'format' | 'plane' | 'queryKeyAllowed' | 'firehoseKeyAllowed'>): Handler => {
    const full: IngestRoute = { format, plane: 'app', queryKeyAllowed: true, firehoseKeyAllowed: false, ...r };
    return (ctx) => pipeline.handle(ctx, full);
  };
  const metrics = (format: IngestFormat, decodedCap: number, tooLarge: (decoded: string) => ReturnType<typeof errors.metricsTooLarge>) => route(format, {
    errorShape: 'metrics', maxReceivedBytes: METRICS_CAP, maxDecodedBytes: decodedCap, tooLarge,
    receivedTooLarge: () => errors.metricsTooLarge(), gate: requireMetrics,
  });

  const otlp = metrics(otlpMetricsFormat, METRICS_CAP, () => errors.metricsTooLarge());
  router.on('POST', '/v1/metrics', otlp);
  router.on('POST', '/api/v1/otel/v1/metrics', otlp);
  router.on('POST', '/api/v1/write', metrics(remoteWriteFormat, REMOTE_WRITE_DECODED_CAP, (decoded) => remoteWriteErrors.decodedTooLarge(Number(/\d+/.exec(decoded)?.[0] ?? REMOTE_WRITE_DECODED_CAP))));
  const influx = metrics(influxFormat, METRICS_CAP, () => errors.metricsTooLarge());
  router.on('POST', '/write', influx);
  router.on('POST', '/api/v2/write', influx);

  router.on('POST', '/v1/rum/replay', route(replayFormat, {
    errorShape: 'logs', maxReceivedBytes: REPLAY_CAP, maxDecodedBytes: REPLAY_CAP,
    tooLarge: (decoded) => errors.payloadTooLarge(decoded, REPLAY_CAP), gate: requireReplay,
  }));

  // What Influx clients and Telegraf probe (wire-formats §3.15).
  router.on(['GET', 'HEAD'], '/ping', (ctx) => {
    sendEmpty(ctx.res, 204, { 'X-Influxdb-Version': '1.8.10', 'X-Influxdb-Build': 'OSS' });
    return Promise.resolve();
  });
  router.on('GET', '/health', (ctx) => {
    sendJson(ctx.res, 200, { name: 'sightline', message: 'ready for queries and writes', status: 'pass', version: '1.8.10' });
    return Promise.resolve();
  });
  // Telegraf's v1 output sends `CREATE DATABASE` first; databases are implicit here (the `db` label).
  router.on(['GET', 'POST'], '/query', (ctx) => {
    sendJson(ctx.res, 200, { results: [{ statement_id: 0 }] });
    return Promise.resolve();
  });
}
