// A write's chunks built ahead, while DuckDB commits the write before it (issue 12 items 1 and 2). A write's COMMIT
// runs on a libuv thread for 0.3-0.8 s on the bench's 245,760-row writes, and the store worker's thread sat idle
// through it. Filling chunks needs no transaction, so the worker fills the next write's meanwhile (log-prefetch.ts,
// metrics-store.ts); the write appends those, then builds and appends the rest as before.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { DuckDBDataChunk } from '@duckdb/node-api';

/** Chunks built, and the generator of the rest, for a write to append in that order. */
export interface PreparedChunks {
  built: DuckDBDataChunk[];
  rest: Generator<DuckDBDataChunk, void>;
}

export class ChunksAhead {
  private readonly built: DuckDBDataChunk[] = [];
  private stopped = false;
  private failure: { error: unknown } | null = null;

  /** Builds up to `max` chunks of `rest` once `start` resolves: when the write before reaches its COMMIT. */
  constructor(private readonly rest: Generator<DuckDBDataChunk, void>, private readonly max: number, start: Promise<void>) {
    void start.then(() => this.build());
  }

  /** Built chunk by chunk, yielding between them: the COMMIT's completion and the reads are served in between. */
  private async build(): Promise<void> {
    while (!this.stopped && this.built.length < this.max) {
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

  /** Stops building and hands over the chunks; throws what building threw. */
  take(): PreparedChunks {
    this.stopped = true;
    if (this.failure) throw this.failure.error;
    return { built: this.built, rest: this.rest };
  }

  /** Stops building and lets every chunk go unappended. */
  drop(): void {
    this.stopped = true;
    this.built.length = 0;
    this.rest.return();
  }
}
