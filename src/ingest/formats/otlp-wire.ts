// The OTLP protobuf messages that logs and traces share, read straight from the wire (issue 12 item 2): a cursor
// over a body proto-walk.ts has checked, KeyValues, AnyValues and the instrumentation scope, each read as the
// decoded-message readers read protobufjs's messages (otlp-logs-proto.ts protoAnyValue, otlp-common.ts anyValue).
// A message field or AnyValue member given twice makes a body "not plain" (NotPlain): protobufjs merges the second
// into the first, which is left to it (otlp-logs-wire.ts, otlp-traces-wire.ts).
import type { FieldValue } from '../../model/log-entry.js';
import { double, int64, putFlat, resourceContext, scopeFields, type Obj, type ResourceContext } from './otlp-common.js';
import type { Type } from 'protobufjs';
import { setField } from './fields.js';
import { ByteStrings } from './byte-strings.js';
import { decodesCleanly } from './proto-walk.js';

/** A key and its value, read: what flatAttributes takes, with `read` the identity. */
export interface KeyValue {
  key: string;
  value: FieldValue;
}

/** Thrown when a body is not plain (see the header): the caller decodes it instead. */
export class NotPlain extends Error {}

const asRead = (v: unknown): FieldValue => v as FieldValue;

/**
 * Reads an Export*ServiceRequest body: `readResourceItem` reads each of its field-1 messages (ResourceLogs,
 * ResourceSpans) from the cursor to the message's end. False when the walk is not sure protobufjs decodes the body
 * (proto-walk.ts), or the body is not plain: the caller decodes it instead. `walked`: the body already passed the walk.
 */
export function readRequest(body: Buffer, type: Type, walked: boolean, readResourceItem: (wire: Wire, end: number) => void): boolean {
  if (!walked && !decodesCleanly(body, type)) return false;
  const wire = new Wire(body);
  try {
    while (wire.pos < body.length) {
      const tag = wire.tag();
      if (tag === ((1 << 3) | 2)) readResourceItem(wire, wire.end());
      else wire.skip(tag);
    }
  } catch (e) {
    if (e instanceof NotPlain) return false;
    throw e;
  }
  return true;
}

/**
 * A container of both signals (ResourceLogs, ScopeLogs, ResourceSpans, ScopeSpans): field 1 its one head message (a
 * resource, a scope), field 2 its items. The head is read first, wherever it lies, for `prepare` to make what every
 * item needs of it; then `readItem` reads each item, in order, from the cursor to the item's end. The cursor ends at
 * `end`. A head given twice is not plain.
 */
export function readContainer<H, C>(
  wire: Wire, end: number, readHead: (wire: Wire, end: number) => H, prepare: (head: H | null) => C,
  readItem: (context: C, itemEnd: number) => void,
): void {
  let head: H | null = null;
  let hasHead = false;
  const items: number[] = []; // start, end of each item
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === ((1 << 3) | 2)) {
      if (hasHead) throw new NotPlain();
      hasHead = true;
      head = readHead(wire, wire.end());
    } else if (tag === ((2 << 3) | 2)) {
      const itemEnd = wire.end();
      items.push(wire.pos, itemEnd);
      wire.pos = itemEnd;
    } else wire.skip(tag);
  }
  const context = prepare(head);
  for (let i = 0; i < items.length; i += 2) {
    wire.pos = items[i] ?? 0;
    readItem(context, items[i + 1] ?? 0);
  }
  wire.pos = end;
}

/** A Resource's attributes (its field 1). */
export function readResource(wire: Wire, end: number): KeyValue[] {
  return readAttributesOf(wire, end, 1);
}

/** What every record or span of a resource shares, as resourceContext reads a decoded Resource (or none). */
export function resourceOf(attributes: KeyValue[] | null): ResourceContext {
  return resourceContext(attributes === null ? {} : { resource: { attributes } }, asRead);
}

/** A scope's fields, as scopeFields reads a decoded InstrumentationScope (or none). */
export function scopeOf(scope: Obj | null): Record<string, FieldValue> {
  return scopeFields(scope === null ? {} : { scope }, asRead);
}

