// Detectors and their alerts as the control store keeps them (DESIGN §8): the detector's definition, its
// evaluation state (the kind's durable memory, the last evaluation's time and error), and one row per alert, i.e.
// per (detector, fingerprint of the label set). The alert row holds everything the lifecycle needs to carry on
// after a restart (also SIGKILL) without losing a firing alert or notifying twice: when the condition first held,
// when it fired, when it last held (keep_firing_for), and when and what was last handed to the notifier.
// Times are unix ms. ControlStore extends DetectorStore (control-store.ts); sql-detectors.ts implements it.
import type { ControlStore } from './control-store.js';

export const ALERT_STATES = ['pending', 'firing', 'resolved', 'nodata', 'error'] as const;
export type StoredAlertState = (typeof ALERT_STATES)[number];
/** What an alert in `error` was before the failed evaluation; `inactive` = there was no alert yet. */
export type PriorAlertState = Exclude<StoredAlertState, 'error'> | 'inactive';

export interface Detector {
  id: string;
  tenantId: string;
  /** The tenant's account, stored so the plan (query rate, metrics feature) is found without a join. */
  accountId: string;
  name: string;
  /** A kind of the catalog (`log_threshold`, …). */
  kind: string;
  /** The kind's parameters as given (checked by the kind's parseParams when saved, parsed again at each evaluation). */
  params: Record<string, unknown>;
  /** Length of the judged window `[end − window, end)`. */
  windowS: number;
  /** How often it is evaluated. */
  intervalS: number;
  /** Prometheus `for`: how long the condition must hold before pending becomes firing. */
  forS: number;
  /** Prometheus `keep_firing_for`: how long a firing alert stays firing after the condition stops holding. */
  keepFiringForS: number;
  /** Added to every alert's labels. */
  labels: Record<string, string>;
  /** Templates (`summary`, `description`, `runbook_url`, …) expanded per alert. */
  annotations: Record<string, string>;
  channelIds: string[];
  /** How often a still-firing alert is notified again (DESIGN §8: default 4 h). */
  repeatIntervalS: number;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

export type NewDetector = Omit<Detector, 'id' | 'createdAt' | 'updatedAt'>;

/** Fields a PUT may change; the tenant and account never change. */
export type DetectorPatch = Partial<Omit<NewDetector, 'tenantId' | 'accountId'>>;

/** The detector's evaluation state: one row per detector, written in the evaluation's transaction. */
export interface DetectorRunState {
  detectorId: string;
  /** The kind's durable memory (model.ts KindState): first-seen templates, baselines. */
  kindState: Record<string, unknown>;
  /** The instant of the last evaluation that ran (or was deferred); null before the first. */
  lastEvalAt: number | null;
  /** Why the last evaluation failed or was deferred; null when it succeeded. */
  lastError: string | null;
  lastDurationMs: number | null;
}

export interface StoredAlert {
  detectorId: string;
  /** 16 hex digits, Alertmanager's fingerprint of `labels`. */
  fingerprint: string;
  tenantId: string;
  state: StoredAlertState;
  /** Only in `error`: the state it had before, which it keeps acting on (re-sent while it was firing). */
  priorState: PriorAlertState | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  value: number | null;
  /** When the condition started to hold (the start of `pending`). */
  activeAt: number;
  /** When it became firing; null until then. */
  firedAt: number | null;
  /** When it resolved; null while active. */
  endsAt: number | null;
  /** The last evaluation at which the condition held. */
  lastActiveAt: number | null;
  /** The first evaluation at which a firing alert's condition failed (keep_firing_for counts from here); else null. */
  keepFiringSince: number | null;
  lastEvalAt: number;
  /** When a notice was last enqueued for it, and its status; null before the first. */
  lastSentAt: number | null;
  lastSentStatus: 'firing' | 'resolved' | null;
  /** Notices enqueued for it in all (a restart must not add one: e2e tests read this). */
  sentCount: number;
  /** Why, for `error` and `nodata`. */
  reason: string | null;
}

export interface AlertFilter {
  states?: readonly StoredAlertState[];
  detectorId?: string;
  fingerprint?: string;
}

export interface DetectorStore {
  createDetector(input: NewDetector): Promise<Detector>;
  getDetector(id: string): Promise<Detector | null>;
  listDetectors(tenantId: string): Promise<Detector[]>;
  /** Enabled detectors of tenants that are not disabled, over every account (the scheduler's work list). */
  listEnabledDetectors(): Promise<Detector[]>;
  /** Replaces the given fields and stamps updatedAt; null for an unknown id. */
  updateDetector(id: string, patch: DetectorPatch): Promise<Detector | null>;
  /** Deletes the detector with its state and alerts; true when it existed. */
  deleteDetector(id: string): Promise<boolean>;
  /**
   * Runs `fn` in one transaction with the detector's row locked, on a store bound to that transaction: an
   * evaluation's alert updates and its notices (notify-model.ts) commit together or not at all, and two passes over
   * one detector cannot interleave. Null (fn not run) when the detector is gone.
   */
  withDetectorLock<T>(id: string, fn: (store: ControlStore, detector: Detector) => Promise<T>): Promise<T | null>;

  /** Null before the first evaluation. */
  getDetectorRunState(detectorId: string): Promise<DetectorRunState | null>;
  /** The run states of the tenant's detectors. */
  listDetectorRunStates(tenantId: string): Promise<DetectorRunState[]>;
  saveDetectorRunState(state: DetectorRunState): Promise<void>;

  /** The tenant's alerts, newest activity first. */
  listAlerts(tenantId: string, filter?: AlertFilter): Promise<StoredAlert[]>;
  /** Inserts or replaces each (detectorId, fingerprint) row, in one statement. */
  upsertAlerts(alerts: readonly StoredAlert[]): Promise<void>;
  deleteAlerts(detectorId: string, fingerprints: readonly string[]): Promise<void>;
}
