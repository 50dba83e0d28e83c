// The telemetry store's interface: logs and spans written by the WAL's drain, read by the query API.
// DuckDB in-process by default (duckdb/), ClickHouse at scale; main.ts picks one (STYLE.md habit 2).
// Tenant id is always the first argument of a read.
import type { TenantBatch } from '../../model/batch.js';
import type { Span } from '../../model/span.js';
import type { LogsqlQuery } from '../../model/logsql-ast.js';
import type { ReplayChunk } from '../../model/replay.js';
import type { SeriesSource } from '../../model/series-source.js';
import type { ChunkSink } from './sql/dialect.js';
import type { RecordParts } from '../../ingest/wal-raw.js';

export type { ChunkSink } from './sql/dialect.js';

export interface TimeRange {
  /** Inclusive, unix ns; absent = unbounded (DESIGN §4: without start/end a query covers all time). */
  startNs?: bigint;
  /** Exclusive, unix ns. */
  endNs?: bigint;
}

/** One output row of a log search: `_time`, `_msg`, `_stream`, `service`, and every stored field. */
export type LogRow = Record<string, unknown>;

export interface HitsSeries {
  /** The `by` fields' values of this series ({} without grouping). */
  fields: Record<string, string>;
  /** Bucket start times, RFC 3339. */
  timestamps: string[];
  values: number[];
  total: number;
}

export interface ValueHits {
  value: string;
  hits: number;
}

/** What `/select/logsql/facets` may return (https://docs.victoriametrics.com/victorialogs/querying/#querying-facets). */
export interface FacetsOptions {
  /** Values per field, most frequent first. */
  limit: number;
  /** A field with more distinct values than this is left out. */
  maxValuesPerField: number;
  /** A field with a value longer than this (bytes) is left out. */
  maxValueLen: number;
  /** Keep a field whose one value every selected entry has (left out by default: it tells nothing apart). */
  keepConstFields: boolean;
}

/** One field of a facets answer: its most frequent values, with the number of entries that have each. */
export interface Facet {
  field: string;
  values: ValueHits[];
}

export interface TraceFilter {
  service?: string;
  name?: string;
  minDurationNs?: bigint;
  /** 'error': a span of the trace that passes the other filters has status ERROR (a failed trace). */
  status?: 'error';
  range: TimeRange;
  limit: number;
}

export interface TraceSummary {
  traceId: string;
  rootService: string;
  rootName: string;
  startNs: bigint;
  durationNs: bigint;
  spanCount: number;
  errorCount: number;
}

export interface ReplaySession {
  sessionId: string;
  startNs: bigint;
  endNs: bigint;
  chunks: number;
  events: number;
  page: string;
  user: string;
}

/**
 * What `logValueCounts` counts (RCA, DESIGN §9 `ai/rca`): the entries a LogsQL filter selects in each of several
 * ranges, and in each range how many carry each value of a field, or each pair of values of two fields.
 */
export interface ValueCountsRequest {
  /** Counted separately, in this order; they may overlap. */
  ranges: TimeRange[];
  /** Field groups: `[f]` counts the values of f, `[f, g]` the pairs of values of f and g. Empty values never count. */
  groups: string[][];
  /** A value (or pair) is returned only when it has at least this many entries in `ranges[0]`. */
  minCount: number;
}

export interface ValueCount {
  /** Index into the request's `groups`. */
  group: number;
  /** One value per field of the group. */
  values: string[];
  /** Entries per range. */
  counts: number[];
}

export interface ValueCounts {
  /** Entries the filter selects in each range. */
  totals: number[];
  values: ValueCount[];
}

/** Which traces deep RCA samples (DESIGN §9 `ai/deep-rca`): those with a span of `service`, with an error or without. */
export interface TraceSampleFilter {
  service?: string;
  /** `error`: some span has status ERROR; `ok`: none has; absent: either. */
  status?: 'error' | 'ok';
}

/** Span filters of a detector's span read (DESIGN §8 `trace_latency`). */
export interface SpanFilter {
  service?: string;
  name?: string;
}

/** Span durations of one (service, span name) over a range. */
export interface SpanDurationGroup {
  service: string;
  name: string;
  /** Durations in ms, ascending; a sample of at most the `limit` asked for when there are more. */
  durationsMs: number[];
  /** Spans in all (≥ durationsMs.length). */
  count: number;
  /** Spans with status ERROR. */
  errorCount: number;
}

/**
 * Whose oldest data to find (a detector's `min_history` check, DESIGN §8): logs or browser RUM logs matching a
 * LogsQL filter (its pipes are ignored), any span, or samples of the named metrics (every metric when empty).
 */
export type OldestDataQuery =
  | { signal: 'logs' | 'rum'; query?: LogsqlQuery }
  | { signal: 'traces' }
  | { signal: 'metrics'; names?: readonly string[] };

