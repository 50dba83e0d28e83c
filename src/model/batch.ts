// One normalized batch: what a parser returns and what the pipeline, WAL and stores pass along.
import type { LogEntry } from './log-entry.js';
import type { Span } from './span.js';
import type { MetricMetadata, MetricSample } from './metric.js';
import type { ReplayChunk } from './replay.js';

/** The metering signals of the spec's "Billable unit" (one unified counter, split for reporting). */
export const SIGNALS = ['logs', 'traces', 'metrics', 'rum', 'replay'] as const;
export type Signal = (typeof SIGNALS)[number];

export interface Batch {
  logs: LogEntry[];
  spans: Span[];
  /** Metric samples and family metadata (app plane metric paths); absent on log/trace batches. */
  samples?: MetricSample[];
  metadata?: MetricMetadata[];
  /** Session replay chunks (/v1/rum/replay); absent elsewhere. */
  replay?: ReplayChunk[];
}

export function emptyBatch(): Batch {
  return { logs: [], spans: [] };
}

/** Whether the batch holds nothing to store (then nothing is written to the WAL). */
export function batchIsEmpty(batch: Batch): boolean {
  return batch.logs.length === 0 && batch.spans.length === 0 && (batch.samples?.length ?? 0) === 0
    && (batch.metadata?.length ?? 0) === 0 && (batch.replay?.length ?? 0) === 0;
}

/**
 * Entries counted by the ingest rate limiters (spec, Ingest rate: entries/s): one per log record or span.
 * Metric samples and replay chunks are bounded by the body caps and the daily volume instead.
 */
export function batchEntryCount(batch: Batch): number {
  return batch.logs.length + batch.spans.length;
}

/** A batch bound to its tenant, as the WAL and the telemetry store hold it. */
export interface TenantBatch {
  tenantId: string;
  /** Wire format it came in as (`native`, `otlp`, `loki`, …), stored with each row. */
  format: string;
  batch: Batch;
}
