// log_anomaly and metric_anomaly end to end through MemoryDetectorData: three weeks of generated traffic with daily
// and weekend cycles; judged through the third week the cycles never fire, a real spike fires for its group only,
// a sparse group and a restart (a short gap and a startup burst) stay quiet, and a counter reset inside `rate()`
// does not read as an anomaly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KINDS } from './index.js';
import type { DetectorKind } from '../model.js';
import { MemoryDetectorData, type MemoryLog } from '../testing/memory-data.js';
import { activeLabels, evaluateAt } from '../testing/evaluate.js';
import { countSeries, DAY, dailyWeekly, entriesFromCounts, gaugeSeries, HOUR, MIN, MONDAY, WEEK } from '../testing/generate.js';

const kind = (name: string): DetectorKind => {
  const k = KINDS.get(name);
  if (!k) throw new Error(name);
  return k;
};
const logAnomaly = kind('log_anomaly');
const metricAnomaly = kind('metric_anomaly');
const STEP = 5 * MIN;
const END = MONDAY + 3 * WEEK;
const SPIKE = MONDAY + 2 * WEEK + 3 * DAY + 14 * HOUR; // Thursday 14:00 of the third week

/** api: ~10 errors per 5 min on the daily cycle, tripled for 30 min at SPIKE; billing: a stray error now and then. */
function errorLogs(): MemoryLog[] {
  const api = countSeries(MONDAY, END, STEP, (t) => 10 * dailyWeekly(t) * (t >= SPIKE && t < SPIKE + 30 * MIN ? 3 : 1), 21);
  const billing = countSeries(MONDAY, END, STEP, () => 0.01, 22);
  const make = (service: string) => (t: number): MemoryLog => ({ timeMs: t, msg: 'upstream timeout', fields: { service, severity: 'error' } });
  return [...entriesFromCounts(api, STEP, make('api')), ...entriesFromCounts(billing, STEP, make('billing'))];
}

const logData = new MemoryDetectorData().addLogs(errorLogs());
const LOG_RAW = { query: 'level:error', group_by: ['service'], baseline: '14d' };

void test('log_anomaly: the daily and weekend cycles of the third week never fire, for the busy and the sparse service', async () => {
  const fired: string[] = [];
  for (let at = MONDAY + 2 * WEEK + 2 * HOUR; at < END; at += 5 * HOUR) {
    if (at > SPIKE - HOUR && at < SPIKE + 2 * HOUR) continue;
    const r = await evaluateAt(logAnomaly, LOG_RAW, logData, at);
    fired.push(...activeLabels(r).map((l) => `${new Date(at).toISOString()} ${l}`));
  }
  assert.deepEqual(fired, []);
});

