// log_threshold and metric_threshold on generated data with known answers: the group over the bound is the one that
// fires; stats columns other than count; an empty window counted as 0; half-open windows; hysteresis through the
// kind's state; Prometheus-rule semantics without a threshold; and a counter reset (a restart) that `rate()` rides
// through without a false drop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KINDS } from './index.js';
import type { DetectorKind } from '../model.js';
import { MemoryDetectorData, type MemoryLog } from '../testing/memory-data.js';
import { activeLabels, evaluateAt, evaluateSeries } from '../testing/evaluate.js';
import { MIN, rng } from '../testing/generate.js';

const END = Date.UTC(2024, 0, 10, 12);
const kind = (name: string): DetectorKind => {
  const k = KINDS.get(name);
  if (!k) throw new Error(name);
  return k;
};
const logThreshold = kind('log_threshold');
const metricThreshold = kind('metric_threshold');

/** `n` entries of a service spread over [from, from + 5 min). */
function burst(service: string, n: number, from: number, extra: Record<string, string> = {}, msg = 'request failed'): MemoryLog[] {
  return Array.from({ length: n }, (_, i) => ({ timeMs: from + Math.floor((i * 5 * MIN) / n), msg, fields: { service, severity: 'ERROR', ...extra } }));
}

void test('errors by service over 50 in 5 minutes: only the service over the bound fires, with its count', async () => {
  const data = new MemoryDetectorData().addLogs([
    ...burst('api', 60, END - 5 * MIN), ...burst('web', 10, END - 5 * MIN),
    ...burst('web', 500, END - 30 * MIN), // before the window
    ...burst('api', 40, END - 5 * MIN).map((e) => ({ ...e, fields: { ...e.fields, severity: 'INFO' } })),
  ]);
  const r = await evaluateAt(logThreshold, { query: 'level:error', group_by: ['service'], threshold: 50 }, data, END);
  assert.deepEqual(activeLabels(r), ['service=api']);
  const api = r.observations.find((o) => o.labels.service === 'api');
  assert.equal(api?.value, 60);
  assert.equal(api.summary, 'count 60 > 50');
});

void test('a stats quantile column: p99 of a duration field per service against 300', async () => {
  const r = rng(3);
  const entries: MemoryLog[] = [];
  for (let i = 0; i < 400; i++) {
    const slow = i % 2 === 0;
    entries.push({ timeMs: END - 4 * MIN + i * 100, msg: 'served', fields: { service: slow ? 'checkout' : 'search', duration: String(Math.round((slow ? 350 : 50) + 100 * r())) } });
  }
  const data = new MemoryDetectorData().addLogs(entries);
  const res = await evaluateAt(logThreshold, { query: '* | stats by (service) quantile(0.99, duration) p99, count() n', column: 'p99', threshold: 300 }, data, END);
  assert.deepEqual(activeLabels(res), ['service=checkout']);
});

void test('count() < 5 with no entries at all is 0 and active; a grouped query with no rows is nodata', async () => {
  const data = new MemoryDetectorData();
  const r = await evaluateAt(logThreshold, { query: 'service:payments', op: '<', threshold: 5 }, data, END);
  assert.deepEqual(r.observations, [{ labels: {}, value: 0, active: true, summary: 'count 0 < 5' }]);
  const g = await evaluateAt(logThreshold, { query: 'service:payments', group_by: ['host'], threshold: 5 }, data, END);
  assert.equal(g.observations[0]?.nodata, true);
});

void test('windows are half-open: an entry at the start counts, one at the end does not', async () => {
  const data = new MemoryDetectorData().addLogs([
    { timeMs: END - 5 * MIN, msg: 'at start', fields: {} }, { timeMs: END, msg: 'at end', fields: {} },
  ]);
  const r = await evaluateAt(logThreshold, { query: '*', threshold: 0 }, data, END);
  assert.equal(r.observations[0]?.value, 1);
});

void test('a count hovering at the bound flaps without a recovery threshold and holds with one', async () => {
  const counts = [55, 48, 53, 47, 52, 30, 51];
  const ends = counts.map((_, i) => END + i * 5 * MIN);
  const data = new MemoryDetectorData().addLogs(counts.flatMap((n, i) => burst('api', n, END - 5 * MIN + i * 5 * MIN)));
  const run = async (raw: Record<string, unknown>): Promise<boolean[]> =>
    (await evaluateSeries(logThreshold, raw, data, ends)).map((r) => r.observations[0]?.active ?? false);
  assert.deepEqual(await run({ query: 'service:api', threshold: 50 }), [true, false, true, false, true, false, true]);
  assert.deepEqual(await run({ query: 'service:api', threshold: 50, recovery_threshold: 40 }), [true, true, true, true, true, false, true]);
});

void test('without a threshold the expression is the condition, as a Prometheus rule; labels lose __name__', async () => {
  const data = new MemoryDetectorData()
    .addSeries('up', { job: 'api', instance: 'a:9100' }, [[END - MIN, 1]])
    .addSeries('up', { job: 'api', instance: 'b:9100' }, [[END - MIN, 0]]);
  const r = await evaluateAt(metricThreshold, { expr: 'up == 0' }, data, END);
  assert.deepEqual(r.observations, [{ labels: { job: 'api', instance: 'b:9100' }, value: 0, active: true, summary: 'up == 0 = 0' }]);
  const none = await evaluateAt(metricThreshold, { expr: 'up{job="nope"} == 0' }, data, END);
  assert.deepEqual(none.observations, [], 'an empty result is all well, not no data');
  const byThreshold = await evaluateAt(metricThreshold, { expr: 'up', op: '<', threshold: 1 }, data, END);
  assert.deepEqual(activeLabels(byThreshold), ['instance=b:9100,job=api']);
  const nodata = await evaluateAt(metricThreshold, { expr: 'up{job="nope"}', threshold: 1 }, data, END);
  assert.equal(nodata.observations[0]?.nodata, true);
});

void test('a restart resets the request counter: rate() rides through it and a "traffic below 5/s" rule stays quiet', async () => {
  // 10 requests/s scraped every 15 s; the process restarts 3 minutes before END and its counter starts again at 0.
  const points: [number, number][] = [];
  let counter = 1_000_000;
  for (let t = END - 30 * MIN; t < END; t += 15_000) {
    counter = t === END - 3 * MIN ? 0 : counter + 150;
    points.push([t, counter]);
  }
  const data = new MemoryDetectorData().addSeries('http_requests_total', { service: 'api' }, points);
  const raw = { expr: 'sum by (service) (rate(http_requests_total[5m]))', op: '<', threshold: 5 };
  for (const at of [END - 4 * MIN, END - 3 * MIN + 1000, END - 2 * MIN, END]) {
    const r = await evaluateAt(metricThreshold, raw, data, at);
    assert.equal(r.observations.length, 1);
    assert.equal(r.observations[0]?.active, false, `at ${(END - at) / MIN} min before the end: ${r.observations[0]?.summary ?? ''}`);
  }
  // The same rule on the raw counter fires right after the restart.
  const naive = await evaluateAt(metricThreshold, { expr: 'sum by (service) (http_requests_total)', op: '<', threshold: 5 }, data, END - 3 * MIN + 1000);
  assert.equal(naive.observations[0]?.active, true);
});
