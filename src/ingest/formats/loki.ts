// POST /loki/api/v1/push (and /insert/loki/api/v1/push): Loki push, JSON or snappy-protobuf
// (wire-formats.md §3.4, §2 "Loki protobuf compression").
//
// One LogEntry per line: `_msg` = line; stream labels and structured metadata (and protobuf `parsed`
// labels) → flat fields, a stream label winning over metadata of the same name; `_stream` = the labels as
// `{k="v",…}` sorted by key; `service` ← label `service_name`, `service` or `job` (the `service` label
// itself is not repeated as a field); `severity` ← `level`/`detected_level`/`severity`; trace/span ids ←
// metadata `trace_id`/`traceID`, `span_id`/`spanID` when they are hex of the right length.
// Loki rejects a malformed push as a whole, and so do we: 400 with the path of the bad element.
// Reply: the spec's 200 `{"status":"ok","accepted":N}` (any 2xx is success for Loki clients).
// Real clients (§6): winston-loki sends snappy protobuf without Content-Encoding, or JSON with 3-element
// values; pino-loki sends JSON, one stream per line; Promtail/Alloy send snappy protobuf.
import protobuf from 'protobufjs';
import { snappyDeclaredLength, uncompressSnappyBlock } from '../snappy-block.js';
import type { IncomingHttpHeaders } from 'node:http';
import { ServiceError, errors } from '../../errors.js';
import type { Handler } from '../../front-doors/context.js';
import type { IngestFormat, ParsedBody } from '../format.js';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { formatLabels, parseLabels, type Labels } from './loki-labels.js';
import { setField } from './fields.js';
import { parseTimestamp } from './timestamps.js';
import { utf8Text } from '../utf8-text.js';

/** grafana/loki `pkg/push/push.proto` (§3.4), the fields a push carries. */
export const LOKI_PUSH_PROTO = `
syntax = "proto3";
package logproto;
message PushRequest { repeated StreamAdapter streams = 1; string format = 2; }
message StreamAdapter { string labels = 1; repeated EntryAdapter entries = 2; uint64 hash = 3; }
message EntryAdapter {
  Timestamp timestamp = 1;
  string line = 2;
  repeated LabelPairAdapter structuredMetadata = 3;
  repeated LabelPairAdapter parsed = 4;
}
message LabelPairAdapter { string name = 1; string value = 2; }
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
`;
const lokiRoot = protobuf.parse(LOKI_PUSH_PROTO, { keepCase: true }).root;
export const PushRequest = lokiRoot.lookupType('logproto.PushRequest');

/** Decoded size cap for snappy bodies the pipeline did not decode; 64 MiB unless built with the plane's cap. */
const DEFAULT_MAX_DECODED = 64 * 1024 * 1024;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function firstByte(body: Buffer): number | undefined {
  for (const b of body) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b;
  return undefined;
}

/** Content-Type decides; without one, a body starting with `{` is tried as JSON first (§2: sniff). */
function encodingOf(headers: IncomingHttpHeaders, body: Buffer): 'json' | 'protobuf' | 'sniffed-json' {
  const ct = (headers['content-type'] ?? '').toLowerCase();
  if (ct.includes('json')) return 'json';
  if (ct.includes('protobuf')) return 'protobuf';
  return firstByte(body) === 0x7b ? 'sniffed-json' : 'protobuf';
}

function decodePush(raw: Buffer): Obj {
  return PushRequest.toObject(PushRequest.decode(raw), { longs: String });
}

/**
 * Promtail, Alloy and winston-loki send snappy-block protobuf with NO Content-Encoding (§2, §6); when the
 * header was there the pipeline has already decoded it, so it is never decompressed twice. A body that is
 * not snappy but decodes as a PushRequest as it is (an uncompressed sender) is accepted too.
 */
