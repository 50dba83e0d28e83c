// The `webhook` channel: the Alertmanager webhook payload, version "4"
// (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config; notify/webhook/webhook.go Message =
// template.Data + version, groupKey, truncatedAlerts). One payload carries the notices of one evaluation of one
// detector, as Alertmanager groups by `alertname`; receivers written for Alertmanager read it unchanged.
import type { AlertNotice } from '../../notify-model.js';
import { alertName, common, externalUrl, groupStatus, labelSetText, rfc3339, sortedMap, ZERO_TIME } from './common.js';

export interface WebhookAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  /** ZERO_TIME while firing, as Alertmanager sends it. */
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

export interface WebhookPayload {
  version: '4';
  groupKey: string;
  truncatedAlerts: number;
  status: 'firing' | 'resolved';
  receiver: string;
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  externalURL: string;
  alerts: WebhookAlert[];
}

export function webhookAlert(n: AlertNotice): WebhookAlert {
  const resolved = n.status === 'resolved';
  return {
    status: n.status,
    labels: sortedMap(n.alert.labels),
    annotations: sortedMap(n.alert.annotations),
    startsAt: rfc3339(n.alert.startsAtMs),
    endsAt: resolved ? rfc3339(n.alert.endsAtMs ?? n.alert.startsAtMs) : ZERO_TIME,
    generatorURL: n.generatorUrl,
    fingerprint: n.alert.fingerprint,
  };
}

/**
 * `receiver` is the channel's name. groupLabels are `{alertname}`; the groupKey reads as Alertmanager's
 * (`<route matchers>:<group labels>`), the route being the detector: `{}/{detector="det_…"}:{alertname="…"}`.
 */
export function webhookPayload(receiver: string, notices: readonly AlertNotice[]): WebhookPayload {
  const groupLabels = { alertname: alertName(notices) };
  const detector = notices[0]?.detectorId ?? '';
  return {
    version: '4',
    groupKey: `{}/${labelSetText({ detector })}:${labelSetText(groupLabels)}`,
    truncatedAlerts: 0,
    status: groupStatus(notices),
    receiver,
    groupLabels,
    commonLabels: sortedMap(common(notices.map((n) => n.alert.labels))),
    commonAnnotations: sortedMap(common(notices.map((n) => n.alert.annotations))),
    externalURL: externalUrl(notices),
    alerts: notices.map(webhookAlert),
  };
}
