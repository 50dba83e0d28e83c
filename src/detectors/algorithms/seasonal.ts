// Seasonal baseline with robust bands for the anomaly kinds. Each judged point is compared with the history that
// shares its hour of the week (168 slots), the simplest seasonal decomposition that still follows both the daily
// cycle and the weekday/weekend difference: Datadog's "robust"/"agile" anomaly algorithms and Twitter's
// AnomalyDetection (Hochenbaum, Vallis & Kejariwal 2017, "Automatic Anomaly Detection in the Cloud Via Statistical
// Learning", arXiv:1704.07706) both judge a point against the same phase of earlier seasons with the median and MAD,
// because a mean and σ learnt over a history holding an earlier incident would widen the bands until the next one
// passes unseen. Slots are in UTC: a local-time cycle is just as periodic in UTC (DST moves it an hour twice a year).
//
// Tiers, per point, finest first: the same hour of the week once the series has a week of history and the slot holds
// enough samples; else the same hour of the day once it has a day; else the recent past (a plain robust band over the
// last hours), which is all a young series has. A series with too few points at all is "not enough data" and is never
// judged: a sparse series must stay quiet.
import { MAD_TO_SIGMA, median, medianMad } from './robust.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
export const WEEK_MS = 7 * DAY_MS;

export type SeasonTier = 'hour_of_week' | 'hour_of_day' | 'recent';
export type Direction = 'above' | 'below' | 'both';

export interface SeasonalOptions {
  /** A slot needs this many history samples to be used (else the next tier). */
  minSlotSamples: number;
  /** The recent tier reads the history in [judgeStart - recentMs, judgeStart). */
  recentMs: number;
  /** The whole history needs this many points, or the series is not judged at all. */
  minPoints: number;
  /**
   * The least σ for a slot with this median. A flat history has MAD 0, which would make any change infinitely
   * surprising; counts use the Poisson σ = √median (countFloor), metrics a share of the level (levelFloor).
   */
  floor: (median: number) => number;
}

export const DEFAULT_SEASONAL: Omit<SeasonalOptions, 'floor'> = { minSlotSamples: 3, recentMs: 2 * HOUR_MS, minPoints: 12 };

/** Poisson noise of a count: σ = √λ, with λ at least 1 so an empty slot still tolerates a stray line. */
export const countFloor = (m: number): number => Math.sqrt(Math.max(m, 1));

/** A share of the level (and at least `abs`): a metric's noise floor. */
export const levelFloor = (share: number, abs: number) => (m: number): number => Math.max(share * Math.abs(m), abs);

interface SlotStats { median: number; sigma: number; n: number }

export interface PointJudgement { t: number; value: number; expected: number; sigma: number; tier: SeasonTier }

export interface WindowScore {
  /** The coarsest tier any judged point fell back to (the most honest label for the whole window). */
  tier: SeasonTier;
  /** Median over the window of the points' robust z-scores: a short dip or burst inside it does not move it. */
  score: number;
  /** Median of the window's values, and of what the baseline expected for them. */
  observed: number;
  expected: number;
  /** The band at ±k σ around `expected` (σ the median of the points' σ). */
  sigma: number;
  points: PointJudgement[];
}

function stats(values: number[], floor: (m: number) => number): SlotStats {
  const { median: m, mad } = medianMad(values);
  return { median: m, sigma: Math.max(mad * MAD_TO_SIGMA, floor(m)), n: values.length };
}

function slotsOf(history: readonly (readonly [number, number])[], periodHours: number, floor: (m: number) => number): Map<number, SlotStats> {
  const groups = new Map<number, number[]>();
  for (const [t, v] of history) {
    const slot = Math.floor(t / HOUR_MS) % periodHours;
    const g = groups.get(slot);
    if (g) g.push(v);
    else groups.set(slot, [v]);
  }
  const out = new Map<number, SlotStats>();
  for (const [slot, values] of groups) out.set(slot, stats(values, floor));
  return out;
}

/** The baseline learnt from `history` (points before `judgeStartMs`), or null when the series is too sparse. */
export function seasonalBaseline(
  history: readonly (readonly [number, number])[], judgeStartMs: number, opts: SeasonalOptions,
): ((t: number) => { expected: number; sigma: number; tier: SeasonTier } | null) | null {
  const points = history.filter(([t, v]) => t < judgeStartMs && Number.isFinite(v));
  const first = points[0];
  if (first === undefined || points.length < opts.minPoints) return null;
  const span = judgeStartMs - first[0];
  const weekly = span >= WEEK_MS ? slotsOf(points, 168, opts.floor) : null;
  const daily = span >= DAY_MS ? slotsOf(points, 24, opts.floor) : null;
  const recentValues = points.filter(([t]) => t >= judgeStartMs - opts.recentMs).map(([, v]) => v);
  const recent = recentValues.length >= Math.min(opts.minPoints, 6) ? stats(recentValues, opts.floor) : null;
  return (t) => {
    const hour = Math.floor(t / HOUR_MS);
    const w = weekly?.get(hour % 168);
    if (w && w.n >= opts.minSlotSamples) return { expected: w.median, sigma: w.sigma, tier: 'hour_of_week' };
    const d = daily?.get(hour % 24);
    if (d && d.n >= opts.minSlotSamples) return { expected: d.median, sigma: d.sigma, tier: 'hour_of_day' };
    if (recent) return { expected: recent.median, sigma: recent.sigma, tier: 'recent' };
    return null;
  };
}

const TIER_RANK: Record<SeasonTier, number> = { hour_of_week: 0, hour_of_day: 1, recent: 2 };

/**
 * Scores the window's points against the baseline of the history before them. Null when the history is too sparse
 * or the window has no point the baseline can judge (the caller reports "not enough data", never an anomaly).
 */
export function scoreWindow(
  history: readonly (readonly [number, number])[], window: readonly (readonly [number, number])[], opts: SeasonalOptions,
): WindowScore | null {
  const judged = window.filter(([, v]) => Number.isFinite(v));
  const start = judged[0]?.[0];
  if (start === undefined) return null;
  const baseline = seasonalBaseline(history, start, opts);
  if (!baseline) return null;
  const points: PointJudgement[] = [];
  for (const [t, value] of judged) {
    const b = baseline(t);
    if (b) points.push({ t, value, ...b });
  }
  if (points.length === 0) return null;
  let tier: SeasonTier = 'hour_of_week';
  for (const p of points) if (TIER_RANK[p.tier] > TIER_RANK[tier]) tier = p.tier;
  return {
    tier,
    score: median(points.map((p) => (p.value - p.expected) / p.sigma)),
    observed: median(points.map((p) => p.value)),
    expected: median(points.map((p) => p.expected)),
    sigma: median(points.map((p) => p.sigma)),
    points,
  };
}

/**
 * The anomaly rule: the window's median z-score is beyond ±k in the watched direction, and the observed level is at
 * least `minDelta` away from the expected one (a band of 3 σ around 2 lines per step is not worth a page).
 */
export function isAnomalous(s: WindowScore, k: number, direction: Direction, minDelta: number): boolean {
  const delta = s.observed - s.expected;
  const up = s.score > k && delta >= minDelta;
  const down = s.score < -k && -delta >= minDelta;
  return direction === 'above' ? up : direction === 'below' ? down : up || down;
}
