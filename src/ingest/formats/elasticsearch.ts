// POST /_bulk, /<index>/_bulk and their /insert/elasticsearch/ twins: the Elasticsearch bulk API
// (wire-formats.md §3.3; replies per §4, the @elastic/elasticsearch, Filebeat, Logstash, Fluent Bit and
// Vector rows).
//
// Pairing never desyncs: every action line decides how many lines follow it (index/create/update: one
// document line, delete: none), whatever those lines contain. Blank lines are skipped. An action line that
// is not one JSON object naming one of the four actions makes the whole request 400, as ES does, since the
// lines after it cannot be paired. A bad DOCUMENT line fails only its own item (400, `errors: true`); the
// rest are stored — ES clients expect exactly that.
//
// Sightline is append-only, and says so per item:
//   index/create → one LogEntry, item 201 `created`;
//   update → its `doc` (or `upsert`) is stored as a NEW entry, item 201 `created` (what ES answers for an
//            upsert that created a document); a scripted update without `doc` is a per-item 400;
//   delete → nothing is removed: item 404 `not_found` (ES's answer for a missing document, not an error).
// Entry mapping: `_msg` ← message | log | _msg | msg (non-strings as JSON text); time ← `@timestamp`
// (else `timestamp`, `_time`; else the time of receipt); `service` ← service.name | service |
// fields.service; `severity` ← log.level | level | severity; trace/span ids ← trace.id / span.id (ECS)
// when hex. The document is flattened into dotted fields (minus the message, the used time field and a
// bare `service` key); `_index` (from the action, else the path; none at all is accepted) and a client-given `_id`
// are fields too.
import { errors } from '../../errors.js';
import type { RequestContext } from '../../front-doors/context.js';
import { sendJson } from '../../front-doors/reply.js';
import type { IngestFormat, ParsedBody } from '../format.js';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { autoId } from './elasticsearch-ids.js';
import { addField } from './fields.js';
import { parseTimestamp } from './timestamps.js';
import { utf8Text } from '../utf8-text.js';

/** Every reply on ES paths carries this, or the ES clients' product check fails (§4). */
export const ELASTIC_PRODUCT_HEADER_NAME = 'X-Elastic-Product';
export const ELASTIC_PRODUCT_HEADER_VALUE = 'Elasticsearch';
export const ELASTIC_PRODUCT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  [ELASTIC_PRODUCT_HEADER_NAME]: ELASTIC_PRODUCT_HEADER_VALUE,
});

const ACTIONS = ['index', 'create', 'update', 'delete'] as const;
type Action = (typeof ACTIONS)[number];
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the reply says about one action, decided while parsing. */
export interface BulkItem {
  action: Action;
  index: string;
  id: string;
  status: 201 | 404 | 400;
  error?: { type: string; reason: string };
}

export interface BulkReplyData {
  startedMs: number;
  items: BulkItem[];
}

