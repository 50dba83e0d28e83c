// Functions of a range vector, one series at a time, after Prometheus 2.x promql/functions.go:
// extrapolatedRate (rate, increase, delta), instantValue (irate, idelta), linearRegression (deriv,
// predict_linear) and the *_over_time family. `undefined` means "no output element for this series".
import { compareValuesAsc, kahanSumInc, type Point } from './values.js';

/** The window a range function sees: [startMs, endMs] after offset / `@`, `rangeMs` as written. */
export interface RangeWindow { startMs: number; endMs: number; rangeMs: number; evalMs: number }

export type RangeFunction = (points: Point[], w: RangeWindow, params: number[]) => number | undefined;

/**
 * extrapolatedRate: the increase from first to last sample, counter resets added back, extrapolated to
 * the window's edges when the data reaches to within 1.1 average intervals of them (else half an interval),
 * and never past the counter's zero point.
 */
function extrapolatedRate(points: Point[], w: RangeWindow, isCounter: boolean, isRate: boolean): number | undefined {
  const first = points[0];
  const last = points[points.length - 1];
  if (points.length < 2 || !first || !last) return undefined;
  let result = last.v - first.v;
  if (isCounter) {
    let prev = first.v;
    for (let i = 1; i < points.length; i++) {
      const cur = points[i]?.v ?? 0;
      if (cur < prev) result += prev;
      prev = cur;
    }
  }
  let durationToStart = (first.t - w.startMs) / 1000;
  const durationToEnd = (w.endMs - last.t) / 1000;
  const sampledInterval = (last.t - first.t) / 1000;
  const averageInterval = sampledInterval / (points.length - 1);
  if (isCounter && result > 0 && first.v >= 0) {
    const durationToZero = sampledInterval * (first.v / result);
    if (durationToZero < durationToStart) durationToStart = durationToZero;
  }
  const threshold = averageInterval * 1.1;
  let extrapolateTo = sampledInterval;
  extrapolateTo += durationToStart < threshold ? durationToStart : averageInterval / 2;
  extrapolateTo += durationToEnd < threshold ? durationToEnd : averageInterval / 2;
  let factor = extrapolateTo / sampledInterval;
  if (isRate) factor /= w.rangeMs / 1000;
  return result * factor;
}

/** instantValue: the last two samples only; for irate a drop is a counter reset. */
function instantValue(points: Point[], isRate: boolean): number | undefined {
  const last = points[points.length - 1];
  const prev = points[points.length - 2];
  if (!last || !prev) return undefined;
  let result = isRate && last.v < prev.v ? last.v : last.v - prev.v;
  const interval = last.t - prev.t;
  if (interval === 0) return undefined;
  if (isRate) result /= interval / 1000;
  return result;
}

/** Least squares over (seconds since interceptMs, value), Kahan-summed; a constant series has slope 0. */
export function linearRegression(points: Point[], interceptMs: number): [number, number] {
  let n = 0;
  let sumX = 0, cX = 0, sumY = 0, cY = 0, sumXY = 0, cXY = 0, sumX2 = 0, cX2 = 0;
  const initY = points[0]?.v ?? 0;
  let constY = true;
  for (const p of points) {
    if (p.v !== initY) constY = false;
    n += 1;
    const x = (p.t - interceptMs) / 1000;
    [sumX, cX] = kahanSumInc(x, sumX, cX);
    [sumY, cY] = kahanSumInc(p.v, sumY, cY);
    [sumXY, cXY] = kahanSumInc(x * p.v, sumXY, cXY);
    [sumX2, cX2] = kahanSumInc(x * x, sumX2, cX2);
  }
  if (constY) return Math.abs(initY) === Infinity ? [Number.NaN, Number.NaN] : [0, initY];
  sumX += cX;
  sumY += cY;
  sumXY += cXY;
  sumX2 += cX2;
  const covXY = sumXY - (sumX * sumY) / n;
  const varX = sumX2 - (sumX * sumX) / n;
  const slope = covXY / varX;
  return [slope, sumY / n - (slope * sumX) / n];
}

