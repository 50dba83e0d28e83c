// When a series left its baseline (change-point.ts, issue 10 item 3: "which metric series changed first").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstSustainedShift } from './change-point.js';

/** A deterministic wobble of ±1% around `level`. */
const flat = (n: number, level: number): number[] => Array.from({ length: n }, (_, i) => level * (1 + 0.01 * Math.sin(i * 1.7)));

const cases: [string, number[], number[], number | null][] = [
  ['a step that holds is dated at its first point', flat(60, 10), [...flat(20, 10), ...flat(40, 20)], 20],
  ['one stray point is not a change', flat(60, 10), [...flat(20, 10), 30, ...flat(39, 10)], null],
  ['a shift that ends before the window does still counts', flat(60, 10), [...flat(10, 10), ...flat(6, 25), ...flat(44, 10)], 10],
  ['a fall is a change too', flat(60, 10), [...flat(5, 10), ...flat(55, 2)], 5],
  ['a wobble of a few per cent on a flat baseline is not', flat(60, 10), flat(60, 10.3), null],
  ['the same level is no change', flat(60, 10), flat(60, 10), null],
];
for (const [name, baseline, window, index] of cases) {
  void test(`change point: ${name}`, () => {
    assert.equal(firstSustainedShift(baseline, window)?.index ?? null, index);
  });
}

void test('change point: a mostly-zero count needs its Poisson floor, or one or two events read as a change', () => {
  const baseline = Array.from({ length: 60 }, (_, i) => (i % 20 === 0 ? 1 : 0));
  const window = Array.from({ length: 60 }, (_, i) => (i >= 30 && i < 33 ? 1 : 0));
  assert.notEqual(firstSustainedShift(baseline, window), null, 'MAD 0: any event is infinitely far');
  assert.equal(firstSustainedShift(baseline, window, 0.05, Math.sqrt(3 / 60 + 1)), null);
  const burst = window.map((v, i) => (i >= 30 ? 12 : v));
  assert.equal(firstSustainedShift(baseline, burst, 0.05, Math.sqrt(3 / 60 + 1))?.index, 30);
});
