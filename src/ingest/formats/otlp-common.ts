// Helpers shared by the OTLP logs and traces formats (wire-formats.md §3.2; metrics §3.16 can reuse them).
// Both encodings are read through ONE plain-object walker: protobuf bodies are decoded with protobufjs and
// turned into objects with OTLP/JSON key names (`toObject`, 64-bit values as decimal strings, bytes as
// Buffers), JSON bodies are parsed as they are. The walker is lenient per §3.2 "JSON quirks": camelCase or
// snake_case keys, 64-bit ints as strings or numbers, enum numbers or names, hex or base64 ids.
import type { IncomingHttpHeaders } from 'node:http';
import type { Message, Type } from 'protobufjs';
import { errors } from '../../errors.js';
import type { RequestContext } from '../../front-doors/context.js';
import { sendJson } from '../../front-doors/reply.js';
import type { FieldValue } from '../../model/log-entry.js';
import { setField } from './fields.js';
import { OtlpTypes, encodeMessage } from './otlp-proto.js';
import { utf8Text } from '../utf8-text.js';

export type OtlpEncoding = 'json' | 'protobuf';
export type Obj = Record<string, unknown>;

/** Thrown by converters for one record that cannot become an entry; counted in partial_success. */
export class RecordRejected extends Error {}

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

const snakeCache = new Map<string, string>();
/** `o[camelKey]`, else `o[snake_key]` (§3.2 quirk 1: be lenient about key case). */
export function get(o: Obj, camelKey: string): unknown {
  const v = o[camelKey];
  if (v !== undefined) return v;
  let snake = snakeCache.get(camelKey);
  if (snake === undefined) {
    snake = camelKey.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeCache.set(camelKey, snake);
  }
  return o[snake];
}

/** The repeated field `key` of `o`: absent → []; present but not a list → 400 (the tree is unreadable). */
export function listOf(o: Obj, key: string, where: string): unknown[] {
  const v = get(o, key);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw errors.badRequest(`OTLP ${where}.${key} must be an array`);
  return v;
}

/** Container messages (ResourceLogs, ScopeSpans, …): each must be an object, or the request is 400. */
export function containersOf(o: Obj, key: string, where: string): Obj[] {
  return listOf(o, key, where).map((c, i) => {
    if (!isObj(c)) throw errors.badRequest(`OTLP ${where}.${key}[${i}] must be an object`);
    return c;
  });
}

/** JSON vs protobuf: Content-Type first, else sniff the first non-space byte for `{` (§3.2 Transport). */
export function otlpEncodingOf(headers: IncomingHttpHeaders, body: Buffer): OtlpEncoding {
  const ct = (headers['content-type'] ?? '').toLowerCase();
  if (ct.includes('json')) return 'json';
  if (ct.includes('protobuf')) return 'protobuf';
  for (const b of body) {
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) continue;
    return b === 0x7b ? 'json' : 'protobuf';
  }
  return 'protobuf';
}

/** The request as a plain object with OTLP/JSON keys. An empty body is the empty message (§3.2). */
export function decodeOtlpBody(body: Buffer, encoding: OtlpEncoding, type: Type): Obj {
  if (encoding === 'json') {
    const text = utf8Text(body);
    if (text.trim() === '') return {};
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      const at = /position (\d+)/.exec(e instanceof Error ? e.message : '');
      throw errors.badRequest(`OTLP JSON body is not valid JSON${at ? ` (at byte ${at[1]})` : ''}`);
    }
    if (!isObj(v)) throw errors.badRequest(`OTLP JSON body must be a ${type.name} object`);
    return v;
  }
  return type.toObject(decodeOtlpProto(body, type), { longs: String });
}

/**
 * A protobuf body as `type`'s decoded message, without the plain-object copy (the request thread only counts it:
 * IngestFormat.count); the same 400 as decodeOtlpBody. toObject() of a decoded message does not throw.
 */
export function decodeOtlpProto(body: Buffer, type: Type): Message {
  try {
    return type.decode(body);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw errors.badRequest(`OTLP protobuf body does not decode as ${type.name}: ${why}`);
  }
}

/** A string field; anything else (absent, wrong type) is ''. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** fixed64 unix-ns times: decimal string or number (§3.2 quirk 4); absent or 0 → 0n. */
export function nanos(v: unknown, name: string): bigint {
  if (v === undefined || v === null || v === '') return 0n;
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.trunc(v)); // already rounded by JSON
  throw new RecordRejected(`invalid ${name}: must be unix nanoseconds as a decimal string`);
}

/** An enum as its number: a number, a digit string, or a name with or without its prefix (§3.2 quirk 3). */
export function enumValue(v: unknown, names: readonly string[], prefix: string): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v !== 'string' || v === '') return 0;
  if (/^\d+$/.test(v)) return Number(v);
  const upper = v.toUpperCase();
  const idx = names.indexOf(upper.startsWith(prefix) ? upper.slice(prefix.length) : upper);
  return idx < 0 ? 0 : idx;
}

