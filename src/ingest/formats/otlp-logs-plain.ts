// OTLP protobuf log records read in place into a PlainRow (model/plain-row.ts), as native NDJSON lines are
// (native-plain.ts): the facts recordEntry would give, with the record's strings as byte spans of the body, for the
// store to write without a LogEntry, a `fields` object or a JS string per value (issue 12 item 2). Through the entry
// path the DuckDB worker spent ~9-10 µs an OTLP record, against ~4.5 a native line: megamorphic loads and stores on
// each record's `fields`, a string made per value and then encoded again for DuckDB, JSON.stringify of the rest. Read
// in place (with the ids' hex written as bytes, and the order and resource texts kept by plain-row-writer.ts), the
// bench's OTLP logs after its NDJSON took 5.3-5.8 µs of the worker an entry against 9.3-9.4, and were stored at
// 138-152k entries/s against 89-93k (two interleaved pairs).
//
// It reads only what it can give exactly; for any other record read() says false and the store writes the record's
// entry (otlp-logs-wire.ts) instead, so the two never disagree. It takes records whose resource and scope fields have
// no name that begins with a digit (V8 orders integer-like names first) or is `__proto__`, whose attributes are
// scalars (no array or kvlist to flatten) under such names, given once each and not as a resource or scope field too
// (the entry keeps the last value at the first place), with one body and no AnyValue member given twice.
// The rules it follows are recordEntry's and readRecord's: time, then observed time, then receipt; severity text,
// else the number's name; `otel.severity_number` and `event.name` after the attributes; ids as lowercase hex, '' when
// absent, of the wrong length or all zero; a body that is not a string as JSON text.
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { PlainRow, ValueKind, type FieldName, type PlainLines, type StringSpan } from '../../model/plain-row.js';
import { ByteStrings } from './byte-strings.js';
import { copyFields } from './fields.js';
import { bodyText, decodeOtlpProto, double, severityName } from './otlp-common.js';
import { locateRecords, readLocatedEntry, type LocatedRecords } from './otlp-logs-wire.js';
import { protoLogEntries } from './otlp-logs-proto.js';
import { OtlpTypes } from './otlp-proto.js';
import { NotPlain, readAnyValue, type Wire } from './otlp-wire.js';

const INT64_MAX = 2n ** 63n - 1n;

/** Most names kept; past it the table starts again (a row's names are then made again). */
const MAX_NAMES = 10_000;

/** A field every record of a resource and scope starts with, as the row holds it. */
interface PrefixField {
  readonly name: FieldName;
  readonly kind: ValueKind;
  readonly num: number;
  readonly text: string | null;
}

/** ASCII of the lowercase hex digits. */
const HEX_DIGITS = Uint8Array.from(Buffer.from('0123456789abcdef'));

/** Severity texts: short, and the same few in every record. */
const severityTexts = new ByteStrings(32, 1000, 'utf8');

/** Whether `b[start, end)` is printable ASCII with no quote or backslash: JSON.stringify writes it as it is. */
function writtenAsIs(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i] ?? 0;
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

function isAsciiSpan(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if ((b[i] ?? 0) > 0x7f) return false;
  return true;
}

function allZero(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (b[i] !== 0) return false;
  return true;
}

/** A name the entry would not hold at its place: integer-like ones go first in V8, `__proto__` is special. */
function unplainName(name: string): boolean {
  const c = name.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || name === '__proto__';
}

class OtlpRecordReader {
  private readonly names = new Map<string, FieldName>();
  private rowCounter = 0;
  /** The prefix of each context of the body last read (null: not plain), made when a record of it is first read. */
  private located: LocatedRecords | null = null;
  private prefixes: (PrefixField[] | null | undefined)[] = [];
  /** The hex of the record's ids. */
  private readonly traceHex = new Uint8Array(32);
  private readonly spanHex = new Uint8Array(16);

