// What split roles share through the control store (DESIGN §10; cluster-records.ts), in the same PostgreSQL dialect
// as the rest. Every check-and-change is one statement or one locked transaction, so processes racing on the same
// tenant cannot both pass a limit. SqlControlStore extends this class (its own file only to keep each under ~400
// lines).
import { randomBytes } from 'node:crypto';
import {
  PROCESS_ROLES,
  type ByteReservation, type ClusterStore, type LiveProcesses, type ProcessRole, type QueryAdmission, type TailOpening,
} from './cluster-records.js';
import { num } from './sql-rows.js';
import { SqlPlaybooks } from './sql-playbooks.js';

/** The database's clock in unix ms: liveness is judged on one clock, whatever the processes' clocks say. */
const DB_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** A heartbeat row unseen this long belongs to a process that is gone for good. */
const FORGET_AFTER_MS = 3_600_000;

export abstract class SqlCluster extends SqlPlaybooks implements ClusterStore {
  async heartbeat(processId: string, role: ProcessRole, startedAt: number, liveWithinMs: number): Promise<LiveProcesses> {
    // One statement: upsert our row, forget long-dead rows, count the others seen lately plus ourselves (a CTE's
    // writes are not visible to the rest of the statement, so our row is counted through `up`).
    const rows = await this.q<{ role: string; n: unknown }>(
      `WITH up AS (
         INSERT INTO process_heartbeats (process_id, role, started_at, last_seen) VALUES ($1, $2, $3, ${DB_NOW_MS})
         ON CONFLICT (process_id) DO UPDATE SET role = EXCLUDED.role, last_seen = EXCLUDED.last_seen
         RETURNING role
       ), gone AS (
         DELETE FROM process_heartbeats WHERE last_seen < ${DB_NOW_MS} - $5::bigint AND process_id <> $1
       )
       SELECT role, count(*) AS n FROM (
         SELECT role FROM process_heartbeats WHERE process_id <> $1 AND last_seen > ${DB_NOW_MS} - $4::bigint
         UNION ALL SELECT role FROM up
       ) AS r GROUP BY role`,
      [processId, role, startedAt, liveWithinMs, FORGET_AFTER_MS],
    );
    const out = Object.fromEntries(PROCESS_ROLES.map((r) => [r, 0])) as Record<ProcessRole, number>;
    for (const r of rows) if ((PROCESS_ROLES as readonly string[]).includes(r.role)) out[r.role as ProcessRole] = num(r.n);
    return out;
  }

  async leaveCluster(processId: string): Promise<void> {
    await this.tx(async (tx) => {
      await tx.query('DELETE FROM live_tail_sessions WHERE process_id = $1', [processId]);
      await tx.query('DELETE FROM process_heartbeats WHERE process_id = $1', [processId]);
    });
  }

