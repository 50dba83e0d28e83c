// Session replay in DuckDB: chunks appended by the WAL drain inside the store's write transaction, read
// back per session in seq order (issue 5: "chunks stored per session in order").
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TenantBatch } from '../../../model/batch.js';
import type { ReplayChunk } from '../../../model/replay.js';
import type { ReplaySession, TimeRange } from '../telemetry-store.js';
import type { SqlExecutor, SqlParam } from '../sql/dialect.js';
import { withAppender } from './appender.js';

export async function appendReplay(c: DuckDBConnection, batches: TenantBatch[]): Promise<void> {
  if (!batches.some((b) => (b.batch.replay?.length ?? 0) > 0)) return;
  await withAppender(c, 'replay_chunks', (a) => {
    for (const { tenantId, batch } of batches) {
      for (const r of batch.replay ?? []) {
        a.appendVarchar(tenantId);
        a.appendVarchar(r.sessionId);
        a.appendBigInt(BigInt(r.seq));
        a.appendBigInt(r.startNs);
        a.appendBigInt(r.endNs);
        a.appendInteger(r.eventCount);
        a.appendVarchar(r.page);
        a.appendVarchar(r.user);
        a.appendVarchar(r.eventsJson);
        a.endRow();
      }
    }
  });
}

/** Sessions with a chunk in the range, newest first; a chunk uploaded twice (a retry) counts once. */
export async function listReplaySessions(exec: SqlExecutor, tenantId: string, range: TimeRange, limit: number): Promise<ReplaySession[]> {
  const params: SqlParam[] = [tenantId];
  const where = ['tenant_id = $1'];
  if (range.startNs !== undefined) { params.push(range.startNs); where.push(`end_ns >= $${params.length}`); }
  if (range.endNs !== undefined) { params.push(range.endNs); where.push(`start_ns < $${params.length}`); }
  params.push(BigInt(limit));
  const rows = await exec.all(`
    SELECT session_id, min(start_ns) AS start_ns, max(end_ns) AS end_ns, count(*) AS chunks,
      sum(event_count) AS events, arg_min(page, seq) AS page, arg_min(user_id, seq) AS user_id
    FROM (SELECT * FROM replay_chunks WHERE ${where.join(' AND ')}
          QUALIFY row_number() OVER (PARTITION BY session_id, seq ORDER BY start_ns) = 1)
    GROUP BY session_id ORDER BY max(end_ns) DESC, session_id LIMIT $${params.length}`, params);
  return rows.map((r) => ({
    sessionId: String(r.session_id), startNs: BigInt(String(r.start_ns)), endNs: BigInt(String(r.end_ns)),
    chunks: Number(r.chunks), events: Number(r.events), page: String(r.page), user: String(r.user_id),
  }));
}

/** Every chunk of one session, in seq order (a chunk uploaded twice by a retry appears once). */
export async function replayChunks(exec: SqlExecutor, tenantId: string, sessionId: string): Promise<ReplayChunk[]> {
  const rows = await exec.all(`
    SELECT any_value(start_ns) AS start_ns, any_value(end_ns) AS end_ns, any_value(event_count) AS event_count,
      any_value(page) AS page, any_value(user_id) AS user_id, any_value(events) AS events, seq
    FROM replay_chunks WHERE tenant_id = $1 AND session_id = $2 GROUP BY seq ORDER BY seq`, [tenantId, sessionId]);
  return rows.map((r) => ({
    sessionId, seq: Number(r.seq), startNs: BigInt(String(r.start_ns)), endNs: BigInt(String(r.end_ns)),
    eventCount: Number(r.event_count), page: String(r.page), user: String(r.user_id), eventsJson: String(r.events),
  }));
}
