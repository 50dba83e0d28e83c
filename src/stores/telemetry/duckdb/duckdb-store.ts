// The embedded telemetry store: DuckDB in-process (DESIGN §1, "Two stores"). The WAL's drain is the only
// writer; queries run on separate read connections so that DuckDB's MVCC lets them see the last commit
// without waiting for the writer.
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { logCount, type TenantBatch } from '../../../model/batch.js';
import type { Span } from '../../../model/span.js';
import type { LogsqlQuery } from '../../../model/logsql-ast.js';
import type {
  CloseOptions, Facet, FacetsOptions, HitsSeries, LogRow, OldestDataQuery, ReplaySession, SpanDurationGroup, SpanFilter,
  TelemetryStore, TimeRange, TraceFilter, TraceSampleFilter, TraceSummary, ValueCounts, ValueCountsRequest, ValueHits,
} from '../telemetry-store.js';
import type { ChunkSink, SqlDb, SqlExecutor, SqlParam, SqlStreamer } from '../sql/dialect.js';
import { logFieldNames, logFieldValues, logHits, searchLogs, streamLogs } from '../sql/logsql-reads.js';
import { streamRows } from './stream-read.js';
import { logFacets, logStreamFieldNames, logStreamFieldValues } from '../sql/logsql-facets.js';
import { logValueCounts } from '../sql/value-counts.js';
import { onDuckdb } from './duckdb-dialect.js';
import { LOGS_TABLE_SQL, REPLAY_TABLE_SQL, SPANS_TABLE_SQL, WAL_STATE_ROW_SQL, WAL_STATE_TABLE_SQL } from './schema.js';
import { appendReplay, listReplaySessions, replayChunks } from './replay-store.js';
import { CommittedKeys, MetricPrefetch, appendMetrics, hasSamples } from './metrics-store.js';
import { oldestData, spanDurations } from './detector-reads-sql.js';
import { sampleTracesSql } from './trace-sample-sql.js';
import { withAppender } from './appender.js';
import { ChunkInserter } from './chunk-insert.js';
import { DuckdbSeriesSource, METRIC_TABLES_SQL, SAMPLE_COLUMNS } from './samples-sql.js';
import { migrateSampleTenants, NO_TENANT, recordTenants, TENANT_REF_SQL, TenantRefs } from './sample-tenants.js';
import { tableColumns } from './table-columns.js';
import { migrateLogTenants } from './log-tenants.js';
import { eventToJson, linkToJson, rowToSpan, str, big } from '../sql/span-rows.js';
import type { SeriesSource } from '../../../model/series-source.js';
import type { ReplayChunk } from '../../../model/replay.js';
import { appendLogs, int64, LOG_COLUMNS, logTenantsOf, ROWS_PER_YIELD } from './log-appender.js';
import { LogPrefetch } from './log-prefetch.js';
import { WriteThreads } from './write-threads.js';
import { addFieldColumns, canAddColumns, loadFieldColumns, migrateFieldColumns } from './field-catalog.js';
import { FieldLayout, type FieldSnapshot } from './field-layout.js';
import { DEFAULT_PROMOTION, keysToPromote, type PromotionPolicy } from './field-promotion.js';
import {
  DEFAULT_COMPACTION, compactionPathOf, copyCompacted, fileSpace, reasonToSkip, removeCopy, swapIn,
  type CompactionPolicy, type FileSpace,
} from './compaction.js';

/** The DuckDB store, plus a read-only SQL door for tests and tools (never used to write). */
export interface DuckdbTelemetryStore extends TelemetryStore {
  readonly reader: SqlExecutor;
  /** Begins work on the write that comes next while the one before commits (log-prefetch.ts); a hint only. */
  prepareWrite?(batches: TenantBatch[]): void;
}

/** Column order of SPANS_TABLE_SQL (and log-appender.ts LOG_COLUMNS): the appenders write positionally, so open() checks it. */
const SPAN_COLUMNS = ['tenant_id', 'trace_id', 'span_id', 'parent_span_id', 'name', 'kind', 'start_ns', 'duration_ns',
  'status_code', 'status_message', 'service', 'attributes', 'resource', 'events', 'links'];