/** `/<index>/_bulk` or `/insert/elasticsearch/<index>/_bulk` → `<index>`; '' for the bare `_bulk` paths. */
export function indexFromPath(path: string): string {
  const m = /^(?:\/insert\/elasticsearch)?\/([^/]+)\/_bulk\/?$/.exec(path);
  if (!m?.[1] || m[1] === '_bulk') return '';
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

function jsonLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function readAction(line: string, lineNo: number): { action: Action; meta: Obj } {
  const v = jsonLine(line);
  if (!isObj(v)) throw errors.badRequest(`Malformed bulk body: line ${lineNo} is not a JSON action object`);
  const keys = Object.keys(v);
  const action = ACTIONS.find((a) => a === keys[0]);
  if (keys.length !== 1 || action === undefined) {
    throw errors.badRequest(`Malformed bulk body: line ${lineNo} must be one of index, create, update, delete (one key)`);
  }
  const meta = v[action];
  if (!isObj(meta)) throw errors.badRequest(`Malformed bulk body: line ${lineNo}: the ${action} metadata must be an object`);
  return { action, meta };
}

const MESSAGE_KEYS = ['message', 'log', '_msg', 'msg'];
const TIME_KEYS = ['@timestamp', 'timestamp', '_time'];

function firstString(fields: Record<string, FieldValue>, keys: string[]): string {
  for (const k of keys) {
    const v = fields[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return '';
}

/** One ES document as an entry: message, @timestamp, service, trace ids; `_index`/`_id` kept as fields. */
export function toEntry(doc: Obj, index: string, id: string | undefined, nowNs: bigint): LogEntry {
  const used = new Set<string>();
  const msgKey = MESSAGE_KEYS.find((k) => doc[k] !== undefined && doc[k] !== null);
  const rawMsg = msgKey === undefined ? '' : doc[msgKey];
  if (msgKey !== undefined) used.add(msgKey);
  let timeNs = nowNs;
  for (const k of TIME_KEYS) {
    const ns = doc[k] === undefined ? null : parseTimestamp(doc[k]);
    if (ns !== null) {
      timeNs = ns;
      used.add(k);
      break;
    }
  }
  if (typeof doc.service === 'string') used.add('service');
  const fields: Record<string, FieldValue> = {};
  for (const k of Object.keys(doc)) if (!used.has(k)) addField(fields, k, doc[k]);
  const service = firstString(fields, ['service.name'])
    || (typeof doc.service === 'string' ? doc.service : '') || firstString(fields, ['fields.service']);
  const traceId = firstString(fields, ['trace.id', 'trace_id']);
  const spanId = firstString(fields, ['span.id', 'span_id']);
  if (index !== '') fields._index = index;
  if (id !== undefined) fields._id = id;
  return {
    timeNs,
    observedNs: nowNs,
    service,
    severity: firstString(fields, ['log.level', 'level', 'severity']),
    msg: typeof rawMsg === 'string' ? rawMsg : JSON.stringify(rawMsg),
    traceId: /^[0-9a-fA-F]{32}$/.test(traceId) ? traceId.toLowerCase() : '',
    spanId: /^[0-9a-fA-F]{16}$/.test(spanId) ? spanId.toLowerCase() : '',
    stream: '',
    fields,
  };
}

function failure(action: Action, index: string, id: string, type: string, reason: string): BulkItem {
  return { action, index, id, status: 400, error: { type, reason } };
}

type DocResult = { ok: true; doc: Obj } | { ok: false; type: string; reason: string };

/** The document an action stores, or the per-item failure it gets (§3.3 Response: per-item failure). */
function documentOf(action: Action, line: string | undefined): DocResult {
  if (line === undefined) {
    return { ok: false, type: 'action_request_validation_exception', reason: `the ${action} action has no document line` };
  }
  const v = jsonLine(line);
  if (v === undefined) return { ok: false, type: 'mapper_parsing_exception', reason: 'failed to parse: the document line is not valid JSON' };
  if (!isObj(v)) return { ok: false, type: 'mapper_parsing_exception', reason: 'failed to parse: the document must be a JSON object' };
  if (action !== 'update') return { ok: true, doc: v };
  const doc = v.doc ?? v.upsert;
  if (isObj(doc)) return { ok: true, doc };
  return {
    ok: false,
    type: 'illegal_argument_exception',
    reason: 'only partial-document updates ({"doc":{…}}) are supported: Sightline is append-only',
  };
}

export function parseBulk(body: Buffer, path: string, nowNs: bigint): ParsedBody {
  const startedMs = Date.now();
  const lines = utf8Text(body).split('\n');
  const pathIndex = indexFromPath(path);
  const logs: LogEntry[] = [];
  const items: BulkItem[] = [];
  let i = 0;
  const next = (): { line: string; no: number } | undefined => {
    while (i < lines.length) {
      const raw = lines[i++] ?? '';
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() !== '') return { line: line.charCodeAt(0) === 0xfeff ? line.slice(1) : line, no: i };
    }
    return undefined;
  };
  for (let actionLine = next(); actionLine; actionLine = next()) {
    const { action, meta } = readAction(actionLine.line, actionLine.no);
    const index = typeof meta._index === 'string' && meta._index !== '' ? meta._index : pathIndex;
    const givenId = typeof meta._id === 'string' || typeof meta._id === 'number' ? String(meta._id) : undefined;
    const id = givenId ?? autoId();
    if (action === 'delete') {
      items.push({ action, index, id, status: 404 });
      continue;
    }
    const doc = documentOf(action, next()?.line);
    // No `_index` in the action or the path is stored like any other (issue 12 item 7): there are no indices
    // here, and ES's "index is missing" would only make a shipper drop the line. The item's `_index` stays ''.
    if (!doc.ok) items.push(failure(action, index, id, doc.type, doc.reason));
    else {
      logs.push(toEntry(doc.doc, index, givenId, nowNs));
      items.push({ action, index, id, status: 201 });
    }
  }
  if (items.length === 0) throw errors.badRequest('Malformed bulk body: no actions (the body is empty)');
  const replyData: BulkReplyData = { startedMs, items };
  return { batch: { logs, spans: [] }, signal: 'logs', replyData };
}

function isReplyData(v: unknown): v is BulkReplyData {
  return isObj(v) && Array.isArray(v.items) && typeof v.startedMs === 'number';
}

const SHARDS = { total: 1, successful: 1, failed: 0 };

/** The ES bulk response: one item per action, in order, keyed by the action (§3.3 Response), + status/accepted. */
export function bulkResponse(data: BulkReplyData, accepted: number): Obj {
  let seqNo = 0;
  const items = data.items.map((it) => {
    if (it.error) return { [it.action]: { _index: it.index, _id: it.id, status: it.status, error: it.error } };
    const result = it.status === 404 ? 'not_found' : 'created';
    return {
      [it.action]: {
        _index: it.index, _id: it.id, _version: 1, result, _shards: SHARDS,
        _seq_no: seqNo++, _primary_term: 1, status: it.status,
      },
    };
  });
  return {
    took: Math.max(0, Date.now() - data.startedMs),
    errors: data.items.some((it) => it.error !== undefined),
    items,
    status: 'ok',
    accepted,
  };
}

export const elasticsearchBulkFormat: IngestFormat = {
  name: 'elasticsearch',
  parse: (body, req) => parseBulk(body, req.path, req.nowNs),
  reply: (ctx: RequestContext, accepted: number, parsed: ParsedBody) => {
    const data = isReplyData(parsed.replyData) ? parsed.replyData : { startedMs: Date.now(), items: [] };
    sendJson(ctx.res, 200, bulkResponse(data, accepted), { ...ELASTIC_PRODUCT_HEADERS });
  },
};
