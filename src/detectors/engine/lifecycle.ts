// The alert lifecycle (DESIGN §8), a pure state machine: the detector's alert rows and one evaluation's outcome in,
// the rows to write, the rows to delete, the notices to enqueue and the transitions out. It follows Prometheus'
// rules/alerting.go, with Grafana's `nodata` and `error` states added:
//
//   condition holds   inactive/resolved/nodata → pending (→ firing at once when `for` is 0)
//                     pending → firing once it has held for `for`;   firing stays firing
//   condition fails   pending → gone (Prometheus drops a pending alert; nothing was ever sent)
//                     firing → resolved once it has failed for `keep_firing_for` (at once when 0)
//   no data           firing stays firing (the last known state); anything else → nodata (never notified)
//   evaluation failed (query rate spent, query error): every alert that is not resolved → `error`, keeping the
//                     state it had as `priorState` and acting on it — a firing alert keeps being re-sent per
//                     repeat_interval and never resolves for want of data (issue 9 notes); the next evaluation that
//                     runs resumes from priorState. With no alert yet, one detector-level `error` alert shows why.
//
// The rule against flapping: an alert fires only after its condition held at every evaluation for `for`, and once
// firing it resolves only when the condition has failed at every evaluation since the first failed one and
// `keep_firing_for` has passed since that one (Prometheus' KeepFiringSince). A value hovering
// at the bound either never fires (each dip restarts pending) or stays firing through dips shorter than
// keep_firing_for; kinds with a `recovery_threshold` add hysteresis on the value itself (algorithms/threshold.ts).
//
// Notices (notify-model.ts): `firing` when an alert starts firing and again whenever `repeat_interval` has passed
// since the last one while it is still firing; `resolved` once when it resolves. Resolved alerts stay listed for
// RESOLVED_KEPT_MS, then go.
import type { PriorAlertState, StoredAlert, StoredAlertState } from '../../stores/control/detector-records.js';

export const RESOLVED_KEPT_MS = 24 * 3_600_000;

export interface LifecycleRules {
  forMs: number;
  keepFiringForMs: number;
  repeatIntervalMs: number;
}

/** One group's judgement in this evaluation, its alert identity already computed (labels.ts, templates.ts). */
export interface GroupVerdict {
  fingerprint: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  value: number | null;
  active: boolean;
  nodata: boolean;
}

export type Outcome =
  | { ok: true; groups: readonly GroupVerdict[] }
  /** `identity`: the detector-level alert shown when there is no alert to carry the error. */
  | { ok: false; reason: string; identity: Pick<GroupVerdict, 'fingerprint' | 'labels' | 'annotations'> };

export type ShownState = StoredAlertState | 'inactive';

export interface Transition {
  fingerprint: string;
  labels: Record<string, string>;
  from: ShownState;
  to: ShownState;
  atMs: number;
  value: number | null;
}

export interface Notice {
  status: 'firing' | 'resolved';
  alert: StoredAlert;
}

export interface LifecycleResult {
  upserts: StoredAlert[];
  /** Fingerprints of rows to delete. */
  deletes: string[];
  notices: Notice[];
  transitions: Transition[];
}

interface Ids {
  detectorId: string;
  tenantId: string;
}

/** What an alert acts as: its state, or for `error` the state it had before. */
export function effectiveState(a: StoredAlert | undefined): PriorAlertState {
  if (!a) return 'inactive';
  return a.state === 'error' ? (a.priorState ?? 'inactive') : a.state;
}

function fresh(ids: Ids, v: Pick<GroupVerdict, 'fingerprint' | 'labels' | 'annotations'>, now: number): StoredAlert {
  return {
    ...ids, fingerprint: v.fingerprint, state: 'pending', priorState: null, labels: v.labels, annotations: v.annotations,
    value: null, activeAt: now, firedAt: null, endsAt: null, lastActiveAt: null, keepFiringSince: null, lastEvalAt: now, lastSentAt: null,
    lastSentStatus: null, sentCount: 0, reason: null,
  };
}

