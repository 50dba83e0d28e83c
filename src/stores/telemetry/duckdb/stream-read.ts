// Streamed reads on DuckDB (issue 12 item 5: no silent cap on results, bounded memory). DuckDB's streaming result
// (`connection.stream`) produces its rows a vector (2048) at a time as they are fetched, instead of materializing the
// whole answer; this gathers them into chunks of STREAM_CHUNK_ROWS and fetches on only once the consumer has taken
// the previous chunk. A query with ORDER BY still sorts inside DuckDB first (its sort spills past `memory_limit`), but
// no result set is ever held in JavaScript.
//
// Each stream runs on a connection of its own, opened for it and closed after: a slow client may keep a stream open
// for minutes, and it must not hold one of the pooled read connections that every other query queues on. Stopping —
// the consumer says false, or the signal aborts (client gone, store closing) — interrupts the statement wherever it
// is (even in the middle of a sort) and closing the connection releases its result.
import type { DuckDBInstance } from '@duckdb/node-api';
import { STREAM_CHUNK_ROWS, type ChunkSink, type SqlParam } from '../sql/dialect.js';

export async function streamRows(
  instance: DuckDBInstance, sql: string, params: SqlParam[], onChunk: ChunkSink<Record<string, unknown>>, signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted) return;
  const conn = await instance.connect();
  const interrupt = (): void => conn.interrupt();
  signal?.addEventListener('abort', interrupt, { once: true });
  try {
    const result = await conn.stream(sql, params);
    let chunk: Record<string, unknown>[] = [];
    for await (const rows of result.yieldRowObjectJs()) {
      for (const r of rows) {
        chunk.push(r);
        if (chunk.length < STREAM_CHUNK_ROWS) continue;
        const more = await onChunk(chunk);
        chunk = [];
        if (!more || signal?.aborted) return;
      }
    }
    if (chunk.length > 0 && !signal?.aborted) await onChunk(chunk);
  } catch (e) {
    // The interrupt asked for by the signal surfaces as DuckDB's "Interrupted" error: that is the stop, not a failure.
    if (signal?.aborted) return;
    throw e;
  } finally {
    signal?.removeEventListener('abort', interrupt);
    conn.closeSync();
  }
}
