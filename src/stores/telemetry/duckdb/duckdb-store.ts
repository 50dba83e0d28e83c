// The embedded telemetry store: DuckDB in-process (DESIGN §1, "Two stores"). The WAL's drain is the only
// writer; queries run on separate read connections so that DuckDB's MVCC lets them see the last commit
// without waiting for the writer.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { TenantBatch } from '../../../model/batch.js';
import type { LogEntry } from '../../../model/log-entry.js';
import type { Span } from '../../../model/span.js';
import type { LogsqlQuery } from '../../../model/logsql-ast.js';
import type {
  Facet, FacetsOptions, HitsSeries, LogRow, OldestDataQuery, ReplaySession, SpanDurationGroup, SpanFilter, TelemetryStore,
  TimeRange, TraceFilter, TraceSampleFilter, TraceSummary, ValueCounts, ValueCountsRequest, ValueHits,
} from '../telemetry-store.js';
import type { ChunkSink, SqlDb, SqlExecutor, SqlParam, SqlStreamer } from '../sql/dialect.js';
import { logFieldNames, logFieldValues, logHits, searchLogs, streamLogs } from '../sql/logsql-reads.js';
import { streamRows } from './stream-read.js';
import { logFacets, logStreamFieldNames, logStreamFieldValues } from '../sql/logsql-facets.js';
import { logValueCounts } from '../sql/value-counts.js';
import { onDuckdb } from './duckdb-dialect.js';
import { LOGS_TABLE_SQL, REPLAY_TABLE_SQL, SPANS_TABLE_SQL, WAL_STATE_TABLE_SQL } from './schema.js';
import { appendReplay, listReplaySessions, replayChunks } from './replay-store.js';
import { appendMetrics } from './metrics-store.js';
import { oldestData, spanDurations } from './detector-reads-sql.js';
import { sampleTracesSql } from './trace-sample-sql.js';
import { withAppender } from './appender.js';
import { DuckdbSeriesSource, METRIC_TABLES_SQL } from './samples-sql.js';
import { eventToJson, linkToJson, rowToSpan, str, big } from '../sql/span-rows.js';
import type { SeriesSource } from '../../../model/series-source.js';
import type { ReplayChunk } from '../../../model/replay.js';

/** The DuckDB store, plus a read-only SQL door for tests and tools (never used to write). */
export interface DuckdbTelemetryStore extends TelemetryStore {
  readonly reader: SqlExecutor;
}

/** Column order of LOGS_TABLE_SQL / SPANS_TABLE_SQL: the appenders write positionally, so open() checks it. */
const LOG_COLUMNS = ['tenant_id', 'time_ns', 'observed_ns', 'service', 'severity', 'msg', 'trace_id', 'span_id',
  'stream', 'fields', 'format'];
const SPAN_COLUMNS = ['tenant_id', 'trace_id', 'span_id', 'parent_span_id', 'name', 'kind', 'start_ns', 'duration_ns',
  'status_code', 'status_message', 'service', 'attributes', 'resource', 'events', 'links'];

/** Rows appended between yields inside a write (~2-5 ms of appender calls): keeps the event loop free for acks. */
const ROWS_PER_YIELD = 1024;
const READ_CONNECTIONS = 2;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export async function openDuckdbStore(path: string): Promise<DuckdbTelemetryStore> {
  const instance = await DuckDBInstance.create(path);
  const connections: DuckDBConnection[] = [];
  try {
    const writer = await instance.connect();
    connections.push(writer);
    for (const sql of [LOGS_TABLE_SQL, SPANS_TABLE_SQL, REPLAY_TABLE_SQL, ...METRIC_TABLES_SQL, WAL_STATE_TABLE_SQL]) await writer.run(sql);
    await checkColumns(writer, 'logs', LOG_COLUMNS);
    await checkColumns(writer, 'spans', SPAN_COLUMNS);
    const readers: Lane[] = [];
    for (let i = 0; i < READ_CONNECTIONS; i++) {
      const c = await instance.connect();
      connections.push(c);
      readers.push(new Lane(c));
    }
    return new DuckdbStore(instance, new Lane(writer), readers);
  } catch (e) {
    for (const c of connections) c.closeSync();
    instance.closeSync();
    throw e;
  }
}

