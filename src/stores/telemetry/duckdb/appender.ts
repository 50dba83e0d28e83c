// One DuckDB appender over `fill`, inside the writer's open transaction (duckdb-store.ts write()).
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';

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