/** What the WAL's drain needs of a store: the transactional write and the position it reached. */
export interface WalTarget {
  /**
   * Appends every batch and records `walPosition` in the same transaction, so that a crash between
   * the two can neither lose nor duplicate rows (the WAL replays from walPosition()).
   */
  write(batches: TenantBatch[], walPosition: bigint): Promise<void>;
  /**
   * write(), given the framed WAL records themselves (wal-raw.ts RecordParts: the WAL gives them up, so the store
   * may keep or transfer every piece), for a store that decodes them where it runs: the DuckDB worker, off the request thread (issue 12 item 1).
   * `from` is the position the write starts at: a store that holds another (a write before this one failed)
   * refuses it, unless it already holds `walPosition` (then the write is a no-op, as in write()). That is what
   * lets the WAL send the next write before the last one has committed.
   */
  writeRecords?(parts: RecordParts, walPosition: bigint, from: bigint): Promise<void>;
  /** The position recorded by the last committed write(), 0n on a new store. */
  walPosition(): Promise<bigint>;
}

export interface TelemetryStore extends WalTarget {
  /** Stored metric series, for the PromQL engine and the Prometheus API. */
  readonly metrics: SeriesSource;

  searchLogs(tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number): Promise<LogRow[]>;
  /**
   * searchLogs without buffering (issue 12 item 5, DESIGN §4 `select/logsql/query`): the same rows in the same order,
   * handed to `onChunk` a chunk at a time (STREAM_CHUNK_ROWS at most); the next chunk is read only once `onChunk`
   * resolved, so memory stays bounded whatever the result's size. `onChunk` returning false, or `signal` aborting,
   * stops the engine's query and resolves. limit <= 0: every row.
   */
  streamLogs(
    tenantId: string, query: LogsqlQuery, range: TimeRange, limit: number, onChunk: ChunkSink<LogRow>, signal?: AbortSignal,
  ): Promise<void>;
  logHits(tenantId: string, query: LogsqlQuery, range: TimeRange, stepNs: bigint): Promise<HitsSeries[]>;
  logFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]>;
  logFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]>;
  /** The most frequent values of every field of the entries the query's filter selects (its pipes are ignored). */
  logFacets(tenantId: string, query: LogsqlQuery, range: TimeRange, opts: FacetsOptions): Promise<Facet[]>;
  /** The label names of the `_stream`s in the query's result, with the entries that carry each; sorted by name. */
  logStreamFieldNames(tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<ValueHits[]>;
  /** The values of one stream label in the query's result, most frequent first, at most `limit` (<= 0: all). */
  logStreamFieldValues(tenantId: string, query: LogsqlQuery, range: TimeRange, field: string, limit: number): Promise<ValueHits[]>;
  /**
   * Exact counts of the values (and value pairs) of field groups in several ranges, in one pass over the entries the
   * query's filter selects (its pipes are ignored): what RCA compares between an incident and its baseline.
   */
  logValueCounts(tenantId: string, query: LogsqlQuery, req: ValueCountsRequest): Promise<ValueCounts>;

  getTrace(tenantId: string, traceId: string): Promise<Span[]>;
  findTraces(tenantId: string, filter: TraceFilter): Promise<TraceSummary[]>;

  listReplays(tenantId: string, range: TimeRange, limit: number): Promise<ReplaySession[]>;
  /** The session's chunks in seq order. */
  getReplay(tenantId: string, sessionId: string): Promise<ReplayChunk[]>;

  /** Spans starting in `range`, per (service, name), sorted by both (detectors, DESIGN §8). */
  spanDurations(tenantId: string, range: TimeRange, filter: SpanFilter, limit: number): Promise<SpanDurationGroup[]>;
  /**
   * Every span of at most `limit` traces that have a span starting in `range` and pass the filter, ordered by trace
   * id then start; past `limit` a fixed pseudo-random pick of traces (deep RCA's bounded sample, DESIGN §9).
   */
  sampleTraces(tenantId: string, range: TimeRange, filter: TraceSampleFilter, limit: number): Promise<Span[]>;
  /** Unix ms of the tenant's oldest stored data of that kind; null when there is none (detectors' min_history). */
  oldestData(tenantId: string, what: OldestDataQuery): Promise<number | null>;

  /** Retention: drops the tenant's rows older than `beforeNs`; returns how many rows went. */
  deleteOlderThan(tenantId: string, beforeNs: bigint): Promise<number>;

  /** Waits out work under way, then releases the store; `options` as CloseOptions says. */
  close(options?: CloseOptions): Promise<void>;
}

export interface CloseOptions {
  /**
   * Milliseconds the store may spend, at a clean stop, compacting its file before it lets go of it (DuckDB: copying
   * it without its free blocks, compaction.ts; issue 12 item 3). Absent or 0: no compaction.
   */
  compactWithinMs?: number;
  /** Where a line for the operator's log goes (what compaction did, or why it did not). */
  report?: (line: string) => void;
}