export const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
export const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const;
const SEVERITY_BASES = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
/** SeverityNumber names without prefix, indexed by number: UNSPECIFIED, TRACE, TRACE2, … FATAL4. */
export const SEVERITY_NAMES: readonly string[] = [
  'UNSPECIFIED', ...SEVERITY_BASES.flatMap((b) => [b, `${b}2`, `${b}3`, `${b}4`]),
];

/** The short severity name of a SeverityNumber (INFO, INFO2, …), '' outside 1..24. */
export function severityName(n: number): string {
  return n >= 1 && n <= 24 ? (SEVERITY_NAMES[n] ?? '') : '';
}

/**
 * A trace/span id as lowercase hex: bytes from protobuf, hex text from OTLP/JSON (§3.2 quirk 2), or the
 * base64 some generic encoders emit (24/12 chars). '' when absent or all zero (invalid per OTel);
 * null when present but unreadable.
 */
export function hexId(v: unknown, bytes: 8 | 16): string | null {
  if (v === undefined || v === null) return '';
  let hex: string;
  if (v instanceof Uint8Array) {
    if (v.length === 0) return '';
    if (v.length !== bytes) return null;
    hex = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  } else if (typeof v === 'string') {
    if (v === '') return '';
    if (v.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(v)) hex = v.toLowerCase();
    else if (v.length === Math.ceil(bytes / 3) * 4 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(v)) {
      const raw = Buffer.from(v, 'base64');
      if (raw.length !== bytes) return null;
      hex = raw.toString('hex');
    } else return null;
  } else return null;
  return /^0+$/.test(hex) ? '' : hex;
}

/** int64 values (AnyValue.int_value): a number when exact, else the decimal string (§3.2 quirk 4). */
export function int64(v: unknown): FieldValue {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v;
  }
  return typeof v === 'string' ? v : null;
}

/** Doubles may be "NaN"/"Infinity"/"-Infinity" (§3.2 quirk 5); those stay strings (JSON has no NaN). */
export function double(v: unknown): FieldValue {
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'string') {
    const n = Number(v);
    return v.trim() !== '' && Number.isFinite(n) ? n : v;
  }
  return null;
}

/** ArrayValue/KeyValueList `values`; a malformed list inside one value is read as empty, not a 400. */
function valuesOf(o: Obj): unknown[] {
  return Array.isArray(o.values) ? o.values : [];
}

/** An AnyValue of either encoding as nested JSON: arrays, kvlists as objects, bytes as base64 text. */
export function anyValue(v: unknown): FieldValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v; // bare values: leniency
  if (!isObj(v)) return null;
  let x = get(v, 'stringValue');
  if (x !== undefined) return typeof x === 'string' ? x : JSON.stringify(x);
  x = get(v, 'boolValue');
  if (x !== undefined) return x === true || x === 'true';
  x = get(v, 'intValue');
  if (x !== undefined) return int64(x);
  x = get(v, 'doubleValue');
  if (x !== undefined) return double(x);
  x = get(v, 'arrayValue');
  if (x !== undefined) return isObj(x) ? valuesOf(x).map(anyValue) : [];
  x = get(v, 'kvlistValue');
  if (x !== undefined) {
    const out: Record<string, FieldValue> = {};
    if (isObj(x)) for (const kv of valuesOf(x)) if (isObj(kv)) setField(out, str(kv.key), anyValue(kv.value));
    return out;
  }
  x = get(v, 'bytesValue');
  if (x instanceof Uint8Array) return Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('base64');
  if (typeof x === 'string') return x;
  return null;
}

/** Puts `v` at `key`, nested objects as dotted keys, arrays as JSON text: fields stay flat (as fields.ts). */
export function putFlat(out: Record<string, FieldValue>, key: string, v: FieldValue): void {
  if (Array.isArray(v)) setField(out, key, JSON.stringify(v));
  else if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    if (entries.length === 0) setField(out, key, '{}'); // an empty kvlist stays visible, as in fields.ts
    for (const [k, x] of entries) putFlat(out, `${key}.${k}`, x);
  }
  else setField(out, key, v);
}

/** How an AnyValue is read: anyValue() from plain objects, or otlp-logs-proto.ts from decoded messages. */
export type AnyValueReader = (v: unknown) => FieldValue;

/** A KeyValue list as flat fields under `prefix` (kvlist values become `key.sub` keys). */
export function flatAttributes(
  kvs: unknown, prefix = '', out: Record<string, FieldValue> = {}, read: AnyValueReader = anyValue,
): Record<string, FieldValue> {
  if (!Array.isArray(kvs)) return out;
  for (const kv of kvs) {
    if (!isObj(kv)) continue;
    const key = str(kv.key);
    if (key !== '') putFlat(out, prefix + key, read(kv.value));
  }
  return out;
}

