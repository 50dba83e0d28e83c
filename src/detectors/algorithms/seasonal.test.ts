// The seasonal baseline on generated traffic with a known answer: daily and weekly peaks are the expected shape and
// must never be anomalies; a real spike must be, at the trough and at the peak; a young series falls back to the
// daily slot or the recent past; sparse series, gaps and restart dips stay quiet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countFloor, DEFAULT_SEASONAL, isAnomalous, levelFloor, scoreWindow, type SeasonalOptions } from './seasonal.js';
import { countSeries, DAY, dailyWeekly, gaugeSeries, HOUR, MIN, MONDAY, rng, WEEK, withMondayRush } from '../testing/generate.js';

const STEP = 5 * MIN;
const COUNTS: SeasonalOptions = { ...DEFAULT_SEASONAL, floor: countFloor };
const K = 3;

type Points = [number, number][];
const split = (series: Points, at: number, length: number): [Points, Points] =>
  [series.filter(([t]) => t < at), series.filter(([t]) => t >= at && t < at + length)];

/** Judges the 30 minutes from `at` against everything before it. */
function judge(series: Points, at: number, opts = COUNTS, direction: 'above' | 'below' | 'both' = 'both') {
  const [history, window] = split(series, at, 30 * MIN);
  const s = scoreWindow(history, window, opts);
  return { s, anomalous: s !== null && isAnomalous(s, K, direction, 0) };
}

/** Four weeks of counts, ~40 per 5 minutes at the daily mean, shaped by `shape`; spikes multiply [from, to). */
function traffic(shape: (t: number) => number, spikes: [number, number, number][] = [], seed = 7): Points {
  return countSeries(MONDAY, MONDAY + 4 * WEEK, STEP, (t) => {
    let m = 40 * shape(t);
    for (const [from, to, factor] of spikes) if (t >= from && t < to) m *= factor;
    return m;
  }, seed);
}

void test('daily and weekend cycles never fire, judged every hour of the fourth week in both directions', () => {
  const series = traffic(dailyWeekly);
  const fired: string[] = [];
  for (let at = MONDAY + 3 * WEEK; at < MONDAY + 4 * WEEK - HOUR; at += HOUR) {
    const { s, anomalous } = judge(series, at);
    assert.equal(s?.tier, 'hour_of_week');
    if (anomalous) fired.push(new Date(at).toISOString());
  }
  assert.deepEqual(fired, []);
});

void test('a Monday-morning rush is weekly seasonality: quiet on Monday, an anomaly at the same hour on Tuesday', () => {
  const tuesdayRush: [number, number, number] = [MONDAY + 3 * WEEK + DAY + 9 * HOUR, MONDAY + 3 * WEEK + DAY + 11 * HOUR, 3];
  const series = traffic(withMondayRush, [tuesdayRush]);
  assert.equal(judge(series, MONDAY + 3 * WEEK + 9 * HOUR + 30 * MIN).anomalous, false);
  assert.equal(judge(series, MONDAY + 3 * WEEK + DAY + 9 * HOUR + 30 * MIN).anomalous, true);
});

void test('a threefold spike fires at the nightly trough and at the afternoon peak', () => {
  const night = MONDAY + 3 * WEEK + 2 * DAY + 3 * HOUR;
  const afternoon = MONDAY + 3 * WEEK + 3 * DAY + 15 * HOUR;
  const series = traffic(dailyWeekly, [[night, night + HOUR, 3], [afternoon, afternoon + HOUR, 3]]);
  const a = judge(series, night, COUNTS, 'above');
  const b = judge(series, afternoon, COUNTS, 'above');
  assert.equal(a.anomalous, true);
  assert.equal(b.anomalous, true);
  assert.ok((b.s?.observed ?? 0) > 2.5 * (b.s?.expected ?? Infinity));
});

void test('a drop to a fifth fires downwards and not upwards', () => {
  const at = MONDAY + 3 * WEEK + 2 * DAY + 14 * HOUR;
  const series = traffic(dailyWeekly, [[at, at + HOUR, 0.2]]);
  assert.equal(judge(series, at, COUNTS, 'below').anomalous, true);
  assert.equal(judge(series, at, COUNTS, 'above').anomalous, false);
});

