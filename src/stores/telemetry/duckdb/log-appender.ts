// Log entries into the `logs` table inside the writer's open transaction (duckdb-store.ts write()), a chunk of rows at
// a time (chunk-writer.ts), inserted by DuckDB from a table function (chunk-insert.ts). The columns are positional:
// the fixed ones, `field_order`, then every promoted field column of the table (field-columns.ts) — filled for the
// `writable` ones, NULL for any the writer may not fill yet (field-layout.ts).
import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { logCount, logWindowsOf, type TenantBatch } from '../../../model/batch.js';
import type { LogEntry } from '../../../model/log-entry.js';
import { PlainRow, type PlainLines } from '../../../model/plain-row.js';
import type { PreparedChunks } from './chunks-ahead.js';
import type { ChunkInserter, InsertColumn } from './chunk-insert.js';
import { ChunkWriter, type ColumnKind } from './chunk-writer.js';
import { FieldSplitter, FIELD_ORDER_COLUMN, type FieldColumn, type FieldKind } from './field-columns.js';
import { COLUMN, int64, PlainRowWriter, type RowSink } from './plain-row-writer.js';
import type { TenantRefs } from './sample-tenants.js';

export { int64 };

/** The fixed columns of `logs` in table order (schema.ts), then the field-order column the migration adds. */
export const LOG_COLUMNS = ['tenant_ref', 'time_ns', 'observed_ns', 'service', 'severity', 'msg', 'trace_id', 'span_id',
  'stream', 'fields', 'format', FIELD_ORDER_COLUMN];
const FIXED_KINDS: ColumnKind[] = ['bigint', 'bigint', 'bigint', 'varchar', 'varchar', 'varchar', 'varchar', 'varchar',
  'varchar', 'varchar', 'varchar', 'varchar'];
const KIND_COLUMN: Record<FieldKind, ColumnKind> = { text: 'varchar', int: 'bigint', uuid: 'uuid' };

/** The kinds of a `logs` chunk's columns, with `columns` promoted. */
function kindsOf(columns: readonly FieldColumn[]): ColumnKind[] {
  return [...FIXED_KINDS, ...columns.map((col) => KIND_COLUMN[col.kind])];
}

/** Rows appended between yields inside a write (~2-5 ms of appender calls): keeps the event loop free for acks. */
export const ROWS_PER_YIELD = 1024;

/**
 * Inserts every log of `batches` through `inserter` (registered on `c`), yielding between chunks (DESIGN §1: the
 * drain must yield). `columns` are the table's promoted columns; the writer fills the first `writable` of them.
 * `ahead`, when given, holds the first of these chunks already built (log-prefetch.ts) and builds the rest. A row's
 * tenant is its number in `tenants`; the caller records new numbers in metric_tenants (sample-tenants.ts recordTenants).
 */
export async function appendLogs(
  c: DuckDBConnection, inserter: ChunkInserter, batches: TenantBatch[], columns: readonly FieldColumn[], writable: number,
  tenants: TenantRefs, ahead?: PreparedChunks,
): Promise<void> {
  if (!batches.some((b) => logCount(b.batch) > 0)) return;
  const kinds = kindsOf(columns);
  const into: InsertColumn[] = [...LOG_COLUMNS, ...columns.map((col) => col.column)]
    .map((name, i) => ({ name, kind: kinds[i] ?? 'varchar', json: name === 'fields' }));
  await inserter.insert(c, 'logs', into, ahead ?? { built: [], rest: logChunks(batches, columns, writable, tenants) });
}

/** The numbers of the tenants whose logs `batches` hold (appendLogs() writes them), for recordTenants(). */
export function logTenantsOf(batches: readonly TenantBatch[], tenants: TenantRefs): Map<string, number> {
  const out = new Map<string, number>();
  for (const { tenantId, batch } of batches) if (logCount(batch) > 0) out.set(tenantId, tenants.refOf(tenantId));
  return out;
}

/**
 * The logs of `batches` as full chunks of rows (the last of each batch may be short), built one at a time as they are
 * asked for: a chunk holds one batch's rows, so its tenant and format are constants of the chunk. Building needs no
 * transaction, so a write's chunks can be built while the write before it commits (log-prefetch.ts).
 */
