// Log entries into the `logs` table through one DuckDB appender, inside the writer's open transaction
// (duckdb-store.ts write()), a chunk of rows at a time (chunk-writer.ts). The columns are positional: the fixed ones,
// `field_order`, then every promoted field column of the table (field-columns.ts) — filled for the `writable` ones,
// NULL for any the writer may not fill yet (field-layout.ts).
import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { logCount, logWindowsOf, type TenantBatch } from '../../../model/batch.js';
import type { LogEntry } from '../../../model/log-entry.js';
import { appendChunks } from './appender.js';
import type { PreparedChunks } from './chunks-ahead.js';
import { ChunkWriter, type ColumnKind } from './chunk-writer.js';
import { FieldSplitter, FIELD_ORDER_COLUMN, type FieldColumn, type FieldKind } from './field-columns.js';

/** The fixed columns of `logs` in table order (schema.ts), then the field-order column the migration adds. */
export const LOG_COLUMNS = ['tenant_id', 'time_ns', 'observed_ns', 'service', 'severity', 'msg', 'trace_id', 'span_id',
  'stream', 'fields', 'format', FIELD_ORDER_COLUMN];
const FIXED_KINDS: ColumnKind[] = ['varchar', 'bigint', 'bigint', 'varchar', 'varchar', 'varchar', 'varchar', 'varchar',
  'varchar', 'varchar', 'varchar', 'varchar'];
const KIND_COLUMN: Record<FieldKind, ColumnKind> = { text: 'varchar', int: 'bigint', uuid: 'uuid' };

/** Rows appended between yields inside a write (~2-5 ms of appender calls): keeps the event loop free for acks. */
export const ROWS_PER_YIELD = 1024;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Appends every log of `batches`, yielding after each chunk (DESIGN §1: the drain must yield). `columns` are the
 * table's promoted columns; the writer fills the first `writable` of them. `ahead`, when given, holds the first of
 * these chunks already built (log-prefetch.ts) and builds the rest.
 */
export async function appendLogs(
  c: DuckDBConnection, batches: TenantBatch[], columns: readonly FieldColumn[], writable: number, ahead?: PreparedChunks,
): Promise<void> {
  if (!batches.some((b) => logCount(b.batch) > 0)) return;
  await appendChunks(c, 'logs', ahead ?? { built: [], rest: logChunks(batches, columns, writable) });
}

/**
 * The logs of `batches` as full chunks of rows (the last of each batch may be short), built one at a time as they are
 * asked for: a chunk holds one batch's rows, so its tenant and format are constants of the chunk. Building needs no
 * transaction, so a write's chunks can be built while the write before it commits (log-prefetch.ts).
 */
export function* logChunks(batches: TenantBatch[], columns: readonly FieldColumn[], writable: number): Generator<DuckDBDataChunk, void> {
  const splitter = new FieldSplitter(columns.slice(0, writable));
  const fixed = LOG_COLUMNS.length;
  const w = new ChunkWriter([...FIXED_KINDS, ...columns.map((col) => KIND_COLUMN[col.kind])]);
  for (const { tenantId, format, batch } of batches) {
    // Parsed window by window when the batch came so (model/batch.ts LogWindows): appended before the next is made.
    for (const logs of logWindowsOf(batch)) for (const e of logs) {
      if (w.rows === 0) {
        w.constant(0, tenantId);
        w.constant(10, format);
      }
      const f = splitter.split(e.fields);
      w.bigint(1, int64(e.timeNs));
      w.bigint(2, int64(e.observedNs));
      w.string(3, e.service);
      w.string(4, e.severity);
      w.string(5, e.msg);
      w.string(6, e.traceId);
      w.string(7, e.spanId);
      w.string(8, streamOf(e));
      w.string(9, f.json);
      if (f.order === null) w.null(11);
      else w.string(11, f.order);
      for (let i = 0; i < columns.length; i++) {
        const v = f.values[i];
        const col = fixed + i;
        if (v === undefined) w.null(col);
        else if (typeof v === 'number') w.bigint(col, BigInt(v));
        else if (columns[i]?.kind === 'uuid') w.uuid(col, v);
        else w.string(col, v);
      }
      if (w.endRow()) yield w.take() as DuckDBDataChunk;
    }
    const last = w.take();
    if (last) yield last;
  }
}

/**
 * `_stream` when the format gave none: VictoriaLogs' stream labels, here from `service` alone
 * (model/log-entry.ts: "the store then derives it from service").
 */
export function streamOf(e: LogEntry): string {
  if (e.stream !== '') return e.stream;
  if (e.service === '') return '{}';
  let stream = streamsOfServices.get(e.service);
  if (stream === undefined) {
    stream = `{service="${e.service.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"}`;
    if (streamsOfServices.size >= MAX_SERVICE_STREAMS) streamsOfServices.clear();
    streamsOfServices.set(e.service, stream);
  }
  return stream;
}

/**
 * The streams made from services: services are few and repeat on every row, and one string per service (not one per
 * row) also lets the chunk writer find a repeat by a hash the string already holds (chunk-writer.ts repeats()).
 * Bounded: past the limit it starts again empty.
 */
const streamsOfServices = new Map<string, string>();
const MAX_SERVICE_STREAMS = 10_000;

/** A time outside int64 would fail the whole write and stall the drain; clamp instead (never drop). */
export function int64(v: bigint): bigint {
  return v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : v;
}
