// Detectors and alerts as the API shows them (DESIGN §8): snake_case, times RFC 3339, the evaluation status beside
// each detector. These shapes are what the web app's Detectors and Alerts pages read.
import type { Detector, DetectorRunState, StoredAlert, StoredAlertState } from '../../stores/control/detector-records.js';
import type { DetectorKind } from '../model.js';
import type { Transition } from '../engine/lifecycle.js';
import type { FiringPeriod } from '../engine/preview.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export type AlertCounts = Record<StoredAlertState, number>;

export function emptyCounts(): AlertCounts {
  return { pending: 0, firing: 0, resolved: 0, nodata: 0, error: 0 };
}

export function countAlerts(alerts: readonly StoredAlert[]): Map<string, AlertCounts> {
  const out = new Map<string, AlertCounts>();
  for (const a of alerts) {
    let c = out.get(a.detectorId);
    if (!c) out.set(a.detectorId, (c = emptyCounts()));
    c[a.state]++;
  }
  return out;
}

export function renderDetector(
  d: Detector, run: DetectorRunState | null, counts: AlertCounts, kind: DetectorKind | undefined,
): Record<string, unknown> {
  let signal: string | null = kind?.spec.signal ?? null;
  if (kind?.requirements) {
    try {
      signal = kind.requirements(kind.parseParams(d.params)).signal;
    } catch {
      // Parameters a newer kind no longer takes: the evaluation shows the error; the list still shows the detector.
    }
  }
  return {
    id: d.id, tenant_id: d.tenantId, name: d.name, kind: d.kind, signal, params: d.params,
    window_s: d.windowS, interval_s: d.intervalS, for_s: d.forS, keep_firing_for_s: d.keepFiringForS,
    labels: d.labels, annotations: d.annotations, channel_ids: d.channelIds, repeat_interval_s: d.repeatIntervalS,
    enabled: d.enabled, created_at: iso(d.createdAt), updated_at: iso(d.updatedAt),
    status: {
      health: run === null || run.lastEvalAt === null ? 'unknown' : run.lastError === null ? 'ok' : 'error',
      last_eval_at: iso(run?.lastEvalAt ?? null), last_error: run?.lastError ?? null,
      last_duration_ms: run?.lastDurationMs ?? null, alerts: counts,
    },
  };
}

export function renderAlert(a: StoredAlert): Record<string, unknown> {
  return {
    fingerprint: a.fingerprint, detector_id: a.detectorId, tenant_id: a.tenantId, state: a.state,
    prior_state: a.state === 'error' ? a.priorState : null, reason: a.reason, labels: a.labels,
    annotations: a.annotations, value: a.value,
    // Alertmanager's startsAt: when it started firing, else when the condition first held.
    starts_at: iso(a.firedAt ?? a.activeAt), ends_at: iso(a.endsAt), active_at: iso(a.activeAt), fired_at: iso(a.firedAt),
    last_eval_at: iso(a.lastEvalAt), last_notified_at: iso(a.lastSentAt), last_notified_status: a.lastSentStatus,
    notified_count: a.sentCount,
  };
}

/** Firing first, then what needs a look, newest first within each. */
const STATE_ORDER: Record<StoredAlertState, number> = { firing: 0, error: 1, pending: 2, nodata: 3, resolved: 4 };

export function sortAlerts(alerts: StoredAlert[]): StoredAlert[] {
  return alerts.sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state]
    || (b.firedAt ?? b.activeAt) - (a.firedAt ?? a.activeAt) || a.fingerprint.localeCompare(b.fingerprint));
}

export function renderTransition(t: Transition): Record<string, unknown> {
  return { at: iso(t.atMs), fingerprint: t.fingerprint, labels: t.labels, from: t.from, to: t.to, value: t.value };
}

export function renderPeriod(p: FiringPeriod): Record<string, unknown> {
  return { fingerprint: p.fingerprint, labels: p.labels, starts_at: iso(p.startsAtMs), ends_at: iso(p.endsAtMs), value: p.value };
}
