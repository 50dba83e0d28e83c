// Live tail (DESIGN §6 live-tail ceiling), VictoriaLogs-style: GET …/select/logsql/tail?query=<filters> answers
// NDJSON and keeps the response open, writing every entry that matches as it becomes queryable, oldest first.
//
// How: every POLL_MS the stream searches the last LAG_MS (never before the moment it opened) and writes the rows
// it has not written yet (SentRows). Consequences, by design:
//  - an entry whose event time is more than LAG_MS behind service time when it lands (back-dated) is not shown;
//  - at most MAX_ROWS_PER_POLL rows per poll (newest first); in a busier window the oldest are skipped;
//  - the query takes filters only (no pipes): a tail writes entries, and each one needs its `_time`.
// The stream ends when the client disconnects, on a telemetry-store error, when the service stops, or — for a
// browser session — within RECHECK_MS of the session ending (sign-out, password change, user removed, aged out;
// DESIGN §7 "ends its sessions at once").
//
// Open streams are counted per account IN MEMORY, in this process (LiveTailSessions). A stream is a live HTTP
// response of this process, so the count lives and dies with it: nothing to clean up after a crash. With split roles
// (DESIGN §10 "live-tail counts are shared through the control store") the ceiling is judged on a shared count
// instead (SharedTailSlots, cluster/tail-slots.ts), where a crashed process's streams stop counting once its
// heartbeats stop.
import type { Router } from '../front-doors/router.js';
import type { RequestContext } from '../front-doors/context.js';
import type { KeyGrant } from '../stores/control/control-store.js';
import type { TelemetryStore } from '../stores/telemetry/telemetry-store.js';
import type { LogsqlQuery } from '../model/logsql-ast.js';
import { compileLogsql } from './logsql-request.js';
import { errors } from '../errors.js';
import { msToNs } from '../model/time.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import { toJson } from './request-params.js';
import type { EffectivePlan } from '../limits/plans.js';
import { checkCeiling } from '../limits/gates.js';

const POLL_MS = 1000;
/** How far back each poll looks again for entries that landed late (see stream()). */
const LAG_MS = 10_000;
const MAX_ROWS_PER_POLL = 10_000;
/** How often a stream opened by a browser session checks that the session still lives. */
const RECHECK_MS = 5000;

/** Live-tail slots counted where every app process sees them; `take` throws the ceiling's 403 like acquire. */
export interface SharedTailSlots {
  take(accountId: string, plan: EffectivePlan): Promise<() => void>;
}

/** Open live-tail streams per account, in this process; `closeAll` ends every one (service stop). */
export class LiveTailSessions {
  private readonly open = new Map<string, number>();
  private readonly stoppers = new Set<() => void>();

  /** `shared`: the ceiling is judged on the count of every process (split roles); absent → this process's count. */
  constructor(private readonly shared?: SharedTailSlots) {}

  /** Takes a slot or throws 403 `Live-tail session limit reached (<n>)`; the release runs once. */
  async acquire(accountId: string, plan: EffectivePlan): Promise<() => void> {
    const giveBack = this.shared ? await this.shared.take(accountId, plan) : null;
    const n = this.count(accountId);
    // Check and take with no await between them: concurrent opens cannot overrun the ceiling.
    if (!giveBack) checkCeiling(plan, 'liveTail', n);
    this.open.set(accountId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      giveBack?.();
      const left = this.count(accountId) - 1;
      if (left > 0) this.open.set(accountId, left);
      else this.open.delete(accountId);
    };
  }

  count(accountId: string): number {
    return this.open.get(accountId) ?? 0;
  }

  /** Registers a stream's stop function; returns its unregistration. */
  onStop(stop: () => void): () => void {
    this.stoppers.add(stop);
    return () => this.stoppers.delete(stop);
  }

  closeAll(): void {
    for (const stop of [...this.stoppers]) stop();
  }
}

export interface TailApiDeps extends TenantGuardDeps {
  telemetry: TelemetryStore;
  planOf: (grant: KeyGrant) => EffectivePlan;
  sessions: LiveTailSessions;
  /** Poll interval; POLL_MS unless a test says otherwise. */
  pollMs?: number;
}

