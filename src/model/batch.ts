// One normalized batch: what a parser returns and what the pipeline, WAL and stores pass along.
import type { PlainLines } from './plain-row.js';
import type { LogEntry } from './log-entry.js';
import type { Span } from './span.js';
import type { MetricMetadata, MetricSample, SampleColumns } from './metric.js';
import type { ReplayChunk } from './replay.js';

/** The metering signals of the spec's "Billable unit" (one unified counter, split for reporting). */
export const SIGNALS = ['logs', 'traces', 'metrics', 'rum', 'replay'] as const;
export type Signal = (typeof SIGNALS)[number];

export interface Batch {
  logs: LogEntry[];
  /**
   * Log entries still to be parsed, a window at a time, by a store that appends each window before it parses the next
   * (the DuckDB worker; issue 12 item 1). When set, `logs` is empty and these are the batch's entries.
   */
  logWindows?: LogWindows;
  spans: Span[];
  /** Metric samples and family metadata (app plane metric paths); absent on log/trace batches. */
  samples?: MetricSample[];
  metadata?: MetricMetadata[];
  /**
   * Samples and metadata still to be parsed, by a store that reads each batch only when its write reaches it (the
   * DuckDB worker; issue 12 item 2). When set, `samples` and `metadata` are absent and these are the batch's.
   */
  deferredSamples?: DeferredSamples;
  /** Session replay chunks (/v1/rum/replay); absent elsewhere. */
  replay?: ReplayChunk[];
}

/**
 * A batch's log entries, parsed as they are read: a store's write of 250,000 entries then never holds them all at
 * once, so they die young instead of being promoted and marked by the garbage collector.
 */
export interface LogWindows {
  /** How many entries there are in all. */
  readonly count: number;
  /** Every entry in order, a window of up to a few thousand at a time; each call starts from the first. */
  windows(): Iterable<LogEntry[]>;
  /** `n` entries picked at random (with repeats), parsed for the purpose; every entry in order when `n` ≥ count. */
  sample(n: number): LogEntry[];
  /** Set when sample() decodes the whole body whatever `n` (OTLP's protobuf): a sampler then takes many rows seldom. */
  readonly wholeBodySample?: boolean;
  /**
   * The same entries as lines a store may read in place (model/plain-row.ts), a line at a time, instead of windows():
   * set for native NDJSON bodies of pure ASCII, and for OTLP protobuf log bodies (a record a line).
   */
  readonly lines?: PlainLines;
}

/** A batch's metric samples and metadata, parsed when read: a write then holds one request's at a time. */
export interface DeferredSamples {
  /** Store rows the batch gives (its WAL record's count). */
  readonly rows: number;
  /** Parses them; each call parses again. */
  read(): { samples: MetricSample[]; metadata: MetricMetadata[] };
  /**
   * The same samples and metadata as columns, when the format can read its body so (remote write 1.0 float samples:
   * remote-write-wire.ts); null when it cannot, and read() gives them.
   */
  readColumns?(): SampleColumns | null;
}

/** A batch's samples and metadata, parsing them if they were deferred. */
export function samplesOf(batch: Batch): { samples: MetricSample[]; metadata: MetricMetadata[] } {
  return batch.deferredSamples ? batch.deferredSamples.read() : { samples: batch.samples ?? [], metadata: batch.metadata ?? [] };
}

/** How many log entries a batch holds, parsed or not. */
export function logCount(batch: Batch): number {
  return batch.logs.length + (batch.logWindows?.count ?? 0);
}

/** A batch's log entries in order, a window at a time (`logs` as one window when they are parsed already). */
export function logWindowsOf(batch: Batch): Iterable<LogEntry[]> {
  return batch.logWindows ? batch.logWindows.windows() : [batch.logs];
}

/** `n` of a batch's log entries picked at random (with repeats); all of them in order when `n` ≥ logCount(batch). */
export function logSample(batch: Batch, n: number): LogEntry[] {
  if (n <= 0) return [];
  return batch.logWindows ? batch.logWindows.sample(n) : pickAtRandom(batch.logs, n);
}

/** `n` of `logs` picked at random (with repeats); all of them, in order, when `n` ≥ their number. */
export function pickAtRandom(logs: LogEntry[], n: number): LogEntry[] {
  if (n >= logs.length) return logs;
  return Array.from({ length: n }, () => logs[Math.floor(Math.random() * logs.length)] as LogEntry);
}

export function emptyBatch(): Batch {
  return { logs: [], spans: [] };
}

/** Whether the batch holds nothing to store (then nothing is written to the WAL). */
export function batchIsEmpty(batch: Batch): boolean {
  return logCount(batch) === 0 && batch.spans.length === 0 && (batch.samples?.length ?? 0) === 0
    && (batch.metadata?.length ?? 0) === 0 && (batch.replay?.length ?? 0) === 0 && (batch.deferredSamples?.rows ?? 0) === 0;
}

/**
 * Entries counted by the ingest rate limiters (spec, Ingest rate: entries/s): one per log record or span.
 * Metric samples and replay chunks are bounded by the body caps and the daily volume instead.
 */
export function batchEntryCount(batch: Batch): number {
  return logCount(batch) + batch.spans.length;
}

/** A batch bound to its tenant, as the WAL and the telemetry store hold it. */
export interface TenantBatch {
  tenantId: string;
  /** Wire format it came in as (`native`, `otlp`, `loki`, …), stored with each row. */
  format: string;
  batch: Batch;
}
