// histogram_quantile over classic `_bucket{le="…"}` series, after Prometheus promql/quantile.go
// (bucketQuantile, coalesceBuckets, ensureMonotonic) and funcHistogramQuantile in functions.go.
import { parseGoFloat } from './literals.js';
import { labelsKey, METRIC_NAME, omitLabels, type Labels, type Sample } from './values.js';

interface Bucket { upperBound: number; count: number }

/**
 * The φ-quantile from cumulative buckets: linear interpolation inside the bucket the rank falls in; the
 * lowest bucket starts at 0 unless its bound is ≤ 0; a rank in the +Inf bucket answers the next-highest
 * bound. NaN without a +Inf bucket, with fewer than two buckets, or with no observations.
 */
export function bucketQuantile(q: number, input: Bucket[]): number {
  if (Number.isNaN(q)) return Number.NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = [...input].sort((a, b) => a.upperBound - b.upperBound);
  if (sorted[sorted.length - 1]?.upperBound !== Infinity) return Number.NaN;
  // coalesceBuckets: series that differ only in the spelling of `le` ("1" and "1.0") add up.
  const buckets: Bucket[] = [];
  for (const b of sorted) {
    const last = buckets[buckets.length - 1];
    if (last && last.upperBound === b.upperBound) last.count += b.count;
    else buckets.push({ ...b });
  }
  // ensureMonotonic: counts scraped at slightly different times may dip; raise them to the maximum so far.
  let max = -Infinity;
  for (const b of buckets) {
    if (b.count > max) max = b.count;
    else if (b.count < max) b.count = max;
  }
  if (buckets.length < 2) return Number.NaN;
  const observations = buckets[buckets.length - 1]?.count ?? 0;
  if (observations === 0) return Number.NaN;
  let rank = q * observations;
  // sort.Search over all but the +Inf bucket: the first bucket whose count reaches the rank.
  let b = 0;
  while (b < buckets.length - 1 && (buckets[b]?.count ?? 0) < rank) b++;
  if (b === buckets.length - 1) return buckets[buckets.length - 2]?.upperBound ?? Number.NaN;
  const first = buckets[0];
  if (b === 0 && first && first.upperBound <= 0) return first.upperBound;
  let bucketStart = 0;
  const bucketEnd = buckets[b]?.upperBound ?? 0;
  let count = buckets[b]?.count ?? 0;
  if (b > 0) {
    const prev = buckets[b - 1];
    bucketStart = prev?.upperBound ?? 0;
    count -= prev?.count ?? 0;
    rank -= prev?.count ?? 0;
  }
  return bucketStart + (bucketEnd - bucketStart) * (rank / count);
}

/**
 * histogram_quantile(φ, v): samples grouped by their labels without `le` (the group keeps its metric name
 * apart, the output drops it); samples without a parsable `le` are ignored.
 */
export function histogramQuantile(q: number, samples: Sample[]): Sample[] {
  const groups = new Map<string, { labels: Labels; buckets: Bucket[] }>();
  for (const s of samples) {
    const le = s.labels.le;
    const upperBound = le === undefined ? undefined : parseGoFloat(le);
    if (upperBound === undefined) continue;
    const key = labelsKey(omitLabels(s.labels, (k) => k === 'le'));
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { labels: omitLabels(s.labels, (k) => k === 'le' || k === METRIC_NAME), buckets: [] }));
    g.buckets.push({ upperBound, count: s.v });
  }
  return [...groups.values()].map((g) => ({ labels: g.labels, v: bucketQuantile(q, g.buckets) }));
}
