// The scale-out telemetry store: ClickHouse through @clickhouse/client, a server over HTTP or the engine in-process
// (DESIGN §10, issue 11). Tables and migrations: schema.ts (+ logs-schema.ts); exactly-once writes: exactly-once.ts;
// retention: retention.ts; the reads: spans.ts, replay.ts, series-source.ts and logs-reads.ts (the LogsQL compiler's
// ClickHouse dialect). This file only composes them behind the TelemetryStore interface.
import type { TenantBatch } from '../../../model/batch.js';
import type { LogsqlQuery } from '../../../model/logsql-ast.js';
import type { ReplayChunk } from '../../../model/replay.js';
import type { SeriesSource } from '../../../model/series-source.js';
import type { Span } from '../../../model/span.js';
import type {
  Facet, FacetsOptions, HitsSeries, LogRow, OldestDataQuery, ReplaySession, SpanDurationGroup, SpanFilter, TelemetryStore,
  TimeRange, TraceFilter, TraceSampleFilter, TraceSummary, ValueCounts, ValueCountsRequest, ValueHits,
} from '../telemetry-store.js';
import type { ChExecutor } from './executor.js';
import type { ChunkSink } from '../sql/dialect.js';
import { WalCheckpoint, type TableRows } from './exactly-once.js';
import { migrate } from './migrate.js';
import { deleteOlderThan, type RetentionTarget } from './retention.js';
import * as logs from './logs-reads.js';
import { LOGS_MIGRATIONS, LOGS_RETENTION, logRowOf } from './logs-schema.js';
import { getReplay, listReplays, replayRows } from './replay.js';
import { STORE_MIGRATIONS } from './schema.js';
import { ClickhouseSeriesSource, metricRows } from './series-source.js';
import { findTraces, getTrace, oldestSpanNs, sampleTraces, spanDurations, spanRows } from './spans.js';
import { nsToMs, num } from './values.js';

export interface ClickhouseStoreOptions {
  exec: ChExecutor;
  /** Names this process's WAL among the writers sharing the database (exactly-once.ts). */
  writerId: string;
  /** Releases the connection (the store does not own a shared engine: the opener decides). */
  release: () => Promise<void>;
}

/** The ClickHouse store, plus its executor for tests and tools (peek at stored rows; never used to write). */
export interface ClickhouseTelemetryStore extends TelemetryStore {
  readonly exec: ChExecutor;
}

const RETENTION: readonly RetentionTarget[] = [
  LOGS_RETENTION,
  { table: 'spans', column: 'start_ns', unit: 'ns', counted: true },
  { table: 'replay_chunks', column: 'end_ns', unit: 'ns', counted: true },
  { table: 'samples', column: 'ts', unit: 'ms', counted: true },
  { table: 'trace_bounds', column: 'last_ns', unit: 'ns', counted: false },
];

/** Runs the migrations and opens the store. */
export async function openClickhouseStore(opts: ClickhouseStoreOptions): Promise<ClickhouseTelemetryStore> {
  await migrate(opts.exec, [...STORE_MIGRATIONS, ...LOGS_MIGRATIONS]);
  return new ClickhouseStore(opts);
}

function rowsOf(batches: readonly TenantBatch[]): TableRows[] {
  const metrics = metricRows(batches);
  return [
    { table: 'logs', rows: batches.flatMap(({ tenantId, format, batch }) => batch.logs.map((e) => logRowOf(tenantId, e, format))) },
    { table: 'spans', rows: spanRows(batches) },
    { table: 'replay_chunks', rows: replayRows(batches) },
    { table: 'series', rows: metrics.series },
    { table: 'samples', rows: metrics.samples },
    { table: 'metric_metadata', rows: metrics.metadata },
  ].filter((t) => t.rows.length > 0);
}