export function registerTailRoutes(router: Router, deps: TailApiDeps): void {
  router.on('GET', '/api/v1/tenants/:tenant/select/logsql/tail', guarded(deps, 'read', true, async (ctx, grant) => {
    const query = compileTail(ctx.query.get('query') ?? '*', deps.clock.now());
    const release = await deps.sessions.acquire(grant.account.id, deps.planOf(grant));
    try {
      await stream(ctx, grant.tenant.id, query, deps, grant.session?.recheck);
    } finally {
      release();
    }
  }));
}

function compileTail(text: string, nowMs: number): LogsqlQuery {
  const query = compileLogsql(text, nowMs);
  if (query.pipes.length > 0) throw errors.badRequest('invalid query: live tail takes filters only, without pipes');
  return query;
}

async function stream(
  ctx: RequestContext, tenantId: string, query: LogsqlQuery, deps: TailApiDeps, recheck?: () => Promise<void>,
): Promise<void> {
  const { res } = ctx;
  // An object, not a `let`: the close handler flips it while the loop awaits.
  const state = { closed: false, wake: (): void => undefined };
  const stop = (): void => {
    state.closed = true;
    state.wake();
  };
  const closed = (): boolean => state.closed;
  res.once('close', stop);
  const unregister = deps.sessions.onStop(stop);
  try {
    // Connection: close, so the socket goes with the stream (and a stopping service is not held by a keep-alive).
    res.writeHead(200, {
      'Content-Type': 'application/stream+json; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'close',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const openedNs = msToNs(deps.clock.now());
    const sent = new SentRows();
    let checkedAt = Date.now();
    while (!closed()) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deps.pollMs ?? POLL_MS);
        state.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (closed()) break;
      if (recheck && Date.now() - checkedAt >= RECHECK_MS) {
        checkedAt = Date.now();
        try {
          await recheck();
        } catch {
          break; // the session ended: so does what it opened
        }
      }
      // Re-read the last LAG_MS every poll: entries land in the store up to a drain window after their time,
      // and many share a millisecond, so "newer than the last one written" would skip them.
      const fromNs = maxBig(openedNs, msToNs(deps.clock.now() - LAG_MS));
      let rows: Record<string, unknown>[];
      try {
        rows = await deps.telemetry.searchLogs(tenantId, query, { startNs: fromNs }, MAX_ROWS_PER_POLL);
      } catch (e) {
        deps.log(`live tail of ${tenantId} ended: ${e instanceof Error ? e.message : String(e)}`);
        break;
      }
      const text = sent.unseen(rows, fromNs).map((row) => toJson(row) + '\n').join('');
      if (text !== '' && !closed()) res.write(text);
    }
  } finally {
    unregister();
    res.off('close', stop);
    if (!res.writableEnded) res.end();
  }
}

/**
 * The rows a stream has written, within the look-back window: a poll writes only rows it has not written before.
 * Rows are told apart by their whole JSON; identical ones are counted, so N identical entries are written N times.
 */
class SentRows {
  private readonly written = new Map<string, { ns: bigint; n: number }>();

  /** The rows of one poll not written yet, oldest first; forgets rows that fell out of the window. */
  unseen(rows: Record<string, unknown>[], fromNs: bigint): Record<string, unknown>[] {
    for (const [key, w] of this.written) if (w.ns < fromNs) this.written.delete(key);
    const inPoll = new Map<string, number>();
    const fresh: { row: Record<string, unknown>; ns: bigint }[] = [];
    for (const row of rows) {
      const key = toJson(row);
      const seen = (inPoll.get(key) ?? 0) + 1;
      inPoll.set(key, seen);
      const before = this.written.get(key);
      if (before !== undefined && seen <= before.n) continue;
      const ns = timeNs(row._time);
      this.written.set(key, { ns, n: seen });
      fresh.push({ row, ns });
    }
    return fresh.sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0)).map((x) => x.row);
  }
}

const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** `_time` as the query API writes it (RFC 3339, up to 9 fraction digits, Z) → unix ns; 0 when absent. */
function timeNs(v: unknown): bigint {
  if (typeof v !== 'string') return 0n;
  const m = /^(.+T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(v);
  if (!m?.[1]) return 0n;
  const ms = Date.parse(`${m[1]}Z`);
  if (!Number.isFinite(ms)) return 0n;
  return msToNs(ms) + BigInt((m[2] ?? '').padEnd(9, '0'));
}
