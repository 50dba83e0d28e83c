// Generated data with known answers for the detector tests: a seeded random source (so every run sees the same
// noise), Poisson counts and normal noise, and the shapes real traffic has — a daily cycle peaking in the afternoon,
// quieter weekends, a Monday-morning rush. Times are UTC; 2024-01-01 is a Monday.
import { mulberry32 } from '../../testing/prng.js';

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;

/** Monday 2024-01-01T00:00Z. */
export const MONDAY = Date.UTC(2024, 0, 1);

/** The seeded generator of this data (testing/prng.ts). */
export const rng = mulberry32;

/** A standard normal draw (Box–Muller). */
export function normal(r: () => number): number {
  const u = Math.max(r(), Number.EPSILON);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

/** A Poisson draw: Knuth's product method for small λ, the normal approximation above 50. */
export function poisson(r: () => number, lambda: number): number {
  if (lambda <= 0) return 0;
  if (lambda > 50) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * normal(r)));
  const limit = Math.exp(-lambda);
  let k = 0;
  for (let p = r(); p > limit; p *= r()) k++;
  return k;
}

/** Hour of the day (0–24, fractional) and day of the week (0 = Monday) of a UTC time. */
export function clock(t: number): { hour: number; weekday: number } {
  const d = new Date(t);
  return { hour: d.getUTCHours() + d.getUTCMinutes() / 60, weekday: (d.getUTCDay() + 6) % 7 };
}

/** A daily cycle: 1 at 03:00, 4 at 15:00 (a cosine); weekends at half. */
export function dailyWeekly(t: number): number {
  const { hour, weekday } = clock(t);
  const day = 2.5 - 1.5 * Math.cos(((hour - 3) / 24) * 2 * Math.PI);
  return weekday >= 5 ? day / 2 : day;
}

/** dailyWeekly with a Monday 09:00–11:00 rush at three times the usual level (a weekly, not daily, peak). */
export function withMondayRush(t: number): number {
  const { hour, weekday } = clock(t);
  return dailyWeekly(t) * (weekday === 0 && hour >= 9 && hour < 11 ? 3 : 1);
}

/** Poisson counts per step over [start, end) with mean `base × shape(t)`. */
export function countSeries(
  startMs: number, endMs: number, stepMs: number, mean: (t: number) => number, seed: number,
): [number, number][] {
  const r = rng(seed);
  const out: [number, number][] = [];
  for (let t = startMs; t < endMs; t += stepMs) out.push([t, poisson(r, mean(t))]);
  return out;
}

/** Values per step over [start, end): `level(t)` plus normal noise of σ = `noise × level(t)`. */
export function gaugeSeries(
  startMs: number, endMs: number, stepMs: number, level: (t: number) => number, noise: number, seed: number,
): [number, number][] {
  const r = rng(seed);
  const out: [number, number][] = [];
  for (let t = startMs; t < endMs; t += stepMs) {
    const l = level(t);
    out.push([t, l + noise * l * normal(r)]);
  }
  return out;
}

/** Picks one of the items. */
export function pick<T>(r: () => number, items: readonly T[]): T {
  const item = items[Math.floor(r() * items.length)];
  if (item === undefined) throw new RangeError('pick from an empty list');
  return item;
}

/** Log entries from counts per step: `n` entries spread evenly over each step, made by `make(time, index)`. */
export function entriesFromCounts<T>(counts: readonly (readonly [number, number])[], stepMs: number, make: (t: number, i: number) => T): T[] {
  const out: T[] = [];
  for (const [t, n] of counts) for (let i = 0; i < n; i++) out.push(make(t + Math.floor((i * stepMs) / n), i));
  return out;
}
