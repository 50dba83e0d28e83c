// POST /v1/traces: OTLP/HTTP traces, protobuf or JSON (wire-formats.md §3.2).
//
// One Span per OTLP span: ids lowercase hex, kind and status code as OTLP numbers (names accepted in JSON),
// start = start_time_unix_nano (the time of receipt when absent), duration = end − start (0 when the end is
// missing or earlier). `service` and `resource` come from the resource attributes (flat, as sent). The
// span's attributes are flat and also carry the scope (`otel.scope.name`, `otel.scope.version`, the names
// the OTel Jaeger/Zipkin translations use) and `w3c.tracestate` when trace_state is set. Events and links
// keep their attributes flat; a link whose ids are unreadable is dropped.
// A span without a readable trace_id and span_id cannot be stored: it is counted in
// partial_success.rejected_spans and the rest are kept. Signal: `rum` for browser resources (webjs).
import type { IncomingHttpHeaders } from 'node:http';
import type { CountedBody, IngestFormat, ParsedBody } from '../format.js';
import type { FieldValue } from '../../model/log-entry.js';
import type { Span, SpanEvent, SpanLink } from '../../model/span.js';
import {
  RecordRejected, Rejections, containersOf, decodeOtlpBody, enumValue, flatAttributes, get, hexId, isObj, listOf,
  nanos, otlpEncodingOf, otlpReplyData, resourceContext, scopeFields, sendOtlpReply, str, SPAN_KINDS,
  STATUS_CODES, resourceAt, type ByteRange, type Obj, type ResourceContext,
} from './otlp-common.js';
import { copyFields } from './fields.js';
import { OtlpTypes } from './otlp-proto.js';
import { decodesCleanly } from './proto-walk.js';
import { requiredId, wireTraces } from './otlp-traces-wire.js';

export function parseOtlpTraces(body: Buffer, headers: IncomingHttpHeaders, nowNs: bigint): ParsedBody {
  const encoding = otlpEncodingOf(headers, body);
  const wire = encoding === 'protobuf' ? wireTraces(body, nowNs) : null;
  if (wire === null) return tracesFromTree(body, headers, nowNs);
  return {
    batch: { logs: [], spans: wire.spans },
    signal: wire.resources > 0 && wire.browser === wire.resources ? 'rum' : 'traces',
    replyData: otlpReplyData(encoding, wire.rejections, 'spans'),
  };
}

/**
 * parseOtlpTraces by decoding the body into an OTLP/JSON-shaped tree (a JSON body is one already): every JSON body,
 * and a protobuf one the wire reader (otlp-traces-wire.ts) leaves to the decoder.
 */
export function tracesFromTree(body: Buffer, headers: IncomingHttpHeaders, nowNs: bigint): ParsedBody {
  const encoding = otlpEncodingOf(headers, body);
  const request = decodeOtlpBody(body, encoding, OtlpTypes.ExportTraceServiceRequest);
  const spans: Span[] = [];
  const rejections = new Rejections();
  let resources = 0;
  let browser = 0;
  for (const rs of containersOf(request, 'resourceSpans', 'request')) {
    const resource = resourceContext(rs);
    resources++;
    if (resource.rum) browser++;
    for (const ss of containersOf(rs, 'scopeSpans', 'resourceSpans')) {
      const scope = scopeFields(ss);
      for (const raw of listOf(ss, 'spans', 'scopeSpans')) {
        try {
          spans.push(toSpan(raw, resource, scope, nowNs));
        } catch (e) {
          rejections.add(e);
        }
      }
    }
  }
  return {
    batch: { logs: [], spans },
    signal: resources > 0 && browser === resources ? 'rum' : 'traces',
    replyData: otlpReplyData(encoding, rejections, 'spans'),
  };
}

/**
 * What parseOtlpTraces gives, without the spans (IngestFormat.count): a protobuf body is walked, not decoded
 * (proto-walk.ts), and each span's id fields' bytes (the last of each, as the decoder keeps) go through requiredId,
 * toSpan's own rule. A body the walk is not sure of, and a JSON one, is parsed.
 */
export function countOtlpTraces(body: Buffer, headers: IncomingHttpHeaders, nowNs: bigint): CountedBody {
  const encoding = otlpEncodingOf(headers, body);
  const walked = encoding === 'protobuf' ? walkTracesRequest(body) : null;
  if (walked === null) {
    const parsed = parseOtlpTraces(body, headers, nowNs);
    const n = parsed.batch.spans.length;
    return { entries: n, rows: n, signal: parsed.signal, replyData: parsed.replyData };
  }
  const { spans, rejections, resources } = walked;
  const browser = resources.filter((range) => resourceContext({ resource: resourceAt(body, range) }).rum).length;
  return {
    entries: spans,
    rows: spans,
    signal: resources.length > 0 && browser === resources.length ? 'rum' : 'traces',
    replyData: otlpReplyData(encoding, rejections, 'spans'),
  };
}

