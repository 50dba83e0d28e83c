// One native NDJSON line read in place, as byte spans of its body (issue 12 item 1: "parse each line once and keep the
// unparsed remainder as text instead of re-serializing it"). The store writes a row from it without the line ever
// becoming an object: JSON.parse built every line's object graph, toLogEntry a second one, and the field split a third
// that JSON.stringify turned back into text, all on the DuckDB worker's thread, which limits the stored rate.
// Holds the same facts as the LogEntry the line would give (ingest/formats/native-plain.ts reads it; the store's
// log-appender.ts writes it). One PlainRow is reused for every line: nothing here is kept past the next read.
// Imports nothing of the project outside model/ (STYLE.md: model/ is the ground floor).
import type { LogEntry } from './log-entry.js';

/** A field name after flattening (`http.method`), the same object for every row that has it. */
export interface FieldName {
  /** The name as a string (an own property of the LogEntry's `fields`). */
  readonly text: string;
  /** The name as JSON.stringify writes it, quotes included, in ASCII bytes. */
  readonly json: Uint8Array;
  /** The last row that had this name: a second sighting in the same row is a duplicate key. */
  seenInRow: number;
}

/** How a field's value is held (PlainRow.kinds). */
export const ValueKind = {
  /**
   * A string that is bytes [start, end) of the body, and that JSON.stringify writes as those same bytes between quotes
   * (a native line's string with no escapes; an OTLP string of printable ASCII with no quote or backslash).
   */
  Bytes: 1,
  /** A string with escapes: `texts[i]`, decoded. */
  Text: 2,
  /** A finite number: `numbers[i]`; its JSON text is bytes [start, end) when `canonical[i]`, else String(n). */
  Number: 3,
  True: 4,
  False: 5,
  Null: 6,
  /** An empty object, which flattening keeps as the string `{}`. */
  EmptyObject: 7,
} as const;
export type ValueKind = (typeof ValueKind)[keyof typeof ValueKind];

/** Where a string of the row is: bytes [start, end) of the body, or `text` when it had escapes; absent: start < 0. */
export class StringSpan {
  start = -1;
  end = -1;
  text: string | null = null;
  /** The bytes the span is in when they are not the body's (an OTLP id's hex, made from its bytes); reused, copy now. */
  source: Uint8Array | null = null;
  set(start: number, end: number, text: string | null): void {
    this.start = start;
    this.end = end;
    this.text = text;
    this.source = null;
  }
  /** Bytes [start, end) of `source`, which hold the string until the next row is read. */
  setIn(source: Uint8Array, start: number, end: number): void {
    this.set(start, end, null);
    this.source = source;
  }
  clear(): void {
    this.start = -1;
    this.text = null;
    this.source = null;
  }
  get present(): boolean {
    return this.start >= 0;
  }
}

export class PlainRow {
  /** The body the spans are in. */
  bytes: Uint8Array = new Uint8Array(0);
  /**
   * Whether the body is text between the spans too (a native body; an OTLP one is protobuf): a store may then take a
   * stretch of it that holds several spans as one string (chunk-writer.ts span()).
   */
  textBetweenSpans = true;
  /** The row counter the FieldNames' seenInRow compare against. */
  rowNumber = 0;
  /**
   * The times, always within int64 (a reader leaves a line whose time is not to the entry path, which clamps it): the
   * store writes them as they are, with no bound check per row.
   */
  timeNs = 0n;
  observedNs = 0n;
  /** `service` and severity as strings ('' when absent): short, and the store derives the stream from service. */
  service = '';
  severity = '';
  readonly msg = new StringSpan();
  /** Trace and span ids as sent (the store lowercases them, as toLogEntry does). */
  readonly traceId = new StringSpan();
  readonly spanId = new StringSpan();
  /** The fields, flattened, in the order the LogEntry's `fields` would have them. */
  fieldCount = 0;
  names: FieldName[] = [];
  kinds = new Uint8Array(64);
  starts = new Int32Array(64);
  ends = new Int32Array(64);
  numbers = new Float64Array(64);
  canonical = new Uint8Array(64);
  texts: (string | null)[] = [];

  /** Starts the next row (`rowNumber`: its reader's count of rows): no field, no string. */
  reset(bytes: Uint8Array, rowNumber: number, textBetweenSpans = true): void {
    this.bytes = bytes;
    this.textBetweenSpans = textBetweenSpans;
    this.rowNumber = rowNumber;
    this.fieldCount = 0;
    this.service = '';
    this.severity = '';
    this.msg.clear();
    this.traceId.clear();
    this.spanId.clear();
  }

  /** Adds a field; false when the row already has that name (the caller then gives up on the line). */
  add(name: FieldName, kind: ValueKind, start: number, end: number, num: number, canonical: boolean, text: string | null): boolean {
    if (name.seenInRow === this.rowNumber) return false;
    name.seenInRow = this.rowNumber;
    const i = this.fieldCount++;
    if (i === this.kinds.length) this.grow();
    this.names[i] = name;
    this.kinds[i] = kind;
    this.starts[i] = start;
    this.ends[i] = end;
    this.numbers[i] = num;
    this.canonical[i] = canonical ? 1 : 0;
    this.texts[i] = text;
    return true;
  }

  private grow(): void {
    const n = this.kinds.length * 2;
    this.kinds = grown(this.kinds, n);
    this.starts = grown(this.starts, n);
    this.ends = grown(this.ends, n);
    this.numbers = grown(this.numbers, n);
    this.canonical = grown(this.canonical, n);
  }
}

/** A copy of `values` in an array of `length`, of the same kind. */
function grown<A extends Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(values: A, length: number): A {
  const copy = new (values.constructor as new (n: number) => A)(length);
  copy.set(values);
  return copy;
}

/** A body's lines (a native body's, or an OTLP one's records), for a store that writes rows from them in place (LogWindows.lines). */
export interface PlainLines {
  readonly count: number;
  /**
   * Reads line `i` into `row`; false when the line is not one the in-place reader takes (escaped names, arrays, a
   * duplicate key, deep nesting, …): the store then writes entry(i) instead.
   */
  read(i: number, row: PlainRow): boolean;
  /** Line `i` as LogWindows.windows() gives it; undefined for a line that no longer parses (reported as such). */
  entry(i: number): LogEntry | undefined;
}