/** A body as `_msg`: strings as sent, anything else as JSON text (§3.2 "Mapping to entries"). */
export function bodyText(v: FieldValue): string {
  if (v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Where a message lies in a body, as a walk found it (proto-walk.ts); undefined when it is absent. */
export type ByteRange = readonly [number, number] | undefined;

/**
 * The Resource message at `range` of `body` decoded as the request's decode gives it, and as toObject copies it; for
 * the counts that walk a body and read only its resources (the `rum` signal).
 */
export function resourceAt(body: Buffer, range: ByteRange): Record<string, unknown> | undefined {
  if (range === undefined) return undefined;
  return OtlpTypes.Resource.toObject(OtlpTypes.Resource.decode(body.subarray(range[0], range[1])), { longs: String });
}

/** What every record of one ResourceLogs/ResourceSpans shares. */
export interface ResourceContext {
  /** Resource attributes as sent, flat (`service.name`, `host.name`, …). */
  fields: Record<string, FieldValue>;
  service: string;
  /** Browser RUM: `telemetry.sdk.language` = `webjs` (DESIGN §6 Metering). */
  rum: boolean;
}

export function resourceContext(container: Obj, read: AnyValueReader = anyValue): ResourceContext {
  const resource = get(container, 'resource');
  const fields = isObj(resource) ? flatAttributes(get(resource, 'attributes'), '', {}, read) : {};
  const service = fields['service.name'];
  return {
    fields,
    service: typeof service === 'string' ? service : '',
    rum: fields['telemetry.sdk.language'] === 'webjs',
  };
}

/**
 * The instrumentation scope as fields: `otel.scope.name`, `otel.scope.version` (the names the OTel
 * non-OTLP exporters use) and its attributes as `otel.scope.attributes.<key>`.
 */
export function scopeFields(container: Obj, read: AnyValueReader = anyValue): Record<string, FieldValue> {
  const scope = get(container, 'scope');
  const out: Record<string, FieldValue> = {};
  if (!isObj(scope)) return out;
  const name = str(scope.name);
  const version = str(scope.version);
  if (name !== '') out['otel.scope.name'] = name;
  if (version !== '') out['otel.scope.version'] = version;
  return flatAttributes(get(scope, 'attributes'), 'otel.scope.attributes.', out, read);
}

/** Records turned away one by one, reported as partial_success instead of failing the request. */
export class Rejections {
  count = 0;
  firstReason = '';
  add(e: unknown): void {
    if (!(e instanceof RecordRejected)) throw e;
    this.count++;
    if (this.firstReason === '') this.firstReason = e.message;
  }
}

export interface OtlpReplyData {
  encoding: OtlpEncoding;
  rejected: number;
  errorMessage: string;
}

export function otlpReplyData(encoding: OtlpEncoding, rejections: Rejections, what: string): OtlpReplyData {
  const errorMessage = rejections.count > 0 ? `${rejections.count} ${what} rejected; first: ${rejections.firstReason}` : '';
  return { encoding, rejected: rejections.count, errorMessage };
}

function isReplyData(v: unknown): v is OtlpReplyData {
  return isObj(v) && (v.encoding === 'json' || v.encoding === 'protobuf') && typeof v.rejected === 'number';
}

/**
 * 200 with Export{Logs,Trace}ServiceResponse in the request's encoding (§3.2 Transport; §4 OTLP exporters:
 * a body that does not decode per its Content-Type makes the Collector retry). JSON adds the spec's
 * `status`/`accepted` beside `partialSuccess` (unknown keys are ignored by OTLP clients).
 */
export function sendOtlpReply(ctx: RequestContext, accepted: number, replyData: unknown, responseType: Type,
  rejectedKey: 'rejectedLogRecords' | 'rejectedSpans'): void {
  const data: OtlpReplyData = isReplyData(replyData) ? replyData : { encoding: 'json', rejected: 0, errorMessage: '' };
  if (data.encoding === 'protobuf') {
    const message = data.rejected > 0
      ? { partialSuccess: { [rejectedKey]: data.rejected, errorMessage: data.errorMessage } }
      : {};
    const bytes = encodeMessage(responseType, message);
    ctx.res.writeHead(200, { 'Content-Type': 'application/x-protobuf', 'Content-Length': bytes.length });
    ctx.res.end(bytes);
    return;
  }
  const partial = data.rejected > 0
    ? { partialSuccess: { [rejectedKey]: String(data.rejected), errorMessage: data.errorMessage } }
    : {};
  sendJson(ctx.res, 200, { ...partial, status: 'ok', accepted });
}