function repeatDue(a: StoredAlert, rules: LifecycleRules, now: number): boolean {
  return a.lastSentStatus !== 'firing' || a.lastSentAt === null || now - a.lastSentAt >= rules.repeatIntervalMs;
}

function sent(a: StoredAlert, status: 'firing' | 'resolved', now: number): StoredAlert {
  return { ...a, lastSentAt: now, lastSentStatus: status, sentCount: a.sentCount + 1 };
}

/** A firing alert this evaluation: re-sent when repeat_interval has passed. */
function keepFiring(a: StoredAlert, rules: LifecycleRules, now: number): { next: StoredAlert; notice: Notice['status'] | null } {
  return repeatDue(a, rules, now) ? { next: sent(a, 'firing', now), notice: 'firing' } : { next: a, notice: null };
}

type Step = { next: StoredAlert | null; notice: Notice['status'] | null };

/** One alert through one successful evaluation; `v` undefined = its group is not in the result (condition fails). */
export function stepGroup(ids: Ids, prev: StoredAlert | undefined, v: GroupVerdict | undefined, rules: LifecycleRules, now: number): Step {
  const eff = effectiveState(prev);
  const identity = v ?? prev;
  if (!identity) return { next: null, notice: null };
  const base: StoredAlert = {
    ...(prev ?? fresh(ids, identity, now)),
    labels: identity.labels, annotations: identity.annotations, value: v ? v.value : (prev?.value ?? null),
    lastEvalAt: now, state: eff === 'inactive' ? 'pending' : eff, priorState: null, reason: null,
  };
  if (v?.active === true) {
    if (eff === 'firing') return keepFiring({ ...base, lastActiveAt: now, keepFiringSince: null }, rules, now);
    const started = eff === 'pending' ? base : { ...base, activeAt: now, firedAt: null, endsAt: null, keepFiringSince: null };
    const held = { ...started, lastActiveAt: now };
    if (now - held.activeAt >= rules.forMs) return { next: sent({ ...held, state: 'firing', firedAt: now }, 'firing', now), notice: 'firing' };
    return { next: { ...held, state: 'pending' }, notice: null };
  }
  if (v?.nodata === true) {
    if (eff === 'firing') return keepFiring({ ...base, reason: 'no data: keeping the last state' }, rules, now);
    const since = eff === 'nodata' ? base.activeAt : now;
    return { next: { ...base, state: 'nodata', activeAt: since, firedAt: null, endsAt: null, reason: 'no data' }, notice: null };
  }
  switch (eff) {
    case 'firing': {
      // Prometheus' KeepFiringSince: counted from the first evaluation at which the condition failed.
      const since = base.keepFiringSince ?? now;
      if (now - since < rules.keepFiringForMs) return keepFiring({ ...base, keepFiringSince: since }, rules, now);
      return { next: sent({ ...base, state: 'resolved', endsAt: now, keepFiringSince: null }, 'resolved', now), notice: 'resolved' };
    }
    case 'resolved':
      if (prev && now - (prev.endsAt ?? prev.lastEvalAt) >= RESOLVED_KEPT_MS) return { next: null, notice: null };
      // A resolved row is left as it is (no write each evaluation) unless it is coming back from `error`.
      return { next: prev?.state === 'error' ? { ...base, state: 'resolved' } : (prev ?? null), notice: null };
    default:
      return { next: null, notice: null };
  }
}

/** One alert through a failed (or deferred) evaluation. */
export function stepError(prev: StoredAlert, reason: string, rules: LifecycleRules, now: number): Step {
  const eff = effectiveState(prev);
  if (eff === 'resolved' && prev.state === 'resolved') {
    return now - (prev.endsAt ?? prev.lastEvalAt) >= RESOLVED_KEPT_MS ? { next: null, notice: null } : { next: prev, notice: null };
  }
  const errored: StoredAlert = { ...prev, state: 'error', priorState: eff, reason, lastEvalAt: now };
  return eff === 'firing' ? keepFiring(errored, rules, now) : { next: errored, notice: null };
}

