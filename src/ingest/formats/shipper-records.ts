// What the shipper formats (Fluent Bit, Vector, Firehose, GELF, HEC, Vercel) share: JSON bodies in,
// flat records out, and the one rule that turns a flat record into a LogEntry. The key lists follow
// the `_msg` and time fallbacks of wire-formats.md §3.1 (VictoriaLogs' -_msg_field / -_time_field).
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { errors } from '../../errors.js';
import { flattenFields, setField } from './fields.js';
import { parseTimestamp } from './timestamps.js';
import { utf8Text } from '../utf8-text.js';

export type JsonObject = Record<string, unknown>;
export type FlatRecord = Record<string, FieldValue>;

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** UTF-8 text of a body without its BOM (§3.1 tolerances). */
export function bodyText(body: Buffer): string {
  const text = utf8Text(body);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The first byte after a BOM and whitespace, for sniffing (§2 "Content-Type is unreliable"). */
export function firstByte(body: Buffer): number | undefined {
  let i = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x09 || body[i] === 0x0a || body[i] === 0x0d)) i++;
  return body[i];
}

/**
 * A JSON array of objects, one bare object, or NDJSON (blank lines and CRLF tolerated). Content-Type is
 * not trusted (§2), so the first non-blank byte decides. Details name the position, never the bytes.
 */
export function parseJsonRecords(text: string, what: string): JsonObject[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[')) {
    const parsed = tryJson(trimmed);
    if (!Array.isArray(parsed)) throw errors.badRequest(`${what} body is not a valid JSON array`);
    return parsed.map((item: unknown, i) => {
      if (!isJsonObject(item)) throw errors.badRequest(`${what} element ${i + 1} is not a JSON object`);
      return item;
    });
  }
  if (trimmed.startsWith('{')) {
    const whole = tryJson(trimmed);
    if (isJsonObject(whole)) return [whole];
  }
  const out: JsonObject[] = [];
  const lines = trimmed.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (line === '') continue;
    const parsed = tryJson(line);
    if (parsed === undefined) throw errors.badRequest(`${what} line ${i + 1} is not valid JSON`);
    if (!isJsonObject(parsed)) throw errors.badRequest(`${what} line ${i + 1} is not a JSON object`);
    out.push(parsed);
  }
  return out;
}

/** JSON.parse that answers `undefined` instead of throwing (its messages quote the body). */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function flatten(obj: JsonObject, prefix?: string): FlatRecord {
  return flattenFields(obj, prefix);
}

/** Which flat keys a format reads its columns from, in order of preference. */
export interface RecordKeys {
  msg: readonly string[];
  time: readonly string[];
  /** Read and removed from the fields. */
  service: readonly string[];
  /** Read when no `service` key matched, and left in the fields (`kubernetes.container_name`, …). */
  serviceHints?: readonly string[];
  severity: readonly string[];
}

const TRACE_KEYS = ['trace_id', 'traceId', 'trace.id', 'traceid'] as const;
const SPAN_KEYS = ['span_id', 'spanId', 'span.id', 'spanid'] as const;

/**
 * A flat record as a LogEntry: the first key of each list that holds a usable value becomes the column
 * and leaves the fields; everything else stays a field. `eventTimeNs` (a msgpack event time, …) wins over
 * the record's own time keys; `defaultTimeNs` applies when neither gives a time.
 */
