// One outbox row → the HTTP request of its channel's format (formats/). Resolved notices go only to channels with
// send_resolved (Alertmanager's webhook_config `send_resolved`, default true); a row left with nothing to say sends
// nothing.
import type { AlertNotice } from '../notify-model.js';
import type { NotificationChannel } from '../../stores/control/notification-records.js';
import { alertsEndpoint, postableAlerts, type Cadence } from './formats/alertmanager.js';
import { slackMessage } from './formats/slack.js';
import { webhookPayload } from './formats/webhook.js';

export interface OutgoingRequest {
  url: string;
  /** The channel's own headers; the sender adds Content-Type and User-Agent. */
  headers: Record<string, string>;
  body: unknown;
}

export function noticesFor(channel: Pick<NotificationChannel, 'sendResolved'>, notices: readonly AlertNotice[]): AlertNotice[] {
  return channel.sendResolved ? [...notices] : notices.filter((n) => n.status === 'firing');
}

/** Null when the channel takes none of the notices. */
export function buildRequest(channel: NotificationChannel, notices: readonly AlertNotice[], sentAtMs: number, cadence: Cadence): OutgoingRequest | null {
  const list = noticesFor(channel, notices);
  if (list.length === 0) return null;
  const headers = { ...channel.headers };
  switch (channel.type) {
    case 'webhook':
      return { url: channel.url, headers, body: webhookPayload(channel.name, list) };
    case 'alertmanager':
      return { url: alertsEndpoint(channel.url), headers, body: postableAlerts(list, sentAtMs, cadence) };
    case 'slack':
      return { url: channel.url, headers, body: slackMessage(list) };
  }
}
