// Seasonal baseline with robust bands for the anomaly kinds. Each judged point is compared with the history that
// shares its hour of the week (168 slots), the simplest seasonal decomposition that still follows both the daily
// cycle and the weekday/weekend difference: Datadog's "robust"/"agile" anomaly algorithms and Twitter's
// AnomalyDetection (Hochenbaum, Vallis & Kejariwal 2017, "Automatic Anomaly Detection in the Cloud Via Statistical
// Learning", arXiv:1704.07706) both judge a point against the same phase of earlier seasons with the median and MAD,
// because a mean and σ learnt over a history holding an earlier incident would widen the bands until the next one
// passes unseen. Slots are in UTC: a local-time cycle is just as periodic in UTC (DST moves it an hour twice a year).
//
// The profile is read between slot centres (linear interpolation), and σ is the robust spread of the residuals
// from it, so a steep morning ramp inside one hour neither biases the expectation nor widens the band.
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

const mod = (a: number, n: number): number => ((a % n) + n) % n;

/**
 * One season's profile: a median per hour slot, read between slot centres by linear interpolation, so that a point
 * late in an hour on a steep morning ramp is compared with the ramp there and not with the hour's middle. σ per slot
 * is the MAD of the residuals from that profile, so the ramp inside an hour does not widen the band either.
 */
class Profile {
  private readonly slots = new Map<number, SlotStats>();

  constructor(points: readonly (readonly [number, number])[], private readonly period: number, private readonly minSamples: number, floor: (m: number) => number) {
    const groups = new Map<number, [number, number][]>();
    for (const p of points) {
      const slot = mod(Math.floor(p[0] / HOUR_MS), period);
      const g = groups.get(slot);
      if (g) g.push([p[0], p[1]]);
      else groups.set(slot, [[p[0], p[1]]]);
    }
    for (const [slot, g] of groups) this.slots.set(slot, { median: median(g.map(([, v]) => v)), sigma: 0, n: g.length });
    for (const [slot, g] of groups) {
      const stat = this.slots.get(slot);
      if (!stat) continue;
      const residuals = g.map(([t, v]) => v - (this.level(t) ?? stat.median));
      stat.sigma = Math.max(medianMad(residuals).mad * MAD_TO_SIGMA, floor(stat.median));
    }
  }

  private usable(slot: number): SlotStats | undefined {
    const s = this.slots.get(mod(slot, this.period));
    return s && s.n >= this.minSamples ? s : undefined;
  }

  /** The two slot centres around t and t's position between them; the own slot alone when a neighbour is missing. */
  private around(t: number): { a: SlotStats; b: SlotStats; f: number } | undefined {
    const x = t / HOUR_MS - 0.5;
    const h = Math.floor(x);
    const a = this.usable(h);
    const b = this.usable(h + 1);
    if (a && b) return { a, b, f: x - h };
    const own = this.usable(Math.floor(t / HOUR_MS));
    return own ? { a: own, b: own, f: 0 } : undefined;
  }

  private level(t: number): number | undefined {
    const r = this.around(t);
    return r ? r.a.median + (r.b.median - r.a.median) * r.f : undefined;
  }

  at(t: number): { expected: number; sigma: number } | undefined {
    const r = this.around(t);
    if (!r) return undefined;
    return { expected: r.a.median + (r.b.median - r.a.median) * r.f, sigma: r.a.sigma + (r.b.sigma - r.a.sigma) * r.f };
  }
}

/** The baseline learnt from `history` (points before `judgeStartMs`), or null when the series is too sparse. */
export function seasonalBaseline(
  history: readonly (readonly [number, number])[], judgeStartMs: number, opts: SeasonalOptions,
): ((t: number) => { expected: number; sigma: number; tier: SeasonTier } | null) | null {
  const points = history.filter(([t, v]) => t < judgeStartMs && Number.isFinite(v));
  const first = points[0];
  if (first === undefined || points.length < opts.minPoints) return null;
  const span = judgeStartMs - first[0];
  const weekly = span >= WEEK_MS ? new Profile(points, 168, opts.minSlotSamples, opts.floor) : null;
  const daily = span >= DAY_MS ? new Profile(points, 24, opts.minSlotSamples, opts.floor) : null;
  const recentValues = points.filter(([t]) => t >= judgeStartMs - opts.recentMs).map(([, v]) => v);
  const recent = recentValues.length >= Math.min(opts.minPoints, 6) ? stats(recentValues, opts.floor) : null;
  return (t) => {
    const w = weekly?.at(t);
    if (w) return { ...w, tier: 'hour_of_week' };
    const d = daily?.at(t);
    if (d) return { ...d, tier: 'hour_of_day' };
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
