// The Notifier of the engine → notifier seam (notify-model.ts): `enqueue` turns notices into outbox rows on the
// store the engine hands in, i.e. inside the transaction that records the alerts' new state, so the state change
// and its notices commit together or not at all. One row per detector and channel: the notices of one evaluation
// of one detector are one payload, as Alertmanager groups by `alertname`. Delivery is the worker's (delivery-worker.ts).
import type { Clock } from '../../clock.js';
import type { ControlStore } from '../../stores/control/control-store.js';
import type { NewDelivery, NotificationChannel } from '../../stores/control/notification-records.js';
import type { AlertNotice, Notifier } from '../notify-model.js';
import { noticesFor } from './request.js';

/** For notices whose detector is gone (or test notices): Prometheus' default interval, Alertmanager's repeat. */
const DEFAULT_INTERVAL_S = 60;
const DEFAULT_REPEAT_S = 14_400;

export class OutboxNotifier implements Notifier {
  /**
   * `clock` stamps the rows (the delivery worker's clock: wall time); `onEnqueued` runs after the rows are written
   * (the caller's transaction may not have committed yet, so it should only nudge the worker to look soon).
   */
  constructor(private readonly clock: Clock, private readonly onEnqueued: () => void = () => undefined) {}

  async enqueue(store: ControlStore, notices: readonly AlertNotice[]): Promise<void> {
    const rows = await deliveriesFor(store, notices, this.clock.now());
    if (rows.length === 0) return;
    await store.enqueueDeliveries(rows);
    this.onEnqueued();
  }
}

/** The rows for these notices: per detector (in order of first appearance), per channel of the tenant it names. */
export async function deliveriesFor(store: ControlStore, notices: readonly AlertNotice[], nowMs: number): Promise<NewDelivery[]> {
  const byDetector = new Map<string, AlertNotice[]>();
  for (const n of notices) {
    const list = byDetector.get(n.detectorId);
    if (list) list.push(n);
    else byDetector.set(n.detectorId, [n]);
  }
  const channelsOf = new Map<string, Map<string, NotificationChannel>>();
  const rows: NewDelivery[] = [];
  for (const [detectorId, list] of byDetector) {
    const first = list[0];
    if (!first) continue;
    let channels = channelsOf.get(first.tenantId);
    if (!channels) {
      channels = new Map((await store.listChannels(first.tenantId)).map((c) => [c.id, c]));
      channelsOf.set(first.tenantId, channels);
    }
    const detector = await store.getDetector(detectorId);
    const cadence = {
      intervalS: detector?.intervalS ?? DEFAULT_INTERVAL_S, repeatIntervalS: detector?.repeatIntervalS ?? DEFAULT_REPEAT_S,
    };
    // A channel named by any notice of the detector (they normally all name the same ones), once.
    const ids = [...new Set(list.flatMap((n) => n.channelIds))];
    for (const id of ids) {
      const channel = channels.get(id);
      if (!channel) continue; // not (or no longer) a channel of this tenant
      const mine = noticesFor(channel, list.filter((n) => n.channelIds.includes(id)));
      if (mine.length === 0) continue;
      rows.push({
        tenantId: first.tenantId, channelId: id, detectorId, notices: mine, ...cadence, createdAt: nowMs, nextAttemptAt: nowMs,
      });
    }
  }
  return rows;
}
