// The test double itself: LogsQL filters and stats as DESIGN §4 and VictoriaLogs print them, epoch-aligned count
// buckets without empty ones, newest-first lines, PromQL through the real engine, span sampling, oldest data per
// signal, and the record of calls the kinds' tests check their declared queries against.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryDetectorData, type MemoryLog } from './memory-data.js';

const T = Date.UTC(2024, 0, 10, 12);
const MIN = 60_000;
const W = { startMs: T - 10 * MIN, endMs: T };

const logs: MemoryLog[] = [
  { timeMs: T - 9 * MIN, msg: 'Connection REFUSED by db', fields: { service: 'api', severity: 'error', status: '503', duration: '120' } },
  { timeMs: T - 8 * MIN, msg: 'served', fields: { service: 'api', severity: 'info', status: '200', duration: '20' } },
  { timeMs: T - 7 * MIN, msg: 'served', fields: { service: 'web', severity: 'info', status: '200', duration: '40' } },
  { timeMs: T - 1, msg: 'timeout upstream', fields: { service: 'web', severity: 'warn', status: '504', duration: '900', 'telemetry.sdk.language': 'webjs' } },
  { timeMs: T, msg: 'at the end: outside', fields: { service: 'api' } },
  { timeMs: T - 20 * MIN, msg: 'before: outside', fields: { service: 'api' } },
];
const data = new MemoryDetectorData().addLogs(logs);
const count = async (q: string): Promise<unknown> => (await data.logStats(`${q} | stats count() as n`, W))[0]?.n;

void test('filters: words are case-insensitive substrings, := is exact, :* exists, in(), ~regexp, ranges, not/or', async () => {
  const cases: [string, string][] = [
    ['refused', '1'], ['"connection refused"', '1'], ['service:=ap', '0'], ['service:=api', '2'], ['service:ap', '2'],
    ['level:error', '1'], ['status:in(503, 504)', '2'], ['status:>=500', '2'], ['status:<300', '2'], ['_msg:~"^serv"', '2'],
    ['-service:api', '2'], ['service:api OR level:warn', '3'], ['telemetry.sdk.language:*', '1'], ['missing:""', '4'], ['*', '4'],
    ['serv*', '2'], ['_stream:{service="web"}', '2'],
  ];
  for (const [q, n] of cases) assert.equal(await count(q), n, q);
});

void test('stats: grouped rows as text, VictoriaLogs\' quantile index, NaN over no numbers, a row even with no entries', async () => {
  const rows = await data.logStats('* | stats by (service) count() c, sum(duration) s, avg(duration) a, quantile(0.5, duration) p50, max(duration) mx | sort by (service)', W);
  assert.deepEqual(rows, [
    { service: 'api', c: '2', s: '140', a: '70', p50: '120', mx: '120' },
    { service: 'web', c: '2', s: '940', a: '470', p50: '900', mx: '900' },
  ]);
  assert.deepEqual(await data.logStats('nothing | stats count() n, sum(duration) s, min(duration) m', W), [{ n: '0', s: 'NaN', m: '' }]);
  assert.deepEqual(await data.logStats('nothing | stats by (service) count() n', W), []);
  assert.deepEqual(await data.logStats('* | stats by (service) count() n | sort by (n) desc | limit 1 | fields n', W), [{ n: '2' }]);
});

void test('counts per step: epoch-aligned buckets, empty ones left out, split by fields, half-open window', async () => {
  const series = await data.logCounts('*', { startMs: T - 10 * MIN, endMs: T }, 5 * MIN, ['service']);
  assert.deepEqual(series, [
    { labels: { service: 'api' }, points: [[T - 10 * MIN, 2]] },
    { labels: { service: 'web' }, points: [[T - 10 * MIN, 1], [T - 5 * MIN, 1]] },
  ]);
});

void test('lines: newest first, up to the limit, with the fields asked for', async () => {
  const lines = await data.logLines('*', W, 2, ['service', 'absent']);
  assert.deepEqual(lines, [
    { timeMs: T - 1, msg: 'timeout upstream', fields: { service: 'web', absent: '' } },
    { timeMs: T - 7 * MIN, msg: 'served', fields: { service: 'web', absent: '' } },
  ]);
});

void test('PromQL through the real engine: instants in [start, end) at the step; instant vectors with their labels', async () => {
  const m = new MemoryDetectorData().addSeries('up', { job: 'api' }, [[T - 10 * MIN, 1], [T - 5 * MIN, 0]]);
  const range = await m.promRange('up', { startMs: T - 10 * MIN, endMs: T }, 5 * MIN);
  assert.deepEqual(range, [{ labels: { __name__: 'up', job: 'api' }, points: [[T - 10 * MIN, 1], [T - 5 * MIN, 0]] }]);
  assert.deepEqual(await m.promInstant('sum(up) + 1', T), [{ labels: {}, value: 1 }]);
  assert.deepEqual(await m.promInstant('scalar(up)', T - 10 * MIN), [{ labels: {}, value: 1 }]);
  assert.deepEqual(await m.oldestDataMs('metrics'), T - 10 * MIN);
});

void test('spans: per (service, name), every k-th duration past the limit, counts and errors in full', async () => {
  const s = new MemoryDetectorData().addSpans(Array.from({ length: 100 }, (_, i) => ({ timeMs: T - MIN + i, service: 'api', name: 'GET /', durationMs: i, error: i % 10 === 0 })));
  const [g] = await s.spanDurations(W, { service: 'api' }, 10);
  assert.deepEqual(g, { service: 'api', name: 'GET /', durationsMs: [0, 10, 20, 30, 40, 50, 60, 70, 80, 90], count: 100, errorCount: 10 });
  assert.deepEqual(await s.spanDurations(W, { name: 'other' }, 10), []);
  assert.equal(await s.oldestDataMs('traces'), T - MIN);
});

void test('oldest data per signal: RUM is the webjs entries, a query narrows it; every call is recorded', async () => {
  assert.equal(await data.oldestDataMs('logs'), T - 20 * MIN);
  assert.equal(await data.oldestDataMs('rum'), T - 1);
  assert.equal(await data.oldestDataMs('logs', 'service:web'), T - 7 * MIN);
  assert.equal(await data.oldestDataMs('traces'), null);
  assert.deepEqual(data.calls.at(-1), { method: 'oldestDataMs' });
  assert.ok(data.calls.some((c) => c.method === 'logStats' && c.query === 'refused | stats count() as n'));
});
