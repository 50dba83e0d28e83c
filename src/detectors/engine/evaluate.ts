// One detector evaluated and recorded (DESIGN §8): the kind runs outside any transaction (its queries may take a
// while), then one control-store transaction with the detector's row locked takes the outcome through the
// lifecycle, writes the alert rows and the run state, and hands the notices to the notifier on that same
// transaction (notify-model.ts). Either all of it commits or none: a crash (SIGKILL included) can neither lose a
// firing alert nor record a notice without its state, and a restart re-reads exactly what was committed, so it
// neither drops a firing alert nor notifies it twice. An evaluation at an instant not after the detector's last one
// is skipped: two passes over one detector (the scheduler and POST /admin/v1/detectors/evaluate) never both count.
import type { Clock } from '../../clock.js';
import type { ControlStore } from '../../stores/control/control-store.js';
import type { Detector, StoredAlert } from '../../stores/control/detector-records.js';
import type { AlertNotice, AlertRecord, Notifier } from '../notify-model.js';
import type { DetectorData, DetectorKind } from '../model.js';
import { advance, retire, type LifecycleResult, type Transition } from './lifecycle.js';
import { judge, rulesOf } from './judge.js';
import type { EngineMetrics } from './metrics.js';

export interface EvaluatorDeps {
  control: ControlStore;
  kinds: ReadonlyMap<string, DetectorKind>;
  notifier: Notifier;
  /** The detector's data, bound to its tenant and counted against the tenant's query rate (data.ts). */
  dataFor(detector: Detector): Promise<DetectorData>;
  /** Wall time, for durations only; evaluation instants are service time and come from the caller. */
  clock: Clock;
  /** Link back to the alert in the app (Alertmanager's generatorURL). */
  generatorUrl(detector: Detector, fingerprint: string): string;
  metrics: EngineMetrics;
}

export interface EvaluationReport {
  detectorId: string;
  /** Not evaluated: disabled, gone, or already evaluated at or after this instant. */
  skipped: boolean;
  outcome: 'ok' | 'error' | 'deferred';
  error: string | null;
  /** When deferred: how long until the query rate frees up. */
  retryAfterMs: number | null;
  firing: number;
  pending: number;
  /** Alerts that resolved in this evaluation. */
  resolved: number;
  /** Notices handed to the notifier, by status. */
  notices: { firing: number; resolved: number };
  transitions: Transition[];
}

export function alertRecord(a: StoredAlert): AlertRecord {
  return {
    fingerprint: a.fingerprint, detectorId: a.detectorId, tenantId: a.tenantId, state: a.state, labels: a.labels,
    annotations: a.annotations, startsAtMs: a.firedAt ?? a.activeAt, endsAtMs: a.endsAt, value: a.value,
    ...(a.reason === null ? {} : { reason: a.reason }),
  };
}

const skipped = (detectorId: string): EvaluationReport => ({
  detectorId, skipped: true, outcome: 'ok', error: null, retryAfterMs: null, firing: 0, pending: 0, resolved: 0, notices: { firing: 0, resolved: 0 }, transitions: [],
});

/** Writes the lifecycle's rows and hands its notices to the notifier, on the caller's transaction-bound store. */
async function record(deps: Pick<EvaluatorDeps, 'notifier' | 'generatorUrl'>, tx: ControlStore, d: Detector, life: LifecycleResult): Promise<void> {
  await tx.deleteAlerts(d.id, life.deletes);
  await tx.upsertAlerts(life.upserts);
  if (life.notices.length === 0) return;
  const notices: AlertNotice[] = life.notices.map((n) => ({
    tenantId: d.tenantId, detectorId: d.id, channelIds: d.channelIds, status: n.status,
    alert: alertRecord(n.alert), generatorUrl: deps.generatorUrl(d, n.alert.fingerprint),
  }));
  await deps.notifier.enqueue(tx, notices);
}

/**
 * A detector deleted or disabled (DESIGN §8): inside the caller's transaction (ControlStore.withDetectorLock), its
 * firing alerts resolve with a resolved notice and the rest go (lifecycle.ts retire). Returns the notices' count.
 */
export async function retireDetectorAlerts(
  deps: Pick<EvaluatorDeps, 'notifier' | 'generatorUrl'>, tx: ControlStore, d: Detector, reason: string, now: number,
): Promise<number> {
  const life = retire(await tx.listAlerts(d.tenantId, { detectorId: d.id }), reason, now);
  await record(deps, tx, d, life);
  return life.notices.length;
}

export async function evaluateDetector(deps: EvaluatorDeps, detector: Detector, atMs: number): Promise<EvaluationReport> {
  const started = deps.clock.now();
  const before = await deps.control.getDetectorRunState(detector.id);
  if (before?.lastEvalAt != null && before.lastEvalAt >= atMs) return skipped(detector.id);
  const data = await deps.dataFor(detector);
  const j = await judge(detector, deps.kinds.get(detector.kind), data, before?.kindState ?? {}, atMs);
  const outcome = j.deferred !== undefined ? 'deferred' : j.outcome.ok ? 'ok' : 'error';

  const report = await deps.control.withDetectorLock(detector.id, async (tx, fresh) => {
    // Disabled, or changed (PUT) while the kind ran: what it judged is the old definition's; the next one counts.
    if (!fresh.enabled || fresh.updatedAt !== detector.updatedAt) return null;
    const current = await tx.getDetectorRunState(fresh.id);
    if (current?.lastEvalAt != null && current.lastEvalAt >= atMs) return null;
    const existing = await tx.listAlerts(fresh.tenantId, { detectorId: fresh.id });
    const life = advance({ detectorId: fresh.id, tenantId: fresh.tenantId }, rulesOf(fresh), existing, j.outcome, atMs);
    await record(deps, tx, fresh, life);
    const error = j.outcome.ok ? null : j.outcome.reason;
    await tx.saveDetectorRunState({
      detectorId: fresh.id, kindState: j.kindState, lastEvalAt: atMs, lastError: error, lastDurationMs: deps.clock.now() - started,
    });
    const after = new Map(existing.map((a) => [a.fingerprint, a]));
    for (const fp of life.deletes) after.delete(fp);
    for (const a of life.upserts) after.set(a.fingerprint, a);
    const states = [...after.values()].map((a) => a.state);
    return {
      detectorId: fresh.id, skipped: false, outcome, error, retryAfterMs: j.deferred === undefined ? null : j.deferred.retryAfterS * 1000,
      firing: states.filter((s) => s === 'firing').length, pending: states.filter((s) => s === 'pending').length,
      resolved: life.transitions.filter((t) => t.to === 'resolved').length,
      notices: {
        firing: life.notices.filter((n) => n.status === 'firing').length,
        resolved: life.notices.filter((n) => n.status === 'resolved').length,
      },
      transitions: life.transitions,
    } satisfies EvaluationReport;
  });
  if (report === null) return skipped(detector.id);
  deps.metrics.evaluation(outcome, (deps.clock.now() - started) / 1000);
  deps.metrics.noticesEnqueued('firing', report.notices.firing);
  deps.metrics.noticesEnqueued('resolved', report.notices.resolved);
  return report;
}
