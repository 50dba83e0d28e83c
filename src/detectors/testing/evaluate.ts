// Runs a kind the way the engine does — parse the raw parameters, take the window ending at `endMs` and the history
// `historyMs` before it — so a kind's test reads as "at this time, with this data, it says this". `series` threads
// the state through consecutive evaluations, as the engine keeps it in the control store between passes.
import type { DetectorData, DetectorKind, EvaluateResult, KindState, Observation } from '../model.js';

export interface RunOptions {
  /** Window length (default 5 min). */
  windowMs?: number;
  state?: KindState;
}

export async function evaluateAt(
  kind: DetectorKind, raw: Record<string, unknown>, data: DetectorData, endMs: number, opts: RunOptions = {},
): Promise<EvaluateResult> {
  const params = kind.parseParams(raw);
  const windowMs = opts.windowMs ?? 5 * 60_000;
  const window = { startMs: endMs - windowMs, endMs };
  const history = { startMs: window.startMs - kind.historyMs(params, windowMs), endMs: window.startMs };
  return kind.evaluate({ params, window, history, data, state: opts.state ?? {} });
}

/** Evaluates at each end time in turn, handing each result's state to the next (kept when a result omits it). */
export async function evaluateSeries(
  kind: DetectorKind, raw: Record<string, unknown>, data: DetectorData, ends: readonly number[], opts: RunOptions = {},
): Promise<EvaluateResult[]> {
  let state = opts.state ?? {};
  const out: EvaluateResult[] = [];
  for (const end of ends) {
    const r = await evaluateAt(kind, raw, data, end, { ...opts, state });
    state = r.state ?? state;
    out.push(r);
  }
  return out;
}

/** The label sets of the active observations, as `k=v,k=v` strings, sorted. */
export function activeLabels(r: EvaluateResult): string[] {
  return r.observations.filter((o) => o.active).map(labelText).sort();
}

export function labelText(o: Observation): string {
  return Object.entries(o.labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(',');
}
