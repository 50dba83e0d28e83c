// What log_anomaly and metric_anomaly share: their parameters, the judged range and the judgement of one series
// against its seasonal baseline (algorithms/seasonal.ts). The judged range is whole steps ending at the last step
// boundary inside the window (a half-filled bucket would read as a drop), at least MIN_JUDGED of them so that the
// window median has something to be robust with: a one-step restart dip inside it cannot move it.
import { ParamError, type Observation, type ParamSpec, type Window } from '../model.js';
import { isAnomalous, scoreWindow, WEEK_MS, type Direction, type SeasonalOptions, DEFAULT_SEASONAL } from '../algorithms/seasonal.js';
import { durationText, type Params } from './params.js';
import { alignDown, alignUp, fmt, windowMs } from './common.js';

export const MIN_JUDGED = 3;
/** What the catalog states: a week, for the hour-of-week slots (younger series fall back to day and recent slots). */
export const SEASONAL_HISTORY_S = WEEK_MS / 1000;

export interface AnomalyCore {
  stepMs: number;
  baselineMs: number;
  deviations: number;
  direction: Direction;
}

export function anomalyParams(direction: Direction): ParamSpec[] {
  return [
    { name: 'step', type: 'duration', required: false, default: '5m', min: 60, max: 3600, description: 'Resolution of the series: values per step are what is judged.' },
    { name: 'baseline', type: 'duration', required: false, default: '14d', min: 3600, max: 35 * 86400, description: 'History the baseline learns from: the same hour of the week over it (hour of the day, then the last 2 h, while the series is younger than a week / a day).' },
    { name: 'deviations', type: 'number', required: false, default: 3, min: 1, max: 10, description: 'Band half-width in robust standard deviations (1.4826 × MAD); the window median beyond it is an anomaly.' },
    { name: 'direction', type: 'string', required: false, default: direction, enum: ['above', 'below', 'both'], description: 'Which side of the band is an anomaly.' },
  ];
}

export function readAnomaly(p: Params): AnomalyCore {
  const core = { stepMs: p.num('step'), baselineMs: p.num('baseline'), deviations: p.num('deviations'), direction: p.str('direction') as Direction };
  if (core.baselineMs < 12 * core.stepMs) throw new ParamError('baseline', `must hold at least 12 steps (${durationText(12 * core.stepMs)})`);
  return core;
}

/** The fetched range (history and judged steps) and where judging starts; all on step boundaries. */
export function ranges(core: AnomalyCore, window: Window, history: Window): { fetch: Window; judgeStart: number } {
  const end = alignDown(window.endMs, core.stepMs);
  const judged = Math.max(Math.ceil(windowMs(window) / core.stepMs), MIN_JUDGED);
  const judgeStart = end - judged * core.stepMs;
  const start = Math.min(alignUp(Math.min(history.startMs, window.startMs), core.stepMs), judgeStart);
  return { fetch: { startMs: start, endMs: end }, judgeStart };
}

export interface JudgeInput {
  labels: Record<string, string>;
  points: readonly [number, number][];
  judgeStart: number;
  core: AnomalyCore;
  seasonal: SeasonalOptions;
  /** The least |observed − expected| that counts, given the expected level. */
  minDelta: (expected: number) => number;
  /** A further gate on firing (log counts: enough entries); true when absent. */
  enough?: (window: readonly [number, number][], expectedTotal: number) => boolean;
  unit: string;
}

const TIER_WORDS = { hour_of_week: 'same hour of the week', hour_of_day: 'same hour of the day', recent: 'last 2 h' } as const;

export function judge(input: JudgeInput): Observation {
  const { labels, points, judgeStart, core } = input;
  const history = points.filter(([t]) => t < judgeStart);
  const window = points.filter(([t]) => t >= judgeStart);
  if (window.length === 0) return { labels, value: null, active: false, nodata: true, summary: 'no data in the window' };
  const s = scoreWindow(history, window, input.seasonal);
  if (!s) {
    const last = window.at(-1)?.[1] ?? null;
    return { labels, value: last, active: false, summary: `not enough history to judge (${history.length} points)` };
  }
  const expectedTotal = s.points.reduce((a, p) => a + p.expected, 0);
  const active = isAnomalous(s, core.deviations, core.direction, input.minDelta(s.expected)) && (input.enough?.(window, expectedTotal) ?? true);
  const band = core.deviations * s.sigma;
  return {
    labels, value: s.observed, active,
    summary: `${fmt(s.observed)}${input.unit} vs ${fmt(s.expected)} expected (band ${fmt(s.expected - band)}–${fmt(s.expected + band)}, ${TIER_WORDS[s.tier]}, ${fmt(s.score)} σ)`,
  };
}

export const seasonalFor = (floor: (m: number) => number): SeasonalOptions => ({ ...DEFAULT_SEASONAL, floor });
