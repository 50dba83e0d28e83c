// The statistics behind RCA's ranking (issue 10 item 1 and its notes): a G-test (log-likelihood ratio) on 2×2 counts,
// its p-value from the chi-square distribution with one degree of freedom kept in log10 so that the tiny p-values a
// million events give never underflow to 0, and Benjamini–Hochberg over every test of one analysis. Elastic's log
// rate analysis uses the same log-likelihood test but corrects for nothing; testing hundreds of values without a
// correction names noise as a cause in a quiet window.

/** −log10 p is capped here: beyond it every p-value is "certain" and the excess share alone orders hypotheses. */
export const MAX_NEG_LOG10_P = 300;

export interface TwoByTwo {
  /** Events with the trait in group A (the incident) and A's total. */
  a: number;
  nA: number;
  /** Events with the trait in group B (the baseline) and B's total. */
  b: number;
  nB: number;
}

export interface GTest {
  g: number;
  /** log10 of the p-value (≤ 0). */
  log10p: number;
}

/** O·ln(O/E), with 0·ln 0 = 0. */
function term(o: number, e: number): number {
  return o > 0 && e > 0 ? o * Math.log(o / e) : 0;
}

/**
 * G = 2 Σ O ln(O/E) over the table [[a, nA−a], [b, nB−b]], E from the margins (Sokal & Rohlf, Biometry, §17.2);
 * p = P(χ²₁ ≥ G). A table with an empty row or column carries no evidence: G = 0, p = 1.
 */
export function gTest({ a, nA, b, nB }: TwoByTwo): GTest {
  const n = nA + nB;
  const withTrait = a + b;
  if (nA <= 0 || nB <= 0 || withTrait <= 0 || withTrait >= n) return { g: 0, log10p: 0 };
  const cells: [number, number, number][] = [
    [a, nA, withTrait], [nA - a, nA, n - withTrait], [b, nB, withTrait], [nB - b, nB, n - withTrait],
  ];
  const g = 2 * cells.reduce((s, [o, row, col]) => s + term(o, (row * col) / n), 0);
  return { g: Math.max(0, g), log10p: chiSquare1Log10Sf(Math.max(0, g)) };
}

/**
 * log10 P(χ²₁ ≥ x) = log10 erfc(√(x/2)). erfc uses the Chebyshev-fitted form of Numerical Recipes (erfcc, §6.2:
 * relative error < 1.2e-7 everywhere) written as t·exp(poly), whose log needs no exp at all and so never underflows.
 */
export function chiSquare1Log10Sf(x: number): number {
  if (!(x > 0)) return 0;
  const z = Math.sqrt(x / 2);
  const t = 1 / (1 + 0.5 * z);
  const poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  return Math.min(0, (Math.log(t) + poly) / Math.LN10);
}

/**
 * Benjamini–Hochberg adjusted p-values (q-values), in log10, for the log10 p-values of one family of tests:
 * q(i) = min over ranks k ≥ rank(i) of p(k)·m/k, capped at 1 (Benjamini & Hochberg 1995; R's p.adjust "BH").
 * Rejecting every q ≤ α keeps the expected share of false discoveries at or below α.
 */
export function benjaminiHochbergLog10(log10p: readonly number[]): number[] {
  const m = log10p.length;
  const order = log10p.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(m).fill(0);
  let running = 0;
  for (let k = m; k >= 1; k--) {
    const entry = order[k - 1];
    if (!entry) continue;
    running = Math.min(running, entry[0] + Math.log10(m / k));
    out[entry[1]] = Math.min(0, running);
  }
  return out;
}

/** −log10 p for a score: capped so that p-values past double precision still compare. */
export function evidenceWeight(log10p: number): number {
  return Math.min(MAX_NEG_LOG10_P, -log10p);
}
