// Free fields of an entry, flattened the way VictoriaLogs stores JSON (wire-formats.md §3.1): nested
// objects become dotted keys (`kubernetes.pod_name`), scalars stay as they are, arrays are kept as their
// JSON text. Shared by every format parser that carries arbitrary JSON.
import { errors } from '../../errors.js';
import type { FieldValue } from '../../model/log-entry.js';

/** A flattened field value: never an object or array. */
export type FlatValue = string | number | boolean | null;

/** Past this depth a subtree is kept as JSON text rather than flattened further (bounds the recursion). */
export const MAX_FLATTEN_DEPTH = 32;

/** `obj` flattened into a fresh record, every key under `prefix.` when a prefix is given. */
export function flattenFields(obj: Record<string, unknown>, prefix = ''): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const key of Object.keys(obj)) addField(out, prefix === '' ? key : `${prefix}.${key}`, obj[key]);
  return out;
}

/**
 * Adds one value under `key`, flattening objects below it. `undefined` and functions are skipped; an
 * empty object is kept as the text `{}` so that a field that was sent never silently disappears.
 */
export function addField(out: Record<string, FieldValue>, key: string, value: unknown, depth = 0): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      setField(out, key, value);
      return;
    case 'number':
      setField(out, key, Number.isFinite(value) ? value : String(value));
      return;
    case 'bigint':
      setField(out, key, value.toString());
      return;
    case 'object':
      break;
    default:
      return; // undefined, function, symbol: nothing JSON would carry
  }
  if (value === null) setField(out, key, null);
  else if (Array.isArray(value)) setField(out, key, jsonText(value));
  else if (value instanceof Uint8Array) setField(out, key, Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8'));
  else if (value instanceof Date) setField(out, key, value.toISOString());
  else if (depth >= MAX_FLATTEN_DEPTH) setField(out, key, jsonText(value));
  else {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (keys.length === 0) setField(out, key, '{}');
    for (const k of keys) addField(out, dottedKey(key, k), obj[k], depth + 1);
  }
}

// The same nested keys come back in every entry of a batch; joining them once and handing back the same
// string halves the cost of flattening (measured on bench-shaped entries). Bounded: cleared when full.
const MAX_CACHED_KEYS = 4096;
const dotted = new Map<string, Map<string, string>>();

function dottedKey(prefix: string, key: string): string {
  let inner = dotted.get(prefix);
  if (inner === undefined) {
    if (dotted.size >= MAX_CACHED_KEYS) dotted.clear();
    inner = new Map();
    dotted.set(prefix, inner);
  }
  let joined = inner.get(key);
  if (joined === undefined) {
    if (inner.size >= MAX_CACHED_KEYS) inner.clear();
    joined = `${prefix}.${key}`;
    inner.set(key, joined);
  }
  return joined;
}

/** JSON.stringify as it behaves: undefined (and functions) give undefined, not a string. */
const stringify = JSON.stringify as (value: unknown, replacer?: (key: string, v: unknown) => unknown) => string | undefined;

/** JSON text of a value ('' for undefined); bigints (from msgpack decoders) as their decimal text. */
export function jsonText(value: unknown): string {
  try {
    return stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) ?? '';
  } catch (e) {
    // Thousands of nested levels overflow the stack: a malformed body (400), never a 500 a shipper retries.
    if (e instanceof RangeError) throw errors.badRequest('A field value is nested too deeply to store');
    throw e;
  }
}

/** `out[key] = value`, safe for a key named `__proto__` (keys come from the wire). */
export function setField(out: Record<string, FieldValue>, key: string, value: FieldValue): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * Copies `from`'s fields into `into`, a `__proto__` key as data (Object.assign would drop it). Not `{ ...from }`:
 * on node 20 V8 adds further properties to a spread's copy on a slow path — 5 µs an OTLP record (whose fields start
 * from its resource's and scope's) against 0.1 µs this way, a sixth of the DuckDB worker's time on OTLP logs
 * (issue 12 item 2).
 */
export function copyFields(into: Record<string, FieldValue>, from: Record<string, FieldValue>): Record<string, FieldValue> {
  for (const key of Object.keys(from)) setField(into, key, from[key] ?? null);
  return into;
}
