// Session replay chunks in ClickHouse: the rows a write inserts and the two reads (issue 5: "chunks stored per session
// in order"). A chunk uploaded twice (a client retry) is two rows; reads keep one per (session, seq).
import type { TenantBatch } from '../../../model/batch.js';
import type { ReplayChunk } from '../../../model/replay.js';
import type { ReplaySession, TimeRange } from '../telemetry-store.js';
import type { ChExecutor, ChParams } from './executor.js';
import { big, int64, limitOf, num, str } from './values.js';

export function replayRows(batches: readonly TenantBatch[]): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const { tenantId, batch } of batches) {
    for (const r of batch.replay ?? []) {
      rows.push({
        tenant_id: tenantId, session_id: r.sessionId, seq: String(Math.trunc(r.seq)), start_ns: int64(r.startNs),
        end_ns: int64(r.endNs), event_count: r.eventCount, page: r.page, user_id: r.user, events: r.eventsJson,
      });
    }
  }
  return rows;
}

/** Sessions with a chunk in the range, newest first; a retried chunk counts once (its earliest copy). */
export async function listReplays(exec: ChExecutor, tenantId: string, range: TimeRange, limit: number): Promise<ReplaySession[]> {
  const params: ChParams = { tenant: tenantId, limit: limitOf(limit) };
  const where = ['tenant_id = {tenant:String}'];
  if (range.startNs !== undefined) { where.push('end_ns >= {start:Int64}'); params.start = int64(range.startNs); }
  if (range.endNs !== undefined) { where.push('start_ns < {end:Int64}'); params.end = int64(range.endNs); }
  const rows = await exec.query(`
    SELECT session_id, min(start_ns) AS s_start, max(end_ns) AS s_end, count() AS chunks, sum(event_count) AS events,
      argMin(page, seq) AS page, argMin(user_id, seq) AS user_id
    FROM (SELECT session_id, seq, start_ns, end_ns, event_count, page, user_id FROM replay_chunks
          WHERE ${where.join(' AND ')} ORDER BY session_id, seq, start_ns LIMIT 1 BY session_id, seq)
    GROUP BY session_id ORDER BY s_end DESC, session_id LIMIT {limit:UInt64}`, params);
  return rows.map((r) => ({
    sessionId: str(r.session_id), startNs: big(r.s_start), endNs: big(r.s_end), chunks: num(r.chunks),
    events: num(r.events), page: str(r.page), user: str(r.user_id),
  }));
}

/** Every chunk of one session in seq order, a retried chunk once. */
export async function getReplay(exec: ChExecutor, tenantId: string, sessionId: string): Promise<ReplayChunk[]> {
  const rows = await exec.query(`
    SELECT seq, start_ns, end_ns, event_count, page, user_id, events FROM replay_chunks
    WHERE tenant_id = {tenant:String} AND session_id = {session:String}
    ORDER BY seq, start_ns LIMIT 1 BY seq`, { tenant: tenantId, session: sessionId });
  return rows.map((r) => ({
    sessionId, seq: num(r.seq), startNs: big(r.start_ns), endNs: big(r.end_ns), eventCount: num(r.event_count),
    page: str(r.page), user: str(r.user_id), eventsJson: str(r.events),
  }));
}