function decodeProtobuf(body: Buffer, headers: IncomingHttpHeaders, maxDecoded: number): Obj {
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    try {
      return decodePush(body);
    } catch (e) {
      throw errors.badRequest(`Loki protobuf body does not decode as PushRequest: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  // The block's declared length is read before decoding, so a bomb is refused up front.
  const declared = snappyDeclaredLength(body) ?? -1;
  if (declared > maxDecoded) throw errors.payloadTooLarge(String(declared), maxDecoded);
  let snappyError: string;
  try {
    return decodePush(uncompressSnappyBlock(body));
  } catch (e) {
    snappyError = e instanceof Error ? e.message : String(e);
  }
  try {
    return decodePush(body);
  } catch {
    throw errors.badRequest(`Loki protobuf body is neither a snappy-compressed nor a plain PushRequest (snappy: ${snappyError})`);
  }
}

function decodeJson(body: Buffer): Obj {
  let v: unknown;
  try {
    v = JSON.parse(utf8Text(body));
  } catch (e) {
    const at = /position (\d+)/.exec(e instanceof Error ? e.message : '');
    throw errors.badRequest(`Loki JSON body is not valid JSON${at ? ` (at byte ${at[1]})` : ''}`);
  }
  if (!isObj(v)) throw errors.badRequest('Loki JSON body must be an object with "streams"');
  return v;
}

/** A JSON scalar as Loki keeps it: strings as sent, anything else as JSON text. */
function text(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v);
}

interface StreamContext {
  labels: Labels;
  stream: string;
  service: string;
}

function streamContext(labels: Labels): StreamContext {
  return {
    labels,
    stream: formatLabels(labels),
    service: labels.service_name ?? labels.service ?? labels.job ?? '',
  };
}

const HEX = { trace: /^[0-9a-fA-F]{32}$/, span: /^[0-9a-fA-F]{16}$/ };

/**
 * The fields are the metadata's keys then the stream labels', a label winning over metadata of the same name, all
 * but `service` (the stream's service column); trace, span and level are read from the metadata first. Built key by
 * key rather than as spreads with `service` deleted: a deleted property turns an object into a slow dictionary,
 * which made this 42 % of a Loki push's parse (issue 12).
 */
function toEntry(ctx: StreamContext, timeNs: bigint, line: string, metadata: Labels, nowNs: bigint): LogEntry {
  const labels = ctx.labels;
  const fields: Record<string, FieldValue> = {};
  for (const k of Object.keys(metadata)) {
    if (k !== 'service') setField(fields, k, (Object.hasOwn(labels, k) ? labels[k] : metadata[k]) ?? null);
  }
  for (const k of Object.keys(labels)) {
    if (k !== 'service' && !Object.hasOwn(metadata, k)) setField(fields, k, labels[k] ?? null);
  }
  const read = (k: string): string | undefined => (Object.hasOwn(metadata, k) ? metadata[k] : Object.hasOwn(labels, k) ? labels[k] : undefined);
  const trace = read('trace_id') ?? read('traceID') ?? read('traceId') ?? '';
  const span = read('span_id') ?? read('spanID') ?? read('spanId') ?? '';
  return {
    timeNs,
    observedNs: nowNs,
    service: ctx.service,
    severity: read('level') ?? read('detected_level') ?? read('severity') ?? '',
    msg: line,
    traceId: HEX.trace.test(trace) ? trace.toLowerCase() : '',
    spanId: HEX.span.test(span) ? span.toLowerCase() : '',
    stream: ctx.stream,
    fields,
  };
}

/** Values timestamps: unix ns text as Loki sends it, any unix precision or RFC 3339; '' = now (§3.4). */
function timeOf(v: unknown, nowNs: bigint, where: string): bigint {
  if (v === '' || v === undefined || v === null) return nowNs;
  const ns = parseTimestamp(v);
  if (ns === null) throw errors.badRequest(`Loki ${where}: invalid timestamp (want unix nanoseconds as a string)`);
  return ns;
}

/** parseLabels with the stream's position in the detail. */
function labelsAt(selector: string, where: string): Labels {
  try {
    return parseLabels(selector);
  } catch (e) {
    if (e instanceof ServiceError) throw errors.badRequest(`Loki ${where}.labels: ${e.detail}`);
    throw e;
  }
}

function labelsOfJson(s: Obj, where: string): Labels {
  if (isObj(s.stream)) {
    const labels: Labels = {};
    for (const [k, v] of Object.entries(s.stream)) labels[k] = text(v);
    return labels;
  }
  if (typeof s.labels === 'string') return labelsAt(s.labels, where);
  if (s.stream === undefined && s.labels === undefined) return {};
  throw errors.badRequest(`Loki ${where}.stream must be an object of labels`);
}

function metadataOf(v: unknown, where: string): Labels {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw errors.badRequest(`Loki ${where}: structured metadata must be an object`);
  const out: Labels = {};
  for (const [k, x] of Object.entries(v)) out[k] = text(x);
  return out;
}

function parseJsonPush(push: Obj, nowNs: bigint): LogEntry[] {
  const streams = push.streams ?? [];
  if (!Array.isArray(streams)) throw errors.badRequest('Loki "streams" must be an array');
  const logs: LogEntry[] = [];
  streams.forEach((s: unknown, i) => {
    const where = `streams[${i}]`;
    if (!isObj(s)) throw errors.badRequest(`Loki ${where} must be an object`);
    const ctx = streamContext(labelsOfJson(s, where));
    if (s.entries !== undefined) {
      // Legacy /api/prom/push shape: {"labels": "{…}", "entries": [{"ts": RFC 3339, "line": …}]}.
      if (!Array.isArray(s.entries)) throw errors.badRequest(`Loki ${where}.entries must be an array`);
      s.entries.forEach((e: unknown, j) => {
        const at = `${where}.entries[${j}]`;
        if (!isObj(e)) throw errors.badRequest(`Loki ${at} must be an object`);
        logs.push(toEntry(ctx, timeOf(e.ts ?? e.timestamp, nowNs, at), text(e.line ?? ''), {}, nowNs));
      });
    }
    const values = s.values ?? [];
    if (!Array.isArray(values)) throw errors.badRequest(`Loki ${where}.values must be an array`);
    values.forEach((v: unknown, j) => {
      const at = `${where}.values[${j}]`;
      if (!Array.isArray(v) || v.length < 2 || v.length > 3) {
        throw errors.badRequest(`Loki ${at} must be [timestamp, line] or [timestamp, line, metadata]`);
      }
      logs.push(toEntry(ctx, timeOf(v[0], nowNs, at), text(v[1]), metadataOf(v[2], at), nowNs));
    });
  });
  return logs;
}

function pairs(v: unknown): Labels {
  const out: Labels = {};
  if (Array.isArray(v)) for (const p of v) if (isObj(p) && typeof p.name === 'string') out[p.name] = typeof p.value === 'string' ? p.value : '';
  return out;
}

function protoTime(ts: unknown, nowNs: bigint): bigint {
  if (!isObj(ts)) return nowNs;
  const seconds = BigInt(typeof ts.seconds === 'string' ? ts.seconds : 0);
  const nanos = BigInt(typeof ts.nanos === 'number' ? ts.nanos : 0);
  const ns = seconds * 1_000_000_000n + nanos;
  return ns > 0n ? ns : nowNs;
}

function parseProtoPush(push: Obj, nowNs: bigint): LogEntry[] {
  const logs: LogEntry[] = [];
  const streams = Array.isArray(push.streams) ? push.streams : [];
  streams.forEach((s: unknown, i) => {
    if (!isObj(s)) return;
    const ctx = streamContext(typeof s.labels === 'string' && s.labels.trim() !== '' ? labelsAt(s.labels, `streams[${i}]`) : {});
    const entries = Array.isArray(s.entries) ? s.entries : [];
    for (const e of entries) {
      if (!isObj(e)) continue;
      const metadata = { ...pairs(e.parsed), ...pairs(e.structuredMetadata) };
      logs.push(toEntry(ctx, protoTime(e.timestamp, nowNs), typeof e.line === 'string' ? e.line : '', metadata, nowNs));
    }
  });
  return logs;
}

export function parseLokiPush(body: Buffer, headers: IncomingHttpHeaders, nowNs: bigint,
  maxDecodedBytes = DEFAULT_MAX_DECODED): ParsedBody {
  if (firstByte(body) === undefined) return { batch: { logs: [], spans: [] }, signal: 'logs' };
  const encoding = encodingOf(headers, body);
  let push: Obj | undefined;
  if (encoding === 'json') push = decodeJson(body);
  else if (encoding === 'sniffed-json') {
    try {
      push = decodeJson(body);
    } catch (e) {
      // A snappy block whose length varint is 123 also starts with `{`: try it as protobuf before failing.
      try {
        return { batch: { logs: parseProtoPush(decodeProtobuf(body, headers, maxDecodedBytes), nowNs), spans: [] }, signal: 'logs' };
      } catch {
        throw e;
      }
    }
  }
  const logs = push ? parseJsonPush(push, nowNs) : parseProtoPush(decodeProtobuf(body, headers, maxDecodedBytes), nowNs);
  return { batch: { logs, spans: [] }, signal: 'logs' };
}

/** The format with the plane's decoded-body cap, applied to snappy bodies the pipeline did not decode. */
export function createLokiFormat(maxDecodedBytes: number = DEFAULT_MAX_DECODED): IngestFormat {
  return { name: 'loki', parse: (body, req) => parseLokiPush(body, req.headers, req.nowNs, maxDecodedBytes) };
}

export const lokiFormat: IngestFormat = createLokiFormat();

/** GET /ready and /loki/ready: Loki answers 200 `ready` (Vector's healthcheck probes `<endpoint>/ready`, §4). */
export const lokiReadyHandler: Handler = (ctx) => {
  ctx.res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 6 });
  ctx.res.end('ready\n');
  return Promise.resolve();
};
