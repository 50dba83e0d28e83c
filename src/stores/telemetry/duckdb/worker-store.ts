// The telemetry store as seen from the request thread when DuckDB runs in a worker (worker-host.ts): every
// call is posted to the worker and its answer awaited. Batches and results cross by structured clone
// (bigints and nested objects included), which costs far less than the appender calls it moves away.
import { Worker } from 'node:worker_threads';
import type { TenantBatch } from '../../../model/batch.js';
import { isStaleMarker } from '../../../model/metric.js';
import type { ReplayChunk } from '../../../model/replay.js';
import type { Span } from '../../../model/span.js';
import type { LogsqlQuery } from '../../../model/logsql-ast.js';
import type { SeriesSource } from '../../../model/series-source.js';
import type {
  CloseOptions, Facet, FacetsOptions, HitsSeries, LogRow, OldestDataQuery, ReplaySession, SpanDurationGroup, SpanFilter,
  TimeRange, TraceFilter, TraceSampleFilter, TraceSummary, ValueCounts, ValueCountsRequest, ValueHits,
} from '../telemetry-store.js';
import type { CallMessage, ChunkMessage, PullMessage, ReplyMessage } from './worker-host.js';
import type { DuckdbStoreOptions, DuckdbTelemetryStore } from './duckdb-store.js';
import type { ChunkSink, SqlExecutor } from '../sql/dialect.js';
import type { RecordParts } from '../../../ingest/wal-raw.js';

/** Below this, a piece is copied with the small ones rather than moved: a transfer has a fixed cost of its own. */
const MIN_TRANSFER_BYTES = 64 * 1024;

export async function openDuckdbWorkerStore(path: string, options: DuckdbStoreOptions = {}): Promise<DuckdbTelemetryStore> {
  const worker = new Worker(new URL('./worker-host.js', import.meta.url), { workerData: { path, options } });
  const store = new WorkerStore(worker);
  await store.opened;
  return store;
}

class WorkerStore implements DuckdbTelemetryStore {
  private nextId = 1;
  /** Calls awaiting their reply; a streamed read also takes its chunks (worker-host.ts, ChunkMessage). */
  private readonly pending = new Map<number, {
    resolve: (v: unknown) => void; reject: (e: Error) => void; chunk?: (rows: LogRow[]) => void;
  }>();
  readonly opened: Promise<void>;
  private closed = false;

  readonly reader: SqlExecutor = { all: (sql, params) => this.call('reader.all', [sql, params]) };
  readonly metrics: SeriesSource = {
    select: (...a) => this.call('metrics.select', a),
    labelNames: (...a) => this.call('metrics.labelNames', a),
    labelValues: (...a) => this.call('metrics.labelValues', a),
    metadata: (...a) => this.call('metrics.metadata', a),
    series: (...a) => this.call('metrics.series', a),
  };

