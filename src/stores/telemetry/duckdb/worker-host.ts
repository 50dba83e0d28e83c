// The DuckDB store in its own thread (DESIGN §1: the drain must leave the request path free). This file runs
// inside a worker: it opens the store and serves calls posted by worker-store.ts. DuckDB's appenders are
// synchronous native calls, so here they cost the worker's time, not the event loop that answers requests.
import { parentPort, workerData } from 'node:worker_threads';
import { openDuckdbStore, type DuckdbStoreOptions, type DuckdbTelemetryStore } from './duckdb-store.js';
import type { TenantBatch } from '../../../model/batch.js';
import { staleMarker } from '../../../model/metric.js';
import type { LogsqlQuery } from '../../../model/logsql-ast.js';
import type { LogRow, TimeRange } from '../telemetry-store.js';
import { decodeRecordParts, type RecordParts } from '../../../ingest/wal-raw.js';
import { replayFormats } from '../../../ingest/replay-formats.js';

export interface CallMessage {
  id: number;
  /** A store method, `metrics.<method>` of its SeriesSource, or `reader.all` (tests' read-only SQL). */
  method: string;
  args: unknown[];
}

export type ReplyMessage =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; message: string };

/**
 * A streamed read crosses by pull (issue 12 item 5): the worker posts one ChunkMessage and reads no further until the
 * request thread answers with a PullMessage — `next` once the chunk is written out, `stop` when the client is gone.
 * So at most one chunk is in flight, whatever the result's size. `stop` may come at any time (while the worker is
 * still computing a chunk, say) and interrupts the statement; the call then ends with its ordinary ReplyMessage.
 */
export interface ChunkMessage {
  id: number;
  chunk: LogRow[];
}

export interface PullMessage {
  id: number;
  pull: 'next' | 'stop';
}

const port = parentPort;
if (!port) throw new Error('worker-host.ts runs only as a worker thread');

const { path, options } = workerData as { path: string; options: DuckdbStoreOptions };
const store: DuckdbTelemetryStore = await openDuckdbStore(path, options);
port.postMessage({ id: 0, ok: true, value: 'open' } satisfies ReplyMessage);

/** The WAL position of the last commit, which each writeRecords must start from (WalTarget.writeRecords). */
let committed = await store.walPosition();
let writes: Promise<unknown> = Promise.resolve();

/** Runs the writes one after another in the order their messages came. */
function inOrder(write: () => Promise<void>): Promise<void> {
  const p = writes.then(write);
  writes = p.catch(() => undefined);
  return p;
}

/** The streamed reads in progress: how to hand each its consumer's answer, and how to stop it. */
const streams = new Map<number, { wake: ((more: boolean) => void) | null; stop: AbortController }>();

port.on('message', (msg: CallMessage | PullMessage) => {
  if ('pull' in msg) {
    pull(msg);
    return;
  }
  void (msg.method === 'streamLogs' ? serveStream(msg) : serve(msg)).then((reply) => {
    port.postMessage(reply);
    if (msg.method === 'close') port.close();
  });
});

async function serve({ id, method, args }: CallMessage): Promise<ReplyMessage> {
  try {
    if (method === 'writeRecords') {
      const [parts, walPosition, from] = args as [RecordParts, bigint, bigint];
      // Decoded as soon as it arrives, while the write before may still be committing; stored in arrival order. Log
      // lines are parsed only as the write appends them (model/batch.ts LogWindows).
      const batches = decodeRecordParts(parts, replayFormats, true);
      // Decoded before the write before it ends: its log chunks can be built while that one commits.
      let started = false;
      batches.then((b) => { if (!started) store.prepareWrite?.(b); }, () => undefined);
      await inOrder(async () => {
        started = true;
        if (walPosition <= committed) return; // already in the store (a retry of a write whose commit went through)
        if (from !== committed) throw new Error(`worker store: a write from WAL position ${from} while the store is at ${committed}`);
        await store.write(await batches, walPosition);
        committed = walPosition;
      });
      return { id, ok: true, value: undefined };
    }
    if (method === 'write') {
      const [batches, walPosition, stale] = args as [TenantBatch[], bigint, number[][]];
      restoreStaleMarkers(batches, stale);
      await inOrder(async () => {
        await store.write(batches, walPosition);
        if (walPosition > committed) committed = walPosition;
      });
      return { id, ok: true, value: undefined };
    }
    if (method === 'close') {
      const [compactWithinMs] = args as [number | undefined];
      const lines: string[] = [];
      await store.close({ compactWithinMs, report: (line) => lines.push(line) });
      return { id, ok: true, value: lines };
    }
    const dot = method.indexOf('.');
    const part = dot < 0 ? '' : method.slice(0, dot);
    const owner = (part === 'metrics' ? store.metrics : part === 'reader' ? store.reader : store) as unknown as Record<string, unknown>;
    const name = method.slice(dot + 1);
    const fn = owner[name];
    if (typeof fn !== 'function') throw new Error(`worker store: no method ${method}`);
    const value: unknown = await (fn as (...a: unknown[]) => Promise<unknown>).apply(owner, args);
    return { id, ok: true, value };
  } catch (e) {
    return { id, ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

async function serveStream({ id, args }: CallMessage): Promise<ReplyMessage> {
  const state: { wake: ((more: boolean) => void) | null; stop: AbortController } = { wake: null, stop: new AbortController() };
  streams.set(id, state);
  try {
    const [tenantId, query, range, limit] = args as [string, LogsqlQuery, TimeRange, number];
    await store.streamLogs(tenantId, query, range, limit, (chunk) => new Promise<boolean>((resolve) => {
      state.wake = resolve;
      port?.postMessage({ id, chunk } satisfies ChunkMessage);
    }), state.stop.signal);
    return { id, ok: true, value: null };
  } catch (e) {
    return { id, ok: false, message: e instanceof Error ? e.message : String(e) };
  } finally {
    streams.delete(id);
  }
}

function pull({ id, pull: what }: PullMessage): void {
  const s = streams.get(id);
  if (!s) return; // the stream already ended
  const wake = s.wake;
  s.wake = null;
  if (what === 'stop') s.stop.abort();
  wake?.(what === 'next');
}

/** worker-store.ts names the stale markers that structured clone turned into plain NaN; put the bits back. */
function restoreStaleMarkers(batches: TenantBatch[], stale: number[][]): void {
  batches.forEach((b, i) => {
    for (const at of stale[i] ?? []) {
      const sample = b.batch.samples?.[at];
      if (sample) sample.value = staleMarker();
    }
  });
}
