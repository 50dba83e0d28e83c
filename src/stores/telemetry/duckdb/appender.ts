// One DuckDB appender over `fill`, inside the writer's open transaction (duckdb-store.ts write()).
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { PreparedChunks } from './chunks-ahead.js';
import { recycleChunk } from './chunk-writer.js';

export async function withAppender(c: DuckDBConnection, table: string, fill: (a: DuckDBAppender) => void | Promise<void>): Promise<void> {
  const a = await c.createAppender(table);
  try {
    await fill(a);
    a.closeSync(); // flushes the buffered rows into the open transaction
  } catch (e) {
    try { a.clear(); a.closeSync(); } catch { /* the transaction is rolled back anyway */ }
    throw e;
  }
}

/**
 * Appends the chunks built, then builds and appends the rest one at a time, yielding after each (DESIGN §1: the
 * drain must yield).
 */
export async function appendChunks(c: DuckDBConnection, table: string, chunks: PreparedChunks): Promise<void> {
  await withAppender(c, table, async (a) => {
    for (const chunk of chunks.built) {
      a.appendDataChunk(chunk);
      recycleChunk(chunk);
    }
    chunks.built.length = 0;
    for (const chunk of chunks.rest) {
      a.appendDataChunk(chunk);
      recycleChunk(chunk);
      await yieldToLoop();
    }
  });
}