/** quantile of Prometheus: linear interpolation between the closest ranks (rank = q·(n−1)). */
export function quantile(q: number, values: number[]): number {
  if (values.length === 0 || Number.isNaN(q)) return Number.NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = [...values].sort(compareValuesAsc);
  const n = sorted.length;
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return (sorted[lower] ?? 0) * (1 - weight) + (sorted[upper] ?? 0) * weight;
}

function sumOverTime(points: Point[]): number {
  let sum = 0, c = 0;
  for (const p of points) [sum, c] = kahanSumInc(p.v, sum, c);
  return Math.abs(sum) === Infinity ? sum : sum + c;
}

/** avg_over_time: incremental mean (no overflow), keeping an infinite mean once reached. */
function avgOverTime(points: Point[]): number {
  let mean = 0, c = 0, count = 0;
  for (const { v } of points) {
    count++;
    if (Math.abs(mean) === Infinity) {
      if (Math.abs(v) === Infinity && (mean > 0) === (v > 0)) continue;
      if (Math.abs(v) !== Infinity && !Number.isNaN(v)) continue;
    }
    [mean, c] = kahanSumInc(v / count - mean / count, mean, c);
  }
  return Math.abs(mean) === Infinity ? mean : mean + c;
}

/** Welford's variance with Kahan-summed mean and sum of squares, as stdvar_over_time. */
function varianceOverTime(points: Point[]): number {
  let count = 0, mean = 0, cMean = 0, aux = 0, cAux = 0;
  for (const { v } of points) {
    count++;
    const delta = v - (mean + cMean);
    [mean, cMean] = kahanSumInc(delta / count, mean, cMean);
    [aux, cAux] = kahanSumInc(delta * (v - (mean + cMean)), aux, cAux);
  }
  return (aux + cAux) / count;
}

function extreme(points: Point[], better: (a: number, b: number) => boolean): number {
  let best = points[0]?.v ?? Number.NaN;
  for (const { v } of points) if (better(v, best) || Number.isNaN(best)) best = v;
  return best;
}

function countChanges(points: Point[], isChange: (prev: number, cur: number) => boolean): number {
  let n = 0;
  for (let i = 1; i < points.length; i++) if (isChange(points[i - 1]?.v ?? 0, points[i]?.v ?? 0)) n++;
  return n;
}

export const RANGE_FUNCTIONS: ReadonlyMap<string, RangeFunction> = new Map<string, RangeFunction>([
  ['rate', (p, w) => extrapolatedRate(p, w, true, true)],
  ['increase', (p, w) => extrapolatedRate(p, w, true, false)],
  ['delta', (p, w) => extrapolatedRate(p, w, false, false)],
  ['irate', (p) => instantValue(p, true)],
  ['idelta', (p) => instantValue(p, false)],
  ['deriv', (p) => (p.length < 2 ? undefined : linearRegression(p, p[0]?.t ?? 0)[0])],
  ['predict_linear', (p, w, [d = 0]) => {
    if (p.length < 2) return undefined;
    const [slope, intercept] = linearRegression(p, w.evalMs);
    return slope * d + intercept;
  }],
  ['changes', (p) => countChanges(p, (a, b) => a !== b && !(Number.isNaN(a) && Number.isNaN(b)))],
  ['resets', (p) => countChanges(p, (a, b) => b < a)],
  ['avg_over_time', avgOverTime],
  ['sum_over_time', sumOverTime],
  ['count_over_time', (p) => p.length],
  ['min_over_time', (p) => extreme(p, (a, b) => a < b)],
  ['max_over_time', (p) => extreme(p, (a, b) => a > b)],
  ['last_over_time', (p) => p[p.length - 1]?.v],
  ['present_over_time', () => 1],
  ['stdvar_over_time', varianceOverTime],
  ['stddev_over_time', (p) => Math.sqrt(varianceOverTime(p))],
  ['quantile_over_time', (p, _w, [q = Number.NaN]) => quantile(q, p.map((x) => x.v))],
]);
