// The DuckDB store in its own thread (DESIGN §1: the drain must leave the request path free). This file runs
// inside a worker: it opens the store and serves calls posted by worker-store.ts. DuckDB's appenders are
// synchronous native calls, so here they cost the worker's time, not the event loop that answers requests.
import { parentPort, workerData } from 'node:worker_threads';
import { openDuckdbStore, type DuckdbTelemetryStore } from './duckdb-store.js';
import type { TenantBatch } from '../../../model/batch.js';
import { staleMarker } from '../../../model/metric.js';

export interface CallMessage {
  id: number;
  /** A store method, `metrics.<method>` of its SeriesSource, or `reader.all` (tests' read-only SQL). */
  method: string;
  args: unknown[];
}

export type ReplyMessage =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; message: string };

const port = parentPort;
if (!port) throw new Error('worker-host.ts runs only as a worker thread');

const store: DuckdbTelemetryStore = await openDuckdbStore((workerData as { path: string }).path);
port.postMessage({ id: 0, ok: true, value: 'open' } satisfies ReplyMessage);

port.on('message', (msg: CallMessage) => {
  void serve(msg).then((reply) => {
    port.postMessage(reply);
    if (msg.method === 'close') port.close();
  });
});

async function serve({ id, method, args }: CallMessage): Promise<ReplyMessage> {
  try {
    if (method === 'write') restoreStaleMarkers(args[0] as TenantBatch[], args[2] as number[][]);
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

/** worker-store.ts names the stale markers that structured clone turned into plain NaN; put the bits back. */
function restoreStaleMarkers(batches: TenantBatch[], stale: number[][]): void {
  batches.forEach((b, i) => {
    for (const at of stale[i] ?? []) {
      const sample = b.batch.samples?.[at];
      if (sample) sample.value = staleMarker();
    }
  });
}
