// Prometheus native histograms (remote write 1.0 `histograms` and 2.0; wire-formats.md §3.14) stored as a
// classic histogram: cumulative `<name>_bucket{le="…"}`, `<name>_sum`, `<name>_count`. Exponential schemas
// (-4..8) map bucket index i to upper bound base^i, base = 2^(2^-schema); schema -53 (custom buckets) takes
// its bounds from `custom_values`, the index one past the end being +Inf. See histogram-buckets.ts.
import { errors } from '../../errors.js';
import { isStaleMarker, staleMarker, type MetricSample } from '../../model/metric.js';
import { cumulativeLe, nativeExpBuckets, type Bucket } from './histogram-buckets.js';
import { toNumber, type BucketSpan, type Int64, type NativeHistogram } from './remote-write-proto.js';

const CUSTOM_BUCKETS_SCHEMA = -53;
const MIN_SCHEMA = -4;
const MAX_SCHEMA = 8;

/** Spans + deltas (integer histograms) or spans + absolute counts (float histograms) → (index, count) pairs. */
function expand(spans: readonly BucketSpan[], deltas: readonly Int64[], counts: readonly number[], where: string): [number, number][] {
  const out: [number, number][] = [];
  const absolute = counts.length > 0;
  const available = absolute ? counts.length : deltas.length;
  let index = 0;
  let k = 0;
  let running = 0;
  for (const span of spans) {
    index += span.offset; // the first span's offset is its start; later ones are the gap after the previous span
    for (let j = 0; j < span.length; j++, index++, k++) {
      if (k >= available) throw errors.badRequest(`${where}: spans cover more buckets than the ${available} given`);
      running = absolute ? (counts[k] ?? 0) : running + toNumber(deltas[k]);
      out.push([index, running]);
    }
  }
  return out;
}

/** The classic series of one native histogram sample; throws 400 on a malformed histogram. */
export function nativeHistogramSamples(
  name: string, labels: Readonly<Record<string, string>>, h: NativeHistogram, where: string,
): MetricSample[] {
  const timeMs = toNumber(h.timestamp);
  const count = h.count === 'countFloat' ? h.countFloat : toNumber(h.countInt);
  const zeroCount = h.zeroCount === 'zeroCountFloat' ? h.zeroCountFloat : toNumber(h.zeroCountInt);
  // A stale native histogram carries the stale NaN as its sum (Prometheus value.IsStaleNaN(h.Sum)).
  const stale = isStaleMarker(h.sum);
  const v = (x: number): number => (stale ? staleMarker() : x);
  const positive = expand(h.positiveSpans, h.positiveDeltas, h.positiveCounts, `${where} positive`);
  let buckets: Bucket[];
  if (h.schema === CUSTOM_BUCKETS_SCHEMA) {
    const bounds = h.customValues;
    buckets = positive.map(([i, c]) => ({ upper: i >= 0 && i < bounds.length ? (bounds[i] ?? Infinity) : Infinity, count: c }));
  } else if (h.schema >= MIN_SCHEMA && h.schema <= MAX_SCHEMA) {
    const negative = expand(h.negativeSpans, h.negativeDeltas, h.negativeCounts, `${where} negative`);
    buckets = [
      ...nativeExpBuckets(h.schema, negative, -1),
      { upper: h.zeroThreshold, count: zeroCount },
      ...nativeExpBuckets(h.schema, positive, 1),
    ];
  } else {
    throw errors.badRequest(`${where}: native histogram schema ${h.schema} is not supported (-4..8 or -53)`);
  }
  const out: MetricSample[] = cumulativeLe(buckets, count).map((b) => ({
    name: `${name}_bucket`, labels: { ...labels, le: b.le }, timeMs, value: v(b.count),
  }));
  out.push({ name: `${name}_sum`, labels, timeMs, value: v(h.sum) });
  out.push({ name: `${name}_count`, labels, timeMs, value: v(count) });
  return out;
}