export function recordToEntry(flat: FlatRecord, keys: RecordKeys, nowNs: bigint, eventTimeNs?: bigint | null, defaultTimeNs = nowNs): LogEntry {
  // The keys that become columns are noted, then the rest copied once: deleting them from a copy of the record (as
  // this did) turns the copy into a slow dictionary object, 1.3 against 0.6 µs a record with its JSON (issue 12).
  const taken: string[] = [];
  const msg = pick(flat, taken, keys.msg, (v) => (isScalar(v) ? String(v) : null));
  let timeNs = eventTimeNs ?? null;
  if (timeNs === null) timeNs = pick(flat, taken, keys.time, timeToNs);
  let service = pick(flat, taken, keys.service, nonEmptyString);
  if (service === null) service = peek(flat, taken, keys.serviceHints ?? [], nonEmptyString);
  const severity = pick(flat, taken, keys.severity, (v) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null));
  const traceId = pick(flat, taken, TRACE_KEYS, (v) => hexId(v, 32));
  const spanId = pick(flat, taken, SPAN_KEYS, (v) => hexId(v, 16));
  const fields: FlatRecord = {};
  for (const key of Object.keys(flat)) if (!taken.includes(key)) setField(fields, key, flat[key] as FieldValue);
  return makeEntry({
    timeNs: timeNs ?? defaultTimeNs,
    observedNs: nowNs,
    service: service ?? '',
    severity: severity ?? '',
    msg: msg ?? '',
    traceId: traceId ?? '',
    spanId: spanId ?? '',
    fields,
  });
}

export function makeEntry(e: Partial<LogEntry> & Pick<LogEntry, 'timeNs' | 'observedNs'>): LogEntry {
  return {
    timeNs: e.timeNs,
    observedNs: e.observedNs,
    service: e.service ?? '',
    severity: e.severity ?? '',
    msg: e.msg ?? '',
    traceId: e.traceId ?? '',
    spanId: e.spanId ?? '',
    stream: e.stream ?? '',
    fields: e.fields ?? {},
  };
}

/** Removes and converts the first key whose value converts; keys whose value does not convert stay. */
export function take<T>(fields: FlatRecord, keys: readonly string[], convert: (v: FieldValue) => T | null): T | null {
  const taken: string[] = [];
  const out = pick(fields, taken, keys, convert);
  for (const key of taken) Reflect.deleteProperty(fields, key);
  return out;
}

/** As take(), on a record left as it is: the key goes on `taken`, and a key already there is passed over. */
function pick<T>(flat: FlatRecord, taken: string[], keys: readonly string[], convert: (v: FieldValue) => T | null): T | null {
  for (const key of keys) {
    const v = taken.includes(key) ? undefined : ownValue(flat, key);
    if (v === undefined) continue;
    const out = convert(v);
    if (out !== null) {
      taken.push(key);
      return out;
    }
  }
  return null;
}

function ownValue(flat: FlatRecord, key: string): FieldValue | undefined {
  return Object.hasOwn(flat, key) ? flat[key] : undefined;
}

function peek<T>(fields: FlatRecord, taken: readonly string[], keys: readonly string[], convert: (v: FieldValue) => T | null): T | null {
  for (const key of keys) {
    const v = taken.includes(key) ? undefined : ownValue(fields, key);
    const out = v === undefined ? null : convert(v);
    if (out !== null) return out;
  }
  return null;
}

function isScalar(v: FieldValue): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

export function nonEmptyString(v: FieldValue): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Lowercase hex id of the given length (OTel trace 32, span 16), or null. */
export function hexId(v: FieldValue | undefined, length: number): string | null {
  if (typeof v !== 'string' || v.length !== length || !/^[0-9a-fA-F]+$/.test(v)) return null;
  const lower = v.toLowerCase();
  return /^0+$/.test(lower) ? null : lower;
}

/**
 * A time value of any shipper: epoch seconds with a fraction (HEC, GELF, Fluent Bit `double`/`epoch`),
 * ms/µs/ns by digit count (`epoch_ms`), RFC 3339 (`iso8601`) and `2024-05-01 12:00:00.123456`
 * (`java_sql_timestamp`, read as UTC) — all of timestamps.ts (§3.1, §3.8). 0 means "not set", as in
 * VictoriaLogs and native.ts. Null when it is none of these.
 */
export function timeToNs(v: FieldValue | undefined): bigint | null {
  const ns = typeof v === 'number' || typeof v === 'string' ? parseTimestamp(v) : null;
  return ns === 0n ? null : ns;
}
