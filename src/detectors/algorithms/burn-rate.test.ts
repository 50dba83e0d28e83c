// Multiwindow multi-burn-rate (SRE Workbook ch. 5) on generated traffic for a 99.9% SLO with the workbook's paging
// pairs: a fast burn fires through the 1 h/5 m pair, a slow one only through the 6 h/30 m pair, a blip the long
// window does not feel stays quiet, and the short window resets the alert soon after a burst ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { burnRates, parseBurnWindow, SRE_PAGE_WINDOWS, windowRatio, type RatioPoint } from './burn-rate.js';
import { parseDurationMs } from '../../query/promql/literals.js';
import { HOUR, MIN, rng } from '../testing/generate.js';

const SLO = 0.999;
const END = Date.UTC(2024, 0, 10, 12);

/** One point per minute over the 8 h before END: 600 requests, errors by `ratio(t)` (binomial-ish, seeded). */
function traffic(ratio: (t: number) => number, requests = 600, seed = 1): RatioPoint[] {
  const r = rng(seed);
  const out: RatioPoint[] = [];
  for (let t = END - 8 * HOUR; t < END + 40 * MIN; t += MIN) {
    const p = ratio(t);
    let errors = 0;
    for (let i = 0; i < requests; i++) if (r() < p) errors++;
    out.push({ t, errors, total: requests });
  }
  return out;
}

const firingPairs = (points: RatioPoint[], at = END, minTotal = 0): string[] =>
  burnRates(points, at, SLO, SRE_PAGE_WINDOWS, minTotal).pairs.filter((p) => p.firing).map((p) => `${p.window.longMs / HOUR}h`);

void test('half the budget\'s pace (0.05% errors) never fires', () => {
  assert.deepEqual(firingPairs(traffic(() => 0.0005)), []);
});

void test('a fast burn (2% errors, 20×) for an hour fires through both pairs, reporting the 1 h burn', () => {
  const points = traffic((t) => (t >= END - HOUR ? 0.02 : 0.0002));
  assert.deepEqual(firingPairs(points), ['1h']);
  const later = traffic((t) => (t >= END - 4 * HOUR ? 0.02 : 0.0002));
  assert.deepEqual(firingPairs(later), ['1h', '6h']);
  const r = burnRates(points, END, SLO, SRE_PAGE_WINDOWS, 0);
  assert.ok(r.firing && r.burn > 18 && r.burn < 22, `burn ${r.burn}`);
});

void test('a slow burn (0.8% errors, 8×) for six hours fires only through the 6 h / 30 m pair', () => {
  const points = traffic((t) => (t >= END - 6 * HOUR ? 0.008 : 0.0002));
  assert.deepEqual(firingPairs(points), ['6h']);
  const r = burnRates(points, END, SLO, SRE_PAGE_WINDOWS, 0);
  assert.ok(r.burn > 7 && r.burn < 9);
});

void test('a two-minute blip at 10% burns the short window but not the long one: quiet', () => {
  const points = traffic((t) => (t >= END - 3 * MIN && t < END - MIN ? 0.1 : 0.0002));
  const r = burnRates(points, END, SLO, SRE_PAGE_WINDOWS, 0);
  assert.ok((r.pairs[0]?.short.burn ?? 0) > 14.4, 'the 5 m window burns');
  assert.ok((r.pairs[0]?.long.burn ?? 0) < 14.4, 'the 1 h window does not');
  assert.equal(r.firing, false);
});

void test('after a burst of total failure ends, each pair\'s short window resets it: 1 h pair in 5 m, 6 h pair in 30 m', () => {
  const points = traffic((t) => (t >= END - 4 * MIN && t < END ? 1 : 0.0002));
  assert.deepEqual(firingPairs(points, END), ['1h', '6h']);
  assert.deepEqual(firingPairs(points, END + 6 * MIN), ['6h']);
  assert.ok(windowRatio(points, END + 6 * MIN, HOUR, SLO).burn > 14.4, 'the 1 h window still remembers it');
  assert.deepEqual(firingPairs(points, END + 31 * MIN), []);
});

void test('low traffic: one failed request of two is not a page when the long window needs 10 requests', () => {
  const points: RatioPoint[] = [{ t: END - 2 * MIN, errors: 1, total: 2 }];
  assert.deepEqual(firingPairs(points, END, 0), ['1h', '6h']);
  assert.deepEqual(firingPairs(points, END, 10), []);
  assert.equal(burnRates([], END, SLO, SRE_PAGE_WINDOWS, 0).firing, false);
});

void test('windows are half-open, more errors than requests cap at 100%, and per-second rates give the same ratio', () => {
  const points: RatioPoint[] = [{ t: END - 5 * MIN, errors: 5, total: 10 }, { t: END, errors: 10, total: 10 }];
  const w = windowRatio(points, END, 5 * MIN, 0.9);
  assert.deepEqual([w.errors, w.total, w.ratio], [5, 10, 0.5]);
  assert.ok(Math.abs(w.burn - 5) < 1e-9);
  assert.equal(windowRatio([{ t: END - MIN, errors: 12, total: 10 }], END, 5 * MIN, SLO).ratio, 1);
  const counts = traffic(() => 0.02, 600, 3);
  const rates = counts.map((p) => ({ t: p.t, errors: p.errors / 60, total: p.total / 60 }));
  assert.ok(Math.abs(windowRatio(counts, END, HOUR, SLO).burn - windowRatio(rates, END, HOUR, SLO).burn) < 1e-9);
});

void test('parseBurnWindow reads long:short:factor and refuses the rest', () => {
  assert.deepEqual(parseBurnWindow('1h:5m:14.4', parseDurationMs), { longMs: HOUR, shortMs: 5 * MIN, factor: 14.4 });
  assert.deepEqual(parseBurnWindow('3d:6h:1', parseDurationMs), { longMs: 72 * HOUR, shortMs: 6 * HOUR, factor: 1 });
  for (const bad of ['1h:5m', '5m:1h:2', '1h:5m:0', '1h:5m:x', 'a:b:1', '1h:0:2']) assert.equal(parseBurnWindow(bad, parseDurationMs), null, bad);
});
