// Splunk HTTP Event Collector (wire-formats.md §3.12; DESIGN §5 `<hec_vendor>` = Splunk):
//   /services/collector/event, /services/collector/event/1.0, /services/collector  → hecEventFormat
//   /services/collector/raw, /services/collector/raw/1.0                           → hecRawFormat
// The event body is one or more concatenated JSON objects (`{..}{..}`, any whitespace or none between),
// so it is split by a scanner that respects strings and escapes, then each object is JSON.parsed.
import type { FormatRequest, IngestFormat, ParsedBody } from '../format.js';
import type { RequestContext } from '../../front-doors/context.js';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { errors } from '../../errors.js';
import { sendJson } from '../../front-doors/reply.js';
import { bodyText, flatten, isJsonObject, makeEntry, take, tryJson, type JsonObject } from './shipper-records.js';
import { parseTimestamp } from './timestamps.js';
import { copyFields } from './fields.js';

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * Splits concatenated JSON objects into their texts. Only brackets outside strings count; a backslash
 * inside a string skips the next character. Throws 400 naming the event number on stray text or a cut-off
 * object. Does not validate the JSON inside: each text is JSON.parsed afterwards.
 */
export function scanJsonObjects(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (i >= text.length) return out;
    const n = out.length + 1;
    if (text.charCodeAt(i) !== 0x7b) throw errors.badRequest(`Invalid data format: expected a JSON object at event ${n}`);
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) break;
    }
    if (i >= text.length) throw errors.badRequest(`Invalid data format: event ${n} is incomplete (the body ends inside it)`);
    out.push(text.slice(start, ++i));
  }
}

/** The event objects of a body: concatenated objects, or (leniently) one JSON array of them. */
export function hecEventObjects(text: string): JsonObject[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    const arr = tryJson(trimmed);
    if (!Array.isArray(arr)) throw errors.badRequest('Invalid data format: the body is not a valid JSON array');
    return arr.map((o: unknown, i) => {
      if (!isJsonObject(o)) throw errors.badRequest(`Invalid data format: event ${i + 1} is not a JSON object`);
      return o;
    });
  }
  return scanJsonObjects(text).map((objText, i) => {
    const o = tryJson(objText);
    if (!isJsonObject(o)) throw errors.badRequest(`Invalid data format: event ${i + 1} is not valid JSON`);
    return o;
  });
}

/** §3.12 Mapping: event string, else event.message / event.log / event.line, else the JSON text. */
const EVENT_MSG_KEYS = ['message', 'log', 'line'] as const;
const EVENT_SEVERITY_KEYS = ['level', 'severity'] as const;

function hecTime(v: unknown, n: number): bigint | null {
  if (v === undefined || v === null || v === '') return null;
  const ns = typeof v === 'number' || typeof v === 'string' ? parseTimestamp(v) : null;
  if (ns === null) throw errors.badRequest(`Invalid time: expected epoch seconds (event ${n})`);
  return ns === 0n ? null : ns;
}

/**
 * One event object. Fields: an object event's own keys (flattened, minus the one used as message),
 * then `host`, `source`, `sourcetype`, `index`, then `fields{}` — later wins. service ← fields.service,
 * event.service, source, sourcetype. `n` is the 1-based event number Splunk reports errors with.
 */