export function* logChunks(
  batches: TenantBatch[], columns: readonly FieldColumn[], writable: number, tenants: TenantRefs,
): Generator<DuckDBDataChunk, void> {
  const rowOf = new EntryRows(columns, writable);
  const w = new ChunkWriter(kindsOf(columns));
  for (const { tenantId, format, batch } of batches) {
    const tenantRef = BigInt(tenants.refOf(tenantId));
    const lines = batch.logWindows?.lines;
    if (lines !== undefined) {
      // A native body: each line written from its bytes where it reads in place, else parsed (plain-row-writer.ts).
      for (let i = 0; i < lines.count; i++) {
        if (w.rows === 0) {
          w.constant(0, tenantRef);
          w.constant(10, format);
        }
        if (rowOf.line(w, lines, i) && w.endRow()) yield w.take() as DuckDBDataChunk;
      }
    } else {
      // Parsed window by window when the batch came so (model/batch.ts LogWindows): appended before the next is made.
      for (const logs of logWindowsOf(batch)) for (const e of logs) {
        if (w.rows === 0) {
          w.constant(0, tenantRef);
          w.constant(10, format);
        }
        rowOf.entry(w, e);
        if (w.endRow()) yield w.take() as DuckDBDataChunk;
      }
    }
    const last = w.take();
    if (last) yield last;
  }
}

/** Writes rows of `logs` from parsed entries, or from lines read in place (PlainLines). */
export class EntryRows {
  private readonly splitter: FieldSplitter;
  private readonly plain: PlainRowWriter;
  private readonly row = new PlainRow();

  /** `columns`: the table's promoted columns, of which the writer fills the first `writable`. */
  constructor(private readonly columns: readonly FieldColumn[], private readonly writable: number) {
    this.splitter = new FieldSplitter(columns.slice(0, writable));
    this.plain = new PlainRowWriter(columns.slice(0, writable), LOG_COLUMNS.length);
  }

  /** Line `i` of `lines` as the current row; false when it no longer parses (nothing written: see PlainLines). */
  line(w: RowSink, lines: PlainLines, i: number): boolean {
    if (lines.read(i, this.row)) {
      this.plain.write(w, this.row);
      for (let c = this.writable; c < this.columns.length; c++) w.null(LOG_COLUMNS.length + c);
      return true;
    }
    const e = lines.entry(i);
    if (e === undefined) return false;
    this.entry(w, e);
    return true;
  }

  /** One parsed entry as the current row. */
  entry(w: RowSink, e: LogEntry): void {
    const columns = this.columns;
    const fixed = LOG_COLUMNS.length;
    const f = this.splitter.split(e.fields);
    w.bigint(COLUMN.time, int64(e.timeNs));
    w.bigint(COLUMN.observed, int64(e.observedNs));
    w.string(COLUMN.service, e.service);
    w.string(COLUMN.severity, e.severity);
    w.string(COLUMN.msg, e.msg);
    // None is NULL (schema.ts LOGS_TABLE_SQL); so is the stream, which reads derive from `service` then.
    if (e.traceId === '') w.null(COLUMN.traceId);
    else w.string(COLUMN.traceId, e.traceId);
    if (e.spanId === '') w.null(COLUMN.spanId);
    else w.string(COLUMN.spanId, e.spanId);
    if (e.stream === '') w.null(COLUMN.stream);
    else w.string(COLUMN.stream, e.stream);
    if (f.json === '{}') w.null(COLUMN.fields);
    else w.string(COLUMN.fields, f.json);
    if (f.order === null) w.null(COLUMN.order);
    else w.string(COLUMN.order, f.order);
    for (let i = 0; i < columns.length; i++) {
      const v = f.values[i];
      const col = fixed + i;
      if (v === undefined) w.null(col);
      else if (typeof v === 'number') w.bigint(col, BigInt(v));
      else if (columns[i]?.kind === 'uuid') w.uuid(col, v);
      else w.string(col, v);
    }
  }
}
