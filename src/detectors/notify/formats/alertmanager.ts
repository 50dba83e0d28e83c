// The `alertmanager` channel: POST <url>/api/v2/alerts with a JSON array of postable alerts (Alertmanager's
// api/v2/openapi.yaml `postableAlerts`: labels, annotations, startsAt, endsAt, generatorURL), as Prometheus and
// vmalert send them. Alertmanager resolves an alert by itself once `endsAt` has passed, so a firing alert carries an
// `endsAt` past the next time Sightline will repeat it (see firingEndsAt); a resolved one carries the time it
// resolved, which ends it at once.
import type { AlertNotice } from '../../notify-model.js';
import { rfc3339, sortedMap } from './common.js';

export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
}

/** How often the detector runs and repeats a firing alert (outbox row), in seconds. */
export interface Cadence {
  intervalS: number;
  repeatIntervalS: number;
}

/** `<base>/api/v2/alerts`, whatever trailing slash the channel's URL has. */
export function alertsEndpoint(baseUrl: string): string {
  const u = new URL(baseUrl);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/api/v2/alerts`;
  return u.toString();
}

/**
 * Prometheus sends `endsAt = now + 4 × max(resend delay, evaluation interval)` and re-sends every minute
 * (rules/alerting.go sendAlerts). Here a firing alert is repeated at the detector's repeat_interval, so the
 * window covers that plus three evaluation intervals: Alertmanager never auto-resolves between two repeats, and
 * still resolves it if Sightline stops repeating (a deleted detector, a service down for good).
 */
export function firingEndsAt(sentAtMs: number, c: Cadence): number {
  return sentAtMs + (c.repeatIntervalS + 3 * c.intervalS) * 1000;
}

/** Alertmanager refuses names outside `[a-zA-Z_][a-zA-Z0-9_]*` (model.LabelName.IsValid): others become `_`. */
export function labelName(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9_]/g, '_');
  return /^[a-zA-Z_]/.test(s) ? s : `_${s}`;
}

function validNames(m: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) {
    const name = labelName(k);
    if (!(name in out)) out[name] = v;
  }
  return sortedMap(out);
}

export function postableAlerts(notices: readonly AlertNotice[], sentAtMs: number, cadence: Cadence): PostableAlert[] {
  return notices.map((n) => ({
    labels: validNames(n.alert.labels),
    annotations: validNames(n.alert.annotations),
    startsAt: rfc3339(n.alert.startsAtMs),
    endsAt: rfc3339(n.status === 'resolved' ? (n.alert.endsAtMs ?? sentAtMs) : firingEndsAt(sentAtMs, cadence)),
    generatorURL: n.generatorUrl,
  }));
}