class ClickhouseStore implements ClickhouseTelemetryStore {
  readonly exec: ChExecutor;
  readonly metrics: SeriesSource;
  private readonly checkpoint: WalCheckpoint;
  private closed = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ClickhouseStoreOptions) {
    const exec = opts.exec;
    // Every call refuses once closed, as the DuckDB store does.
    this.exec = {
      query: (sql, params) => this.open(() => exec.query(sql, params)),
      stream: (sql, params, onChunk, signal) => this.open(() => exec.stream(sql, params, onChunk, signal)),
      command: (sql, params) => this.open(() => exec.command(sql, params)),
      insert: (table, rows, o) => this.open(() => exec.insert(table, rows, o)),
    };
    this.metrics = new ClickhouseSeriesSource(this.exec);
    this.checkpoint = new WalCheckpoint(this.exec, opts.writerId, rowsOf);
  }

  write(batches: TenantBatch[], walPosition: bigint): Promise<void> {
    // One write at a time: the checkpoint's intent/done protocol assumes it (the drain never overlaps writes).
    const p = this.writing.then(() => this.checkpoint.write(batches, walPosition));
    this.writing = p.catch(() => undefined);
    return p;
  }

  walPosition(): Promise<bigint> {
    return this.checkpoint.position();
  }

  searchLogs(tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number): Promise<LogRow[]> {
    return logs.searchLogs(this.exec, tenantId, query, range, limit);
  }

  streamLogs(
    tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number, onChunk: ChunkSink<LogRow>, signal?: AbortSignal,
  ): Promise<void> {
    return logs.streamLogs(this.exec, tenantId, query, range, limit, onChunk, signal);
  }

  logHits(tenantId: string, query: LogsqlQuery, range: TimeRange, stepNs: bigint): Promise<HitsSeries[]> {
    return logs.logHits(this.exec, tenantId, query, range, stepNs);
  }

  logFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
    return logs.logFieldNames(this.exec, tenantId, query, range);
  }

  logFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]> {
    return logs.logFieldValues(this.exec, tenantId, query, range, field, limit);
  }

  logFacets(tenantId: string, query: LogsqlQuery, range: TimeRange, opts: FacetsOptions): Promise<Facet[]> {
    return logs.logFacets(this.exec, tenantId, query, range, opts);
  }

  logStreamFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
    return logs.logStreamFieldNames(this.exec, tenantId, query, range);
  }

  logStreamFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]> {
    return logs.logStreamFieldValues(this.exec, tenantId, query, range, field, limit);
  }

  logValueCounts(tenantId: string, query: LogsqlQuery, req: ValueCountsRequest): Promise<ValueCounts> {
    return logs.logValueCounts(this.exec, tenantId, query, req);
  }

  getTrace(tenantId: string, traceId: string): Promise<Span[]> {
    return getTrace(this.exec, tenantId, traceId);
  }

  findTraces(tenantId: string, filter: TraceFilter): Promise<TraceSummary[]> {
    return findTraces(this.exec, tenantId, filter);
  }

  listReplays(tenantId: string, range: TimeRange, limit: number): Promise<ReplaySession[]> {
    return listReplays(this.exec, tenantId, range, limit);
  }

  getReplay(tenantId: string, sessionId: string): Promise<ReplayChunk[]> {
    return getReplay(this.exec, tenantId, sessionId);
  }

  spanDurations(tenantId: string, range: TimeRange, filter: SpanFilter, limit: number): Promise<SpanDurationGroup[]> {
    return spanDurations(this.exec, tenantId, range, filter, limit);
  }

  sampleTraces(tenantId: string, range: TimeRange, filter: TraceSampleFilter, limit: number): Promise<Span[]> {
    return sampleTraces(this.exec, tenantId, range, filter, limit);
  }

  async oldestData(tenantId: string, what: OldestDataQuery): Promise<number | null> {
    switch (what.signal) {
      case 'logs':
      case 'rum':
        // The query's filter only: a detector's min_history asks about the data, not a pipeline's output.
        return nsToMs(await logs.oldestLogs(this.exec, tenantId, what.query?.filter ?? { kind: 'all' }, what.signal === 'rum'));
      case 'traces':
        return nsToMs(await oldestSpanNs(this.exec, tenantId));
      case 'metrics': {
        // By metric name only, as the DuckDB store: the name is the selective part of a selector.
        const names = what.names ?? [];
        const rows = await this.exec.query(
          `SELECT minOrNull(ts) AS t FROM samples WHERE tenant_id = {tenant:String}${names.length > 0 ? ' AND metric IN {names:Array(String)}' : ''}`,
          { tenant: tenantId, names });
        const t = rows[0]?.t;
        return t === null || t === undefined ? null : num(t);
      }
    }
  }

  deleteOlderThan(tenantId: string, beforeNs: bigint): Promise<number> {
    return deleteOlderThan(this.exec, RETENTION, tenantId, beforeNs);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.writing;
    this.closed = true;
    await this.opts.release();
  }

  private open<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('clickhouse-store: closed'));
    return fn();
  }
}