export function hecEventToEntry(obj: JsonObject, n: number, nowNs: bigint): LogEntry {
  const event = obj.event;
  if (event === undefined || event === null) throw errors.badRequest(`Event field is required (event ${n})`);
  if (event === '') throw errors.badRequest(`Event field cannot be blank (event ${n})`);
  const fields: Record<string, FieldValue> = {};
  let msg: string;
  let severity: string | null = null;
  if (isJsonObject(event)) {
    copyFields(fields, flatten(event));
    msg = take(fields, EVENT_MSG_KEYS, (v) => (typeof v === 'string' ? v : null)) ?? JSON.stringify(event);
    severity = take(fields, EVENT_SEVERITY_KEYS, (v) => (typeof v === 'string' ? v : null));
  } else msg = typeof event === 'string' ? event : JSON.stringify(event);
  for (const key of ['host', 'source', 'sourcetype', 'index'] as const) {
    const v = obj[key];
    if (typeof v === 'string' || typeof v === 'number') fields[key] = v;
  }
  if (isJsonObject(obj.fields)) copyFields(fields, flatten(obj.fields));
  const service = take(fields, ['service'], (v) => (typeof v === 'string' && v !== '' ? v : null))
    ?? [fields.source, fields.sourcetype].find((v): v is string => typeof v === 'string' && v !== '') ?? '';
  return makeEntry({ timeNs: hecTime(obj.time, n) ?? nowNs, observedNs: nowNs, service, severity: severity ?? '', msg, fields });
}

function hecReply(ctx: RequestContext, accepted: number): void {
  // Clients check `code == 0` (§4); the spec's {status, accepted} rides along.
  sendJson(ctx.res, 200, { text: 'Success', code: 0, status: 'ok', accepted });
}

export const hecEventFormat: IngestFormat = {
  name: 'hec',
  parse(body, req) {
    const objects = hecEventObjects(bodyText(body));
    return { batch: { logs: objects.map((o, i) => hecEventToEntry(o, i + 1, req.nowNs)), spans: [] }, signal: 'logs' };
  },
  reply: hecReply,
};

/** Raw endpoint: each line one event; `sourcetype`, `source`, `host`, `index`, `time` from the query (§3.12). */
function parseRaw(body: Buffer, req: FormatRequest): ParsedBody {
  const fields: Record<string, FieldValue> = {};
  for (const key of ['host', 'source', 'sourcetype', 'index'] as const) {
    const v = req.query.get(key);
    if (v !== null && v !== '') fields[key] = v;
  }
  const time = req.query.get('time');
  const parsedTime = time === null || time === '' ? 0n : parseTimestamp(time);
  if (parsedTime === null) throw errors.badRequest('Invalid time query parameter: expected epoch seconds');
  const service = req.query.get('source') || req.query.get('sourcetype') || '';
  const logs = bodyText(body).split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '')
    .map((msg) => makeEntry({ timeNs: parsedTime === 0n ? req.nowNs : parsedTime, observedNs: req.nowNs, service, msg, fields: { ...fields } }));
  return { batch: { logs, spans: [] }, signal: 'logs' };
}

/** The channel (`X-Splunk-Request-Channel` / `?channel=`) is tolerated and ignored: we give no ackIds. */
export const hecRawFormat: IngestFormat = { name: 'hec', parse: parseRaw, reply: hecReply };

/**
 * Splunk's own `{text, code}` beside the spec's error fields (wire-formats §3.12 Replies): HEC clients such as
 * splunk-logging judge a reply by `code` alone, so every refusal must carry a non-zero one.
 */
export function hecErrorFields(e: { status: number; detail?: string }): Record<string, string | number> {
  // Splunk's own codes for an event without `event` (12) or with an empty one (13), with its 0-based index (the detail counts from 1).
  const missing = /^Event field is (required|blank)\b.*?\(event (\d+)\)/.exec(e.detail ?? '');
  if (missing) {
    const blank = missing[1] === 'blank';
    return { text: blank ? 'Event field cannot be blank' : 'Event field is required', code: blank ? 13 : 12, 'invalid-event-number': Number(missing[2]) - 1 };
  }
  switch (e.status) {
    case 401: return { text: 'Token is required', code: 2 };
    case 403: return { text: 'Invalid token', code: 4 };
    case 400: return { text: 'Invalid data format', code: 6 };
    case 413: return { text: 'Content length too large', code: 27 };
    case 429: case 503: return { text: 'Server is busy', code: 9 };
    default: return { text: 'Internal server error', code: 8 };
  }
}
