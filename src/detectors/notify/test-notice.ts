// The notice `POST …/notification-channels/<id>/test` sends, like Grafana's "Test" of a contact point: a firing alert
// named `SightlineTestNotification` with the channel's own format, posted at once (not through the outbox), so the
// reply says whether the receiver took it.
import type { NotificationChannel } from '../../stores/control/notification-records.js';
import type { AlertNotice } from '../notify-model.js';
import { fingerprint } from '../engine/labels.js';

/** Alertmanager keeps a test alert for this long before it resolves by itself. */
const TEST_ALERT_MS = 5 * 60_000;

export function testNotice(channel: NotificationChannel, nowMs: number, appUrl: string): AlertNotice {
  const labels = { alertname: 'SightlineTestNotification', tenant: channel.tenantId, channel: channel.name, severity: 'none' };
  return {
    tenantId: channel.tenantId, detectorId: 'test', channelIds: [channel.id], status: 'firing',
    generatorUrl: appUrl,
    alert: {
      fingerprint: fingerprint(labels), detectorId: 'test', tenantId: channel.tenantId, state: 'firing', labels,
      annotations: {
        summary: 'Test notification from Sightline',
        description: `Sent to the ${channel.type} channel "${channel.name}" to check that it is delivered.`,
      },
      startsAtMs: nowMs, endsAtMs: null, value: null,
    },
  };
}

/** The cadence that makes Alertmanager drop the test alert after TEST_ALERT_MS (formats/alertmanager.ts). */
export const TEST_CADENCE = Object.freeze({ intervalS: 0, repeatIntervalS: TEST_ALERT_MS / 1000 });
