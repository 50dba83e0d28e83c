// POST /gelf and /api/v1/gelf: GELF 1.1 over HTTP (wire-formats.md §3.13). One object per request, or
// newline-delimited objects (Graylog's bulk receiving, Fluent Bit `Format gelf`); NUL separators as
// GELF TCP uses them are tolerated, and so is a JSON array.
import type { IngestFormat } from '../format.js';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { errors } from '../../errors.js';
import { sendJson } from '../../front-doors/reply.js';
import { SEVERITY_NAMES } from './syslog-parse.js';
import { bodyText, flatten, hexId, makeEntry, parseJsonRecords, type JsonObject } from './shipper-records.js';
import { parseTimestamp } from './timestamps.js';

/**
 * One GELF message. `_msg` ← short_message (required), `full_message` kept, `timestamp` epoch seconds with a
 * fraction, `level` 0–7 → syslog severity keyword (absent → '', not GELF's nominal default 1), `_`-prefixed
 * additional fields stored without the underscore (`_id` is reserved and dropped, `_trace_id`/`_span_id` fill
 * the id columns), `host`, `facility`, `file`, `line` and unprefixed extras kept, `version` dropped.
 * service ← `_service`, else `facility`, else `host`. `n` is the 1-based message number for error details.
 */
export function gelfToEntry(obj: JsonObject, n: number, nowNs: bigint): LogEntry {
  const short = obj.short_message;
  if (typeof short !== 'string' && typeof short !== 'number') {
    throw errors.badRequest(`GELF message ${n}: short_message is required`);
  }
  let timeNs: bigint | null = null;
  if (obj.timestamp !== undefined && obj.timestamp !== null) {
    timeNs = typeof obj.timestamp === 'number' || typeof obj.timestamp === 'string' ? parseTimestamp(obj.timestamp) : null;
    if (timeNs === null) throw errors.badRequest(`GELF message ${n}: timestamp must be epoch seconds`);
    if (timeNs === 0n) timeNs = null;
  }
  const fields: Record<string, FieldValue> = {};
  const extras: JsonObject = {};
  let service = '';
  let traceId = '';
  let spanId = '';
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'short_message' || key === 'timestamp' || key === 'level' || key === 'version' || key === '_id') continue;
    if (key === '_service' && typeof value === 'string') service = value;
    else if (key === '_trace_id' && hexId(str(value), 32) !== null) traceId = hexId(str(value), 32) ?? '';
    else if (key === '_span_id' && hexId(str(value), 16) !== null) spanId = hexId(str(value), 16) ?? '';
    else if (key !== '_') extras[key.startsWith('_') ? key.slice(1) : key] = value;
  }
  Object.assign(fields, flatten(extras));
  if (service === '') service = [obj.facility, obj.host].find((v): v is string => typeof v === 'string' && v !== '') ?? '';
  return makeEntry({ timeNs: timeNs ?? nowNs, observedNs: nowNs, service, severity: gelfLevel(obj.level), msg: String(short), traceId, spanId, fields });
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function gelfLevel(level: unknown): string {
  if (typeof level === 'number') return SEVERITY_NAMES[level] ?? String(level);
  if (typeof level === 'string') return /^[0-7]$/.test(level) ? (SEVERITY_NAMES[Number(level)] ?? level) : level;
  return '';
}

export const gelfFormat: IngestFormat = {
  name: 'gelf',
  parse(body, req) {
    const text = bodyText(body).replace(/\0/g, '\n');
    const logs = parseJsonRecords(text, 'GELF').map((o, i) => gelfToEntry(o, i + 1, req.nowNs));
    return { batch: { logs, spans: [] }, signal: 'logs' };
  },
  reply(ctx, accepted) {
    sendJson(ctx.res, 202, { status: 'ok', accepted }); // Graylog answers 202 (§3.13 Transport)
  },
};
