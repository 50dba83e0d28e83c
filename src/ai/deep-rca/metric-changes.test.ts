// Metric changes over a SeriesSource (metric-changes.ts): counters as rates, the service a series belongs to, the
// order of first changes, and the bound on series read (issue 10 item 3).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MetricSample } from '../../model/metric.js';
import { MemorySeriesSource } from '../../model/series-source.js';
import type { TelemetryStore } from '../../stores/telemetry/telemetry-store.js';
import { Evidence } from '../evidence.js';
import type { AiReadContext } from '../model.js';
import { analyseMetrics, MAX_SERIES, selector, serviceOf } from './metric-changes.js';
import { windowsOf } from './model.js';

const START = Date.UTC(2024, 0, 1, 12);
const W = 30 * 60_000;
const w = windowsOf({ startMs: START, endMs: START + W });

/** One sample every 15 s over baseline and window; `value(t)` gives each. */
function series(name: string, labels: Record<string, string>, value: (t: number, i: number) => number): MetricSample[] {
  const out: MetricSample[] = [];
  for (let t = w.baselineStartMs, i = 0; t < w.endMs; t += 15_000, i++) out.push({ name, labels, timeMs: t, value: value(t, i) });
  return out;
}

function ctxOf(src: MemorySeriesSource): AiReadContext {
  // Only the series source is read here; the rest of the store is not reached.
  return { telemetry: { metrics: src } as unknown as TelemetryStore, tenantId: 't', nowMs: START + W, evidence: new Evidence() };
}

const wobble = (i: number): number => 1 + 0.02 * Math.sin(i * 1.3);

void test('series that moved, earliest first, with their service; a steadily growing counter is no change', async () => {
  const src = new MemorySeriesSource();
  src.add('t', series('queue_depth', { job: 'prod/worker' }, (t, i) => (t >= START + 10 * 60_000 ? 50 : 10) * wobble(i)));
  src.add('t', series('pool_in_use', { service: 'db' }, (t, i) => (t >= START + 2 * 60_000 ? 0.95 : 0.3) * wobble(i)));
  src.add('t', series('requests_total', { service: 'api' }, (_t, i) => 100 * i));
  src.add('t', series('temperature', { service: 'api' }, (_t, i) => 20 * wobble(i)));
  const ctx = ctxOf(src);
  const found = await analyseMetrics(ctx, w);
  assert.deepEqual(found.changes.map((c) => [c.query, c.service, c.firstChangeMs - START]), [
    ['pool_in_use{service="db"}', 'db', 2 * 60_000],
    ['queue_depth{job="prod/worker"}', 'worker', 10 * 60_000],
  ]);
  assert.equal(found.seriesRead, 4);
  assert.ok(ctx.evidence.queries.some((q) => q.query === 'rate(requests_total[15s])'), 'counters are read as rates');
  assert.deepEqual((await analyseMetrics(ctxOf(src), w, new Set(['db']))).changes.map((c) => c.service), ['db'], 'scope narrows');
});

void test('at most MAX_SERIES series are read; a metric name past the budget is left out whole', async () => {
  const src = new MemorySeriesSource();
  src.add('t', Array.from({ length: MAX_SERIES - 5 }, (_, i) => ({ name: 'a_metric', labels: { pod: `p${i}` }, timeMs: START, value: 1 })));
  src.add('t', Array.from({ length: 10 }, (_, i) => ({ name: 'b_metric', labels: { pod: `p${i}` }, timeMs: START, value: 1 })));
  src.add('t', [{ name: 'c_metric', labels: {}, timeMs: START, value: 1 }]);
  const found = await analyseMetrics(ctxOf(src), w);
  assert.equal(found.seriesRead, MAX_SERIES - 4);
  assert.equal(found.skippedNames, 1);
});

void test('service labels and PromQL selectors', () => {
  assert.equal(serviceOf({ service_name: 'cart', job: 'x' }), 'cart');
  assert.equal(serviceOf({ job: 'ns/app/checkout' }), 'checkout');
  assert.equal(serviceOf({ instance: 'h:9100' }), undefined);
  assert.equal(selector('up', { b: 'x"y', a: 'c\\d' }), 'up{a="c\\\\d",b="x\\"y"}');
  assert.equal(selector('http.server.duration', {}), '{__name__="http.server.duration"}');
});
