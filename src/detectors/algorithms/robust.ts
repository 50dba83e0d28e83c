// Robust statistics for the baselines: median, quantiles and the median absolute deviation (MAD). The median and
// MAD have a 50% breakdown point, so a baseline built from history that itself holds a past incident, a restart
// gap or a scrape hiccup is not dragged by it, where the mean and standard deviation would be (Leys et al. 2013,
// "Detecting outliers: Do not use standard deviation around the mean, use absolute deviation around the median",
// J. Exp. Soc. Psychol. 49(4); Rousseeuw & Croux 1993, JASA 88(424)). Pure functions over finite numbers; NaN and
// ±Inf are dropped first, so a stale or divide-by-zero point does not poison a baseline.

/** 1 / Φ⁻¹(3/4): scales the MAD to estimate σ for normally distributed data (Rousseeuw & Croux 1993). */
export const MAD_TO_SIGMA = 1.4826;

/** The finite values, ascending (a new array). */
export function sortedFinite(values: readonly number[]): number[] {
  return values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
}

/**
 * The φ-quantile of values already sorted ascending, by linear interpolation between closest ranks (Hyndman &
 * Fan 1996 type 7: numpy's default and Prometheus' quantile_over_time). NaN for an empty input.
 */
export function quantileSorted(sorted: readonly number[], phi: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (phi <= 0) return sorted[0] ?? Number.NaN;
  if (phi >= 1) return sorted[n - 1] ?? Number.NaN;
  const rank = phi * (n - 1);
  const lo = Math.floor(rank);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[Math.min(lo + 1, n - 1)] ?? a;
  return a + (b - a) * (rank - lo);
}

/** The φ-quantile of the finite values (type 7). NaN when there are none. */
export function quantile(values: readonly number[], phi: number): number {
  return quantileSorted(sortedFinite(values), phi);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Median and raw (unscaled) MAD of the finite values in one sort each. NaN for both when there are none. */
export function medianMad(values: readonly number[]): { median: number; mad: number } {
  const sorted = sortedFinite(values);
  const m = quantileSorted(sorted, 0.5);
  if (sorted.length === 0) return { median: Number.NaN, mad: Number.NaN };
  const dev = sorted.map((v) => Math.abs(v - m)).sort((a, b) => a - b);
  return { median: m, mad: quantileSorted(dev, 0.5) };
}

/** The MAD scaled to a σ estimate (MAD × 1.4826). */
export function robustSigma(values: readonly number[]): number {
  return medianMad(values).mad * MAD_TO_SIGMA;
}

/**
 * A robust z-score: how many scaled MADs `value` lies from the median. `floor` bounds the scale from below, since
 * a flat history (MAD 0) would make any change infinitely surprising.
 */
export function robustZ(value: number, center: number, sigma: number, floor: number): number {
  const scale = Math.max(sigma, floor);
  if (!(scale > 0)) return value === center ? 0 : Math.sign(value - center) * Number.POSITIVE_INFINITY;
  return (value - center) / scale;
}