  async dailyBytes(accountId: string, day: string): Promise<number> {
    // The first read of a day seeds its row from the flushed per-signal counters; later reads find the row. Two
    // processes seeding at once: the loser's statement sees neither row (its snapshot predates the winner's
    // commit), so it reads again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const rows = await this.q<{ used: unknown }>(
        `WITH seeded AS (
           INSERT INTO daily_bytes (account_id, day, used)
           SELECT $1, $2, coalesce(sum(value), 0) FROM counters WHERE account_id = $1 AND day = $2 AND name LIKE 'bytes:%'
           ON CONFLICT (account_id, day) DO NOTHING
           RETURNING used
         )
         SELECT used FROM seeded UNION ALL SELECT used FROM daily_bytes WHERE account_id = $1 AND day = $2`,
        [accountId, day],
      );
      if (rows[0]) return num(rows[0].used);
    }
    throw new Error(`daily_bytes row for ${accountId} ${day} neither created nor found`);
  }

  async reserveDailyBytes(accountId: string, day: string, bytes: number, capBytes: number): Promise<ByteReservation> {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`bytes must be a non-negative integer, got ${bytes}`);
    const cap = Number.isFinite(capBytes) ? capBytes : null;
    // The check and the add are one UPDATE: its row lock makes a concurrent reservation wait and then re-check
    // against the total this one left (DESIGN §10 "the daily byte counter is the control store's sum").
    const reserve = () => this.q<{ used: unknown }>(
      `UPDATE daily_bytes SET used = used + $3::bigint
        WHERE account_id = $1 AND day = $2 AND ($4::bigint IS NULL OR used + $3::bigint <= $4::bigint)
        RETURNING used`,
      [accountId, day, bytes, cap],
    );
    const first = (await reserve())[0];
    if (first) return { ok: true, totalBytes: num(first.used) };
    // Refused, or the day's row did not exist yet: read (and seed) it; only a total that leaves room tries again.
    const used = await this.dailyBytes(accountId, day);
    if (cap !== null && used + bytes > cap) return { ok: false, totalBytes: used };
    const second = (await reserve())[0];
    if (second) return { ok: true, totalBytes: num(second.used) };
    return { ok: false, totalBytes: await this.dailyBytes(accountId, day) };
  }

  async releaseDailyBytes(accountId: string, day: string, bytes: number): Promise<void> {
    await this.q(
      'UPDATE daily_bytes SET used = greatest(0, used - $3::bigint) WHERE account_id = $1 AND day = $2',
      [accountId, day, bytes],
    );
  }

  async admitQuery(tenantId: string, nowMs: number, limit: number, windowMs: number): Promise<QueryAdmission> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`query limit must be a whole number ≥ 1, got ${limit}`);
    // Insert-or-update of the tenant's row is atomic: a concurrent request waits on the row and then judges the
    // window this one left. The WHERE refuses without writing; then nothing is returned.
    const admitted = await this.q<{ tenant_id: string }>(
      `INSERT INTO query_rate_windows AS w (tenant_id, stamps) VALUES ($1, ARRAY[$2::bigint])
       ON CONFLICT (tenant_id) DO UPDATE
         SET stamps = sightline_query_window(w.stamps, $2::bigint, $3::integer, $4::bigint) || $2::bigint
         WHERE cardinality(sightline_query_window(w.stamps, $2::bigint, $3::integer, $4::bigint)) < $3::integer
       RETURNING tenant_id`,
      [tenantId, nowMs, limit, windowMs],
    );
    if (admitted.length > 0) return { ok: true };
    const rows = await this.q<{ oldest: unknown }>(
      `SELECT (sightline_query_window(stamps, $2::bigint, $3::integer, $4::bigint))[1] AS oldest
         FROM query_rate_windows WHERE tenant_id = $1`,
      [tenantId, nowMs, limit, windowMs],
    );
    const oldest = rows[0]?.oldest;
    return { ok: false, oldestMs: oldest === null || oldest === undefined ? nowMs : num(oldest) };
  }

  async openTailSession(accountId: string, processId: string, limit: number, liveWithinMs: number): Promise<TailOpening> {
    return this.tx(async (tx) => {
      // One opener per account at a time: the count and the insert cannot interleave with another process's.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`live_tail:${accountId}`]);
      await tx.query(
        `DELETE FROM live_tail_sessions t WHERE account_id = $1 AND NOT EXISTS (
           SELECT 1 FROM process_heartbeats h WHERE h.process_id = t.process_id AND h.last_seen > ${DB_NOW_MS} - $2::bigint)`,
        [accountId, liveWithinMs],
      );
      if (Number.isFinite(limit)) {
        const rows = await tx.query<{ n: unknown }>('SELECT count(*) AS n FROM live_tail_sessions WHERE account_id = $1', [accountId]);
        const open = num(rows[0]?.n ?? 0);
        if (open >= limit) return { ok: false, open };
      }
      const id = `lts_${randomBytes(12).toString('hex')}`;
      await tx.query(
        `INSERT INTO live_tail_sessions (id, account_id, process_id, opened_at) VALUES ($1, $2, $3, ${DB_NOW_MS})`,
        [id, accountId, processId],
      );
      return { ok: true, id };
    });
  }

  async closeTailSession(id: string): Promise<void> {
    await this.q('DELETE FROM live_tail_sessions WHERE id = $1', [id]);
  }

  async countTailSessions(accountId: string, liveWithinMs: number): Promise<number> {
    const rows = await this.q<{ n: unknown }>(
      `SELECT count(*) AS n FROM live_tail_sessions t JOIN process_heartbeats h ON h.process_id = t.process_id
        WHERE t.account_id = $1 AND h.last_seen > ${DB_NOW_MS} - $2::bigint`,
      [accountId, liveWithinMs],
    );
    return num(rows[0]?.n ?? 0);
  }
}
