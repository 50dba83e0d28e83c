// Lenient readers over an OTLP/JSON-shaped object (wire-formats.md §3.2 "JSON quirks", which §3.16 reuses):
// lowerCamelCase or snake_case keys; 64-bit integers as decimal strings or numbers; doubles as numbers or
// "NaN" / "Infinity" / "-Infinity"; enums as integers or names; absent fields take defaults; unknown fields
// are ignored. The protobuf path decodes into the same shape (otlp-metrics-proto.ts), so one translator
// serves both. A value of the wrong type is a 400 whose detail names its path.
import { errors, type ServiceError } from '../../errors.js';
import { formatPromFloat } from './prom-names.js';

export type JsonObject = Record<string, unknown>;

const snakeCache = new Map<string, string>();
function snake(camel: string): string {
  let s = snakeCache.get(camel);
  if (s === undefined) {
    s = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeCache.set(camel, s);
  }
  return s;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function invalid(path: string, what: string): ServiceError {
  return errors.badRequest(`invalid OTLP metrics: ${path} ${what}`);
}

/** The value under a camelCase key or its snake_case twin; null counts as absent. */
export function field(o: JsonObject, camel: string): unknown {
  const v = o[camel] ?? o[snake(camel)];
  return v ?? undefined;
}

export function has(o: JsonObject, camel: string): boolean {
  return field(o, camel) !== undefined;
}

export function asObject(v: unknown, path: string): JsonObject {
  if (!isObject(v)) throw invalid(path, 'must be an object');
  return v;
}

export function objectAt(o: JsonObject, key: string, path: string): JsonObject | undefined {
  const v = field(o, key);
  return v === undefined ? undefined : asObject(v, `${path}.${key}`);
}

export function arrayAt(o: JsonObject, key: string, path: string): unknown[] {
  const v = field(o, key);
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw invalid(`${path}.${key}`, 'must be an array');
  return v;
}

export function stringAt(o: JsonObject, key: string, path: string): string {
  const v = field(o, key);
  if (v === undefined) return '';
  if (typeof v !== 'string') throw invalid(`${path}.${key}`, 'must be a string');
  return v;
}

export function boolAt(o: JsonObject, key: string, path: string): boolean {
  const v = field(o, key);
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw invalid(`${path}.${key}`, 'must be a boolean');
  return v;
}

const SPECIAL_DOUBLES: Readonly<Record<string, number>> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

/** A double: a JSON number, a numeric string, or "NaN" / "Infinity" / "-Infinity". */
export function toDouble(v: unknown, path: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const special = SPECIAL_DOUBLES[v];
    if (special !== undefined) return special;
    if (v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  }
  throw invalid(path, 'must be a number');
}

export function doubleAt(o: JsonObject, key: string, path: string): number | undefined {
  const v = field(o, key);
  return v === undefined ? undefined : toDouble(v, `${path}.${key}`);
}

/** A 64-bit integer as a decimal string or a JSON number (precision past 2^53 is lost, as in any double). */
export function toInt(v: unknown, path: string): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) return Number(v);
  throw invalid(path, 'must be an integer');
}

/** A 64-bit integer as its exact decimal text (label values must not round through a double). */
export function intString(v: unknown, path: string): string {
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) return BigInt(v).toString();
  return String(toInt(v, path));
}

export function intAt(o: JsonObject, key: string, path: string): number {
  const v = field(o, key);
  return v === undefined ? 0 : toInt(v, `${path}.${key}`);
}

/** Unix nanoseconds (string or number) → unix ms, floored; 0 or absent → undefined. */
export function nanosToMsAt(o: JsonObject, key: string, path: string): number | undefined {
  const v = field(o, key);
  if (v === undefined) return undefined;
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const ms = Number(BigInt(v) / 1_000_000n);
    return ms === 0 ? undefined : ms;
  }
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
    const ms = Math.floor(v / 1e6);
    return ms === 0 ? undefined : ms;
  }
  throw invalid(`${path}.${key}`, 'must be unix nanoseconds');
}

/** An enum given as its number or its name (`AGGREGATION_TEMPORALITY_DELTA`). */
export function enumAt(o: JsonObject, key: string, path: string, names: Readonly<Record<string, number>>): number {
  const v = field(o, key);
  if (v === undefined) return 0;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string') {
    const n = names[v];
    if (n !== undefined) return n;
    if (/^\d+$/.test(v)) return Number(v);
  }
  throw invalid(`${path}.${key}`, 'must be an enum number or name');
}

/** An AnyValue as the string a label carries: JSON for arrays and maps, base64 for bytes. */
export function anyValueString(v: unknown, path: string): string {
  if (v === undefined) return '';
  const o = asObject(v, path);
  const s = field(o, 'stringValue');
  if (s !== undefined) {
    if (typeof s !== 'string') throw invalid(`${path}.stringValue`, 'must be a string');
    return s;
  }
  const b = field(o, 'boolValue');
  if (b !== undefined) return String(b === true || b === 'true');
  const i = field(o, 'intValue');
  if (i !== undefined) return intString(i, `${path}.intValue`);
  const d = field(o, 'doubleValue');
  if (d !== undefined) return formatPromFloat(toDouble(d, `${path}.doubleValue`));
  const bytes = field(o, 'bytesValue');
  if (bytes !== undefined) return typeof bytes === 'string' ? bytes : '';
  const arr = field(o, 'arrayValue');
  if (arr !== undefined) return JSON.stringify(plainAny(o));
  const kv = field(o, 'kvlistValue');
  if (kv !== undefined) return JSON.stringify(plainAny(o));
  return '';
}

/** AnyValue → a plain JS value, for JSON-encoding arrays and maps into a label value. */
function plainAny(v: unknown): unknown {
  if (!isObject(v)) return null;
  const arr = field(v, 'arrayValue');
  if (isObject(arr)) return (Array.isArray(arr.values) ? arr.values : []).map(plainAny);
  const kv = field(v, 'kvlistValue');
  if (isObject(kv)) {
    const out: JsonObject = {};
    for (const e of Array.isArray(kv.values) ? kv.values : []) {
      if (isObject(e) && typeof e.key === 'string') out[e.key] = plainAny(e.value);
    }
    return out;
  }
  for (const k of ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'bytesValue']) {
    const x = field(v, k);
    if (x !== undefined) return x;
  }
  return null;
}

/** KeyValue[] → [key, string value] pairs. */
export function attributesAt(o: JsonObject, key: string, path: string): [string, string][] {
  return arrayAt(o, key, path).map((kv, i) => {
    const p = `${path}.${key}[${i}]`;
    const obj = asObject(kv, p);
    return [stringAt(obj, 'key', p), anyValueString(field(obj, 'value'), `${p}.value`)];
  });
}
