// The delivery worker: claims due outbox rows under a lease, posts each in its channel's format, and marks it sent,
// schedules a retry (backoff.ts), or gives up with the reason. Only the mark ends a row, so a crash (even SIGKILL)
// between the post and the mark makes the row due again once its lease lapses: at-least-once, never lost. Stop
// (SIGTERM) aborts the posts in flight and hands their rows straight back, so the next start sends them at once.
import type { Clock } from '../../clock.js';
import type { ControlStore } from '../../stores/control/control-store.js';
import type { Delivery } from '../../stores/control/notification-records.js';
import { DEFAULT_RETRY, nextTry, type RetryPolicy } from './backoff.js';
import type { NotificationMetrics } from './metrics.js';
import { buildRequest } from './request.js';
import type { SendResult, Sender } from './sender.js';

export interface DeliveryWorkerOptions {
  store: ControlStore;
  /** Wall time: leases and backoff are about the real network, not service time. */
  clock: Clock;
  send: Sender;
  metrics: NotificationMetrics;
  log: (line: string) => void;
  retry?: RetryPolicy;
  /** The longest a post may take (the sender's timeout); the lease covers it with room to spare. */
  requestTimeoutMs: number;
  /** How often to look for due rows when not nudged. */
  pollMs?: number;
  /** Rows claimed and posted at once. */
  batch?: number;
  random?: () => number;
}

/** Finished rows are kept this long (the API's last_delivery and recent history), then deleted. */
const KEEP_FINISHED_MS = 7 * 86_400_000;
const CLEANUP_EVERY_MS = 3_600_000;

export class DeliveryWorker {
  private readonly retry: RetryPolicy;
  private readonly pollMs: number;
  private readonly batch: number;
  private readonly random: () => number;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;
  private lastCleanup = 0;
  private readonly abort = new AbortController();

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.retry = o.retry ?? DEFAULT_RETRY;
    this.pollMs = o.pollMs ?? 1000;
    this.batch = o.batch ?? 16;
    this.random = o.random ?? Math.random;
    this.leaseMs = 2 * o.requestTimeoutMs + 5000;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Look soon (rows were just enqueued; their transaction may still be committing). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(50);
  }

  /** Stops polling, aborts posts in flight and waits for their rows to be handed back. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.abort.abort();
    await this.running;
  }

  /** One pass: claims and delivers batches until none is due. Returns how many rows it handled. */
  async runOnce(): Promise<number> {
    let handled = 0;
    while (!this.abort.signal.aborted) {
      const now = this.o.clock.now();
      const rows = await this.o.store.claimDeliveries(now, this.leaseMs, this.batch);
      await Promise.all(rows.map((r) => this.deliver(r)));
      handled += rows.length;
      // A delivered row may free the next one of its detector: go on until nothing is due.
      if (rows.length === 0) break;
    }
    const now = this.o.clock.now();
    if (now - this.lastCleanup >= CLEANUP_EVERY_MS) {
      this.lastCleanup = now;
      await this.o.store.deleteFinishedDeliveries(now - KEEP_FINISHED_MS);
    }
    return handled;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.runOnce().then(() => undefined, (e: unknown) => {
        this.o.log(`notifications: delivery pass failed: ${e instanceof Error ? e.message : String(e)}`);
      }).finally(() => {
        this.running = undefined;
        const soon = this.again;
        this.again = false;
        this.schedule(soon ? 0 : this.pollMs);
      });
    }, ms);
    this.timer.unref();
  }

  private async deliver(row: Delivery): Promise<void> {
    const { store, clock, metrics } = this.o;
    const channel = await store.getChannel(row.channelId);
    if (!channel || channel.tenantId !== row.tenantId) {
      await store.finishDelivery(row.id, 'failed', clock.now(), 'channel deleted');
      return;
    }
    const req = buildRequest(channel, row.notices, clock.now(), row);
    if (!req) {
      await store.finishDelivery(row.id, 'sent', clock.now(), null); // nothing this channel takes (send_resolved)
      return;
    }
    let result: SendResult;
    try {
      result = await this.o.send(req, this.abort.signal);
    } catch (e) {
      result = { ok: false, retryable: true, error: e instanceof Error ? e.message : String(e) };
    }
    const now = clock.now();
    if (result.ok) {
      await store.finishDelivery(row.id, 'sent', now, null);
      metrics.count(channel.type, 'sent');
      return;
    }
    if (this.abort.signal.aborted) {
      // Stopping: not the receiver's fault; the row is due again at once for the next start.
      await store.retryDelivery(row.id, now, result.error);
      return;
    }
    const decision = result.retryable
      ? nextTry(row.createdAt, row.attempts, now, this.retry, this.random(), result.retryAfterMs)
      : { giveUp: 'refused by the receiver' };
    if ('retryAt' in decision) {
      await store.retryDelivery(row.id, decision.retryAt, result.error);
      metrics.count(channel.type, 'retry');
      return;
    }
    const error = `${decision.giveUp}: ${result.error}`;
    await store.finishDelivery(row.id, 'failed', now, error);
    metrics.count(channel.type, 'failed');
    this.o.log(`notifications: delivery ${row.id} to ${channel.type} channel ${channel.id} failed: ${error}`);
  }
}