/** InstrumentationScope as scopeFields reads it: name, version, attributes. */
export function readScope(wire: Wire, end: number): Obj {
  let name = '';
  let version = '';
  const attributes: KeyValue[] = [];
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === ((1 << 3) | 2)) name = wire.string();
    else if (tag === ((2 << 3) | 2)) version = wire.string();
    else if (tag === ((3 << 3) | 2)) attributes.push(readKeyValue(wire, wire.end()));
    else wire.skip(tag);
  }
  return { name, version, attributes };
}

/** The KeyValues of field `field` of the message ending at `end` (Resource.attributes is 1). */
export function readAttributesOf(wire: Wire, end: number, field: number): KeyValue[] {
  const attributes: KeyValue[] = [];
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === ((field << 3) | 2)) attributes.push(readKeyValue(wire, wire.end()));
    else wire.skip(tag);
  }
  return attributes;
}

/** The KeyValue at the cursor put flat into `into`; flatAttributes's rule: a KeyValue without a key is left out. */
export function putAttribute(wire: Wire, into: Record<string, FieldValue>): void {
  const { key, value } = readKeyValue(wire, wire.end());
  if (key !== '') putFlat(into, key, value);
}

export function readKeyValue(wire: Wire, end: number): KeyValue {
  let key = '';
  let value: FieldValue = null;
  let hasValue = false;
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === ((1 << 3) | 2)) key = wire.key();
    else if (tag === ((2 << 3) | 2)) {
      if (hasValue) throw new NotPlain();
      hasValue = true;
      value = readAnyValue(wire, wire.end());
    } else wire.skip(tag);
  }
  return { key, value };
}

/** An AnyValue as protoAnyValue reads the decoded message: its one member, or null when none is set. */
export function readAnyValue(wire: Wire, end: number): FieldValue {
  let value: FieldValue = null;
  let members = 0;
  while (wire.pos < end) {
    const tag = wire.tag();
    const field = tag >>> 3;
    if (field >= 1 && field <= 7) {
      if (++members > 1) throw new NotPlain();
    }
    switch (tag) {
      case (1 << 3) | 2: value = wire.string(); break;
      case (2 << 3) | 0: value = wire.bool(); break;
      case (3 << 3) | 0: value = wire.int64(); break;
      case (4 << 3) | 1: value = double(wire.double()); break;
      case (5 << 3) | 2: value = readValues(wire, wire.end()); break;
      case (6 << 3) | 2: value = readKvlist(wire, wire.end()); break;
      case (7 << 3) | 2: value = wire.base64(); break;
      default: wire.skip(tag);
    }
  }
  return value;
}

/** ArrayValue: its values in order. */
function readValues(wire: Wire, end: number): FieldValue {
  const values: FieldValue[] = [];
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === ((1 << 3) | 2)) values.push(readAnyValue(wire, wire.end()));
    else wire.skip(tag);
  }
  return values;
}

/** KeyValueList: an object of its keys, later ones winning, a `__proto__` key as data. */
function readKvlist(wire: Wire, end: number): FieldValue {
  const out: Record<string, FieldValue> = {};
  for (const { key, value } of readAttributesOf(wire, end, 1)) setField(out, key, value);
  return out;
}

/** Decoded keys by their bytes: keys of up to 64 bytes, at most 4,096 of them (then the cache starts again). */
const keyCache = new ByteStrings(64, 4096, 'utf8');

/** A cursor over a body proto-walk.ts has checked: every read below stays inside its message. */
export class Wire {
  pos = 0;

  /** `buf`: the message's bytes, which known-series.ts reads a series' fields from. */
  constructor(readonly buf: Buffer) {}

  /** A tag (field number and wire type): at most 4 bytes, as the walk allows. */
  tag(): number {
    return this.varint32() >>> 0;
  }

  /** Reads a length and gives where the field it prefixes ends. */
  end(): number {
    const length = this.varint32() >>> 0;
    return this.pos + length;
  }