const READ_CONNECTIONS = 2;
const MEMORY = ':memory:';

interface StorePolicy {
  /** The file (or ':memory:'). */
  path: string;
  promotion: PromotionPolicy;
  compaction: CompactionPolicy;
  /** DuckDB's thread count when idle, and the machine's cores (write-threads.ts). */
  threads: { normal: number; cores: number };
}
/**
 * DuckDB's own WAL size that triggers a checkpoint (its default is 16 MB). A checkpoint writes the row group being
 * filled as it is; appends go on filling it, and the next checkpoint writes it again whole, leaving the earlier
 * copy's blocks free in the file (reused by later checkpoints, never given back). Fed the drain's few-thousand-row
 * writes, a fresh store ended with ~16 MB of free blocks at 16 MB — 0.36 bytes per raw NDJSON byte on 100 MB of it —
 * and with 0-1.5 MB at 64 MB: 0.19-0.20 (bench/storage-probe.ts with PROBE_BATCH_ROWS=8000; issue 12 item 3). What
 * 64 MB costs: that much more of DuckDB's WAL to replay after a crash, its rows (~250k log rows) kept uncompressed in
 * DuckDB's buffer pool until the checkpoint.
 */
const CHECKPOINT_THRESHOLD = '64MB';

export interface DuckdbStoreOptions {
  /** When a `fields` key gets a column of its own (field-promotion.ts); tests lower the thresholds. */
  promotion?: PromotionPolicy;
  /** When a clean stop compacts the file (compaction.ts); tests lower the thresholds. */
  compaction?: CompactionPolicy;
  /** The machine's cores, for DuckDB's thread count while writing (write-threads.ts); default: this machine's. */
  cores?: number;
}

export async function openDuckdbStore(path: string, options: DuckdbStoreOptions = {}): Promise<DuckdbTelemetryStore> {
  if (path !== MEMORY) await removeCopy(compactionPathOf(path)); // a copy a crash cut short (compaction.ts)
  const instance = await DuckDBInstance.create(path, { checkpoint_threshold: CHECKPOINT_THRESHOLD });
  const connections: DuckDBConnection[] = [];
  try {
    const writer = await instance.connect();
    connections.push(writer);
    // Creating the tables and migrating an older file is one transaction: a crash leaves the file as it was.
    await writer.run('BEGIN TRANSACTION');
    for (const sql of [LOGS_TABLE_SQL, SPANS_TABLE_SQL, REPLAY_TABLE_SQL, ...METRIC_TABLES_SQL, WAL_STATE_TABLE_SQL, WAL_STATE_ROW_SQL]) {
      await writer.run(sql);
    }
    await migrateFieldColumns(writer);
    await migrateSampleTenants(writer);
    await migrateLogTenants(writer);
    await writer.run('COMMIT');
    const fieldColumns = await loadFieldColumns({ all: async (sql, params) => (await writer.runAndReadAll(sql, params)).getRowObjectsJS() });
    await checkColumns(writer, 'logs', [...LOG_COLUMNS, ...fieldColumns.map((c) => c.column)]);
    await checkColumns(writer, 'spans', SPAN_COLUMNS);
    await checkColumns(writer, 'metric_samples', [...SAMPLE_COLUMNS]);
    const tenantRefs = await TenantRefs.load(writer);
    const readers: Lane[] = [];
    for (let i = 0; i < READ_CONNECTIONS; i++) {
      const c = await instance.connect();
      connections.push(c);
      readers.push(new Lane(c));
    }
    const threads = Number((await writer.runAndReadAll("SELECT current_setting('threads') AS n")).getRowObjectsJS()[0]?.n);
    return new DuckdbStore(instance, new Lane(writer), readers, new FieldLayout(fieldColumns), tenantRefs, {
      path, promotion: options.promotion ?? DEFAULT_PROMOTION, compaction: options.compaction ?? DEFAULT_COMPACTION,
      threads: { normal: threads, cores: options.cores ?? availableParallelism() },
    });
  } catch (e) {
    for (const c of connections) c.closeSync();
    instance.closeSync();
    throw e;
  }
}

