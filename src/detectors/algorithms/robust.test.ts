// Robust statistics and threshold comparison: tables of known values, the breakdown property that makes them worth
// using (outliers barely move the median and MAD), and hysteresis on a value that hovers at the bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAD_TO_SIGMA, median, medianMad, quantile, robustSigma, robustZ } from './robust.js';
import { compare, recoveryProblem, thresholdActive, type CompareOp } from './threshold.js';
import { countSpike } from './rate-spike.js';
import { normal, rng } from '../testing/generate.js';

void test('median, quantiles (type 7, as numpy and Prometheus) and MAD of known inputs', () => {
  const cases: [number[], number, number][] = [
    [[1, 2, 3, 4, 5], 0.5, 3],
    [[5, 1, 4, 2, 3], 0.5, 3],
    [[1, 2, 3, 4], 0.5, 2.5],
    [[1, 2, 3, 4], 0.25, 1.75],
    [[1, 2, 3, 4], 0.99, 3.97],
    [[10], 0.9, 10],
    [[1, 2, 3, 4], 0, 1],
    [[1, 2, 3, 4], 1, 4],
  ];
  for (const [values, phi, want] of cases) assert.ok(Math.abs(quantile(values, phi) - want) < 1e-9, `${values.join(',')} q${phi}`);
  assert.deepEqual(medianMad([1, 1, 2, 2, 4, 6, 9]), { median: 2, mad: 1 });
  assert.ok(Number.isNaN(median([])));
  assert.equal(median([Number.NaN, 3, Number.POSITIVE_INFINITY, 1, 2]), 2);
});

void test('the scaled MAD estimates σ of normal data; 10% wild outliers barely move it or the median', () => {
  const r = rng(42);
  const clean = Array.from({ length: 5000 }, () => 100 + 10 * normal(r));
  assert.ok(Math.abs(robustSigma(clean) - 10) < 0.6);
  const dirty = clean.map((v, i) => (i % 10 === 0 ? 1e6 : v));
  assert.ok(Math.abs(median(dirty) - 100) < 2);
  assert.ok(Math.abs(robustSigma(dirty) - 10) < 2, 'σ grows by under 20%');
  assert.ok(Math.sqrt(dirty.reduce((a, v) => a + (v - 1e5) ** 2, 0) / dirty.length) > 1e5, 'where the standard deviation explodes');
  assert.equal(MAD_TO_SIGMA, 1.4826);
});

void test('quantiles are monotone in phi and stay within the data (property)', () => {
  fc.assert(fc.property(fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1 }), fc.double({ min: 0, max: 1, noNaN: true }), (xs, phi) => {
    const q = quantile(xs, phi);
    return q >= Math.min(...xs) && q <= Math.max(...xs) && quantile(xs, Math.min(1, phi + 0.1)) >= q - 1e-9;
  }));
});

void test('robustZ: a flat history uses the floor, and without one any change is infinitely surprising', () => {
  assert.equal(robustZ(13, 10, 0, 1), 3);
  assert.equal(robustZ(10, 10, 0, 0), 0);
  assert.equal(robustZ(11, 10, 0, 0), Number.POSITIVE_INFINITY);
  assert.equal(robustZ(7, 10, 2, 1), -1.5);
});

void test('compare: the six PromQL comparison operators; NaN satisfies only !=', () => {
  const table: [number, CompareOp, number, boolean][] = [
    [5, '>', 4, true], [4, '>', 4, false], [4, '>=', 4, true], [3, '<', 4, true], [4, '<', 4, false],
    [4, '<=', 4, true], [4, '==', 4, true], [4, '!=', 4, false], [5, '!=', 4, true],
    [Number.NaN, '>', 0, false], [Number.NaN, '<=', 0, false], [Number.NaN, '==', Number.NaN, false], [Number.NaN, '!=', 0, true],
  ];
  for (const [v, op, b, want] of table) assert.equal(compare(v, op, b), want, `${v} ${op} ${b}`);
});

void test('a value hovering at the bound flaps without a recovery bound and holds steady with one', () => {
  const hover = [101, 99, 101, 99.5, 100.5, 99, 95, 101];
  const run = (recovery: number | undefined): boolean[] => {
    let active = false;
    return hover.map((v) => (active = thresholdActive(v, '>', 100, recovery, active)));
  };
  assert.deepEqual(run(undefined), [true, false, true, false, true, false, false, true]);
  assert.deepEqual(run(97), [true, true, true, true, true, true, false, true]);
  assert.equal(recoveryProblem('>', 100, 97), null);
  assert.match(recoveryProblem('>', 100, 120) ?? '', /not be above/);
  assert.match(recoveryProblem('<', 100, 90) ?? '', /not be below/);
  assert.match(recoveryProblem('==', 100, 90) ?? '', /ordering operator/);
  let low = false;
  assert.deepEqual([9, 11, 12, 16].map((v) => (low = thresholdActive(v, '<', 10, 15, low))), [true, true, true, false]);
});

void test('countSpike: a Poisson excess over the baseline rate, with a minimum count; a new group fires on the count', () => {
  const opts = { factor: 3, minCount: 5, z: 3 };
  // 24 errors over a day predict 1 per hour.
  assert.equal(countSpike(2, 24, 24 * 3_600_000, 3_600_000, opts).active, false);
  assert.equal(countSpike(4, 24, 24 * 3_600_000, 3_600_000, opts).active, false, 'under the minimum count');
  assert.equal(countSpike(8, 24, 24 * 3_600_000, 3_600_000, opts).active, true);
  // 2400 per day predict 100 per hour: 350 is a spike, 130 (1.3×) is not.
  assert.equal(countSpike(350, 2400, 24 * 3_600_000, 3_600_000, opts).active, true);
  assert.equal(countSpike(130, 2400, 24 * 3_600_000, 3_600_000, opts).active, false);
  assert.deepEqual(countSpike(5, 0, 24 * 3_600_000, 3_600_000, opts), { observed: 5, expected: 0, active: true });
  assert.equal(countSpike(4, 0, 0, 3_600_000, opts).active, false);
});
