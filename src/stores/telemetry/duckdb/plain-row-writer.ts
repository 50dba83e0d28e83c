// A native line read in place (model/plain-row.ts) written as a `logs` row, with what logChunks writes for the
// LogEntry the same line parses to (log-appender.ts writeEntry): the same column values, the `fields` text equal to
// FieldSplitter.split()'s JSON.stringify of the keys left over. The strings go in as bytes of the body (ChunkWriter
// bytes()), and the `fields` text is put together from the spans of the values it keeps, each one already in the form
// JSON.stringify would write it (native-plain.ts takes only such lines, or reads the value itself): issue 12 item 1's
// "keep the unparsed remainder as text instead of re-serializing it".
import { PlainRow, ValueKind, type FieldName, type StringSpan } from '../../../model/plain-row.js';
import type { ChunkWriter } from './chunk-writer.js';
import { fits, type FieldColumn, type FieldKind } from './field-columns.js';

/** The ChunkWriter calls a row takes (a test records them instead). */
export type RowSink = Pick<ChunkWriter, 'bigint' | 'int' | 'string' | 'bytes' | 'span' | 'uuid' | 'null'>;

/** Column positions of `logs` (log-appender.ts LOG_COLUMNS). */
export const COLUMN = { time: 1, observed: 2, service: 3, severity: 4, msg: 5, traceId: 6, spanId: 7, stream: 8, fields: 9, order: 11 } as const;

const QUOTE = 0x22;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A time outside int64 would fail the whole write and stall the drain; clamp instead (never drop). */
export function int64(v: bigint): bigint {
  return v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : v;
}

const LITERAL = {
  [ValueKind.True]: Buffer.from('true'),
  [ValueKind.False]: Buffer.from('false'),
  [ValueKind.Null]: Buffer.from('null'),
  [ValueKind.EmptyObject]: Buffer.from('"{}"'),
} as const;

interface PromotedColumn {
  readonly index: number;
  readonly kind: FieldKind;
}

export class PlainRowWriter {
  private readonly byKey = new Map<string, PromotedColumn>();
  /** By field place: the name the last row had there, and its promoted column (field names are the same objects). */
  private readonly placeNames: (FieldName | undefined)[] = [];
  private readonly placeColumns: (PromotedColumn | undefined)[] = [];
  /** Per promoted column: the row's field holding its value, or -1. */
  private readonly promoted: Int32Array;
  /** The names of the last row whose order was not canonical, and that order's text (orderOf()). */
  private orderNames: FieldName[] = [];
  private order = '[]';
  /** By field place: the last Text value there, and its JSON text once it came twice in a row (putValue()). */
  private readonly placeTexts: (string | undefined)[] = [];
  private readonly placeJson: (Uint8Array | undefined)[] = [];
  /** The `fields` text being put together. */
  private json = Buffer.allocUnsafe(4096);
  private length = 0;

  /**
   * `columns`: the promoted columns the writer may fill (FieldSplitter's); `fixed`: where they start in the row.
   */
  constructor(private readonly columns: readonly FieldColumn[], private readonly fixed: number) {
    columns.forEach((c, index) => this.byKey.set(c.key, { index, kind: c.kind }));
    this.promoted = new Int32Array(columns.length);
  }

  write(w: RowSink, row: PlainRow): void {
    // Within int64 already (PlainRow): no clamp per row.
    w.bigint(COLUMN.time, row.timeNs);
    w.bigint(COLUMN.observed, row.observedNs);
    w.string(COLUMN.service, row.service);
    w.string(COLUMN.severity, row.severity);
    const { msg, traceId, spanId } = row;
    if (msg.text !== null) w.string(COLUMN.msg, msg.text);
    else if (msg.present) spanOf(w, COLUMN.msg, row, msg.start, msg.end);
    else w.string(COLUMN.msg, '');
    writeId(w, COLUMN.traceId, row, traceId);
    writeId(w, COLUMN.spanId, row, spanId);
    w.null(COLUMN.stream); // a native line has no stream: reads derive it from `service` (schema.ts LOGS_TABLE_SQL)
    const canonical = this.split(row);
    // No field left is NULL, not '{}' (schema.ts LOGS_TABLE_SQL).
    if (this.length === 2) w.null(COLUMN.fields);
    else w.bytes(COLUMN.fields, this.json, 0, this.length);
    if (canonical) w.null(COLUMN.order);
    else w.string(COLUMN.order, this.orderOf(row));
    for (let c = 0; c < this.columns.length; c++) {
      const at = this.promoted[c] ?? -1;
      const column = this.fixed + c;
      if (at < 0) w.null(column);
      else this.promotedValue(w, row, at, column, this.columns[c]?.kind ?? 'text');
    }
  }