async function checkColumns(c: DuckDBConnection, table: string, expected: string[]): Promise<void> {
  const got = await tableColumns(c, table);
  if (got.join(',') !== expected.join(',')) {
    throw new Error(`duckdb-store: table ${table} has columns (${got.join(', ')}), the appender writes (${expected.join(', ')})`);
  }
}

/** DuckDB's global thread count (write-threads.ts); `n` is an integer this module computed. */
async function setThreads(c: DuckDBConnection, n: number): Promise<void> {
  await c.run(`SET threads = ${Math.trunc(n)}`);
}

/** One connection and the queue of work on it: a DuckDB connection runs one statement at a time. */
class Lane {
  pending = 0;
  private tail: Promise<unknown> = Promise.resolve();
  constructor(readonly conn: DuckDBConnection) {}

  run<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    this.pending++;
    const p = this.tail.then(() => fn(this.conn)).finally(() => { this.pending--; });
    this.tail = p.catch(() => undefined);
    return p;
  }
}

/** A write's chunks begun while the write before commits: its logs' and its samples'. */
interface WriteAhead {
  batches: TenantBatch[];
  logs: LogPrefetch | null;
  metrics: MetricPrefetch | null;
}

/** Lets what was built ahead go unappended. */
function dropAhead(ahead: WriteAhead | null): void {
  ahead?.logs?.drop();
  ahead?.metrics?.drop();
}

class DuckdbStore implements DuckdbTelemetryStore {
  private closed = false;
  /** Set when adding a promoted column failed: the store then keeps every key in the JSON until reopened. */
  private promotionFailed = false;
  readonly reader: SqlExecutor = { all: (sql, params) => this.read(sql, params) };
  /** Aborts every open stream when the store closes; `streams` are the ones running, which close() waits out. */
  private readonly closing = new AbortController();
  private readonly streams = new Set<Promise<void>>();
  readonly metrics: SeriesSource = new DuckdbSeriesSource(this.reader);
  /** Series and metadata rows committed by this process (metrics-store.ts). */
  private readonly metricKeys = new CommittedKeys();
  /**
   * The log and sample chunks being built for the next write (prepareWrite), and when the write on the lane reaches
   * COMMIT.
   */
  private prefetch: WriteAhead | null = null;
  private commitReached: Promise<void> = Promise.resolve();
  /** Fewer DuckDB threads while writes keep coming (write-threads.ts). */
  private readonly threads: WriteThreads;
  /** The log chunks of a write into DuckDB, on the writer's connection (chunk-insert.ts). */
  private readonly inserter: ChunkInserter;

  constructor(
    private readonly instance: DuckDBInstance, private readonly writer: Lane, private readonly readers: Lane[],
    private readonly fields: FieldLayout, private readonly tenantRefs: TenantRefs, private readonly policy: StorePolicy,
  ) {
    this.threads = new WriteThreads({
      ...policy.threads,
      set: (n) => this.writer.run((c) => setThreads(c, n)),
    });
    this.inserter = new ChunkInserter(writer.conn);
  }

  /**
   * A log read, compiled against the promoted columns of the moment (field-layout.ts) and run on the read connections
   * through `reader`, which refuses once closed.
   */
  private logs<T>(fn: (db: SqlDb & SqlStreamer) => Promise<T>): Promise<T> {
    return this.fields.read((s: FieldSnapshot) => fn({
      ...onDuckdb(this.reader, (tenantId) => BigInt(this.tenantRefs.find(tenantId) ?? NO_TENANT), s.dialect),
      stream: (sql, params, onChunk, signal) => this.stream(sql, params, onChunk, signal),
    }));
  }

