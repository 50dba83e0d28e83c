// One evaluation of one detector at one instant, up to the outcome the lifecycle takes (lifecycle.ts): the judged
// window, the kind's evaluate over it, and each observation turned into an alert identity (labels, fingerprint,
// expanded annotations). Shared by the engine (which then records the outcome) and the preview (which does not).
import type { DetectorData, DetectorKind, KindState, Observation, Window } from '../model.js';
import type { Detector } from '../../stores/control/detector-records.js';
import { alertLabels, fingerprint } from './labels.js';
import { expandAnnotations, formatValue } from './templates.js';
import type { GroupVerdict, LifecycleRules, Outcome } from './lifecycle.js';
import { EvaluationDeferred } from './data.js';

/**
 * The evaluation delay: a window judged at T ends at T − 10 s, so entries still on their way (the WAL drain makes
 * them queryable within about 2 s, DESIGN §1; shippers batch for a few seconds) are in it (issue 9 notes: half-open
 * windows with a delay for ingest lag).
 */
export const EVAL_DELAY_MS = 10_000;

export interface Judgement {
  outcome: Outcome;
  /** The kind's state to keep (unchanged when the evaluation failed or the kind returned none). */
  kindState: KindState;
  /** Set when the query rate was spent (it says when to try again). */
  deferred?: EvaluationDeferred;
  window: Window;
}

export function windowAt(atMs: number, windowS: number): Window {
  const endMs = atMs - EVAL_DELAY_MS;
  return { startMs: endMs - windowS * 1000, endMs };
}

export function rulesOf(d: Pick<Detector, 'forS' | 'keepFiringForS' | 'repeatIntervalS'>): LifecycleRules {
  return { forMs: d.forS * 1000, keepFiringForMs: d.keepFiringForS * 1000, repeatIntervalMs: d.repeatIntervalS * 1000 };
}

/** Annotations of one alert: the detector's templates, and a summary from the kind when the detector has none. */
function annotate(d: Detector, labels: Record<string, string>, value: number | null, summary: string | undefined): Record<string, string> {
  const out = expandAnnotations(d.annotations, { value, labels });
  if (out.summary === undefined || out.summary === '') out.summary = `${d.name}: ${summary ?? `value ${formatValue(value)}`}`;
  return out;
}

export function verdictOf(d: Detector, o: Observation): GroupVerdict {
  const labels = alertLabels(d, o.labels);
  return {
    fingerprint: fingerprint(labels), labels, annotations: annotate(d, labels, o.value, o.summary),
    value: o.value, active: o.active, nodata: o.nodata === true,
  };
}

/** The detector-level alert that carries an error when no alert of the detector exists. */
export function failedOutcome(d: Detector, reason: string): Outcome {
  const labels = alertLabels(d, {});
  return { ok: false, reason, identity: { fingerprint: fingerprint(labels), labels, annotations: annotate(d, labels, null, reason) } };
}

export async function judge(
  d: Detector, kind: DetectorKind | undefined, data: DetectorData, kindState: KindState, atMs: number,
): Promise<Judgement> {
  const window = windowAt(atMs, d.windowS);
  if (!kind) return { outcome: failedOutcome(d, `evaluation failed: unknown kind "${d.kind}"`), kindState, window };
  try {
    const params = kind.parseParams(d.params);
    const historyMs = kind.historyMs(params, d.windowS * 1000);
    const history = { startMs: window.startMs - historyMs, endMs: window.startMs };
    const result = await kind.evaluate({ params, window, history, data, state: kindState });
    return { outcome: { ok: true, groups: result.observations.map((o) => verdictOf(d, o)) }, kindState: result.state ?? kindState, window };
  } catch (e) {
    if (e instanceof EvaluationDeferred) return { outcome: failedOutcome(d, e.message), kindState, deferred: e, window };
    const why = e instanceof Error ? e.message : String(e);
    return { outcome: failedOutcome(d, `evaluation failed: ${why}`), kindState, window };
  }
}
