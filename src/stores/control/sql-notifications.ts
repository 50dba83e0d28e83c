// Notification channels and the delivery outbox in the control store (DESIGN §8; notification-records.ts), in the
// same PostgreSQL dialect as the rest. SqlControlStore extends this class (its own file only to keep each under
// ~400 lines).
import { randomBytes } from 'node:crypto';
import type { AlertNotice } from '../../detectors/notify-model.js';
import {
  CHANNEL_TYPES,
  type ChannelPatch, type ChannelType, type Delivery, type DeliveryState, type NewChannel, type NewDelivery,
  type NotificationChannel,
} from './notification-records.js';
import { num, numOrNull, one } from './sql-rows.js';
import { SqlDetectors } from './sql-detectors.js';

interface ChannelRow {
  id: string; tenant_id: string; account_id: string; type: string; name: string; url: string; headers: unknown;
  send_resolved: boolean; created_at: unknown; updated_at: unknown;
}

interface DeliveryRow {
  id: unknown; tenant_id: string; channel_id: string; detector_id: string; notices: unknown; interval_s: unknown;
  repeat_interval_s: unknown; state: string; attempts: unknown; created_at: unknown; next_attempt_at: unknown;
  lease_until: unknown; last_error: string | null; done_at: unknown;
}

/** `nch_…`: 96 random bits, as the other ids of the control store (sql-rows.ts newId). */
function newChannelId(): string {
  return `nch_${randomBytes(12).toString('hex')}`;
}

export abstract class SqlNotifications extends SqlDetectors {
  async createChannel(input: NewChannel): Promise<NotificationChannel> {
    const now = this.clock.now();
    const rows = await this.q<ChannelRow>(
      `INSERT INTO notification_channels (id, tenant_id, account_id, type, name, url, headers, send_resolved, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $9) RETURNING *`,
      [newChannelId(), input.tenantId, input.accountId, input.type, input.name, input.url, JSON.stringify(input.headers),
        input.sendResolved, now],
    );
    return toChannel(one(rows));
  }

  async getChannel(id: string): Promise<NotificationChannel | null> {
    const rows = await this.q<ChannelRow>('SELECT * FROM notification_channels WHERE id = $1', [id]);
    return rows[0] ? toChannel(rows[0]) : null;
  }

  async listChannels(tenantId: string): Promise<NotificationChannel[]> {
    const rows = await this.q<ChannelRow>('SELECT * FROM notification_channels WHERE tenant_id = $1 ORDER BY created_at, id', [tenantId]);
    return rows.map(toChannel);
  }