  /**
   * Begins building the log and sample chunks of the write that comes next, while the write on the lane commits
   * (chunks-ahead.ts); write() with the same `batches` uses them. Only while a write runs, and one write ahead.
   */
  prepareWrite(batches: TenantBatch[]): void {
    if (this.closed || this.prefetch !== null || this.writer.pending === 0) return;
    const logs = batches.some((b) => logCount(b.batch) > 0)
      ? new LogPrefetch(batches, this.fields.columns, this.fields.writableColumns().length, this.tenantRefs, this.commitReached) : null;
    const metrics = hasSamples(batches) ? new MetricPrefetch(batches, this.commitReached, this.tenantRefs) : null;
    if (logs || metrics) this.prefetch = { batches, logs, metrics };
  }

  async write(batches: TenantBatch[], walPosition: bigint): Promise<void> {
    this.assertOpen();
    // Chunks prepared from here on are for the write after this one, and are built once this one reaches COMMIT.
    // Chunks built for other batches belong to a write that will not come (its records were already stored).
    const prefetch = this.prefetch;
    this.prefetch = null;
    const ahead = prefetch?.batches === batches ? prefetch : null;
    if (!ahead) dropAhead(prefetch);
    let reachCommit = (): void => undefined;
    this.commitReached = new Promise((resolve) => { reachCommit = resolve; });
    await this.writer.run(async (c) => {
      try {
        // A position the store already holds means these records are in it: a retry of a write whose commit went
        // through, or a replay of one. Skipping keeps both exactly-once (checked again inside the transaction).
        if (walPosition <= (await positionOn(c))) return;
        await this.promoteFields(c, batches);
        const columns = this.fields.columns;
        const writable = this.fields.writableColumns().length;
        // One transaction holds the rows and the WAL position (DESIGN §1, exactly-once replay). DuckDB's
        // appender writes inside the connection's open transaction: a ROLLBACK — or a crash before COMMIT —
        // leaves neither rows nor position behind (duckdb-store.test.ts proves the rollback half).
        await c.run('BEGIN TRANSACTION');
        try {
          if (walPosition <= (await positionOn(c))) {
            await c.run('ROLLBACK');
            return;
          }
          await this.threads.writing((n) => setThreads(c, n));
          await appendLogs(c, this.inserter, batches, columns, writable, this.tenantRefs, ahead?.logs?.take(columns) ?? undefined);
          const logTenants = await recordTenants(c, logTenantsOf(batches, this.tenantRefs), this.metricKeys);
          await appendSpans(c, batches);
          await appendReplay(c, batches);
          const metricKeys = await appendMetrics(c, batches, this.metricKeys, this.tenantRefs, ahead?.metrics?.take());
          await c.run('UPDATE wal_state SET position = $1 WHERE id = 1', [walPosition]);
          reachCommit();
          await c.run('COMMIT');
          this.metricKeys.commit([...logTenants, ...metricKeys]);
        } catch (e) {
          await c.run('ROLLBACK').catch(() => undefined);
          throw e;
        }
      } finally {
        dropAhead(ahead);
        reachCommit();
        this.threads.written();
      }
    });
  }

  /**
   * Adds a column for each key this write earns one for (field-promotion.ts), in a transaction of its own that holds
   * no rows and no WAL position: a crash after it leaves empty columns, which is a consistent store. Once committed
   * the columns are known to reads, and this very write fills them unless a read compiled before is still running
   * (field-layout.ts). Promotion only saves space: if adding a column fails, the store goes on without promoting.
   */
  private async promoteFields(c: DuckDBConnection, batches: TenantBatch[]): Promise<void> {
    if (this.promotionFailed) return;
    const columns = this.fields.columns;
    const known = new Set(columns.map((col) => col.key));
    const add = keysToPromote(batches, known, this.policy.promotion.maxColumns - columns.length, this.policy.promotion);
    if (add.length === 0) return;
    await c.run('BEGIN TRANSACTION');
    try {
      if (!(await canAddColumns(c, add.length))) {
        await c.run('ROLLBACK');
        return;
      }
      const added = await addFieldColumns(c, columns, add);
      await c.run('COMMIT');
      this.fields.publish(added);
    } catch {
      await c.run('ROLLBACK').catch(() => undefined);
      this.promotionFailed = true;
    }
  }