/** Every alert of one detector through one evaluation. */
export function advance(ids: Ids, rules: LifecycleRules, existing: readonly StoredAlert[], outcome: Outcome, now: number): LifecycleResult {
  const out: LifecycleResult = { upserts: [], deletes: [], notices: [], transitions: [] };
  const byFp = new Map(existing.map((a) => [a.fingerprint, a]));
  const record = (prev: StoredAlert | undefined, step: Step, fp: string): void => {
    const { next } = step;
    if (next === null) {
      if (prev) out.deletes.push(fp);
    } else if (next !== prev) out.upserts.push(next);
    if (step.notice !== null && next) out.notices.push({ status: step.notice, alert: next });
    const from: ShownState = prev?.state ?? 'inactive';
    const to: ShownState = next?.state ?? 'inactive';
    if (from !== to) {
      const shown = next ?? prev;
      out.transitions.push({ fingerprint: fp, labels: shown?.labels ?? {}, from, to, atMs: now, value: shown?.value ?? null });
    }
  };

  if (outcome.ok) {
    const seen = new Set<string>();
    for (const v of outcome.groups) {
      if (seen.has(v.fingerprint)) continue; // two groups with one label set: the first one speaks for it
      seen.add(v.fingerprint);
      const prev = byFp.get(v.fingerprint);
      record(prev, stepGroup(ids, prev, v, rules, now), v.fingerprint);
    }
    for (const prev of existing) {
      if (!seen.has(prev.fingerprint)) record(prev, stepGroup(ids, prev, undefined, rules, now), prev.fingerprint);
    }
    return out;
  }

  const live = existing.filter((a) => a.state !== 'resolved');
  for (const prev of existing) record(prev, stepError(prev, outcome.reason, rules, now), prev.fingerprint);
  if (live.length === 0) {
    // Nothing carries the error: show it on a detector-level alert (Grafana's DatasourceError), never silently.
    const prev = byFp.get(outcome.identity.fingerprint);
    const next: StoredAlert = {
      ...(prev ?? fresh(ids, outcome.identity, now)), state: 'error', priorState: effectiveState(prev), reason: outcome.reason, lastEvalAt: now,
    };
    // Replace whatever the loop above recorded for that fingerprint (an old resolved row).
    out.upserts = out.upserts.filter((a) => a.fingerprint !== outcome.identity.fingerprint);
    out.deletes = out.deletes.filter((f) => f !== outcome.identity.fingerprint);
    out.transitions = out.transitions.filter((t) => t.fingerprint !== outcome.identity.fingerprint);
    record(prev, { next, notice: null }, outcome.identity.fingerprint);
  }
  return out;
}

/**
 * The detector is being deleted or disabled: its firing alerts resolve now, each with a resolved notice, so that no
 * receiver is left holding an alert nothing will ever resolve; pending, nodata and error alerts go (an error alert
 * that was firing underneath resolves like a firing one). Resolved alerts stay as they are.
 */
export function retire(existing: readonly StoredAlert[], reason: string, now: number): LifecycleResult {
  const out: LifecycleResult = { upserts: [], deletes: [], notices: [], transitions: [] };
  for (const a of existing) {
    if (a.state === 'resolved') continue;
    if (effectiveState(a) === 'firing') {
      const next = sent({ ...a, state: 'resolved', priorState: null, endsAt: now, lastEvalAt: now, keepFiringSince: null, reason }, 'resolved', now);
      out.upserts.push(next);
      out.notices.push({ status: 'resolved', alert: next });
      out.transitions.push({ fingerprint: a.fingerprint, labels: a.labels, from: a.state, to: 'resolved', atMs: now, value: a.value });
    } else {
      out.deletes.push(a.fingerprint);
      out.transitions.push({ fingerprint: a.fingerprint, labels: a.labels, from: a.state, to: 'inactive', atMs: now, value: a.value });
    }
  }
  return out;
}
