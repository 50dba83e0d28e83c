// The statistics of RCA against known values: G from its definition, p from the chi-square distribution (values
// from Python's math.erfc), and Benjamini–Hochberg as R's p.adjust(method = "BH") gives it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { benjaminiHochbergLog10, chiSquare1Log10Sf, evidenceWeight, gTest, MAX_NEG_LOG10_P } from './stats.js';

const close = (got: number, want: number, rel: number, what: string) =>
  assert.ok(Math.abs(got - want) <= rel * Math.abs(want), `${what}: got ${got}, want ${want}`);

void describe('G-test on 2×2 counts', () => {
  const cases: [string, { a: number; nA: number; b: number; nB: number }, number, number][] = [
    ['a small table', { a: 10, nA: 30, b: 30, nB: 70 }, 0.8043486460964835, 0.36979636792989634],
    ['5% vs 3% of a thousand', { a: 50, nA: 1000, b: 30, nB: 1000 }, 5.261767885413445, 0.021798864983752757],
  ];
  for (const [name, t, g, p] of cases) {
    void test(`${name}: G and p as computed from the definition`, () => {
      const r = gTest(t);
      close(r.g, g, 1e-12, 'G');
      close(10 ** r.log10p, p, 1e-6, 'p');
    });
  }

  void test('the chi-square(1) tail gives 0.05 at 3.8415 and 0.01 at 6.6349', () => {
    close(10 ** chiSquare1Log10Sf(3.841458820694124), 0.05, 1e-6, 'p');
    close(10 ** chiSquare1Log10Sf(6.634896601021214), 0.01, 1e-6, 'p');
    assert.equal(chiSquare1Log10Sf(0), 0);
  });

  void test('a p-value far below double precision keeps its log (no underflow to 0)', () => {
    const r = gTest({ a: 40829, nA: 67473, b: 0, nB: 29964 });
    close(r.g, 41976.8866114492, 1e-12, 'G');
    // log erfc(z) → −z² − ln(z√π) as z grows.
    const z = Math.sqrt(r.g / 2);
    close(r.log10p, -(z * z + Math.log(z * Math.sqrt(Math.PI))) / Math.LN10, 1e-6, 'log10 p');
    assert.equal(evidenceWeight(r.log10p), MAX_NEG_LOG10_P, 'the score caps it');
  });

  void test('a table with an empty row or column carries no evidence', () => {
    assert.deepEqual(gTest({ a: 5, nA: 10, b: 0, nB: 0 }), { g: 0, log10p: 0 });
    assert.deepEqual(gTest({ a: 0, nA: 10, b: 0, nB: 10 }), { g: 0, log10p: 0 });
    assert.deepEqual(gTest({ a: 10, nA: 10, b: 10, nB: 10 }), { g: 0, log10p: 0 });
  });

  void test('equal shares give G = 0', () => {
    assert.ok(gTest({ a: 30, nA: 100, b: 60, nB: 200 }).g < 1e-9);
  });
});

void describe('Benjamini–Hochberg', () => {
  void test('q-values match R p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH")', () => {
    const q = benjaminiHochbergLog10([0.01, 0.04, 0.03, 0.005].map(Math.log10)).map((x) => 10 ** x);
    [0.02, 0.04, 0.04, 0.02].forEach((want, i) => close(q[i] ?? NaN, want, 1e-12, `q[${i}]`));
  });

  void test('q-values never pass 1 and never fall below their p-value', () => {
    const p = [0.9, 0.5, 0.99, 0.2, 1];
    const q = benjaminiHochbergLog10(p.map(Math.log10)).map((x) => 10 ** x);
    q.forEach((x, i) => assert.ok(x <= 1 && x >= (p[i] ?? 0) - 1e-12, `q[${i}] = ${x}`));
  });

  void test('a family of null p-values yields no q ≤ 0.01', () => {
    const p = Array.from({ length: 200 }, (_x, i) => (i + 0.5) / 200);
    assert.ok(benjaminiHochbergLog10(p.map(Math.log10)).every((x) => x > Math.log10(0.01)));
  });

  void test('no tests, no q-values', () => {
    assert.deepEqual(benjaminiHochbergLog10([]), []);
  });
});
