// A table's columns as DuckDB has them, in order: for the check at open (duckdb-store.ts) and the migrations that ask
// which layout a file has (sample-tenants.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import { str } from '../sql/span-rows.js';

export async function tableColumns(c: DuckDBConnection, table: string): Promise<string[]> {
  const r = await c.runAndReadAll(
    `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = 'main'
     ORDER BY ordinal_position`, [table]);
  return r.getRowObjectsJS().map((row) => str(row.column_name));
}
