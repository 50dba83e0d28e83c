// A RowSink that records a row's values by column, for the tests that hold a row written from bytes
// (plain-row-writer.ts) to the row of the parsed entry (log-appender.ts EntryRows.entry).
import type { RowSink } from './plain-row-writer.js';

/** Records a row's values by column, strings given as bytes decoded, integers as BigInt. */
export class RecordingSink implements RowSink {
  row = new Map<number, unknown>();
  bigint(column: number, value: bigint): void {
    this.row.set(column, value);
  }
  int(column: number, value: number): void {
    this.row.set(column, BigInt(value));
  }
  string(column: number, value: string): void {
    this.row.set(column, value);
  }
  bytes(column: number, src: Uint8Array, start: number, end: number, lower = false): void {
    const text = Buffer.from(src.subarray(start, end)).toString('utf8');
    this.row.set(column, lower ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text);
  }
  span(column: number, src: Uint8Array, start: number, end: number, lower = false): void {
    this.bytes(column, src, start, end, lower);
  }
  uuid(column: number, value: string): void {
    this.row.set(column, `uuid:${value}`);
  }
  null(column: number): void {
    this.row.set(column, null);
  }
}
