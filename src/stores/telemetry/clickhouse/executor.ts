// How the ClickHouse store's parts talk to the engine (DESIGN §10): a ClickHouse server through @clickhouse/client,
// or the engine in-process through chdb's connection plugged into the same client. Values always travel as query
// parameters (`{name:Type}` in the SQL, the values in `params`), never spliced into the text (issue 11 item 3).

import type { ChunkSink } from '../sql/dialect.js';

export type ChParams = Record<string, unknown>;

export interface ChExecutor {
  /** Rows of a SELECT (JSONEachRow; 64-bit integers come back as strings). */
  query(sql: string, params?: ChParams): Promise<Record<string, unknown>[]>;
  /**
   * Rows of a SELECT handed over in chunks as they arrive (issue 12 item 5; the contract of sql/dialect.ts SqlStreamer):
   * the next chunk is read only once `onChunk` resolved; false or `signal` stops the query.
   */
  stream(sql: string, params: ChParams, onChunk: ChunkSink<Record<string, unknown>>, signal?: AbortSignal): Promise<void>;
  /** DDL and other statements without rows. */
  command(sql: string, params?: ChParams): Promise<void>;
  /**
   * Inserts rows into `table`. With `dedupToken`, a retry of the same insert (the WAL replaying after a crash between
   * insert and checkpoint) is dropped by the engine's insert deduplication (issue 11 item 4).
   */
  insert(table: string, rows: readonly Record<string, unknown>[], opts?: { dedupToken?: string }): Promise<void>;
}
