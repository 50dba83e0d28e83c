// The notification side of the service, built once at the composition root (service.ts): the Notifier the engine
// enqueues into, the delivery worker that drains the outbox (started with the service, stopped on SIGTERM before
// the control store closes), the sender the channels API's test uses, and the counters for /metrics.
import type { Clock } from '../../clock.js';
import type { ControlStore } from '../../stores/control/control-store.js';
import type { Notifier } from '../notify-model.js';
import { DEFAULT_RETRY } from './backoff.js';
import { DeliveryWorker } from './delivery-worker.js';
import { NotificationMetrics } from './metrics.js';
import { OutboxNotifier } from './outbox-notifier.js';
import { httpSender, type Sender } from './sender.js';

export interface NotificationsOptions {
  control: ControlStore;
  log: (line: string) => void;
  /** SIGHTLINE_NOTIFY_RETRY_BASE_MS: the first retry's wait (it doubles up to 10 min). */
  retryBaseMs: number;
  /** SIGHTLINE_NOTIFY_TIMEOUT_MS: the longest a post may take. */
  timeoutMs: number;
}

export interface Notifications {
  notifier: Notifier;
  send: Sender;
  metrics: NotificationMetrics;
  start(): void;
  stop(): Promise<void>;
}

/** Delivery runs on wall time: leases and backoff are about the network, which the test clock does not move. */
const wallClock: Clock = { now: () => Date.now() };

export function createNotifications(o: NotificationsOptions): Notifications {
  const metrics = new NotificationMetrics();
  const send = httpSender(o.timeoutMs);
  const worker = new DeliveryWorker({
    store: o.control, clock: wallClock, send, metrics, log: o.log, requestTimeoutMs: o.timeoutMs,
    retry: { ...DEFAULT_RETRY, baseMs: o.retryBaseMs },
  });
  const notifier = new OutboxNotifier(wallClock, () => worker.kick());
  return { notifier, send, metrics, start: () => worker.start(), stop: () => worker.stop() };
}
