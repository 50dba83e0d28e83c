// One normalized batch: what a parser returns and what the pipeline, WAL and stores pass along.
import type { LogEntry } from './log-entry.js';
import type { Span } from './span.js';

/** The metering signals of the spec's "Billable unit" (one unified counter, split for reporting). */
export const SIGNALS = ['logs', 'traces', 'metrics', 'rum', 'replay'] as const;
export type Signal = (typeof SIGNALS)[number];

export interface Batch {
  logs: LogEntry[];
  spans: Span[];
}

export function emptyBatch(): Batch {
  return { logs: [], spans: [] };
}

/** Entries counted by the rate limiters: one per log record or span. */
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
