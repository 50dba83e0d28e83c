// POST /api/v1/cloudwatch and /api/v1/firehose: Kinesis Data Firehose HTTP endpoint delivery
// (wire-formats.md §3.11). Each base64 record is sniffed: gzip → a CloudWatch Logs subscription payload
// (one entry per logEvent), else a JSON object or raw text lines. The reply must echo `requestId`.
import { gunzipSync } from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import type { IngestFormat } from '../format.js';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { errors } from '../../errors.js';
import { sendJson } from '../../front-doors/reply.js';
import { msToNs, nsToMs } from '../../model/time.js';
import { flatten, isJsonObject, makeEntry, recordToEntry, timeToNs, tryJson, type FlatRecord, type JsonObject } from './shipper-records.js';
import { utf8Text } from '../utf8-text.js';

/** Bound on all records' decoded bytes together: gzip bombs stop here (§2; DESIGN §6's 64 MiB). */
export const FIREHOSE_MAX_DECODED_BYTES = 64 * 1024 * 1024;

const RECORD_KEYS = {
  msg: ['message', '_msg', 'msg', 'log'],
  time: ['timestamp', '@timestamp', '_time', 'time'],
  service: ['service', 'service.name'],
  severity: ['level', 'severity', 'log.level'],
} as const;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

interface FirehoseReplyData {
  requestId: string;
  nowMs: number;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `X-Amz-Firehose-Common-Attributes: {"commonAttributes":{…}}`; malformed metadata is ignored, not refused. */
function commonAttributes(headers: IncomingHttpHeaders): FlatRecord {
  const raw = header(headers, 'x-amz-firehose-common-attributes');
  const parsed = raw === undefined ? undefined : tryJson(raw);
  const attrs = isJsonObject(parsed) ? parsed.commonAttributes : undefined;
  return isJsonObject(attrs) ? flatten(attrs) : {};
}

/** CloudWatch Logs subscription payload (SubscriptionFilters docs): CONTROL_MESSAGE is a probe, skipped. */
function cloudWatchEntries(payload: JsonObject, common: FlatRecord, nowNs: bigint, n: number): LogEntry[] {
  if (payload.messageType === 'CONTROL_MESSAGE') return [];
  const events = payload.logEvents;
  if (!Array.isArray(events)) throw errors.badRequest(`Firehose record ${n}: CloudWatch payload has no logEvents array`);
  const logGroup = typeof payload.logGroup === 'string' ? payload.logGroup : '';
  const base: Record<string, FieldValue> = { ...common, logGroup, logStream: str(payload.logStream), owner: str(payload.owner) };
  if (Array.isArray(payload.subscriptionFilters)) base.subscriptionFilters = JSON.stringify(payload.subscriptionFilters);
  return events.map((ev: unknown, i) => {
    if (!isJsonObject(ev)) throw errors.badRequest(`Firehose record ${n}: logEvent ${i + 1} is not an object`);
    const ts = ev.timestamp;
    const timeNs = typeof ts === 'number' && Number.isFinite(ts) ? msToNs(ts) : nowNs;
    const fields: Record<string, FieldValue> = { ...base };
    if (typeof ev.id === 'string') fields.id = ev.id;
    return makeEntry({ timeNs, observedNs: nowNs, service: logGroup, msg: str(ev.message), fields });
  });
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

function objectEntry(obj: JsonObject, common: FlatRecord, nowNs: bigint, defaultTimeNs: bigint): LogEntry {
  return recordToEntry({ ...common, ...flatten(obj) }, RECORD_KEYS, nowNs, null, defaultTimeNs);
}

/** Decoded record bytes → entries: CloudWatch payload, one JSON object, or text lines (JSON lines mapped too). */
function recordEntries(bytes: Buffer, common: FlatRecord, nowNs: bigint, defaultTimeNs: bigint, n: number): LogEntry[] {
  const text = utf8Text(bytes).replace(/^\uFEFF/, '');
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const whole = trimmed.startsWith('{') ? tryJson(trimmed) : undefined;
  if (isJsonObject(whole)) {
    return typeof whole.messageType === 'string' ? cloudWatchEntries(whole, common, nowNs, n) : [objectEntry(whole, common, nowNs, defaultTimeNs)];
  }
  return trimmed.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '').map((line) => {
    const obj = line.trimStart().startsWith('{') ? tryJson(line) : undefined;
    if (isJsonObject(obj)) return objectEntry(obj, common, nowNs, defaultTimeNs);
    return makeEntry({ timeNs: defaultTimeNs, observedNs: nowNs, msg: line, fields: { ...common } });
  });
}

function gunzipBounded(data: Buffer, budget: number, n: number): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: Math.max(1, budget) });
  } catch (e) {
    if (e instanceof RangeError || (e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw errors.payloadTooLarge(`more than ${FIREHOSE_MAX_DECODED_BYTES}`, FIREHOSE_MAX_DECODED_BYTES);
    }
    throw errors.badRequest(`Firehose record ${n}: corrupt gzip data`);
  }
}

