/**
 * OTLP metrics over HTTP (`POST /v1/metrics`, `/api/v1/otel/v1/metrics`; wire-formats.md §3.16): an
 * ExportMetricsServiceRequest in JSON or protobuf, translated into Prometheus samples by the OpenTelemetry →
 * Prometheus compatibility rules (otlp-metrics-translate.ts, prom-names.ts).
 *
 * How OTLP kinds are stored (for the README):
 * - Gauge, and Sum that is not monotonic: one sample per point under the family name (`_ratio` for unit `1`).
 * - Monotonic Sum: one sample per point under `<name>_total`.
 * - DELTA temporality (sums, histograms, exponential histograms) is stored AS SENT: each point's value is the
 *   change over its own interval, under the same name a cumulative stream would get, and the family's
 *   metadata type is `unknown` rather than `counter`/`histogram`. We do not accumulate deltas into running
 *   totals: that needs per-series state that a restart or a second process would lose, silently turning
 *   totals wrong. Query delta series with `sum_over_time(x_total[5m])` (or `sum_over_time(x_bucket[5m])`
 *   inside `histogram_quantile`), not with `rate()`/`increase()`.
 * - Histogram: cumulative `_bucket{le="…"}` series for every explicit bound plus `le="+Inf"` (= count),
 *   `_sum` (when the point has one) and `_count`.
 * - Exponential histogram: converted to the same classic shape. Every populated bucket range becomes a
 *   `_bucket{le}` series whose bound is the bucket's upper boundary, base^(offset+i+1) with
 *   base = 2^(2^-scale) (negative buckets: −base^(offset+i)); the zero bucket gets le = zero_threshold; then
 *   `+Inf`, `_sum`, `_count`. Bounds therefore differ between points of different scale, so aggregate over
 *   `le` with care; min/max are dropped.
 * - Summary: `{quantile="…"}` series, `_sum`, `_count`.
 * - A point flagged NO_RECORDED_VALUE becomes a Prometheus stale marker in every series it would write.
 * - Exemplars are counted (stats.exemplars) but not stored. Resource attributes other than service.name,
 *   service.namespace and service.instance.id go into one `target_info` series (value 1) per resource.
 *
 * Replies: ExportMetricsServiceResponse in the request's encoding (otlpMetricsReply), with partial_success
 * when some data points were refused (a histogram whose bucket counts do not match its bounds, an
 * exponential histogram with an out-of-range scale, a metric whose name sanitises to nothing).
 */
import { errors } from '../../errors.js';
import { decodeExportMetricsRequest, encodeExportMetricsResponse } from './otlp-metrics-proto.js';
import { translateOtlpMetrics } from './otlp-metrics-translate.js';
import type { JsonObject } from './otlp-read.js';
import { headerValue, parseContentType, type MetricsRequest, type ParsedMetrics } from './parsed-metrics.js';
import { utf8Text } from '../utf8-text.js';

type Encoding = 'json' | 'protobuf';

/** JSON starts with `{` after whitespace (§3.16 "Sniff"); everything else is tried as protobuf. */
function sniff(body: Buffer): Encoding {
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b ? 'json' : 'protobuf';
  }
  return 'protobuf';
}

function declared(contentType: string | undefined): Encoding | undefined {
  const { mediaType } = parseContentType(contentType);
  if (mediaType.endsWith('/json') || mediaType.endsWith('+json')) return 'json';
  if (mediaType.includes('protobuf')) return 'protobuf';
  return undefined;
}

function decodeJson(body: Buffer): JsonObject {
  const text = utf8Text(body).replace(/^\uFEFF/, '');
  const doc: unknown = JSON.parse(text);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new Error('the JSON body is not an object');
  }
  return doc as JsonObject;
}

/**
 * Whether decodeOtlpMetricsBody tries protobuf first on this body: then a body the wire reader reads
 * (otlp-metrics-wire.ts, only ever one protobufjs decodes) is the one it decodes.
 */
export function protobufFirst(body: Buffer, contentType: string | undefined): boolean {
  return body.length > 0 && (declared(contentType) ?? sniff(body)) === 'protobuf';
}

const decoders: Readonly<Record<Encoding, (body: Buffer) => JsonObject>> = {
  json: decodeJson,
  protobuf: decodeExportMetricsRequest,
};

/**
 * The request as an OTLP/JSON-shaped object. Content-Type decides, then the first byte; when the declared
 * encoding fails and the bytes look like the other one, that one is tried too. Bytes that are neither
 * → 400 (spec, Errors: "bytes parse as neither OTLP JSON nor protobuf").
 */
export function decodeOtlpMetricsBody(body: Buffer, contentType: string | undefined): { doc: JsonObject; encoding: Encoding } {
  const sniffed = sniff(body);
  if (body.length === 0) return { doc: {}, encoding: declared(contentType) ?? 'protobuf' };
  const order: Encoding[] = [declared(contentType) ?? sniffed];
  if (order[0] !== sniffed) order.push(sniffed);
  const failures: string[] = [];
  for (const encoding of order) {
    try {
      return { doc: decoders[encoding](body), encoding };
    } catch (e) {
      failures.push(`${encoding}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  throw errors.badRequest(`body is neither OTLP JSON nor OTLP protobuf ExportMetricsServiceRequest (${failures.join('; ')})`);
}

export function parseOtlpMetrics(body: Buffer, req: MetricsRequest): ParsedMetrics {
  const { doc, encoding } = decodeOtlpMetricsBody(body, headerValue(req.headers, 'content-type'));
  const t = translateOtlpMetrics(doc, req.nowMs);
  const parsed: ParsedMetrics = { samples: t.samples, metadata: t.metadata, stats: t.stats, encoding };
  if (t.rejectedDataPoints > 0) {
    parsed.partialSuccess = { rejectedDataPoints: t.rejectedDataPoints, errorMessage: t.rejectReasons.join('; ') };
    parsed.dropped = { rejected_point: t.rejectedDataPoints };
  }
  return parsed;
}

/**
 * The 200 reply body: ExportMetricsServiceResponse in the request's encoding (§3.16; §4: a body that does
 * not decode per its Content-Type makes the Collector retry and duplicate). Empty message when all was kept.
 */
export function otlpMetricsReply(parsed: ParsedMetrics): { contentType: string; body: Buffer } {
  const partial = parsed.partialSuccess;
  if (parsed.encoding === 'json') {
    const value = partial === undefined ? {}
      : { partialSuccess: { rejectedDataPoints: String(partial.rejectedDataPoints), errorMessage: partial.errorMessage } };
    return { contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) };
  }
  return { contentType: 'application/x-protobuf', body: encodeExportMetricsResponse(partial) };
}
