// Multiwindow, multi-burn-rate alerting on an SLO's error budget: Google SRE Workbook, chapter 5 "Alerting on SLOs",
// §6 "Multiwindow, Multi-Burn-Rate Alerts" (https://sre.google/workbook/alerting-on-slos/). The burn rate is the
// error ratio over a window divided by the budget (1 − SLO): 1 spends the budget exactly over the SLO period.
// A pair fires when both its long and its short window burn faster than its factor: the long window makes the alert
// mean something (a blip the long window does not feel stays quiet), the short one makes it stop soon after the
// burn does (the long window still remembers a burst for an hour; the short one forgets it in five minutes).
// The workbook's recommended pairs for a 30-day SLO: 14.4× over 1 h and 5 min (2% of the budget in an hour, page),
// 6× over 6 h and 30 min (5% in six hours, page), 1× over 3 d and 6 h (10% in three days, ticket).
// The workbook also warns that low-traffic services make single failures look like fast burns ("Low-Traffic
// Services and Error Budget Alerting"); `minTotal` is the least traffic a long window needs to be judged.

export interface BurnWindow {
  longMs: number;
  shortMs: number;
  /** The burn rate both windows must exceed. */
  factor: number;
}

const MIN = 60_000;
const HOUR = 60 * MIN;

/** The workbook's two paging pairs (its recommended parameters for a 30-day SLO). */
export const SRE_PAGE_WINDOWS: readonly BurnWindow[] = [
  { longMs: HOUR, shortMs: 5 * MIN, factor: 14.4 },
  { longMs: 6 * HOUR, shortMs: 30 * MIN, factor: 6 },
];

/** Errors and requests of one step (counts, or per-second rates: the ratio of sums is the same either way). */
export interface RatioPoint {
  t: number;
  errors: number;
  total: number;
}

export interface WindowRatio {
  errors: number;
  total: number;
  /** errors / total; 0 when there was no traffic (no request, no budget spent). */
  ratio: number;
  burn: number;
}

/** Sums the points with `t` in the half-open `[endMs - lengthMs, endMs)`. */
export function windowRatio(points: readonly RatioPoint[], endMs: number, lengthMs: number, slo: number): WindowRatio {
  let errors = 0;
  let total = 0;
  const start = endMs - lengthMs;
  for (const p of points) {
    if (p.t < start || p.t >= endMs) continue;
    if (Number.isFinite(p.errors)) errors += p.errors;
    if (Number.isFinite(p.total)) total += p.total;
  }
  // More errors than requests happens when the two queries disagree (ingest lag between them); cap at 100%.
  const ratio = total > 0 ? Math.min(errors / total, 1) : 0;
  return { errors, total, ratio, burn: ratio / (1 - slo) };
}

export interface PairResult {
  window: BurnWindow;
  long: WindowRatio;
  short: WindowRatio;
  firing: boolean;
}

export interface BurnResult {
  pairs: PairResult[];
  firing: boolean;
  /** The burn rate to report: the highest long-window burn among firing pairs, else among all pairs. */
  burn: number;
}

/**
 * Judges every pair at `endMs`. `countScale` turns the summed `total` into a request count for the `minTotal` check
 * (1 for counts per step; step seconds for per-second rates).
 */
export function burnRates(
  points: readonly RatioPoint[], endMs: number, slo: number, windows: readonly BurnWindow[], minTotal: number, countScale = 1,
): BurnResult {
  const pairs = windows.map((window): PairResult => {
    const long = windowRatio(points, endMs, window.longMs, slo);
    const short = windowRatio(points, endMs, window.shortMs, slo);
    const enough = long.total * countScale >= minTotal && long.total > 0;
    return { window, long, short, firing: enough && long.burn > window.factor && short.burn > window.factor };
  });
  const firing = pairs.filter((p) => p.firing);
  const burn = Math.max(0, ...(firing.length > 0 ? firing : pairs).map((p) => p.long.burn));
  return { pairs, firing: firing.length > 0, burn };
}

/** `1h:5m:14.4` → a pair; null when the text is not one (long must be longer than short, factor > 0). */
export function parseBurnWindow(text: string, parseDurationMs: (s: string) => number | undefined): BurnWindow | null {
  const parts = text.split(':');
  if (parts.length !== 3) return null;
  const longMs = parseDurationMs(parts[0]?.trim() ?? '');
  const shortMs = parseDurationMs(parts[1]?.trim() ?? '');
  const factor = Number(parts[2]?.trim());
  if (longMs === undefined || shortMs === undefined || !(shortMs > 0) || !(longMs > shortMs)) return null;
  if (!Number.isFinite(factor) || factor <= 0) return null;
  return { longMs, shortMs, factor };
}
