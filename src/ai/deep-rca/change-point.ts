// When did a series leave its baseline (DESIGN §9 `ai/deep-rca`: "which metric series changed first")? Each point
// of the window gets a robust z against the baseline (median and MAD, detectors/algorithms/robust.ts, so a past
// blip in the baseline does not hide a change); the change starts at the first point beyond the threshold that
// most of the next few points confirm in the same direction. One stray point is noise; a shift that holds is a
// change, even when it ends again before the window does.
import { medianMad, MAD_TO_SIGMA, robustZ } from '../../detectors/algorithms/robust.js';

/** |z| a point must pass to count as beyond the baseline. */
export const Z_CHANGE = 4;
/** Points looked at from a candidate start, and how many of them must be beyond in the same direction. */
const RUN = 4;
const RUN_NEEDED = 3;

export interface ChangePoint {
  /** Index of the first changed point in the window's values. */
  index: number;
  direction: 1 | -1;
  /** Median z over the confirming run: how far it moved, in baseline σ. */
  z: number;
  baselineMedian: number;
}

/**
 * The first sustained shift of `window` away from `baseline`, or null. σ is bounded from below by `relFloor` × the
 * baseline's level, so a series flat in the baseline (MAD 0) does not flag a tiny wobble, and by `absFloor`, which
 * a caller sets for counts (where the noise of a rare event is known, but a mostly-zero baseline has MAD 0).
 */
export function firstSustainedShift(baseline: readonly number[], window: readonly number[], relFloor = 0.05, absFloor = 0):
  ChangePoint | null {
  const { median, mad } = medianMad(baseline);
  if (!Number.isFinite(median)) return null;
  const floor = Math.max(Math.abs(median) * relFloor, absFloor, 1e-9);
  const z = window.map((v) => (Number.isFinite(v) ? robustZ(v, median, mad * MAD_TO_SIGMA, floor) : 0));
  for (let i = 0; i < z.length; i++) {
    const zi = z[i] ?? 0;
    if (Math.abs(zi) < Z_CHANGE) continue;
    const dir = zi > 0 ? 1 : -1;
    const run = z.slice(i, i + RUN);
    // Near the window's end fewer points remain; all of them must then agree.
    const need = Math.min(RUN_NEEDED, run.length);
    const agree = run.filter((x) => x * dir >= Z_CHANGE);
    if (run.length < 2 || agree.length < need) continue;
    const sorted = agree.map((x) => Math.abs(x)).sort((a, b) => a - b);
    return { index: i, direction: dir, z: dir * (sorted[Math.floor(sorted.length / 2)] ?? 0), baselineMedian: median };
  }
  return null;
}