void test('log_anomaly: a threefold spike fires for its service only, with the seasonal expectation in the summary', async () => {
  const r = await evaluateAt(logAnomaly, LOG_RAW, logData, SPIKE + 20 * MIN);
  assert.deepEqual(activeLabels(r), ['service=api']);
  const api = r.observations.find((o) => o.labels.service === 'api');
  assert.match(api?.summary ?? '', /per 5m vs .* expected \(band .*same hour of the week/);
});

void test('log_anomaly: a restart — five silent minutes, then a one-step burst of startup lines — stays quiet', async () => {
  const at = MONDAY + 2 * WEEK + 4 * DAY + 11 * HOUR;
  const restart = new MemoryDetectorData().addLogs([
    ...logData.logs.filter((e) => e.timeMs < at - 15 * MIN || e.timeMs >= at - 10 * MIN),
    ...Array.from({ length: 60 }, (_, i): MemoryLog => ({ timeMs: at - 10 * MIN + i * 1000, msg: 'starting', fields: { service: 'api', severity: 'error' } })),
  ]);
  for (const direction of ['above', 'both']) {
    const r = await evaluateAt(logAnomaly, { ...LOG_RAW, direction }, restart, at);
    assert.deepEqual(activeLabels(r), [], direction);
  }
});

void test('log_anomaly: a service younger than a day is judged against the recent past; unknown before its first entry', async () => {
  const start = END - 5 * HOUR;
  const young = countSeries(start, END, STEP, (t) => (t >= END - 15 * MIN ? 60 : 10), 5);
  const data = new MemoryDetectorData().addLogs(entriesFromCounts(young, STEP, (t) => ({ timeMs: t, msg: 'x', fields: { service: 'new' } })));
  const r = await evaluateAt(logAnomaly, { query: 'service:new', baseline: '14d' }, data, END);
  assert.equal(r.observations[0]?.active, true);
  assert.match(r.observations[0].summary ?? '', /last 2 h/);
  const empty = await evaluateAt(logAnomaly, { query: 'service:none' }, data, END);
  assert.equal(empty.observations[0]?.nodata, true);
});

void test('metric_anomaly: a gauge on the daily cycle is quiet all week, a 40% jump fires, a stopped series is left out', async () => {
  const jump = MONDAY + 2 * WEEK + 2 * DAY + 10 * HOUR;
  const data = new MemoryDetectorData()
    .addSeries('queue_depth', { queue: 'orders' }, gaugeSeries(MONDAY, END, STEP, (t) => 200 * dailyWeekly(t) * (t >= jump && t < jump + HOUR ? 1.4 : 1), 0.03, 8))
    .addSeries('queue_depth', { queue: 'retired' }, gaugeSeries(MONDAY, MONDAY + WEEK, STEP, () => 50, 0.03, 9));
  const raw = { expr: 'queue_depth', baseline: '14d' };
  const fired: string[] = [];
  for (let at = MONDAY + 2 * WEEK + 3 * HOUR; at < END; at += 7 * HOUR) {
    if (at > jump - HOUR && at < jump + 2 * HOUR) continue;
    const r = await evaluateAt(metricAnomaly, raw, data, at);
    assert.deepEqual(r.observations.map((o) => o.labels.queue), ['orders']);
    fired.push(...activeLabels(r));
  }
  assert.deepEqual(fired, []);
  assert.deepEqual(activeLabels(await evaluateAt(metricAnomaly, raw, data, jump + 30 * MIN)), ['queue=orders']);
});

void test('metric_anomaly: a restart resets the counter inside rate(); the request rate is not an anomaly', async () => {
  // Two days of a request counter at ~20/s on the daily cycle, scraped every minute; a restart at R zeroes it.
  const R = MONDAY + 2 * DAY + 15 * HOUR;
  const points: [number, number][] = [];
  let c = 0;
  for (let t = MONDAY; t < R + HOUR; t += MIN) {
    c = t === R ? 0 : c + 60 * 20 * dailyWeekly(t) / 2.5;
    points.push([t, c]);
  }
  const data = new MemoryDetectorData().addSeries('http_requests_total', { service: 'api' }, points);
  for (const at of [R + 5 * MIN, R + 15 * MIN, R + 30 * MIN]) {
    const r = await evaluateAt(metricAnomaly, { expr: 'sum by (service) (rate(http_requests_total[5m]))', baseline: '3d' }, data, at);
    assert.equal(r.observations[0]?.active, false, r.observations[0]?.summary);
  }
});

void test('metric_anomaly: a sparse series (a sample every few hours) is not judged', async () => {
  const data = new MemoryDetectorData().addSeries('batch_duration_seconds', { job: 'nightly' },
    Array.from({ length: 8 }, (_, i): [number, number] => [END - 2 * DAY + i * 6 * HOUR, i === 7 ? 5000 : 300]));
  const r = await evaluateAt(metricAnomaly, { expr: 'batch_duration_seconds', baseline: '3d' }, data, END - 2 * DAY + 42 * HOUR + 6 * MIN);
  assert.equal(r.observations[0]?.active, false);
  assert.match(r.observations[0].summary ?? '', /not enough history/);
});
