// The next write's log chunks, built while DuckDB commits the write before it (issue 12 item 1). A write's COMMIT
// runs on a libuv thread for 0.3-0.8 s on the bench's 245,760-row writes, and the store worker's thread sat idle
// through it: ~30 % of its time under full load. Parsing the lines and filling the chunks (log-appender.ts
// logChunks) needs no transaction, so the worker does that for the next write meanwhile; the write then appends the
// chunks built and builds the rest as before. Only the appending stays inside the transaction, and the WAL
// position is still checked there: a write that is skipped drops its chunks unappended.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { DuckDBDataChunk } from '@duckdb/node-api';
import type { TenantBatch } from '../../../model/batch.js';
import type { FieldColumn } from './field-columns.js';
import { logChunks, type PreparedLogs } from './log-appender.js';

/**
 * Most chunks built ahead (2,048 rows each): ~130,000 rows, the rows the worker fills during a commit of the bench's
 * writes, and ~40 MB of DuckDB vectors for its ~300-byte entries.
 */
export const MAX_CHUNKS_AHEAD = 64;

export class LogPrefetch {
  private readonly built: DuckDBDataChunk[] = [];
  private readonly rest: Generator<DuckDBDataChunk, void>;
  private stopped = false;
  private failure: { error: unknown } | null = null;

  /**
   * Starts building the chunks of `batches` for a table of `columns` (the first `writable` filled) once `start`
   * resolves: when the write before reaches its COMMIT.
   */
  constructor(readonly batches: TenantBatch[], private readonly columns: readonly FieldColumn[], writable: number, start: Promise<void>) {
    this.rest = logChunks(batches, columns, writable);
    void start.then(() => this.build());
  }

  /** Built chunk by chunk, yielding between them: the COMMIT's completion and the reads are served in between. */
  private async build(): Promise<void> {
    while (!this.stopped && this.built.length < MAX_CHUNKS_AHEAD) {
      try {
        const next = this.rest.next();
        if (next.done === true) return;
        this.built.push(next.value);
      } catch (e) {
        // Thrown again by take(), as the write would have thrown it while appending.
        this.failure = { error: e };
        return;
      }
      await yieldToLoop();
    }
  }

  /**
   * Stops building and hands over the chunks, for a write into a table of `columns`; null, with the chunks dropped,
   * when a column was added since they were begun (field-promotion.ts): they are then built again. A column the
   * writer may fill since (field-layout.ts) is left NULL in them, its key kept in the JSON, which every read finds.
   */
  take(columns: readonly FieldColumn[]): PreparedLogs | null {
    this.stopped = true;
    if (this.failure) throw this.failure.error;
    if (columns !== this.columns) {
      this.drop();
      return null;
    }
    return { built: this.built, rest: this.rest };
  }

  /** Stops building and lets every chunk go unappended. */
  drop(): void {
    this.stopped = true;
    this.built.length = 0;
    this.rest.return();
  }
}
