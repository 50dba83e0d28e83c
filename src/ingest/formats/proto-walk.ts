// A protobuf body checked against a message type's wire layout without building a single message (issue 12 item 2).
// The request thread only has to count a body's records and know that the store's parse will read it, yet a
// protobufjs decode builds every message of it (~5.5 µs an OTLP log record, as much as the store worker's own decode
// of the same body later). Walking the wire format answers both questions from the bytes.
//
// The walk says "decodes" only when protobufjs 8's decoder (node_modules/protobufjs/src/decoder.js, reader.js) is
// sure to decode the body: every length inside its message, every varint within 10 bytes, tags and lengths of at most
// 4 bytes, every known field with the wire type its type has, strings valid UTF-8 (proto3's `utf8_validation =
// VERIFY`: the decoder refuses invalid ones), unknown fields of wire types 0, 1, 2 or 5. Anything else — groups, wire
// types 6 and 7, field number 0, packed scalars, map fields, nesting past MAX_DEPTH, a field of the wrong wire type,
// which the decoder skips as unknown — makes the walk answer "not sure", and the caller decodes the body for the
// exact answer or the exact refusal. So the walk can only ever be faster, never different.
import { isUtf8 } from 'node:buffer';
import protobuf, { type Type } from 'protobufjs';

/**
 * Called for each length-delimited known field once its contents have been checked (so a message's fields before
 * the message itself): the field's type and number, and where its contents lie in the body.
 */
export type FieldVisitor = (type: Type, field: number, start: number, end: number) => void;

/** How a known field is laid out on the wire. */
interface FieldShape {
  wire: 0 | 1 | 2 | 5;
  /** The field's message type, for a message field. */
  message: TypeShape | null;
  /** A string field: its bytes must be valid UTF-8. */
  utf8: boolean;
}

/**
 * A message type's fields by number, resolved once: an array for the numbers up to MAX_LISTED_FIELD (most messages
 * number their fields from 1), a map past it. A field absent is unknown; null, one the walk does not check (a map or a
 * group). The walk looks a shape up per field it meets, so this is its hot path: a WeakMap lookup per message and a
 * Map lookup per field were ~half the walk's time on remote write's small Sample messages.
 */
interface TypeShape {
  type: Type;
  listed: (FieldShape | null | undefined)[];
  beyond: Map<number, FieldShape | null>;
}

const MAX_LISTED_FIELD = 64;

/** Nesting the walk checks; a deeper body is left to the decoder (whose own limit is 100). */
const MAX_DEPTH = 64;
/** Wire types of protobufjs's scalar types (protobuf's encoding spec). */
const SCALAR_WIRE: Record<string, 0 | 1 | 5> = {
  double: 1, float: 5, int32: 0, uint32: 0, sint32: 0, fixed32: 5, sfixed32: 5, int64: 0, uint64: 0, sint64: 0,
  fixed64: 1, sfixed64: 1, bool: 0,
};

const shapes = new WeakMap<Type, TypeShape>();

/** A type's shape, made once, with the shapes of the message types its fields hold (a type nesting itself links back). */
function shapeOf(type: Type): TypeShape {
  let shape = shapes.get(type);
  if (shape) return shape;
  shape = { type, listed: new Array<FieldShape | null | undefined>(MAX_LISTED_FIELD + 1).fill(undefined), beyond: new Map() };
  shapes.set(type, shape); // before the fields: a type may nest itself
  for (const field of type.fieldsArray) {
    field.resolve();
    const resolved = field.resolvedType;
    let fieldShape: FieldShape | null = null;
    if (field.map || field.delimited) fieldShape = null;
    else if (resolved instanceof protobuf.Type) fieldShape = { wire: 2, message: shapeOf(resolved), utf8: false };
    else if (resolved instanceof protobuf.Enum) fieldShape = { wire: 0, message: null, utf8: false };
    else if (field.type === 'string' || field.type === 'bytes') fieldShape = { wire: 2, message: null, utf8: field.type === 'string' };
    else if (SCALAR_WIRE[field.type] !== undefined) fieldShape = { wire: SCALAR_WIRE[field.type] ?? 0, message: null, utf8: false };
    if (field.id <= MAX_LISTED_FIELD) shape.listed[field.id] = fieldShape;
    else shape.beyond.set(field.id, fieldShape);
  }
  return shape;
}

/** The shape of field `field` of `shape`'s type: undefined when unknown, null when the walk does not check it. */
function fieldShapeOf(shape: TypeShape, field: number): FieldShape | null | undefined {
  return field <= MAX_LISTED_FIELD ? shape.listed[field] : shape.beyond.get(field);
}

/**
 * Whether `type.decode(body)` is sure to succeed; when it is, `visit` has seen every length-delimited known field.
 * false means "not sure": decode the body for the answer, and forget what was visited.
 */
export function decodesCleanly(body: Uint8Array, type: Type, visit?: FieldVisitor): boolean {
  return walk(body, shapeOf(type), 0, body.length, 0, visit);
}

/** The value of the varint read last by `smallVarint`. */
let varintValue = 0;

/** Reads a varint of at most 4 bytes (below 2^28) from `pos`; where it ends, or -1 (longer, or past `end`). */
function smallVarint(buf: Uint8Array, pos: number, end: number): number {
  let value = 0;
  for (let i = 0; i < 4 && pos < end; i++) {
    const b = buf[pos++] ?? 0;
    value |= (b & 0x7f) << (7 * i);
    if (b < 0x80) {
      varintValue = value;
      return pos;
    }
  }
  return -1;
}

/** Where a varint of at most `max` bytes from `pos` ends, or -1. */
function varintEnd(buf: Uint8Array, pos: number, end: number, max: number): number {
  for (let i = 0; i < max && pos < end; i++) if ((buf[pos++] ?? 0) < 0x80) return pos;
  return -1;
}

/** Whether buf[start, end) is valid UTF-8; most strings are ASCII, checked here without a call into native code. */
function validUtf8(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if ((buf[i] ?? 0) >= 0x80) return isUtf8(buf.subarray(i, end));
  return true;
}

function walk(buf: Uint8Array, message: TypeShape, pos: number, end: number, depth: number, visit?: FieldVisitor): boolean {
  if (depth > MAX_DEPTH) return false;
  while (pos < end) {
    pos = smallVarint(buf, pos, end);
    if (pos < 0) return false;
    const field = varintValue >>> 3;
    const wire = varintValue & 7;
    if (field === 0) return false;
    const shape = fieldShapeOf(message, field);
    if (shape === null || (shape !== undefined && shape.wire !== wire)) return false;
    switch (wire) {
      case 0:
        // A known varint is read whole (10 bytes at most); an unknown one is skipped to its last byte.
        pos = varintEnd(buf, pos, end, shape === undefined ? Infinity : 10);
        break;
      case 1:
        pos = pos + 8 <= end ? pos + 8 : -1;
        break;
      case 5:
        pos = pos + 4 <= end ? pos + 4 : -1;
        break;
      case 2: {
        pos = smallVarint(buf, pos, end);
        if (pos < 0 || pos + varintValue > end) return false;
        const start = pos;
        pos += varintValue;
        if (shape === undefined) break;
        if (shape.message !== null && !walk(buf, shape.message, start, pos, depth + 1, visit)) return false;
        if (shape.utf8 && !validUtf8(buf, start, pos)) return false;
        visit?.(message.type, field, start, pos);
        break;
      }
      default:
        return false; // groups (3, 4) and the invalid wire types 6 and 7
    }
    if (pos < 0) return false;
  }
  return true;
}