async function checkColumns(c: DuckDBConnection, table: string, expected: string[]): Promise<void> {
  const r = await c.runAndReadAll(
    `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = 'main'
     ORDER BY ordinal_position`, [table]);
  const got = r.getRowObjectsJS().map((row) => str(row.column_name));
  if (got.join(',') !== expected.join(',')) {
    throw new Error(`duckdb-store: table ${table} has columns (${got.join(', ')}), the appender writes (${expected.join(', ')})`);
  }
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

class DuckdbStore implements DuckdbTelemetryStore {
  private closed = false;
  readonly reader: SqlExecutor = { all: (sql, params) => this.read(sql, params) };
  private readonly logsDb: SqlDb = onDuckdb(this.reader);
  /** Aborts every open stream when the store closes; `streams` are the ones running, which close() waits out. */
  private readonly closing = new AbortController();
  private readonly streams = new Set<Promise<void>>();
  private readonly streamDb: SqlDb & SqlStreamer = { ...this.logsDb, stream: (sql, params, onChunk, signal) => this.stream(sql, params, onChunk, signal) };
  readonly metrics: SeriesSource = new DuckdbSeriesSource(this.reader);

  constructor(private readonly instance: DuckDBInstance, private readonly writer: Lane, private readonly readers: Lane[]) {}

  async write(batches: TenantBatch[], walPosition: bigint): Promise<void> {
    this.assertOpen();
    await this.writer.run(async (c) => {
      // One transaction holds the rows and the WAL position (DESIGN §1, exactly-once replay). DuckDB's
      // appender writes inside the connection's open transaction: a ROLLBACK — or a crash before COMMIT —
      // leaves neither rows nor position behind (duckdb-store.test.ts proves the rollback half).
      await c.run('BEGIN TRANSACTION');
      try {
        // A position the store already holds means these records are in it: a retry of a write whose
        // commit went through, or a replay of one. Skipping keeps both exactly-once.
        if (walPosition <= (await positionOn(c))) {
          await c.run('ROLLBACK');
          return;
        }
        await appendLogs(c, batches);
        await appendSpans(c, batches);
        await appendReplay(c, batches);
        await appendMetrics(c, batches);
        await c.run('INSERT OR REPLACE INTO wal_state VALUES (1, $1)', [walPosition]);
        await c.run('COMMIT');
      } catch (e) {
        await c.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  async walPosition(): Promise<bigint> {
    this.assertOpen();
    return this.writer.run(positionOn);
  }

  // The log reads (the LogsQL compiler of ../sql/, in DuckDB's dialect) run on the read connections through `reader`,
  // which refuses once closed.
  searchLogs(tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number): Promise<LogRow[]> {
    return searchLogs(this.logsDb, tenantId, query, range, limit);
  }

  streamLogs(
    tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number, onChunk: ChunkSink<LogRow>, signal?: AbortSignal,
  ): Promise<void> {
    return streamLogs(this.streamDb, tenantId, query, range, limit, onChunk, signal);
  }

  logHits(tenantId: string, query: LogsqlQuery, range: TimeRange, stepNs: bigint): Promise<HitsSeries[]> {
    return logHits(this.logsDb, tenantId, query, range, stepNs);
  }

  logFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
    return logFieldNames(this.logsDb, tenantId, query, range);
  }

  logFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]> {
    return logFieldValues(this.logsDb, tenantId, query, range, field, limit);
  }

  logFacets(tenantId: string, query: LogsqlQuery, range: TimeRange, opts: FacetsOptions): Promise<Facet[]> {
    return logFacets(this.logsDb, tenantId, query, range, opts);
  }
  logValueCounts(tenantId: string, query: LogsqlQuery, req: ValueCountsRequest): Promise<ValueCounts> {
    return logValueCounts(this.logsDb, tenantId, query, req);
  }

  logStreamFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
    return logStreamFieldNames(this.logsDb, tenantId, query, range);
  }

  logStreamFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]> {
    return logStreamFieldValues(this.logsDb, tenantId, query, range, field, limit);
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
    return oldestData(this.reader, tenantId, what);
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
        const logs = await c.run('DELETE FROM logs WHERE tenant_id = $1 AND time_ns < $2', [tenantId, beforeNs]);
        const spans = await c.run('DELETE FROM spans WHERE tenant_id = $1 AND start_ns < $2', [tenantId, beforeNs]);
        const replay = await c.run('DELETE FROM replay_chunks WHERE tenant_id = $1 AND end_ns < $2', [tenantId, beforeNs]);
        const samples = await c.run('DELETE FROM metric_samples WHERE tenant_id = $1 AND time_ms < $2', [tenantId, beforeNs / 1_000_000n]);
        await c.run('COMMIT');
        return logs.rowsChanged + spans.rowsChanged + replay.rowsChanged + samples.rowsChanged;
      } catch (e) {
        await c.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    await Promise.all([...this.streams].map((s) => s.catch(() => undefined)));
    // Wait out queued work, checkpoint so a reopen need not replay DuckDB's own WAL, then release the file.
    await this.writer.run((c) => c.run('CHECKPOINT')).catch(() => undefined);
    await Promise.all(this.readers.map((r) => r.run(() => Promise.resolve())));
    for (const lane of [this.writer, ...this.readers]) lane.conn.closeSync();
    this.instance.closeSync();
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

async function positionOn(c: DuckDBConnection): Promise<bigint> {
  const rows = (await c.runAndReadAll('SELECT position FROM wal_state WHERE id = 1')).getRowObjectsJS();
  const first = rows[0];
  return first === undefined ? 0n : big(first.position);
}

/** Appends every log of `batches`, yielding each ROWS_PER_YIELD rows (DESIGN §1: the drain must yield). */
async function appendLogs(c: DuckDBConnection, batches: TenantBatch[]): Promise<void> {
  if (!batches.some((b) => b.batch.logs.length > 0)) return;
  await withAppender(c, 'logs', async (a) => {
    let n = 0;
    for (const { tenantId, format, batch } of batches) {
      for (const e of batch.logs) {
        a.appendVarchar(tenantId);
        a.appendBigInt(int64(e.timeNs));
        a.appendBigInt(int64(e.observedNs));
        a.appendVarchar(e.service);
        a.appendVarchar(e.severity);
        a.appendVarchar(e.msg);
        a.appendVarchar(e.traceId);
        a.appendVarchar(e.spanId);
        a.appendVarchar(streamOf(e));
        a.appendVarchar(JSON.stringify(e.fields));
        a.appendVarchar(format);
        a.endRow();
        if (++n % ROWS_PER_YIELD === 0) await yieldToLoop();
      }
    }
  });
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

/**
 * `_stream` when the format gave none: VictoriaLogs' stream labels, here from `service` alone
 * (model/log-entry.ts: "the store then derives it from service").
 */
export function streamOf(e: LogEntry): string {
  if (e.stream !== '') return e.stream;
  if (e.service === '') return '{}';
  return `{service="${e.service.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"}`;
}

/** A time outside int64 would fail the whole write and stall the drain; clamp instead (never drop). */
function int64(v: bigint): bigint {
  return v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : v;
}