  async updateChannel(id: string, patch: ChannelPatch): Promise<NotificationChannel | null> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    const set = (column: string, value: unknown, cast = ''): void => {
      params.push(value);
      sets.push(`${column} = $${params.length}${cast}`);
    };
    if (patch.type !== undefined) set('type', patch.type);
    if (patch.name !== undefined) set('name', patch.name);
    if (patch.url !== undefined) set('url', patch.url);
    if (patch.headers !== undefined) set('headers', JSON.stringify(patch.headers), '::jsonb');
    if (patch.sendResolved !== undefined) set('send_resolved', patch.sendResolved);
    set('updated_at', this.clock.now());
    const rows = await this.q<ChannelRow>(`UPDATE notification_channels SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params);
    return rows[0] ? toChannel(rows[0]) : null;
  }

  async deleteChannel(id: string): Promise<boolean> {
    return (await this.q<{ id: string }>('DELETE FROM notification_channels WHERE id = $1 RETURNING id', [id])).length > 0;
  }

  async detectorsUsingChannel(channelId: string): Promise<string[]> {
    const rows = await this.q<{ id: string }>('SELECT id FROM detectors WHERE $1 = ANY(channel_ids) ORDER BY id', [channelId]);
    return rows.map((r) => r.id);
  }

  async enqueueDeliveries(rows: readonly NewDelivery[]): Promise<void> {
    if (rows.length === 0) return;
    // One statement for any number of rows; the records travel as one JSON array (every value a parameter), in
    // the given order, so ids (bigserial) follow it.
    const records = rows.map((r) => ({
      tenant_id: r.tenantId, channel_id: r.channelId, detector_id: r.detectorId, notices: r.notices,
      interval_s: r.intervalS, repeat_interval_s: r.repeatIntervalS, created_at: r.createdAt, next_attempt_at: r.nextAttemptAt,
    }));
    await this.q(
      `INSERT INTO notification_outbox (tenant_id, channel_id, detector_id, notices, interval_s, repeat_interval_s,
         state, attempts, created_at, next_attempt_at)
       SELECT e->>'tenant_id', e->>'channel_id', e->>'detector_id', e->'notices', (e->>'interval_s')::integer,
         (e->>'repeat_interval_s')::integer, 'pending', 0, (e->>'created_at')::bigint, (e->>'next_attempt_at')::bigint
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(e, n)
        ORDER BY n`,
      [JSON.stringify(records)],
    );
  }

  async claimDeliveries(nowMs: number, leaseMs: number, limit: number): Promise<Delivery[]> {
    const rows = await this.q<DeliveryRow>(
      `UPDATE notification_outbox o SET lease_until = $2, attempts = o.attempts + 1
        WHERE o.id IN (
          SELECT c.id FROM notification_outbox c
           WHERE c.state = 'pending' AND c.next_attempt_at <= $1 AND (c.lease_until IS NULL OR c.lease_until <= $1)
             AND NOT EXISTS (SELECT 1 FROM notification_outbox p
                              WHERE p.state = 'pending' AND p.channel_id = c.channel_id
                                AND p.detector_id = c.detector_id AND p.id < c.id)
           ORDER BY c.id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING o.*`,
      [nowMs, nowMs + leaseMs, limit],
    );
    return rows.map(toDelivery).sort((a, b) => a.id - b.id);
  }

  async finishDelivery(id: number, state: 'sent' | 'failed', atMs: number, error: string | null): Promise<void> {
    await this.q(
      'UPDATE notification_outbox SET state = $2, done_at = $3, last_error = $4, lease_until = NULL WHERE id = $1',
      [id, state, atMs, error],
    );
  }

  async retryDelivery(id: number, nextAttemptAt: number, error: string): Promise<void> {
    await this.q(
      `UPDATE notification_outbox SET next_attempt_at = $2, last_error = $3, lease_until = NULL
        WHERE id = $1 AND state = 'pending'`,
      [id, nextAttemptAt, error],
    );
  }

  async lastDelivery(channelId: string): Promise<Delivery | null> {
    const rows = await this.q<DeliveryRow>(
      `SELECT * FROM notification_outbox WHERE channel_id = $1 AND state <> 'pending' ORDER BY done_at DESC, id DESC LIMIT 1`,
      [channelId],
    );
    return rows[0] ? toDelivery(rows[0]) : null;
  }

  async listDeliveries(channelId: string, limit: number): Promise<Delivery[]> {
    const rows = await this.q<DeliveryRow>(
      'SELECT * FROM notification_outbox WHERE channel_id = $1 ORDER BY id DESC LIMIT $2',
      [channelId, limit],
    );
    return rows.map(toDelivery);
  }

  async deleteFinishedDeliveries(beforeMs: number): Promise<number> {
    const rows = await this.q<{ id: unknown }>(
      `DELETE FROM notification_outbox WHERE state <> 'pending' AND done_at < $1 RETURNING id`,
      [beforeMs],
    );
    return rows.length;
  }
}

function toChannel(r: ChannelRow): NotificationChannel {
  return {
    id: r.id, tenantId: r.tenant_id, accountId: r.account_id, type: channelType(r.type), name: r.name, url: r.url,
    headers: stringMap(r.headers), sendResolved: r.send_resolved, createdAt: num(r.created_at), updatedAt: num(r.updated_at),
  };
}

function toDelivery(r: DeliveryRow): Delivery {
  return {
    id: num(r.id), tenantId: r.tenant_id, channelId: r.channel_id, detectorId: r.detector_id, notices: notices(r.notices),
    intervalS: num(r.interval_s), repeatIntervalS: num(r.repeat_interval_s), state: deliveryState(r.state),
    attempts: num(r.attempts), createdAt: num(r.created_at), nextAttemptAt: num(r.next_attempt_at),
    leaseUntil: numOrNull(r.lease_until), lastError: r.last_error ?? null, doneAt: numOrNull(r.done_at),
  };
}

function channelType(v: string): ChannelType {
  const t = CHANNEL_TYPES.find((x) => x === v);
  if (!t) throw new Error(`control store holds an unknown channel type ${JSON.stringify(v)}`);
  return t;
}

function deliveryState(v: string): DeliveryState {
  if (v === 'pending' || v === 'sent' || v === 'failed') return v;
  throw new Error(`control store holds an unknown delivery state ${JSON.stringify(v)}`);
}

function parsed(v: unknown): unknown {
  return typeof v === 'string' ? JSON.parse(v) : v;
}

function stringMap(v: unknown): Record<string, string> {
  const o = parsed(v);
  const out: Record<string, string> = {};
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return out;
  for (const [k, x] of Object.entries(o as Record<string, unknown>)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** The notices as enqueued (written only by enqueueDeliveries); a row that is not an array of them is refused. */
function notices(v: unknown): AlertNotice[] {
  const list = parsed(v);
  if (!Array.isArray(list)) throw new Error('control store holds outbox notices that are not an array');
  return list.map((n: unknown) => {
    const x = n as Partial<AlertNotice> | null;
    if (typeof x !== 'object' || x === null || (x.status !== 'firing' && x.status !== 'resolved') || typeof x.alert !== 'object') {
      throw new Error('control store holds a malformed outbox notice');
    }
    return x as AlertNotice;
  });
}