/** Spans kept and rejected, and each ResourceSpans' resource bytes; null when the walk is not sure the body decodes. */
function walkTracesRequest(body: Buffer): { spans: number; rejections: Rejections; resources: ByteRange[] } | null {
  const { ExportTraceServiceRequest, ResourceSpans, ScopeSpans, Span: SpanType } = OtlpTypes;
  const rejections = new Rejections();
  const resources: ByteRange[] = [];
  let spans = 0;
  let resource: ByteRange;
  let traceId: ByteRange;
  let spanId: ByteRange;
  const clean = decodesCleanly(body, ExportTraceServiceRequest, (type, field, start, end) => {
    if (type === SpanType) {
      if (field === 1) traceId = [start, end];
      else if (field === 2) spanId = [start, end];
    } else if (type === ScopeSpans && field === 2) {
      // A span's own visit comes after its fields'. Its ids are judged by toSpan's own rule.
      try {
        requiredId(bytesAt(body, traceId), 'traceId', 16);
        requiredId(bytesAt(body, spanId), 'spanId', 8);
        spans++;
      } catch (e) {
        rejections.add(e);
      }
      traceId = spanId = undefined;
    } else if (type === ResourceSpans && field === 1) resource = [start, end];
    else if (type === ExportTraceServiceRequest && field === 1) {
      resources.push(resource);
      resource = undefined;
    }
  });
  return clean ? { spans, rejections, resources } : null;
}

/** The bytes at `range` (the last of a bytes field, as the decoder keeps), or undefined when the field is absent. */
function bytesAt(body: Buffer, range: ByteRange): Uint8Array | undefined {
  return range === undefined ? undefined : body.subarray(range[0], range[1]);
}

function toSpan(raw: unknown, resource: ResourceContext, scope: Record<string, FieldValue>, nowNs: bigint): Span {
  if (!isObj(raw)) throw new RecordRejected('a span is not an object');
  const traceId = requiredId(get(raw, 'traceId'), 'traceId', 16);
  const spanId = requiredId(get(raw, 'spanId'), 'spanId', 8);
  const start = nanos(get(raw, 'startTimeUnixNano'), 'startTimeUnixNano');
  const end = nanos(get(raw, 'endTimeUnixNano'), 'endTimeUnixNano');
  const startNs = start > 0n ? start : nowNs;
  const attributes = flatAttributes(get(raw, 'attributes'), '', copyFields({}, scope));
  const traceState = str(get(raw, 'traceState'));
  if (traceState !== '') attributes['w3c.tracestate'] = traceState;
  const status = get(raw, 'status');
  return {
    traceId,
    spanId,
    parentSpanId: hexId(get(raw, 'parentSpanId'), 8) ?? '',
    name: str(raw.name),
    kind: enumValue(raw.kind, SPAN_KINDS, 'SPAN_KIND_'),
    startNs,
    durationNs: start > 0n && end > start ? end - start : 0n,
    statusCode: isObj(status) ? enumValue(status.code, STATUS_CODES, 'STATUS_CODE_') : 0,
    statusMessage: isObj(status) ? str(status.message) : '',
    service: resource.service,
    attributes,
    resource: copyFields({}, resource.fields),
    events: listOf(raw, 'events', 'span').filter(isObj).map((e) => toEvent(e, startNs)),
    links: listOf(raw, 'links', 'span').filter(isObj).flatMap(toLink),
  };
}

function toEvent(e: Obj, startNs: bigint): SpanEvent {
  let timeNs: bigint;
  try {
    timeNs = nanos(get(e, 'timeUnixNano'), 'event timeUnixNano');
  } catch {
    timeNs = 0n;
  }
  return { timeNs: timeNs > 0n ? timeNs : startNs, name: str(e.name), attributes: flatAttributes(get(e, 'attributes')) };
}

function toLink(l: Obj): SpanLink[] {
  const traceId = hexId(get(l, 'traceId'), 16);
  const spanId = hexId(get(l, 'spanId'), 8);
  if (!traceId || !spanId) return [];
  const attributes = flatAttributes(get(l, 'attributes'));
  const traceState = str(get(l, 'traceState'));
  if (traceState !== '') attributes['w3c.tracestate'] = traceState;
  return [{ traceId, spanId, attributes }];
}

export const otlpTracesFormat: IngestFormat = {
  name: 'otlp',
  walKey: 'otlp-traces',
  parse: (body, req) => parseOtlpTraces(body, req.headers, req.nowNs),
  count: (body, req) => countOtlpTraces(body, req.headers, req.nowNs),
  reply: (ctx, accepted, parsed) =>
    sendOtlpReply(ctx, accepted, parsed.replyData, OtlpTypes.ExportTraceServiceResponse, 'rejectedSpans'),
};
