// POST /v1/rum/replay: browser session replay chunks (spec, App plane paths; DESIGN §6 caps it at 16 MB
// decompressed, which the route enforces before this parser runs). The body is what web/sdk uploads:
//   {session_id, seq, events: [rrweb events], page?, user?}
// or a JSON array of such objects (several chunks in one upload). Each object becomes one ReplayChunk;
// the store returns a session's chunks in seq order. rrweb's event shape (`eventWithTime` in
// @rrweb/types): every event carries a numeric `type` (EventType) and `timestamp` (unix ms, Date.now()).
import type { IngestFormat } from '../format.js';
import type { ReplayChunk } from '../../model/replay.js';
import { errors } from '../../errors.js';
import { msToNs } from '../../model/time.js';
import { sendJson } from '../../front-doors/reply.js';
import { bodyText, isJsonObject, type JsonObject } from './shipper-records.js';

/** The ids a browser can mint and a URL path can carry unescaped (read API: /replays/<session_id>). */
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The largest unix-ms time whose nanoseconds still fit the store's signed 64-bit columns (year 2262). */
const MAX_TIMESTAMP_MS = 9_223_372_036_854;

/**
 * One chunk object → ReplayChunk. `where` prefixes every 400 detail ('' for a single-object body,
 * 'chunk 2: ' inside an array) so the detail names the field at fault. An empty `events` array is
 * accepted as a chunk of 0 events timed at receipt (the model's rule for chunks without event times):
 * it keeps the seq numbering of an uploader that flushed nothing, and costs one row.
 */
export function parseReplayChunk(obj: JsonObject, nowNs: bigint, where = ''): ReplayChunk {
  const sessionId = obj.session_id;
  if (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)) {
    throw errors.badRequest(`${where}session_id must be a string of 1-128 characters from [A-Za-z0-9._:-]`);
  }
  const seq = obj.seq;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    throw errors.badRequest(`${where}seq must be a non-negative integer`);
  }
  const events = obj.events;
  if (!Array.isArray(events)) throw errors.badRequest(`${where}events must be an array of rrweb events`);
  let minMs = Infinity;
  let maxMs = -Infinity;
  events.forEach((event: unknown, i) => {
    if (!isJsonObject(event)) throw errors.badRequest(`${where}events[${i}] must be an object`);
    const { timestamp, type } = event;
    if (typeof timestamp !== 'number' || !(timestamp >= 0 && timestamp <= MAX_TIMESTAMP_MS)) {
      throw errors.badRequest(`${where}events[${i}].timestamp must be unix milliseconds (a number)`);
    }
    if (typeof type !== 'number' || !Number.isInteger(type) || type < 0) {
      throw errors.badRequest(`${where}events[${i}].type must be a non-negative integer (rrweb EventType)`);
    }
    if (timestamp < minMs) minMs = timestamp;
    if (timestamp > maxMs) maxMs = timestamp;
  });
  return {
    sessionId,
    seq,
    startNs: events.length === 0 ? nowNs : msToNs(minMs),
    endNs: events.length === 0 ? nowNs : msToNs(maxMs),
    // Re-encoded from the parsed value: the same JSON values as sent, without the sender's whitespace.
    eventsJson: JSON.stringify(events),
    eventCount: events.length,
    page: optionalString(obj, 'page', where),
    user: optionalString(obj, 'user', where),
  };
}

function optionalString(obj: JsonObject, field: 'page' | 'user', where: string): string {
  const v = obj[field];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw errors.badRequest(`${where}${field} must be a string`);
  return v;
}

/** The whole body → chunks: one object, or a non-empty array of objects. */
export function parseReplayBody(body: Buffer, nowNs: bigint): ReplayChunk[] {
  const text = bodyText(body);
  if (text.trim() === '') throw errors.badRequest('Body is empty: expected a replay chunk {session_id, seq, events}');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`Body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) throw errors.badRequest('Body is an empty array: expected at least one replay chunk');
    return parsed.map((item: unknown, i) => {
      const where = `chunk ${i + 1}: `;
      if (!isJsonObject(item)) throw errors.badRequest(`${where}must be an object {session_id, seq, events}`);
      return parseReplayChunk(item, nowNs, where);
    });
  }
  if (!isJsonObject(parsed)) throw errors.badRequest('Body must be a replay chunk object {session_id, seq, events} or an array of them');
  return [parseReplayChunk(parsed, nowNs)];
}

export const replayFormat: IngestFormat = {
  name: 'replay',
  parse(body, req) {
    return { batch: { logs: [], spans: [], replay: parseReplayBody(body, req.nowNs) }, signal: 'replay' };
  },
  // The pipeline counts log records and spans only (rate limiter entries), which is 0 here; the spec's
  // `accepted` is reported as the number of rrweb events stored, with the chunk count beside it.
  reply(ctx, _accepted, parsed) {
    const chunks = parsed.batch.replay ?? [];
    const events = chunks.reduce((n, c) => n + c.eventCount, 0);
    sendJson(ctx.res, 200, { status: 'ok', accepted: events, chunks: chunks.length });
  },
};
