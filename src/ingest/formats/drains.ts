// Platform log drains (spec: "accept POST with JSON array body"; DESIGN §5 path words):
//   /api/v1/drain         native JSON array / NDJSON, or logplex frames (wire-formats.md §3.6, last note)
//   /api/v1/drain/heroku  Heroku logplex frames (§3.6), JSON also accepted
//   /api/v1/drain/vercel  Vercel JSON / NDJSON drain (§3.7), plus its signature and endpoint verification
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FormatRequest, IngestFormat, ParsedBody } from '../format.js';
import type { Handler } from '../../front-doors/context.js';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { sendEmpty, sendJson } from '../../front-doors/reply.js';
import { msToNs } from '../../model/time.js';
import { parseNative } from './native.js';
import { frameText, isOctetCounted, parseSyslogLine, splitLines, splitOctetCounted, syslogToEntry } from './syslog-parse.js';
import { bodyText, firstByte, flatten, parseJsonRecords, recordToEntry, type FlatRecord } from './shipper-records.js';

const logsOnly = (logs: LogEntry[]): ParsedBody => ({ batch: { logs, spans: [] }, signal: 'logs' });

/** §3.6: logplex when labelled `application/logplex-1`, or when the body starts with a digit. */
function isLogplex(body: Buffer, headers: IncomingHttpHeaders): boolean {
  const type = headers['content-type'] ?? '';
  return type.toLowerCase().startsWith('application/logplex') || isOctetCounted(body);
}

// Router keys that would shadow a column or a header field are kept as `router.<key>`.
const RESERVED = new Set(['_msg', '_time', '_stream', 'service', 'severity', 'hostname', 'procid', 'msgid', 'facility', 'priority']);
const KV = /([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g;

/** Heroku router lines are `key=value` (`at=info method=GET path="/" … status=200`), §3.6 last bullet. */
export function parseRouterKv(msg: string): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const m of msg.matchAll(KV)) {
    const key = m[1] ?? '';
    const raw = m[2] ?? '';
    const value = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    out[RESERVED.has(key) ? `router.${key}` : key] = value;
  }
  return out;
}

/**
 * Logplex frames (§3.6): octet counts that include the trailing LF, RFC 5424 without STRUCTURED-DATA,
 * PROCID = the dyno (`web.1`, `router`). A body that is not octet counted is read line by line.
 */
export function parseLogplex(body: Buffer, nowNs: bigint): LogEntry[] {
  const frames = isOctetCounted(body) ? splitOctetCounted(body) : splitLines(body);
  const logs: LogEntry[] = [];
  for (const frame of frames) {
    const line = frameText(frame);
    if (line.trim() === '') continue;
    const entry = syslogToEntry(parseSyslogLine(line, { nowNs, structuredData: false }), nowNs);
    if (entry.service === 'heroku' && entry.fields.procid === 'router') Object.assign(entry.fields, parseRouterKv(entry.msg));
    logs.push(entry);
  }
  return logs;
}

export const drainFormat: IngestFormat = {
  name: 'drain',
  parse(body, req) {
    if (isLogplex(body, req.headers)) return logsOnly(parseLogplex(body, req.nowNs));
    return { batch: parseNative(body, req.nowNs), signal: 'logs' };
  },
};

export const herokuFormat: IngestFormat = {
  name: 'heroku',
  parse(body, req) {
    const first = firstByte(body);
    if (!isLogplex(body, req.headers) && (first === 0x5b || first === 0x7b)) return { batch: parseNative(body, req.nowNs), signal: 'logs' };
    return logsOnly(parseLogplex(body, req.nowNs));
  },
};

// ---- Vercel, §3.7 ----

const VERCEL_KEYS = {
  msg: ['message'],
  time: ['timestamp'],
  service: [],
  serviceHints: ['projectName', 'projectId'],
  severity: ['level'],
} as const;

/** One Vercel log object: `proxy.*` flattened, time from `timestamp` (unix ms), level → severity. */
export function vercelToEntry(flat: FlatRecord, nowNs: bigint): LogEntry {
  const ts = flat.timestamp;
  const timeNs = typeof ts === 'number' && Number.isFinite(ts) ? msToNs(ts) : null;
  const entry = recordToEntry(flat, VERCEL_KEYS, nowNs, timeNs);
  if (timeNs !== null) Reflect.deleteProperty(entry.fields, 'timestamp');
  if (entry.msg === '' && typeof flat['proxy.method'] === 'string') {
    // Proxy (request) logs often carry no message: synthesise `METHOD path statusCode` (§3.7 Mapping).
    const status = flat.statusCode ?? flat['proxy.statusCode'];
    entry.msg = [flat['proxy.method'], flat['proxy.path'], status].filter((v) => v !== undefined && v !== null).map(String).join(' ');
  }
  return entry;
}

function parseVercel(body: Buffer, req: FormatRequest): ParsedBody {
  // An empty body is Vercel's test delivery: accepted with 0 entries (§3.7 Practical).
  const records = parseJsonRecords(bodyText(body), 'Vercel drain');
  return logsOnly(records.map((r) => vercelToEntry(flatten(r), req.nowNs)));
}

/** The Vercel drain format; with a verification token its replies also carry `x-vercel-verify`. */
export function createVercelFormat(verifyToken?: string): IngestFormat {
  return {
    name: 'vercel',
    parse: parseVercel,
    reply(ctx, accepted) {
      sendJson(ctx.res, 200, { status: 'ok', accepted }, verifyToken ? { 'x-vercel-verify': verifyToken } : {});
    },
  };
}

export const vercelFormat: IngestFormat = createVercelFormat();

/** `x-vercel-signature`: hex HMAC-SHA1 of the raw body with the drain secret (§3.7 Security). */
export function verifyVercelSignature(rawBody: Buffer, secret: string, signatureHeader: string | undefined): boolean {
  if (signatureHeader === undefined || secret === '') return false;
  const expected = createHmac('sha1', secret).update(rawBody).digest();
  const hex = signatureHeader.trim().toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(hex)) return false;
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}

/** GET/HEAD on the drain path: Vercel's endpoint verification wants 200 + `x-vercel-verify` (§3.7). */
export function vercelVerifyHandler(token: string | undefined): Handler {
  return (ctx) => {
    const headers: Record<string, string> = token ? { 'x-vercel-verify': token } : {};
    if (ctx.method === 'HEAD') sendEmpty(ctx.res, 200, headers);
    else sendJson(ctx.res, 200, { status: 'ok' }, headers);
    return Promise.resolve();
  };
}
