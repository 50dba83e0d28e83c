// POST /api/v1/fluentbit (Fluent Bit out_http, wire-formats.md §3.8), with the aliases /api/v1/fluentd and
// /api/v1/logstash (§3.10, DESIGN §5): JSON array, NDJSON, or msgpack — out_http's default `Format`.
import { decodeMulti, ExtensionCodec } from '@msgpack/msgpack';
import type { IncomingHttpHeaders } from 'node:http';
import type { IngestFormat } from '../format.js';
import type { LogEntry } from '../../model/log-entry.js';
import { nsToRfc3339 } from '../../model/time.js';
import { errors, ServiceError } from '../../errors.js';
import { SEVERITY_NAMES } from './syslog-parse.js';
import { bodyText, firstByte, flatten, isJsonObject, parseJsonRecords, recordToEntry, timeToNs, type FlatRecord, type JsonObject } from './shipper-records.js';

/**
 * Keys of Fluent Bit (`log` from tail/docker/k8s, `MESSAGE` from systemd, `short_message` from
 * `Format gelf`, `date` = json_date_key),
 * Fluentd and Logstash (`message`, `@timestamp`, ECS `log.level` / `service.name`).
 */
const FLUENT_KEYS = {
  msg: ['_msg', 'log', 'message', 'MESSAGE', 'short_message'],
  time: ['date', '@timestamp', 'timestamp', 'time', '_time'],
  service: ['service', 'service.name'],
  serviceHints: ['kubernetes.container_name', 'SYSLOG_IDENTIFIER'],
  severity: ['level', 'severity', 'log.level', 'loglevel'],
} as const;

/** Fluent's EventTime: ext type 0, 4-byte big-endian seconds + 4-byte nanoseconds (Forward protocol v1). */
class EventTime {
  constructor(readonly ns: bigint) {}
}

const codec = new ExtensionCodec();
codec.register({
  type: 0,
  encode: () => null,
  decode: (data) => {
    if (data.length !== 8) throw new RangeError('EventTime must be 8 bytes');
    const view = new DataView(data.buffer, data.byteOffset, 8);
    return new EventTime(BigInt(view.getUint32(0)) * 1_000_000_000n + BigInt(view.getUint32(4)));
  },
});

/** §3.8: Content-Type when it says so, else an array marker first (fixarray 0x90–0x9f, array16/32). */
export function isMsgpack(body: Buffer, headers: IncomingHttpHeaders): boolean {
  const type = (headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/msgpack') || type.startsWith('application/x-msgpack')) return true;
  const b = body[0];
  return b !== undefined && ((b >= 0x90 && b <= 0x9f) || b === 0xdc || b === 0xdd);
}

function eventTimeNs(v: unknown): bigint | null {
  if (v instanceof EventTime) return v.ns;
  if (typeof v === 'number') return timeToNs(v);
  return null;
}

/** Msgpack values as JSON values: bin → UTF-8 text, EventTime / timestamp ext → RFC 3339, other ext → null. */
function toJson(v: unknown): unknown {
  if (v instanceof EventTime) return nsToRfc3339(v.ns);
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(toJson);
  if (isJsonObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]));
  if (typeof v === 'bigint') return v.toString();
  return typeof v === 'object' ? null : v;
}

/**
 * One event: `[time, record]` with time a number or EventTime, or Fluent Bit 2.x `[[time, metadata], record]`
 * (metadata kept as `metadata.*`). `n` is the 1-based event number for error details.
 */
function msgpackEvent(ev: unknown, n: number, nowNs: bigint): LogEntry {
  if (!Array.isArray(ev) || ev.length < 2) throw errors.badRequest(`msgpack event ${n} is not a [timestamp, record] array`);
  const parts = ev as unknown[];
  const head = parts[0];
  const record = parts[1];
  const rec = toJson(record);
  if (!isJsonObject(rec)) throw errors.badRequest(`msgpack event ${n}: the record is not a map`);
  let timeNs: bigint | null;
  let meta: unknown = undefined;
  if (Array.isArray(head)) {
    timeNs = eventTimeNs(head[0]);
    meta = toJson(head[1]);
  } else timeNs = eventTimeNs(head);
  const flat = fluentFlat(rec);
  if (isJsonObject(meta)) Object.assign(flat, flatten(meta, 'metadata'));
  return recordToEntry(flat, FLUENT_KEYS, nowNs, timeNs !== null && timeNs > 0n ? timeNs : null);
}

/** Flattened record; systemd's numeric `PRIORITY` is read as a syslog severity when no level key exists. */
function fluentFlat(rec: JsonObject): FlatRecord {
  const flat = flatten(rec);
  const prio = flat.PRIORITY;
  if ((typeof prio === 'string' || typeof prio === 'number') && /^[0-7]$/.test(String(prio)) && flat.level === undefined) {
    flat.level = SEVERITY_NAMES[Number(prio)] ?? String(prio);
  }
  return flat;
}

function parseMsgpack(body: Buffer, nowNs: bigint): LogEntry[] {
  const logs: LogEntry[] = [];
  try {
    for (const ev of decodeMulti(body, { extensionCodec: codec })) logs.push(msgpackEvent(ev, logs.length + 1, nowNs));
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    const why = e instanceof RangeError ? 'is truncated' : 'is not valid msgpack';
    throw errors.badRequest(`msgpack event ${logs.length + 1} ${why} (or set Format json in Fluent Bit)`);
  }
  return logs;
}

export const fluentbitFormat: IngestFormat = {
  name: 'fluentbit',
  parse(body, req) {
    const logs = isMsgpack(body, req.headers) && firstByte(body) !== undefined
      ? parseMsgpack(body, req.nowNs)
      : parseJsonRecords(bodyText(body), 'Fluent Bit').map((r) => recordToEntry(fluentFlat(r), FLUENT_KEYS, req.nowNs));
    return { batch: { logs, spans: [] }, signal: 'logs' };
  },
};
