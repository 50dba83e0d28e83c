// Metric samples into DuckDB inside the store's write transaction (issue 5): each new series once, every
// sample through an appender (the hot path: a remote-write request may carry 500,000), metadata once.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TenantBatch } from '../../../model/batch.js';
import { sampleRows, type SeriesRow } from './samples-sql.js';
import { withAppender } from './appender.js';

/** Rows per INSERT OR IGNORE of series / metadata: new series are few next to samples. */
const ROWS_PER_STATEMENT = 400;

export async function appendMetrics(c: DuckDBConnection, batches: TenantBatch[]): Promise<void> {
  const series = new Map<string, SeriesRow>();
  const samples: ReturnType<typeof sampleRows>['samples'][] = [];
  const metadata: [string, string, string, string, string][] = [];
  for (const { tenantId, batch } of batches) {
    if (batch.samples && batch.samples.length > 0) {
      const rows = sampleRows(tenantId, batch.samples);
      for (const s of rows.series) series.set(`${s.tenantId}\u0000${s.seriesId}`, s);
      samples.push(rows.samples);
    }
    for (const m of batch.metadata ?? []) metadata.push([tenantId, m.name, m.type, m.help, m.unit]);
  }
  await insertIgnoring(c, 'metric_series', '($1, $2, $3, CAST($4 AS JSON))', 4,
    [...series.values()].map((s) => [s.tenantId, s.seriesId, s.name, s.labelsJson]));
  await insertIgnoring(c, 'metric_metadata', '($1, $2, $3, $4, $5)', 5, metadata);
  if (samples.length === 0) return;
  await withAppender(c, 'metric_samples', (a) => {
    for (const rows of samples) {
      for (const r of rows) {
        a.appendVarchar(r.tenantId);
        a.appendBigInt(r.seriesId);
        a.appendVarchar(r.name);
        a.appendBigInt(r.timeMs);
        a.appendDouble(r.value);
        a.appendBoolean(r.stale);
        a.endRow();
      }
    }
  });
}

/** INSERT OR IGNORE in chunks; `tuple` is written for parameters $1…$width and renumbered per row. */
async function insertIgnoring(c: DuckDBConnection, table: string, tuple: string, width: number,
  rows: (string | bigint)[][]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    const values = chunk.map((_, j) => tuple.replace(/\$(\d+)/g, (_m, n: string) => `$${j * width + Number(n)}`));
    await c.run(`INSERT OR IGNORE INTO ${table} VALUES ${values.join(', ')}`, chunk.flat());
  }
}