export const firehoseFormat: IngestFormat = {
  name: 'firehose',
  parse(body, req) {
    const envelope = tryJson(utf8Text(body).replace(/^\uFEFF/, ''));
    if (!isJsonObject(envelope)) throw errors.badRequest('Firehose body is not a JSON object with requestId and records');
    const records = envelope.records ?? [];
    if (!Array.isArray(records)) throw errors.badRequest('Firehose body: records must be an array');
    const requestId = typeof envelope.requestId === 'string' ? envelope.requestId : (header(req.headers, 'x-amz-firehose-request-id') ?? '');
    const sentNs = timeToNs(typeof envelope.timestamp === 'number' ? envelope.timestamp : null) ?? req.nowNs;
    const common = commonAttributes(req.headers);
    const logs: LogEntry[] = [];
    let budget = FIREHOSE_MAX_DECODED_BYTES;
    records.forEach((rec: unknown, i) => {
      const n = i + 1;
      const data = isJsonObject(rec) ? rec.data : undefined;
      if (typeof data !== 'string' || !BASE64.test(data.replace(/\s+/g, ''))) {
        throw errors.badRequest(`Firehose record ${n}: data must be a base64 string`);
      }
      let bytes: Buffer = Buffer.from(data, 'base64');
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipBounded(bytes, budget, n);
      budget -= bytes.length;
      if (budget < 0) throw errors.payloadTooLarge(`more than ${FIREHOSE_MAX_DECODED_BYTES}`, FIREHOSE_MAX_DECODED_BYTES);
      logs.push(...recordEntries(bytes, common, req.nowNs, sentNs, n));
    });
    const replyData: FirehoseReplyData = { requestId, nowMs: nsToMs(req.nowNs) };
    return { batch: { logs, spans: [] }, signal: 'logs', replyData };
  },
  reply(ctx, accepted, parsed) {
    const data = parsed.replyData as FirehoseReplyData | undefined;
    // The shape Firehose requires (§3.11 Response) plus the spec's {status, accepted}.
    sendJson(ctx.res, 200, { requestId: data?.requestId ?? '', timestamp: data?.nowMs ?? Date.now(), status: 'ok', accepted }, { 'Content-Type': 'application/json' });
  },
};

/** Firehose's failure body: `errorMessage` beside the echoed requestId (§3.11 Response). */
export function firehoseErrorBody(requestId: string, message: string, timestampMs = Date.now()): { requestId: string; timestamp: number; errorMessage: string } {
  return { requestId, timestamp: timestampMs, errorMessage: message };
}

/**
 * Firehose reads a failure from `requestId` (echoed) and `errorMessage` (wire-formats §3.11 Response): added
 * to every refusal of the Firehose routes, beside the spec's fields. The request id comes from the
 * X-Amz-Firehose-Request-Id header, which Firehose sets on every delivery and which survives a malformed body.
 */
export function firehoseErrorFields(e: { detail: string }, headers: IncomingHttpHeaders): Record<string, string | number> {
  const id = headers['x-amz-firehose-request-id'];
  return firehoseErrorBody(typeof id === 'string' ? id : '', e.detail);
}
