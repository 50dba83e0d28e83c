// Small tests of difference shared by the trace, log and ranking steps of deep RCA (DESIGN §9 `ai/deep-rca`):
// each turns "did this grow from the baseline to the window?" into a z-like statistic, and `gate` turns that into
// a 0..1 weight, so that noise between two ordinary windows weighs nothing and a clear change weighs fully.

/** Two-proportion z (pooled), window vs baseline; 0 when either side has nothing to compare. */
export function proportionZ(hitsW: number, nW: number, hitsB: number, nB: number): number {
  if (nW <= 0 || nB <= 0) return 0;
  const p = (hitsW + hitsB) / (nW + nB);
  const se = Math.sqrt(p * (1 - p) * (1 / nW + 1 / nB));
  const diff = hitsW / nW - hitsB / nB;
  if (!(se > 0)) return diff === 0 ? 0 : Math.sign(diff) * Number.POSITIVE_INFINITY;
  return diff / se;
}

/**
 * A Poisson excess z: how far a window count lies above the baseline count scaled to the window's length.
 * The +1 keeps a service with no baseline errors from making a handful of new ones infinitely surprising.
 */
export function countExcessZ(countW: number, countB: number, lengthRatio: number): number {
  const expected = countB * lengthRatio;
  return (countW - expected) / Math.sqrt(expected + 1);
}

/** Welch's t of mean(w) − mean(b); 0 when either side has fewer than two values. */
export function welchT(w: readonly number[], b: readonly number[]): number {
  if (w.length < 2 || b.length < 2) return 0;
  const mw = mean(w);
  const mb = mean(b);
  const se = Math.sqrt(variance(w, mw) / w.length + variance(b, mb) / b.length);
  if (!(se > 0)) return mw === mb ? 0 : Math.sign(mw - mb) * Number.POSITIVE_INFINITY;
  return (mw - mb) / se;
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

function variance(xs: readonly number[], m: number): number {
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return s / (xs.length - 1);
}

/**
 * 0 below z = 2 (what two ordinary windows differ by), 1 from z = 4 (a change well past noise), linear between:
 * a soft threshold, so a borderline change counts a little rather than flipping a suspect in or out.
 */
export function gate(z: number): number {
  return Math.min(1, Math.max(0, (z - 2) / 2));
}

export const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : x > 0 ? 1 : 0);