  /** A varint's low 32 bits, as protobufjs's int32/uint32 read them. */
  varint32(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = this.buf[this.pos++] ?? 0;
      if (shift < 32) value |= (b & 0x7f) << shift;
      if (b < 0x80) return value;
    }
  }

  int32(): number {
    return this.varint32() | 0;
  }

  bool(): boolean {
    let value = false;
    for (;;) {
      const b = this.buf[this.pos++] ?? 0;
      if ((b & 0x7f) !== 0) value = true;
      if (b < 0x80) return value;
    }
  }

  /** An int64 as protoLogEntries reads protobufjs's Long: the number when it is an int32, else int64() of its text. */
  int64(): FieldValue {
    this.varint64();
    const { low, high } = this;
    if ((high === 0 && low >= 0) || (high === -1 && low < 0)) return low;
    return int64(this.lastInt64Text());
  }

  /** An int64 as the decimal text of protobufjs's Long (OTLP metrics' integer label values). */
  int64Text(): string {
    this.varint64();
    const { low, high } = this;
    if ((high === 0 && low >= 0) || (high === -1 && low < 0)) return String(low);
    return this.lastInt64Text();
  }

  private lastInt64Text(): string {
    return BigInt.asIntN(64, (BigInt(this.high >>> 0) << 32n) | BigInt(this.low >>> 0)).toString();
  }

  /** An int64 as protobufjs's Long.toNumber() gives it (remote write's timestamps): exact within ±2^53. */
  int64Number(): number {
    this.varint64();
    return this.high * 4294967296 + (this.low >>> 0);
  }

  /** The two halves of the last varint64 read, as int32s (no object per value). */
  private low = 0;
  private high = 0;

  private varint64(): void {
    let low = 0;
    let high = 0;
    for (let shift = 0; ; shift += 7) {
      const b = this.buf[this.pos++] ?? 0;
      if (shift < 28) low |= (b & 0x7f) << shift;
      else if (shift === 28) {
        low |= (b & 0x0f) << 28;
        high |= (b & 0x7f) >> 4;
      } else high |= (b & 0x7f) << (shift - 32);
      if (b < 0x80) break;
    }
    this.low = low;
    this.high = high;
  }

  fixed64(): bigint {
    const low = this.buf.readUInt32LE(this.pos);
    const high = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    return high === 0 ? BigInt(low) : (BigInt(high) << 32n) | BigInt(low);
  }

  /**
   * A fixed64 of unix nanoseconds as whole milliseconds, floored: what nanosToMsAt gives of its decimal text, exact and
   * without a BigInt (2^32 ns = 4,294 ms + 967,296 ns, and every part below stays under 2^53).
   */
  fixed64NanosToMs(): number {
    const low = this.buf.readUInt32LE(this.pos);
    const high = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    const rest = high * 967_296 + low;
    return high * 4294 + (rest - (rest % 1_000_000)) / 1_000_000;
  }

  /** An sfixed64 as Number() of its decimal text gives it: the nearest double (one rounding, in the addition). */
  sfixed64Number(): number {
    const low = this.buf.readUInt32LE(this.pos);
    const high = this.buf.readInt32LE(this.pos + 4);
    this.pos += 8;
    return high * 4294967296 + low;
  }

  /**
   * The bytes as a DataView, made on the first double: `Buffer.readDoubleLE` assembles a double from eight byte reads
   * in JS, where `getFloat64` is one load in optimized code (remote write reads one a sample).
   */
  private view: DataView | null = null;

  double(): number {
    this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  string(): string {
    return this.stringTo(this.end());
  }

  private stringTo(end: number): string {
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end;
    return s;
  }

  /**
   * A KeyValue's key. The same few keys come in every record, so short ones are kept by their bytes (byte-strings.ts):
   * decoding each again made a new string per attribute, for V8 to look up in its string table as a property name.
   */
  key(): string {
    const end = this.end();
    const key = keyCache.text(this.buf, this.pos, end);
    this.pos = end;
    return key;
  }

  base64(): string {
    const end = this.end();
    const s = this.buf.toString('base64', this.pos, end);
    this.pos = end;
    return s;
  }

  /** Bytes, or undefined when empty: protobufjs leaves an empty bytes field unset. */
  bytesOrUnset(): Uint8Array | undefined {
    const end = this.end();
    const bytes = end > this.pos ? this.buf.subarray(this.pos, end) : undefined;
    this.pos = end;
    return bytes;
  }

  skip(tag: number): void {
    switch (tag & 7) {
      case 0: while ((this.buf[this.pos++] ?? 0) >= 0x80); break;
      case 1: this.pos += 8; break;
      case 5: this.pos += 4; break;
      default: this.pos = this.end(); // 2: the walk allows no other
    }
  }
}