  /**
   * FieldSplitter.split() over the row's fields: the promoted values' places, and the rest as `fields` text in
   * this.json; true when the keys are in the canonical order (promoted ones first, in column order).
   */
  private split(row: PlainRow): boolean {
    // A loop, not fill(): fill() is a call into the runtime, ~40 ns a row for a handful of columns.
    for (let c = 0; c < this.promoted.length; c++) this.promoted[c] = -1;
    this.length = 0;
    this.put(0x7b /* { */);
    let rest = 0;
    let canonical = true;
    let lastIndex = -1;
    for (let i = 0; i < row.fieldCount; i++) {
      if (row.kinds[i] === 0) continue; // taken as the message, time, service, severity or an id
      const name = row.names[i];
      if (name === undefined) continue;
      const col = this.columnOf(name, i);
      if (col !== undefined && this.fits(row, i, col.kind)) {
        this.promoted[col.index] = i;
        if (rest > 0 || col.index < lastIndex) canonical = false;
        lastIndex = col.index;
        continue;
      }
      if (rest++ > 0) this.put(0x2c /* , */);
      this.putBytes(name.json, 0, name.json.length);
      this.put(0x3a /* : */);
      this.putValue(row, i);
    }
    this.put(0x7d /* } */);
    return canonical;
  }

  /** The promoted column of field `i`'s name; by its place first, as the rows of a body name their fields alike. */
  private columnOf(name: FieldName, i: number): PromotedColumn | undefined {
    if (this.placeNames[i] === name) return this.placeColumns[i];
    const col = this.byKey.get(name.text);
    this.placeNames[i] = name;
    this.placeColumns[i] = col;
    return col;
  }

  /** field-columns.ts fits() for field `i`, asked without making its value where the kind tells. */
  private fits(row: PlainRow, i: number, kind: FieldKind): boolean {
    const valueKind = row.kinds[i];
    if (kind === 'int') return valueKind === ValueKind.Number && fits('int', row.numbers[i] ?? 0);
    if (valueKind === ValueKind.Bytes) return kind === 'text' || fits(kind, stringOf(row, i));
    if (valueKind === ValueKind.Text) return fits(kind, row.texts[i] ?? '');
    return valueKind === ValueKind.EmptyObject && fits(kind, '{}');
  }

  private promotedValue(w: RowSink, row: PlainRow, i: number, column: number, kind: FieldKind): void {
    const valueKind = row.kinds[i];
    if (kind === 'int') w.int(column, row.numbers[i] ?? 0);
    else if (kind === 'uuid') w.uuid(column, valueKind === ValueKind.Text ? (row.texts[i] ?? '') : stringOf(row, i));
    else if (valueKind === ValueKind.Bytes) spanOf(w, column, row, row.starts[i] ?? 0, row.ends[i] ?? 0);
    else if (valueKind === ValueKind.Text) w.string(column, row.texts[i] ?? '');
    else w.string(column, '{}');
  }

  /**
   * The field_order text of the row: the last one's when it has the same names in the same order. The rows of one
   * source share their order, and when the store's columns were promoted for another source first every row of this
   * one records it (the bench's OTLP logs after its NDJSON; FieldSplitter.orderOf does the same for entries).
   */
  private orderOf(row: PlainRow): string {
    const last = this.orderNames;
    let n = 0;
    let same = true;
    for (let i = 0; i < row.fieldCount && same; i++) if (row.kinds[i] !== 0) same = row.names[i] === last[n++];
    if (!same || n !== last.length) {
      this.orderNames = [];
      for (let i = 0; i < row.fieldCount; i++) if (row.kinds[i] !== 0) this.orderNames.push(row.names[i] as FieldName);
      this.order = JSON.stringify(this.orderNames.map((name) => name.text));
    }
    return this.order;
  }

