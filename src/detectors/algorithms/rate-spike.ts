// A count judged against the count its baseline rate predicts, for event streams too sparse for per-step bands (RUM
// errors per page, where most steps hold none). Events arriving at a steady rate are Poisson, so the count over a
// window has mean and variance λ = rate × window; a spike must be at least `factor` times λ, clear λ by `z` Poisson
// σ (√λ, the normal approximation to the Poisson tail), and be at least `minCount` events, so that two errors
// where one was expected never page. A group with no baseline (λ = 0: a new page, a new session) fires on the
// `minCount` alone.

export interface SpikeOptions {
  factor: number;
  minCount: number;
  /** Poisson σ the count must clear λ by (3 ≈ a 0.1% tail). */
  z: number;
}

export interface SpikeJudgement {
  observed: number;
  /** λ: the baseline rate times the window. */
  expected: number;
  active: boolean;
}

/** `baselineCount` events over `baselineMs` predict `expected` events over `windowMs`; is `observed` a spike? */
export function countSpike(
  observed: number, baselineCount: number, baselineMs: number, windowMs: number, opts: SpikeOptions,
): SpikeJudgement {
  const expected = baselineMs > 0 ? (baselineCount / baselineMs) * windowMs : 0;
  const active = observed >= opts.minCount && observed > opts.factor * expected && observed > expected + opts.z * Math.sqrt(expected);
  return { observed, expected, active };
}