void test('an incident in last week\'s history does not widen this week\'s band: the same spike still fires', () => {
  const lastWeek = MONDAY + 2 * WEEK + 2 * DAY + 14 * HOUR;
  const series = traffic(dailyWeekly, [[lastWeek, lastWeek + HOUR, 3], [lastWeek + WEEK, lastWeek + WEEK + HOUR, 3]]);
  assert.equal(judge(series, lastWeek + WEEK).anomalous, true);
});

void test('with three days of history the hour of the day is the baseline: the daily peak is quiet, a spike fires', () => {
  const start = MONDAY + 7 * HOUR;
  const at = MONDAY + 3 * DAY + 15 * HOUR;
  const series = countSeries(start, at + HOUR, STEP, (t) => 40 * dailyWeekly(t) * (t >= at + 30 * MIN ? 3 : 1), 3);
  const peak = judge(series, at);
  assert.equal(peak.s?.tier, 'hour_of_day');
  assert.equal(peak.anomalous, false);
  assert.equal(judge(series, at + 30 * MIN).anomalous, true);
});

void test('with five hours of history the recent past is the baseline and a spike still fires', () => {
  const start = MONDAY + 3 * HOUR;
  const at = start + 5 * HOUR;
  const series = countSeries(start, at + 30 * MIN, STEP, (t) => (t >= at ? 150 : 50), 5);
  const r = judge(series, at);
  assert.equal(r.s?.tier, 'recent');
  assert.equal(r.anomalous, true);
});

void test('a sparse series is not judged at all, and a mostly-empty one never fires on a stray line', () => {
  const few: Points = [[MONDAY, 3], [MONDAY + DAY, 1], [MONDAY + 2 * DAY, 9], [MONDAY + 3 * DAY, 2]];
  assert.equal(judge([...few, [MONDAY + 3 * DAY + HOUR, 40]], MONDAY + 3 * DAY + HOUR).s, null);
  const trickle = traffic(() => 0.002, [], 11);
  for (let at = MONDAY + 3 * WEEK; at < MONDAY + 4 * WEEK - HOUR; at += HOUR) assert.equal(judge(trickle, at).anomalous, false);
});

void test('a restart leaves a gap and a dip inside the window: the window median does not move', () => {
  const at = MONDAY + 3 * WEEK + DAY + 14 * HOUR;
  const series = traffic(dailyWeekly).filter(([t]) => t < at + 5 * MIN || t >= at + 15 * MIN)
    .map(([t, v]): [number, number] => [t, t >= at + 15 * MIN && t < at + 20 * MIN ? 0 : v]);
  assert.equal(judge(series, at).anomalous, false);
});

void test('a day missing from the history leaves the other weeks to carry each slot', () => {
  const gapStart = MONDAY + 2 * WEEK + 2 * DAY;
  const series = traffic(dailyWeekly).filter(([t]) => t < gapStart || t >= gapStart + DAY);
  const { s, anomalous } = judge(series, gapStart + WEEK + 15 * HOUR);
  assert.equal(s?.tier, 'hour_of_week');
  assert.equal(anomalous, false);
});

void test('a gauge with 2% noise: its cycle is quiet, a 30% level shift fires, the relative floor holds a flat one', () => {
  const opts: SeasonalOptions = { ...DEFAULT_SEASONAL, floor: levelFloor(0.01, 0) };
  const shiftAt = MONDAY + 3 * WEEK + 4 * DAY + 10 * HOUR;
  const gauge = gaugeSeries(MONDAY, MONDAY + 4 * WEEK, STEP, (t) => 100 * dailyWeekly(t) * (t >= shiftAt ? 1.3 : 1), 0.02, 9);
  for (let at = MONDAY + 3 * WEEK; at < shiftAt - 30 * MIN; at += 3 * HOUR) assert.equal(judge(gauge, at, opts).anomalous, false, new Date(at).toISOString());
  assert.equal(judge(gauge, shiftAt, opts).anomalous, true);
  const r = rng(1);
  const flat: Points = Array.from({ length: 2000 }, (_, i) => [MONDAY + i * STEP, 500 + (r() < 0.5 ? 0 : 0.001)]);
  const last = MONDAY + 2000 * STEP;
  flat.push(...Array.from({ length: 6 }, (_, i): [number, number] => [last + i * STEP, 501]));
  assert.equal(judge(flat, last, opts).anomalous, false);
});