  /**
   * Reads record `k` of `located` into `row`, with `nowNs` as the receipt time; false when the record is not one this
   * reader takes (see the header).
   */
  read(located: LocatedRecords, k: number, nowNs: bigint, row: PlainRow): boolean {
    if (this.located !== located) {
      this.located = located;
      this.prefixes = [];
    }
    const owner = located.owners[k] ?? 0;
    const context = located.contexts[owner];
    if (context === undefined) return false;
    let prefix = this.prefixes[owner];
    if (prefix === undefined) this.prefixes[owner] = prefix = this.prefixOf(copyFields(copyFields({}, context.resource.fields), context.scope));
    if (prefix === null) return false;
    const w = located.wire;
    row.reset(w.buf, ++this.rowCounter, false); // protobuf between the strings
    for (const f of prefix) row.add(f.name, f.kind, 0, 0, f.num, false, f.text);
    w.pos = located.spans[2 * k] ?? 0;
    const end = located.spans[2 * k + 1] ?? 0;
    let time = 0n;
    let observed = 0n;
    let severityNumber = 0;
    let severityText = '';
    let eventName = '';
    let hasBody = false;
    while (w.pos < end) {
      const tag = w.tag();
      switch (tag) {
        case (1 << 3) | 1: time = w.fixed64(); break;
        case (11 << 3) | 1: observed = w.fixed64(); break;
        case (2 << 3) | 0: severityNumber = w.int32(); break;
        case (3 << 3) | 2: {
          const to = w.end();
          severityText = severityTexts.text(w.buf, w.pos, to);
          w.pos = to;
          break;
        }
        case (5 << 3) | 2:
          if (hasBody || !this.body(w, w.end(), row.msg)) return false;
          hasBody = true;
          break;
        case (6 << 3) | 2:
          if (!this.attribute(w, w.end(), row)) return false;
          break;
        case (9 << 3) | 2: this.id(w, this.traceHex, row.traceId); break;
        case (10 << 3) | 2: this.id(w, this.spanHex, row.spanId); break;
        case (12 << 3) | 2: eventName = w.string(); break;
        default: w.skip(tag);
      }
    }
    if (severityNumber > 0 && !row.add(this.name('otel.severity_number'), ValueKind.Number, 0, 0, severityNumber, false, null)) return false;
    if (eventName !== '' && !row.add(this.name('event.name'), ValueKind.Text, 0, 0, 0, false, eventName)) return false;
    const timeNs = time > 0n ? time : observed > 0n ? observed : nowNs;
    if (timeNs > INT64_MAX) return false; // PlainRow's times are int64s: the entry path clamps this one
    row.timeNs = timeNs;
    row.observedNs = nowNs;
    row.service = context.resource.service;
    row.severity = severityText || severityName(severityNumber);
    return true;
  }

  /** The fields of a resource and scope, merged as the entry merges them, as row fields; null if not plain. */
  private prefixOf(fields: Record<string, FieldValue>): PrefixField[] | null {
    const prefix: PrefixField[] = [];
    for (const key of Object.keys(fields)) {
      if (unplainName(key)) return null;
      const v = fields[key] ?? null;
      const name = this.name(key);
      if (typeof v === 'string') prefix.push({ name, kind: ValueKind.Text, num: 0, text: v });
      else if (typeof v === 'number') prefix.push({ name, kind: ValueKind.Number, num: v, text: null });
      else if (typeof v === 'boolean') prefix.push({ name, kind: v ? ValueKind.True : ValueKind.False, num: 0, text: null });
      else if (v === null) prefix.push({ name, kind: ValueKind.Null, num: 0, text: null });
      else return null; // flattened fields hold no object or array
    }
    return prefix;
  }

  /** The body's AnyValue into `msg`: a string as its bytes when they are ASCII, anything else as bodyText gives it. */
  private body(w: Wire, end: number, msg: StringSpan): boolean {
    const start = w.pos;
    let members = 0;
    let stringStart = -1;
    let stringEnd = -1;
    while (w.pos < end) {
      const tag = w.tag();
      const field = tag >>> 3;
      if (field >= 1 && field <= 7) members++;
      if (tag === ((1 << 3) | 2)) {
        stringEnd = w.end();
        stringStart = w.pos;
        w.pos = stringEnd;
      } else w.skip(tag);
    }
    if (members > 1) return false;
    if (stringStart >= 0 && isAsciiSpan(w.buf, stringStart, stringEnd)) {
      msg.set(stringStart, stringEnd, null);
      return true;
    }
    w.pos = start;
    try {
      msg.set(0, 0, bodyText(readAnyValue(w, end)));
    } catch (e) {
      if (e instanceof NotPlain) return false;
      throw e;
    }
    return true;
  }

  /** A KeyValue as a field of the row: a KeyValue without a key is left out. */
  private attribute(w: Wire, end: number, row: PlainRow): boolean {
    let key = '';
    let valueStart = -1;
    let valueEnd = -1;
    while (w.pos < end) {
      const tag = w.tag();
      if (tag === ((1 << 3) | 2)) key = w.key();
      else if (tag === ((2 << 3) | 2)) {
        if (valueStart >= 0) return false;
        valueEnd = w.end();
        valueStart = w.pos;
        w.pos = valueEnd;
      } else w.skip(tag);
    }
    if (key === '') return true;
    if (unplainName(key)) return false;
    const name = this.name(key);
    if (valueStart < 0) return row.add(name, ValueKind.Null, 0, 0, 0, false, null);
    w.pos = valueStart;
    const added = this.value(w, valueEnd, row, name);
    w.pos = end;
    return added;
  }