  constructor(private readonly worker: Worker) {
    this.opened = new Promise((resolve, reject) => {
      this.pending.set(0, { resolve: () => resolve(), reject });
    });
    worker.on('message', (m: ReplyMessage | ChunkMessage) => {
      const waiter = this.pending.get(m.id);
      if (!waiter) return;
      if ('chunk' in m) {
        waiter.chunk?.(m.chunk);
        return;
      }
      this.pending.delete(m.id);
      if (m.ok) waiter.resolve(m.value);
      else waiter.reject(new Error(m.message));
    });
    // A worker that dies fails every call in flight (the WAL keeps the data and retries its writes).
    const fail = (e: Error) => {
      for (const w of this.pending.values()) w.reject(e);
      this.pending.clear();
      this.closed = true;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`telemetry store worker exited (${code})`)));
  }

  write(batches: TenantBatch[], walPosition: bigint): Promise<void> {
    // Structured clone canonicalises NaN, which would erase the stale marker's bits: name them instead.
    const stale = batches.map((b) => (b.batch.samples ?? []).flatMap((x, i) => (isStaleMarker(x.value) ? [i] : [])));
    return this.call('write', [batches, walPosition, stale]);
  }
  /**
   * The records cross as bytes and the worker decodes them (worker-host.ts): no object graph is cloned on the request
   * thread (issue 12 item 1). A piece that owns its whole buffer (a request body, a run read back from the WAL) moves
   * by transfer, uncopied; the small rest (record headers, request facts) is copied into one buffer that moves too.
   */
  writeRecords(parts: RecordParts, walPosition: bigint, from: bigint): Promise<void> {
    const moving = new Set<Uint8Array>();
    const buffers = new Set<ArrayBuffer>();
    let copied = 0;
    for (const pieces of parts) {
      for (const p of pieces) {
        const whole = p.buffer instanceof ArrayBuffer && p.byteOffset === 0 && p.byteLength === p.buffer.byteLength;
        if (whole && p.byteLength >= MIN_TRANSFER_BYTES && !buffers.has(p.buffer)) {
          buffers.add(p.buffer);
          moving.add(p);
        } else {
          copied += p.byteLength;
        }
      }
    }
    const arena = new Uint8Array(copied);
    let at = 0;
    const sent = parts.map((pieces) => pieces.map((p) => {
      if (moving.has(p)) return p;
      arena.set(p, at);
      at += p.byteLength;
      return arena.subarray(at - p.byteLength, at);
    }));
    return this.call('writeRecords', [sent, walPosition, from], [...buffers, arena.buffer]);
  }
  walPosition(): Promise<bigint> {
    return this.call('walPosition', []);
  }
  searchLogs(tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number): Promise<LogRow[]> {
    return this.call('searchLogs', [tenantId, query, range, limit]);
  }
  /**
   * The pull protocol of worker-host.ts: each chunk goes to `onChunk`, and only its answer lets the worker read on.
   * A failing `onChunk` stops the read and fails the call with its own error.
   */
  streamLogs(
    tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number, onChunk: ChunkSink<LogRow>, signal?: AbortSignal,
  ): Promise<void> {
    if (this.closed) return Promise.reject(new Error('duckdb-store: closed'));
    if (signal?.aborted) return Promise.resolve();
    const id = this.nextId++;
    const pull = (what: PullMessage['pull']): void => this.worker.postMessage({ id, pull: what } satisfies PullMessage);
    const stop = (): void => pull('stop');
    signal?.addEventListener('abort', stop, { once: true });
    let failure: Error | null = null;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, {
        resolve: () => (failure ? reject(failure) : resolve()),
        reject: (e) => reject(failure ?? e),
        chunk: (rows) => {
          onChunk(rows).then((more) => pull(more && !signal?.aborted ? 'next' : 'stop'), (e: unknown) => {
            failure = e instanceof Error ? e : new Error(String(e));
            pull('stop');
          });
        },
      });
      this.worker.postMessage({ id, method: 'streamLogs', args: [tenantId, query, range, limit] } satisfies CallMessage);
    }).finally(() => signal?.removeEventListener('abort', stop));
  }
  logHits(tenantId: string, query: LogsqlQuery, range: TimeRange, stepNs: bigint): Promise<HitsSeries[]> {
    return this.call('logHits', [tenantId, query, range, stepNs]);
  }
  logFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
    return this.call('logFieldNames', [tenantId, query, range]);
  }
  logFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]> {
    return this.call('logFieldValues', [tenantId, query, range, field, limit]);
  }
  logFacets(tenantId: string, query: LogsqlQuery, range: TimeRange, opts: FacetsOptions): Promise<Facet[]> {
    return this.call('logFacets', [tenantId, query, range, opts]);
  }
  logValueCounts(tenantId: string, query: LogsqlQuery, req: ValueCountsRequest): Promise<ValueCounts> {
    return this.call('logValueCounts', [tenantId, query, req]);
  }
  logStreamFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
    return this.call('logStreamFieldNames', [tenantId, query, range]);
  }
  logStreamFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]> {
    return this.call('logStreamFieldValues', [tenantId, query, range, field, limit]);
  }
  getTrace(tenantId: string, traceId: string): Promise<Span[]> {
    return this.call('getTrace', [tenantId, traceId]);
  }
  findTraces(tenantId: string, filter: TraceFilter): Promise<TraceSummary[]> {
    return this.call('findTraces', [tenantId, filter]);
  }
  spanDurations(tenantId: string, range: TimeRange, filter: SpanFilter, limit: number): Promise<SpanDurationGroup[]> {
    return this.call('spanDurations', [tenantId, range, filter, limit]);
  }
  oldestData(tenantId: string, what: OldestDataQuery): Promise<number | null> {
    return this.call('oldestData', [tenantId, what]);
  }
  sampleTraces(tenantId: string, range: TimeRange, filter: TraceSampleFilter, limit: number): Promise<Span[]> {
    return this.call('sampleTraces', [tenantId, range, filter, limit]);
  }
  listReplays(tenantId: string, range: TimeRange, limit: number): Promise<ReplaySession[]> {
    return this.call('listReplays', [tenantId, range, limit]);
  }
  getReplay(tenantId: string, sessionId: string): Promise<ReplayChunk[]> {
    return this.call('getReplay', [tenantId, sessionId]);
  }
  deleteOlderThan(tenantId: string, beforeNs: bigint): Promise<number> {
    return this.call('deleteOlderThan', [tenantId, beforeNs]);
  }

  async close({ compactWithinMs, report }: CloseOptions = {}): Promise<void> {
    if (this.closed) return;
    // The report callback stays on this side; the worker answers with the lines it would have reported.
    const lines = await this.call<string[]>('close', [compactWithinMs]);
    for (const line of lines) report?.(line);
    this.closed = true;
    await this.worker.terminate();
  }

  private call<T>(method: string, args: unknown[], transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new Error('duckdb-store: closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (v) => resolve(v as T), reject });
      this.worker.postMessage({ id, method, args } satisfies CallMessage, transfer);
    });
  }
}
