// The seam between alert evaluation and notification delivery (DESIGN §8). The engine decides *that* an alert
// must be told (it started firing, it resolved, or it is still firing and `repeat_interval` has passed) and hands
// the notices to a Notifier inside the same control-store transaction that records the alert's new state, so a
// crash can neither lose a notice nor make the engine send it again (at-least-once delivery, one enqueue per
// transition). Delivery — channels, payload formats, retries with backoff — is the Notifier's.
import type { ControlStore } from '../stores/control/control-store.js';

export type AlertState = 'pending' | 'firing' | 'resolved' | 'nodata' | 'error';

/** An alert as the API lists it and as channels carry it (DESIGN §8; Alertmanager's alert fields). */
export interface AlertRecord {
  /** Stable per detector and label set (hex), as Alertmanager's fingerprint. */
  fingerprint: string;
  detectorId: string;
  tenantId: string;
  state: AlertState;
  /** `alertname` (the detector's name), `detector`, `tenant`, the group-by values and the detector's own labels. */
  labels: Record<string, string>;
  /** `summary`, `description`, `runbook_url`, with templates already expanded. */
  annotations: Record<string, string>;
  /** When the condition first held (pending) or the alert started firing, unix ms. */
  startsAtMs: number;
  /** When it resolved; null while active. */
  endsAtMs: number | null;
  value: number | null;
  /** Why, for `error` (e.g. the query rate was spent and evaluation was deferred). */
  reason?: string;
}

export interface AlertNotice {
  tenantId: string;
  detectorId: string;
  /** The channels the detector names. */
  channelIds: string[];
  status: 'firing' | 'resolved';
  alert: AlertRecord;
  /** Link back to the alert in the app (Alertmanager `generatorURL`). */
  generatorUrl: string;
}

export interface Notifier {
  /** Records notices for delivery, on the transaction-bound store the engine hands in. */
  enqueue(store: ControlStore, notices: readonly AlertNotice[]): Promise<void>;
}