  /** A scalar AnyValue as readAnyValue reads it, added to the row under `name`; false for a list or a member twice. */
  private value(w: Wire, end: number, row: PlainRow, name: FieldName): boolean {
    let members = 0;
    let kind: ValueKind = ValueKind.Null;
    let start = 0;
    let stop = 0;
    let num = 0;
    let text: string | null = null;
    while (w.pos < end) {
      const tag = w.tag();
      const field = tag >>> 3;
      if (field >= 1 && field <= 7 && ++members > 1) return false;
      switch (tag) {
        case (1 << 3) | 2: {
          const to = w.end();
          if (writtenAsIs(w.buf, w.pos, to)) {
            kind = ValueKind.Bytes;
            start = w.pos;
            stop = to;
          } else {
            kind = ValueKind.Text;
            text = w.buf.toString('utf8', w.pos, to);
          }
          w.pos = to;
          break;
        }
        case (2 << 3) | 0: kind = w.bool() ? ValueKind.True : ValueKind.False; break;
        case (3 << 3) | 0: {
          const v = w.int64(); // a number when exact, else its decimal text
          if (typeof v === 'number') [kind, num] = [ValueKind.Number, v];
          else if (typeof v === 'string') [kind, text] = [ValueKind.Text, v];
          else return false;
          break;
        }
        case (4 << 3) | 1: {
          const v = double(w.double()); // a finite number, else its text (NaN, Infinity)
          if (typeof v === 'number') [kind, num] = [ValueKind.Number, v];
          else if (typeof v === 'string') [kind, text] = [ValueKind.Text, v];
          else return false;
          break;
        }
        case (5 << 3) | 2: case (6 << 3) | 2: return false; // an array or a kvlist: flattened by the entry
        case (7 << 3) | 2: [kind, text] = [ValueKind.Text, w.base64()]; break;
        default: w.skip(tag);
      }
    }
    return row.add(name, kind, start, stop, num, false, text);
  }

  /**
   * A trace or span id as recordEntry's hexId gives it: lowercase hex of `hex.length / 2` bytes that are not all zero,
   * else ''. The hex is written into `hex` (no string made), which holds it until the next record.
   */
  private id(w: Wire, hex: Uint8Array, span: StringSpan): void {
    const to = w.end();
    const b = w.buf;
    if (to - w.pos === hex.length / 2 && !allZero(b, w.pos, to)) {
      for (let i = w.pos, at = 0; i < to; i++, at += 2) {
        const byte = b[i] ?? 0;
        hex[at] = HEX_DIGITS[byte >> 4] ?? 0;
        hex[at + 1] = HEX_DIGITS[byte & 15] ?? 0;
      }
      span.setIn(hex, 0, hex.length);
    } else span.clear();
    w.pos = to;
  }

  private name(text: string): FieldName {
    let name = this.names.get(text);
    if (name === undefined) {
      if (this.names.size >= MAX_NAMES) this.names.clear();
      name = { text, json: Buffer.from(JSON.stringify(text)), seenInRow: 0 };
      this.names.set(text, name);
    }
    return name;
  }
}

/** One reader for every body: the names it keeps are the same from one request to the next. */
const recordReader = new OtlpRecordReader();

/**
 * A protobuf ExportLogsServiceRequest's records as PlainLines (model/plain-row.ts), for a store that writes rows in
 * place; null when the decoder must read the body. entry(k) is record k's entry as wireLogWindows gives it; one that
 * throws is reported to `onBad` and left out. `walked`: as for wireLogWindows.
 */
export function wireLogLines(body: Buffer, nowNs: bigint, walked: boolean, onBad: (e: unknown) => void): PlainLines | null {
  const located = locateRecords(body, walked);
  if (located === null) return null;
  let decoded: LogEntry[] | null = null;
  return {
    count: located.count,
    read: (k, row) => recordReader.read(located, k, nowNs, row),
    entry(k) {
      try {
        const entry = decoded === null ? readLocatedEntry(located, k, nowNs) : null;
        if (entry !== null) return entry;
        // As wireLogWindows does from a record that is not plain: the decoder's entries, record for record.
        decoded ??= protoLogEntries(decodeOtlpProto(body, OtlpTypes.ExportLogsServiceRequest), nowNs);
        return decoded[k];
      } catch (e) {
        onBad(e);
        return undefined;
      }
    },
  };
}
