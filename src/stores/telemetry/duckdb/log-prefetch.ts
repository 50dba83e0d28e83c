// The next write's log chunks, built while DuckDB commits the write before it (chunks-ahead.ts; issue 12 item 1):
// ~30 % of the store worker's time under full NDJSON load had been that wait. Parsing the lines and filling the
// chunks (log-appender.ts logChunks) needs no transaction; only the appending stays inside it, and the WAL position
// is still checked there: a write that is skipped drops its chunks unappended.
import type { TenantBatch } from '../../../model/batch.js';
import { ChunksAhead, type PreparedChunks } from './chunks-ahead.js';
import type { FieldColumn } from './field-columns.js';
import { logChunks } from './log-appender.js';
import type { TenantRefs } from './sample-tenants.js';

/**
 * Most chunks built ahead (2,048 rows each): 245,760 rows, a whole write of the drain's (wal.ts batchRows), ~75 MB of
 * DuckDB vectors for the bench's ~300-byte entries. At 64 the worker filled its 64 during a commit and then waited
 * (~25 % of its thread idle under full NDJSON load); five interleaved harness pairs stored 128,149 / 123,862 / 124,750 /
 * 126,610 / 109,325 entries/s at 120 against 112,295 / 119,935 / 115,895 / 112,796 / 103,393 at 64. Tried at 120 twice
 * before (within noise then, while other costs held the worker).
 */
export const MAX_CHUNKS_AHEAD = 120;

export class LogPrefetch {
  private readonly ahead: ChunksAhead;

  /**
   * Starts building the chunks of `batches` for a table of `columns` (the first `writable` filled) once `start`
   * resolves: when the write before reaches its COMMIT. `tenants` numbers the rows' tenants.
   */
  constructor(
    readonly batches: TenantBatch[], private readonly columns: readonly FieldColumn[], writable: number, tenants: TenantRefs,
    start: Promise<void>,
  ) {
    this.ahead = new ChunksAhead(logChunks(batches, columns, writable, tenants), MAX_CHUNKS_AHEAD, start);
  }

  /**
   * Stops building and hands over the chunks, for a write into a table of `columns`; null, with the chunks dropped,
   * when a column was added since they were begun (field-promotion.ts): they are then built again. A column the
   * writer may fill since (field-layout.ts) is left NULL in them, its key kept in the JSON, which every read finds.
   */
  take(columns: readonly FieldColumn[]): PreparedChunks | null {
    const prepared = this.ahead.take();
    if (columns !== this.columns) {
      this.drop();
      return null;
    }
    return prepared;
  }

  /** Stops building and lets every chunk go unappended. */
  drop(): void {
    this.ahead.drop();
  }
}