  async walPosition(): Promise<bigint> {
    this.assertOpen();
    return this.writer.run(positionOn);
  }

  // The log reads: the LogsQL compiler of ../sql/, in DuckDB's dialect of the promoted columns (logs()).
  searchLogs(tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number): Promise<LogRow[]> {
    return this.logs((db) => searchLogs(db, tenantId, query, range, limit));
  }

  streamLogs(
    tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number, onChunk: ChunkSink<LogRow>, signal?: AbortSignal,
  ): Promise<void> {
    return this.logs((db) => streamLogs(db, tenantId, query, range, limit, onChunk, signal));
  }

  logHits(tenantId: string, query: LogsqlQuery, range: TimeRange, stepNs: bigint): Promise<HitsSeries[]> {
    return this.logs((db) => logHits(db, tenantId, query, range, stepNs));
  }

  logFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
    return this.logs((db) => logFieldNames(db, tenantId, query, range));
  }

  logFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]> {
    return this.logs((db) => logFieldValues(db, tenantId, query, range, field, limit));
  }

  logFacets(tenantId: string, query: LogsqlQuery, range: TimeRange, opts: FacetsOptions): Promise<Facet[]> {
    return this.logs((db) => logFacets(db, tenantId, query, range, opts));
  }
  logValueCounts(tenantId: string, query: LogsqlQuery, req: ValueCountsRequest): Promise<ValueCounts> {
    return this.logs((db) => logValueCounts(db, tenantId, query, req));
  }

  logStreamFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
    return this.logs((db) => logStreamFieldNames(db, tenantId, query, range));
  }

  logStreamFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]> {
    return this.logs((db) => logStreamFieldValues(db, tenantId, query, range, field, limit));
  }

  async getTrace(tenantId: string, traceId: string): Promise<Span[]> {
    const rows = await this.read(
      'SELECT * FROM spans WHERE tenant_id = $1 AND trace_id = $2 ORDER BY start_ns, span_id',
      [tenantId, traceId.toLowerCase()]);
    return rows.map(rowToSpan);
  }

  async findTraces(tenantId: string, filter: TraceFilter): Promise<TraceSummary[]> {
    const params: SqlParam[] = [tenantId];
    const where = ['tenant_id = $1'];
    const add = (cond: string, v: SqlParam) => { params.push(v); where.push(cond.replace('?', `$${params.length}`)); };
    if (filter.service !== undefined) add('service = ?', filter.service);
    if (filter.name !== undefined) add('name = ?', filter.name);
    if (filter.minDurationNs !== undefined) add('duration_ns >= ?', filter.minDurationNs);
    if (filter.status === 'error') add('status_code = ?', 2);
    if (filter.range.startNs !== undefined) add('start_ns >= ?', filter.range.startNs);
    if (filter.range.endNs !== undefined) add('start_ns < ?', filter.range.endNs);
    params.push(BigInt(Number.isFinite(filter.limit) ? Math.max(0, Math.trunc(filter.limit)) : 0));
    // A trace matches when one of its spans passes every filter; the summary covers all its spans.
    // The root is the span without a parent (the earliest span when the root has not arrived).
    const rows = await this.read(`
      WITH matched AS (SELECT DISTINCT trace_id FROM spans WHERE ${where.join(' AND ')})
      SELECT s.trace_id, min(s.start_ns) AS start_ns, max(s.start_ns + s.duration_ns) - min(s.start_ns) AS duration_ns,
        count(*) AS span_count, count(*) FILTER (WHERE s.status_code = 2) AS error_count,
        coalesce(arg_min(s.service, s.start_ns) FILTER (WHERE s.parent_span_id = ''), arg_min(s.service, s.start_ns)) AS root_service,
        coalesce(arg_min(s.name, s.start_ns) FILTER (WHERE s.parent_span_id = ''), arg_min(s.name, s.start_ns)) AS root_name
      FROM spans s JOIN matched m ON s.trace_id = m.trace_id
      WHERE s.tenant_id = $1
      GROUP BY s.trace_id ORDER BY start_ns DESC, s.trace_id LIMIT $${params.length}`, params);
    return rows.map((r) => ({
      traceId: str(r.trace_id), rootService: str(r.root_service), rootName: str(r.root_name),
      startNs: big(r.start_ns), durationNs: big(r.duration_ns),
      spanCount: Number(big(r.span_count)), errorCount: Number(big(r.error_count)),
    }));
  }

  spanDurations(tenantId: string, range: TimeRange, filter: SpanFilter, limit: number): Promise<SpanDurationGroup[]> {
    return spanDurations(this.reader, tenantId, range, filter, limit);
  }

  oldestData(tenantId: string, what: OldestDataQuery): Promise<number | null> {
    return this.logs((db) => oldestData(db, tenantId, what));
  }

  async sampleTraces(tenantId: string, range: TimeRange, filter: TraceSampleFilter, limit: number): Promise<Span[]> {
    const { sql, params } = sampleTracesSql(tenantId, range, filter, limit);
    return (await this.read(sql, params)).map(rowToSpan);
  }

  listReplays(tenantId: string, range: TimeRange, limit: number): Promise<ReplaySession[]> {
    return listReplaySessions(this.reader, tenantId, range, limit);
  }

  getReplay(tenantId: string, sessionId: string): Promise<ReplayChunk[]> {
    return replayChunks(this.reader, tenantId, sessionId);
  }

  async deleteOlderThan(tenantId: string, beforeNs: bigint): Promise<number> {
    this.assertOpen();
    return this.writer.run(async (c) => {
      await c.run('BEGIN TRANSACTION');
      try {
        const logs = await c.run(`DELETE FROM logs WHERE tenant_ref = ${TENANT_REF_SQL} AND time_ns < $2`, [tenantId, beforeNs]);
        const spans = await c.run('DELETE FROM spans WHERE tenant_id = $1 AND start_ns < $2', [tenantId, beforeNs]);
        const replay = await c.run('DELETE FROM replay_chunks WHERE tenant_id = $1 AND end_ns < $2', [tenantId, beforeNs]);
        const samples = await c.run(`DELETE FROM metric_samples WHERE tenant_ref = ${TENANT_REF_SQL} AND time_ms < $2`, [tenantId, beforeNs / 1_000_000n]);
        await c.run('COMMIT');
        return logs.rowsChanged + spans.rowsChanged + replay.rowsChanged + samples.rowsChanged;
      } catch (e) {
        await c.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  async close(options: CloseOptions = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    // Every thread back for the last CHECKPOINT and the compacting copy (queued behind the writes in flight).
    const threadsBack = this.threads.close();
    dropAhead(this.prefetch);
    this.prefetch = null;
    await Promise.all([...this.streams].map((s) => s.catch(() => undefined)));
    // Wait out queued work, checkpoint so a reopen need not replay DuckDB's own WAL, then release the file.
    await threadsBack;
    await this.writer.run((c) => c.run('CHECKPOINT')).catch(() => undefined);
    await Promise.all(this.readers.map((r) => r.run(() => Promise.resolve())));
    const compacting = await this.copyCompacted(options);
    for (const lane of [this.writer, ...this.readers]) lane.conn.closeSync();
    this.instance.closeSync();
    if (compacting) await this.swapCompacted(compacting, options);
  }

  /**
   * At a clean stop, with nothing left to write: copies the file without its free blocks when they are worth it and
   * the copy can end in `compactWithinMs` (compaction.ts). Returns what swapCompacted needs once the file is let go.
   */
  private async copyCompacted({ compactWithinMs = 0, report }: CloseOptions): Promise<{ space: FileSpace; started: number } | null> {
    const { path, compaction } = this.policy;
    if (path === MEMORY || compactWithinMs <= 0) return null;
    const started = performance.now();
    try {
      const c = this.writer.conn;
      const space = await fileSpace(c);
      const skip = reasonToSkip(space, compactWithinMs, compaction);
      if (skip !== null) {
        if (space.freeBlocks >= compaction.minFreeBlocks) report?.(`duckdb-store: not compacted: ${skip}`);
        return null;
      }
      const catalog = str((await c.runAndReadAll('SELECT current_database() AS name')).getRowObjectsJS()[0]?.name);
      if (await copyCompacted(c, catalog, compactionPathOf(path), compactWithinMs)) return { space, started };
      report?.(`duckdb-store: compaction stopped at its ${Math.round(compactWithinMs)} ms limit; the file is as it was`);
    } catch (e) {
      report?.(`duckdb-store: compaction failed, the file is as it was: ${e instanceof Error ? e.message : String(e)}`);
    }
    return null;
  }

  private async swapCompacted({ space, started }: { space: FileSpace; started: number }, { report }: CloseOptions): Promise<void> {
    const { path } = this.policy;
    const sizeOf = (): Promise<number> => stat(path).then((s) => s.size, () => 0);
    const before = await sizeOf();
    try {
      if (!await swapIn(path, compactionPathOf(path))) {
        report?.('duckdb-store: compaction dropped: DuckDB\'s own WAL was still there after the close');
        return;
      }
    } catch (e) {
      // Before the rename the file is as it was, after it the file is the whole copy: either is a good store.
      await removeCopy(compactionPathOf(path)).catch(() => undefined);
      report?.(`duckdb-store: compaction failed while putting the copy in place: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    const after = await sizeOf();
    report?.(`duckdb-store: compacted ${path}: ${mb(before)} → ${mb(after)} MB (${space.freeBlocks} of ${space.totalBlocks} ` +
      `blocks were free) in ${Math.round(performance.now() - started)} ms`);
  }

  private async read(sql: string, params: SqlParam[]): Promise<Record<string, unknown>[]> {
    this.assertOpen();
    const lane = this.readers.reduce((a, b) => (b.pending < a.pending ? b : a));
    return lane.run(async (c) => (await c.runAndReadAll(sql, params)).getRowObjectsJS());
  }

  /** One streamed statement on a connection of its own (stream-read.ts), stopped early when the store closes. */
  private stream(sql: string, params: SqlParam[], onChunk: ChunkSink<Record<string, unknown>>, signal?: AbortSignal): Promise<void> {
    this.assertOpen();
    const stop = signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
    const running = streamRows(this.instance, sql, params, onChunk, stop);
    this.streams.add(running);
    return running.finally(() => this.streams.delete(running));
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('duckdb-store: closed');
  }
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

async function positionOn(c: DuckDBConnection): Promise<bigint> {
  const rows = (await c.runAndReadAll('SELECT position FROM wal_state WHERE id = 1')).getRowObjectsJS();
  const first = rows[0];
  return first === undefined ? 0n : big(first.position);
}

async function appendSpans(c: DuckDBConnection, batches: TenantBatch[]): Promise<void> {
  if (!batches.some((b) => b.batch.spans.length > 0)) return;
  await withAppender(c, 'spans', async (a) => {
    let n = 0;
    for (const { tenantId, batch } of batches) {
      for (const s of batch.spans) {
        a.appendVarchar(tenantId);
        a.appendVarchar(s.traceId);
        a.appendVarchar(s.spanId);
        a.appendVarchar(s.parentSpanId);
        a.appendVarchar(s.name);
        a.appendInteger(s.kind | 0);
        a.appendBigInt(int64(s.startNs));
        a.appendBigInt(int64(s.durationNs));
        a.appendInteger(s.statusCode | 0);
        a.appendVarchar(s.statusMessage);
        a.appendVarchar(s.service);
        a.appendVarchar(JSON.stringify(s.attributes));
        a.appendVarchar(JSON.stringify(s.resource));
        a.appendVarchar(JSON.stringify(s.events.map(eventToJson)));
        a.appendVarchar(JSON.stringify(s.links.map(linkToJson)));
        a.endRow();
        if (++n % ROWS_PER_YIELD === 0) await yieldToLoop();
      }
    }
  });
}
