// Exponential histograms (OTLP, wire-formats.md §3.16) and Prometheus native histograms (remote write,
// §3.14) turned into classic cumulative `_bucket{le="…"}` series, so that histogram_quantile() over `le`
// works on every histogram the service stores. Both use base = 2^(2^-scale) (the native `schema` is the
// OTLP `scale`); they differ by one in how a bucket index maps to its bounds:
//   OTLP   index i covers (base^i, base^(i+1)]        (upper bound base^(i+1))
//   native index i covers (base^(i-1), base^i]        (upper bound base^i)
// Negative buckets mirror the positive ones; their upper bound is the bound nearer zero. The zero bucket
// covers [-zero_threshold, zero_threshold] and gets le = zero_threshold.
import { formatPromFloat } from './prom-names.js';

/** One bucket, not cumulative: `count` observations at or below `upper` and above the previous bucket. */
export interface Bucket {
  upper: number;
  count: number;
}

/** base^index for a given scale, i.e. 2^(index·2^-scale). */
export function expBound(scale: number, index: number): number {
  return Math.pow(2, index * Math.pow(2, -scale));
}

/** OTLP exponential buckets: `counts[i]` is bucket offset+i; `sign` −1 for the negative range. */
export function otlpExpBuckets(scale: number, offset: number, counts: readonly number[], sign: 1 | -1): Bucket[] {
  return counts.map((count, i) => ({
    upper: sign === 1 ? expBound(scale, offset + i + 1) : -expBound(scale, offset + i),
    count,
  }));
}

/** Native histogram buckets given as (index, count) pairs. */
export function nativeExpBuckets(scale: number, entries: readonly (readonly [number, number])[], sign: 1 | -1): Bucket[] {
  return entries.map(([index, count]) => ({
    upper: sign === 1 ? expBound(scale, index) : -expBound(scale, index - 1),
    count,
  }));
}

/**
 * Cumulative `le` buckets, ascending, ending with `+Inf` = `total` (the `_count`, as a classic histogram's
 * +Inf bucket always is). Buckets whose bounds collide as doubles are merged; bounds that overflow to ±Inf
 * or are NaN fall into the `+Inf` bucket.
 */
export function cumulativeLe(buckets: readonly Bucket[], total: number): { le: string; count: number }[] {
  const finite = buckets.filter((b) => Number.isFinite(b.upper)).sort((a, b) => a.upper - b.upper);
  const out: { le: string; count: number }[] = [];
  let running = 0;
  let last = NaN;
  for (const b of finite) {
    running += b.count;
    const prev = out[out.length - 1];
    if (prev !== undefined && b.upper === last) prev.count = running;
    else out.push({ le: formatPromFloat(b.upper), count: running });
    last = b.upper;
  }
  out.push({ le: '+Inf', count: total });
  return out;
}
