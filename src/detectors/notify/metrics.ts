// Notification deliveries by channel type and outcome for /metrics (issue 9 item 8), Prometheus text format
// (https://prometheus.io/docs/instrumenting/exposition_formats/): `sent` delivered, `retry` failed and scheduled
// again, `failed` given up (a permanent refusal, the give-up time, or a deleted channel). Every pair is shown from
// the start, at 0, so rate() sees the series begin.
import { CHANNEL_TYPES, type ChannelType } from '../../stores/control/notification-records.js';

export const OUTCOMES = ['sent', 'retry', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export class NotificationMetrics {
  private readonly counts = new Map<string, number>();

  count(channel: ChannelType, outcome: Outcome): void {
    const key = `${channel}\u0000${outcome}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  get(channel: ChannelType, outcome: Outcome): number {
    return this.counts.get(`${channel}\u0000${outcome}`) ?? 0;
  }

  render(): string {
    const lines = [
      '# HELP sightline_notifications_total Notification deliveries by channel type and outcome.',
      '# TYPE sightline_notifications_total counter',
    ];
    for (const channel of CHANNEL_TYPES) {
      for (const outcome of OUTCOMES) {
        lines.push(`sightline_notifications_total{channel="${channel}",outcome="${outcome}"} ${this.get(channel, outcome)}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }
}