  /**
   * A Text value as JSON.stringify writes it. An OTLP resource's or scope's text is the same on every row of a
   * request: its JSON is kept by place once it repeats, where a value that changes every row is written as it comes.
   */
  private putTextValue(i: number, text: string): void {
    if (this.placeTexts[i] !== text) {
      this.placeTexts[i] = text;
      this.placeJson[i] = undefined;
      this.putText(JSON.stringify(text));
      return;
    }
    let json = this.placeJson[i];
    if (json === undefined) this.placeJson[i] = json = Buffer.from(JSON.stringify(text));
    this.putBytes(json, 0, json.length);
  }

  /** Field `i`'s value as JSON.stringify writes it. */
  private putValue(row: PlainRow, i: number): void {
    const kind = row.kinds[i] as ValueKind;
    const start = row.starts[i] ?? 0;
    const end = row.ends[i] ?? 0;
    switch (kind) {
      case ValueKind.Bytes:
        this.put(QUOTE);
        this.putBytes(row.bytes, start, end); // as it came: it needs no escape
        this.put(QUOTE);
        return;
      case ValueKind.Text:
        this.putTextValue(i, row.texts[i] ?? '');
        return;
      case ValueKind.Number:
        if (row.canonical[i] === 1) this.putBytes(row.bytes, start, end);
        else this.putText(String(row.numbers[i] ?? 0));
        return;
      default: {
        const literal = LITERAL[kind];
        this.putBytes(literal, 0, literal.length);
      }
    }
  }

  private put(byte: number): void {
    if (this.length === this.json.length) this.grow(1);
    this.json[this.length++] = byte;
  }

  private putBytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (this.length + n > this.json.length) this.grow(n);
    const json = this.json;
    let at = this.length;
    if (n > 64) json.set(src.subarray(start, end), at);
    else for (let i = start; i < end; i++) json[at++] = src[i] ?? 0;
    this.length += n;
  }

  private putText(text: string): void {
    const n = Buffer.byteLength(text, 'utf8');
    if (this.length + n > this.json.length) this.grow(n);
    this.length += this.json.write(text, this.length, 'utf8');
  }

  private grow(atLeast: number): void {
    const grown = Buffer.allocUnsafe(Math.max(this.json.length * 2, this.length + atLeast));
    this.json.copy(grown, 0, 0, this.length);
    this.json = grown;
  }
}

/** A trace or span id, lowercased as toLogEntry lowercases it ('' when absent). */
/** An id, lowercased (model/log-entry.ts); none, or an empty one, is NULL (schema.ts LOGS_TABLE_SQL). */
function writeId(w: RowSink, column: number, row: PlainRow, id: StringSpan): void {
  if (id.text !== null) {
    if (id.text === '') w.null(column);
    else w.string(column, id.text.toLowerCase());
  } else if (!id.present || id.end === id.start) w.null(column);
  else if (id.source !== null) w.bytes(column, id.source, id.start, id.end, true);
  else spanOf(w, column, row, id.start, id.end, true);
}

/**
 * Bytes [start, end) of the row's body as a string of `column`: left in the body until the chunk is taken when the
 * body is text between its spans, else copied (DuckDB takes a stretch of spans as one string, which must be UTF-8).
 */
function spanOf(w: RowSink, column: number, row: PlainRow, start: number, end: number, lower = false): void {
  if (row.textBetweenSpans) w.span(column, row.bytes, start, end, lower);
  else w.bytes(column, row.bytes, start, end, lower);
}

/** A Bytes field's value as a string (ASCII: latin1 is UTF-8 here). */
function stringOf(row: PlainRow, i: number): string {
  return Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength).toString('latin1', row.starts[i], row.ends[i]);
}

