// OTLP protobuf logs read straight from protobufjs's decoded messages (issue 12 item 2), for the DuckDB worker, which
// parses each request again as it appends it (otlp-logs.ts otlpLogWindows). parseOtlpLogs reads both encodings
// through one plain-object walker, so a protobuf body is first copied whole into plain objects (toObject, every
// 64-bit value as a decimal string); that copy was most of the worker's garbage. The entries here are the ones
// parseOtlpLogs gives; where a decoded message differs from its toObject copy, it is read as the copy would be:
// - a field not on the wire reads as its default from the prototype (an AnyValue's unset members included), where
//   toObject leaves it out: AnyValue members and ids count only when they are the message's own properties;
// - 64-bit values are Longs: a time becomes its bigint, an int_value the number (or text) the decimal string gives.
import type { Message } from 'protobufjs';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import {
  bodyText, double, flatAttributes, hexId, int64, resourceContext, scopeFields, severityName, str, type Obj,
  type ResourceContext,
} from './otlp-common.js';
import { copyFields, setField } from './fields.js';

/** protobufjs's 64-bit value (the `long` package), read by its parts. */
interface LongBits {
  low: number;
  high: number;
  toString(): string;
}

function isLong(v: unknown): v is LongBits {
  return typeof v === 'object' && v !== null && typeof (v as LongBits).low === 'number' && typeof (v as LongBits).high === 'number';
}

/** A fixed64 time as bigint (0n when unset), as nanos() reads toObject's decimal string. */
function fixed64(v: unknown): bigint {
  if (isLong(v)) return v.high === 0 ? BigInt(v.low >>> 0) : (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : 0n;
}

/** An int64 as int64() reads toObject's decimal string: a number when exact, else the text. */
function int64Value(v: unknown): FieldValue {
  if (isLong(v)) {
    // The common small values without making the text: high is the sign extension of low.
    if ((v.high === 0 && v.low >= 0) || (v.high === -1 && v.low < 0)) return v.low;
    return int64(v.toString());
  }
  return int64(typeof v === 'number' ? String(v) : v);
}

function own(m: Obj, key: string): unknown {
  return Object.hasOwn(m, key) ? m[key] : undefined;
}

/** A decoded AnyValue as anyValue() reads its toObject copy: the first member set, in anyValue's order. */
export function protoAnyValue(v: unknown): FieldValue {
  if (typeof v !== 'object' || v === null) return null;
  const m = v as Obj;
  let x = own(m, 'stringValue');
  if (x !== undefined && x !== null) return typeof x === 'string' ? x : JSON.stringify(x);
  x = own(m, 'boolValue');
  if (x !== undefined && x !== null) return x === true;
  x = own(m, 'intValue');
  if (x !== undefined && x !== null) return int64Value(x);
  x = own(m, 'doubleValue');
  if (x !== undefined && x !== null) return double(x);
  x = own(m, 'arrayValue');
  if (x !== undefined && x !== null) return valuesOf(x).map(protoAnyValue);
  x = own(m, 'kvlistValue');
  if (x !== undefined && x !== null) {
    const out: Record<string, FieldValue> = {};
    for (const kv of valuesOf(x)) setField(out, str((kv as Obj).key), protoAnyValue((kv as Obj).value));
    return out;
  }
  x = own(m, 'bytesValue');
  if (x instanceof Uint8Array) return Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('base64');
  return null;
}

function valuesOf(list: unknown): unknown[] {
  const values = (list as Obj).values;
  return Array.isArray(values) ? values : [];
}

/** The entries of a decoded ExportLogsServiceRequest, as parseOtlpLogs gives them for the same body. */
export function protoLogEntries(request: Message, nowNs: bigint): LogEntry[] {
  const logs: LogEntry[] = [];
  for (const rl of listOf(request, 'resourceLogs')) {
    const resource = resourceContext(rl, protoAnyValue);
    for (const sl of listOf(rl, 'scopeLogs')) {
      const scope = scopeFields(sl, protoAnyValue);
      for (const r of listOf(sl, 'logRecords')) {
        const fields = copyFields(copyFields({}, resource.fields), scope);
        flatAttributes(r.attributes, '', fields, protoAnyValue);
        logs.push(recordEntry({
          time: fixed64(r.timeUnixNano),
          observed: fixed64(r.observedTimeUnixNano),
          severityNumber: typeof r.severityNumber === 'number' && Number.isInteger(r.severityNumber) ? r.severityNumber : 0,
          severityText: str(r.severityText),
          body: protoAnyValue(r.body),
          fields,
          traceId: own(r, 'traceId'),
          spanId: own(r, 'spanId'),
          eventName: str(r.eventName),
        }, resource, nowNs));
      }
    }
  }
  return logs;
}

/**
 * A log record's parts as a protobuf reader gets them: ids still as bytes, and `fields` its resource's, then its
 * scope's, then its attributes (the copies and flatAttributes of parseOtlpLogs's toLogEntry).
 */
export interface RecordParts {
  time: bigint;
  observed: bigint;
  severityNumber: number;
  severityText: string;
  body: FieldValue;
  fields: Record<string, FieldValue>;
  traceId: unknown;
  spanId: unknown;
  eventName: string;
}

/** A record's entry, as parseOtlpLogs makes it. */
export function recordEntry(r: RecordParts, resource: ResourceContext, nowNs: bigint): LogEntry {
  const fields = r.fields;
  if (r.severityNumber > 0) fields['otel.severity_number'] = r.severityNumber;
  if (r.eventName !== '') fields['event.name'] = r.eventName;
  return {
    timeNs: r.time > 0n ? r.time : r.observed > 0n ? r.observed : nowNs,
    observedNs: nowNs,
    service: resource.service,
    severity: r.severityText || severityName(r.severityNumber),
    msg: bodyText(r.body),
    traceId: hexId(r.traceId, 16) ?? '',
    spanId: hexId(r.spanId, 8) ?? '',
    stream: '',
    fields,
  };
}

function listOf(m: unknown, key: string): Obj[] {
  const list = (m as Obj)[key];
  return Array.isArray(list) ? (list as Obj[]) : [];
}
