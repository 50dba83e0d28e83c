// What a detector would have done on past data (DESIGN §8 `…/detectors/<id>/preview`): the same judgement and
// lifecycle as the engine, at successive instants over a range, in memory — nothing is recorded and nothing is
// notified. Each evaluation's queries count against the tenant's query rate like any other read; a preview that
// would spend it stops with EvaluationDeferred (data.ts) rather than showing made-up `error` states.
import type { Detector, StoredAlert } from '../../stores/control/detector-records.js';
import type { DetectorData, DetectorKind, KindState } from '../model.js';
import { judge, rulesOf } from './judge.js';
import { advance, type Transition } from './lifecycle.js';

/** Evaluations one preview may run. */
export const MAX_PREVIEW_STEPS = 1000;

export interface FiringPeriod {
  fingerprint: string;
  labels: Record<string, string>;
  startsAtMs: number;
  /** Null when it was still firing at the end of the range. */
  endsAtMs: number | null;
  /** The value when it started firing. */
  value: number | null;
}

export interface PreviewResult {
  evaluations: number;
  transitions: Transition[];
  firing: FiringPeriod[];
  /** The alerts as they stood after the last evaluation. */
  alerts: StoredAlert[];
  /** Why evaluations failed, with how many failed so (a bad query shows here, not as a 500). */
  errors: { reason: string; count: number }[];
}

export async function previewDetector(
  d: Detector, kind: DetectorKind | undefined, data: DetectorData, range: { startMs: number; endMs: number; stepMs: number },
): Promise<PreviewResult> {
  const ids = { detectorId: d.id, tenantId: d.tenantId };
  const rules = rulesOf(d);
  let table = new Map<string, StoredAlert>();
  let kindState: KindState = {};
  const transitions: Transition[] = [];
  const errors = new Map<string, number>();
  let evaluations = 0;
  for (let at = range.startMs; at <= range.endMs; at += range.stepMs) {
    const j = await judge(d, kind, data, kindState, at);
    if (j.deferred) throw j.deferred;
    if (!j.outcome.ok) errors.set(j.outcome.reason, (errors.get(j.outcome.reason) ?? 0) + 1);
    kindState = j.kindState;
    const life = advance(ids, rules, [...table.values()], j.outcome, at);
    table = new Map(table);
    for (const fp of life.deletes) table.delete(fp);
    for (const a of life.upserts) table.set(a.fingerprint, a);
    transitions.push(...life.transitions);
    evaluations++;
  }
  return {
    evaluations, transitions, firing: firingPeriods(transitions), alerts: [...table.values()],
    errors: [...errors].map(([reason, count]) => ({ reason, count })),
  };
}

/** Each stretch during which an alert was firing (an `error` over a firing alert does not end it). */
export function firingPeriods(transitions: readonly Transition[]): FiringPeriod[] {
  const open = new Map<string, FiringPeriod>();
  const out: FiringPeriod[] = [];
  for (const t of transitions) {
    if (t.to === 'firing' && !open.has(t.fingerprint)) {
      const p: FiringPeriod = { fingerprint: t.fingerprint, labels: t.labels, startsAtMs: t.atMs, endsAtMs: null, value: t.value };
      open.set(t.fingerprint, p);
      out.push(p);
    } else if (t.to === 'resolved' || t.to === 'inactive') {
      const p = open.get(t.fingerprint);
      if (p) p.endsAtMs = t.atMs;
      open.delete(t.fingerprint);
    }
  }
  return out;
}
