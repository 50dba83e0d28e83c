// Notification channels and the delivery outbox as the control store keeps them (DESIGN §8 "Notifications").
// A channel is where a tenant's alerts go (`webhook`, `alertmanager`, `slack`). The outbox is the transactional
// outbox pattern: the engine's transaction that records an alert's new state also inserts the delivery rows
// (notify-model.ts), so a notice exists exactly when the state change does; a worker then claims due rows under a
// lease, posts them and marks them. A crash between the post and the mark leaves the row to be claimed again once
// its lease lapses: delivery is at-least-once, never lost. Times are unix ms. ControlStore extends
// NotificationStore (control-store.ts); sql-notifications.ts implements it.
import type { AlertNotice } from '../../detectors/notify-model.js';

export const CHANNEL_TYPES = ['webhook', 'alertmanager', 'slack'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export interface NotificationChannel {
  id: string;
  tenantId: string;
  accountId: string;
  type: ChannelType;
  name: string;
  /** http(s); for `alertmanager` the server's base URL (`/api/v2/alerts` is appended when posting). */
  url: string;
  /** Extra request headers (`Authorization`, …), sent as given. */
  headers: Record<string, string>;
  /** Alertmanager's `send_resolved` (default true): whether resolved notices go to this channel. */
  sendResolved: boolean;
  createdAt: number;
  updatedAt: number;
}

export type NewChannel = Omit<NotificationChannel, 'id' | 'createdAt' | 'updatedAt'>;
export type ChannelPatch = Partial<Pick<NotificationChannel, 'type' | 'name' | 'url' | 'headers' | 'sendResolved'>>;

export type DeliveryState = 'pending' | 'sent' | 'failed';

/** One payload to one channel: the notices of one evaluation of one detector (grouped as Alertmanager groups). */
export interface NewDelivery {
  tenantId: string;
  channelId: string;
  /** Orders deliveries: a channel gets one detector's payloads in the order they were enqueued. */
  detectorId: string;
  notices: AlertNotice[];
  /** The detector's evaluation interval and repeat interval (the `alertmanager` channel's endsAt reads them). */
  intervalS: number;
  repeatIntervalS: number;
  createdAt: number;
  /** When it may first be tried (normally createdAt). */
  nextAttemptAt: number;
}

export interface Delivery extends NewDelivery {
  id: number;
  state: DeliveryState;
  /** Claims so far (a claim whose worker died counts too). */
  attempts: number;
  /** A claimed row is not claimed again before this. */
  leaseUntil: number | null;
  lastError: string | null;
  doneAt: number | null;
}

export interface NotificationStore {
  createChannel(input: NewChannel): Promise<NotificationChannel>;
  getChannel(id: string): Promise<NotificationChannel | null>;
  listChannels(tenantId: string): Promise<NotificationChannel[]>;
  /** Replaces the given fields and stamps updatedAt; null for an unknown id. */
  updateChannel(id: string, patch: ChannelPatch): Promise<NotificationChannel | null>;
  /** True when it existed. Deliveries still pending for it fail when claimed ("channel deleted"). */
  deleteChannel(id: string): Promise<boolean>;
  /** Ids of the detectors that name the channel (a channel in use is not deleted). */
  detectorsUsingChannel(channelId: string): Promise<string[]>;

  /** Inserts the rows, in one statement: call it on the transaction-bound store of the state change. */
  enqueueDeliveries(rows: readonly NewDelivery[]): Promise<void>;
  /**
   * Claims up to `limit` due pending rows (next attempt reached, no live lease) and leases them until
   * `nowMs + leaseMs`, counting an attempt. A row waits while an older pending row of the same channel and detector
   * exists, so a detector's notices reach a channel in order (a resolve never overtakes its firing). Safe to run
   * from several processes at once (FOR UPDATE SKIP LOCKED).
   */
  claimDeliveries(nowMs: number, leaseMs: number, limit: number): Promise<Delivery[]>;
  /** Final outcome: `sent`, or `failed` with the reason (given up). */
  finishDelivery(id: number, state: 'sent' | 'failed', atMs: number, error: string | null): Promise<void>;
  /** Releases the lease and schedules the next try. */
  retryDelivery(id: number, nextAttemptAt: number, error: string): Promise<void>;
  /** The most recently finished delivery of the channel (for the API's `last_delivery`); null when none. */
  lastDelivery(channelId: string): Promise<Delivery | null>;
  listDeliveries(channelId: string, limit: number): Promise<Delivery[]>;
  /** Deletes finished rows done before `beforeMs`; returns how many. */
  deleteFinishedDeliveries(beforeMs: number): Promise<number>;
}
