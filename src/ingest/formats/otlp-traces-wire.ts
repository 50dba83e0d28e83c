// OTLP protobuf traces read straight from the wire (issue 12), for parseOtlpTraces, which the DuckDB worker runs on
// each request the WAL keeps: decoding a request with protobufjs and copying it into plain objects (toObject, every
// 64-bit time through a decimal string) took 14-18 µs a span on a 2,000-span body with attributes, an event and a
// status; read from the wire it takes 4.3-7.0 (one thread, the same process, interleaved).
//
// The spans and rejections are the ones parseOtlpTraces's tree reading gives (tracesFromTree), for every body read
// here: only a body proto-walk.ts has found that protobufjs decodes, and that is plain (otlp-wire.ts), is read; null
// leaves any other to the decoder.
import type { FieldValue } from '../../model/log-entry.js';
import type { Span, SpanEvent, SpanLink } from '../../model/span.js';
import { hexId, RecordRejected, Rejections, type ResourceContext } from './otlp-common.js';
import { copyFields } from './fields.js';
import { OtlpTypes } from './otlp-proto.js';
import { NotPlain, putAttribute, readContainer, readRequest, readResource, readScope, resourceOf, scopeOf, type KeyValue, type Wire } from './otlp-wire.js';

/** A span's trace or span id as hex; a span without a readable one is rejected (parseOtlpTraces's header). */
export function requiredId(v: unknown, key: 'traceId' | 'spanId', bytes: 8 | 16): string {
  const id = hexId(v, bytes);
  if (id === null || id === '') throw idRejected(id === null ? 'an unreadable' : 'no', key, bytes);
  return id;
}

function idRejected(what: 'an unreadable' | 'no', key: 'traceId' | 'spanId', bytes: 8 | 16): RecordRejected {
  return new RecordRejected(`a span has ${what} ${key} (want ${bytes * 2} hex chars)`);
}

/** What parseOtlpTraces needs of a request: its spans, the rejected ones, and how many resources are a browser's. */
export interface WireTraces {
  spans: Span[];
  rejections: Rejections;
  resources: number;
  browser: number;
}

/** The spans of a protobuf ExportTraceServiceRequest body, or null when the decoder must read it. */
export function wireTraces(body: Buffer, nowNs: bigint): WireTraces | null {
  const out: WireTraces = { spans: [], rejections: new Rejections(), resources: 0, browser: 0 };
  const read = readRequest(body, OtlpTypes.ExportTraceServiceRequest, false, (wire, end) => readResourceSpans(wire, end, nowNs, out));
  return read ? out : null;
}

/** ResourceSpans: its resource (counted, and whether it is a browser's), then each ScopeSpans in order. */
function readResourceSpans(wire: Wire, end: number, nowNs: bigint, out: WireTraces): void {
  const prepare = (attributes: KeyValue[] | null): ResourceContext => {
    const resource = resourceOf(attributes);
    out.resources++;
    if (resource.rum) out.browser++;
    return resource;
  };
  readContainer(wire, end, readResource, prepare, (resource, scopeEnd) => readScopeSpans(wire, scopeEnd, resource, nowNs, out));
}

/** ScopeSpans: its scope, then each Span in order; a span whose ids are not readable is counted as rejected. */
function readScopeSpans(wire: Wire, end: number, resource: ResourceContext, nowNs: bigint, out: WireTraces): void {
  readContainer(wire, end, readScope, scopeOf, (scope, spanEnd) => {
    try {
      out.spans.push(readSpan(wire, spanEnd, resource, scope, nowNs));
    } catch (e) {
      out.rejections.add(e);
    }
  });
}

/** One span as tracesFromTree's toSpan makes it; RecordRejected when its ids are not readable (requiredId). */
function readSpan(wire: Wire, end: number, resource: ResourceContext, scope: Record<string, FieldValue>, nowNs: bigint): Span {
  let traceId: Uint8Array | undefined;
  let spanId: Uint8Array | undefined;
  let parentSpanId: Uint8Array | undefined;
  let traceState = '';
  let name = '';
  let kind = 0;
  let start = 0n;
  let endNs = 0n;
  const attributes = copyFields({}, scope);
  const events: number[] = []; // start, end of each Event: read once the span's start is known
  const links: SpanLink[] = [];
  let status: { code: number; message: string } | null = null;
  while (wire.pos < end) {
    const tag = wire.tag();
    switch (tag) {
      case (1 << 3) | 2: traceId = wire.bytesOrUnset(); break;
      case (2 << 3) | 2: spanId = wire.bytesOrUnset(); break;
      case (3 << 3) | 2: traceState = wire.string(); break;
      case (4 << 3) | 2: parentSpanId = wire.bytesOrUnset(); break;
      case (5 << 3) | 2: name = wire.string(); break;
      case (6 << 3) | 0: kind = wire.int32(); break;
      case (7 << 3) | 1: start = wire.fixed64(); break;
      case (8 << 3) | 1: endNs = wire.fixed64(); break;
      case (9 << 3) | 2: putAttribute(wire, attributes); break;
      case (11 << 3) | 2: {
        const eventEnd = wire.end();
        events.push(wire.pos, eventEnd);
        wire.pos = eventEnd;
        break;
      }
      case (13 << 3) | 2: {
        const link = readLink(wire, wire.end());
        if (link) links.push(link);
        break;
      }
      case (15 << 3) | 2:
        if (status !== null) throw new NotPlain();
        status = readStatus(wire, wire.end());
        break;
      default: wire.skip(tag);
    }
  }
  const trace = requiredId(traceId, 'traceId', 16);
  const span = requiredId(spanId, 'spanId', 8);
  if (traceState !== '') attributes['w3c.tracestate'] = traceState;
  const startNs = start > 0n ? start : nowNs;
  const eventList: SpanEvent[] = [];
  for (let i = 0; i < events.length; i += 2) {
    wire.pos = events[i] ?? 0;
    eventList.push(readEvent(wire, events[i + 1] ?? 0, startNs));
  }
  wire.pos = end;
  return {
    traceId: trace,
    spanId: span,
    parentSpanId: hexId(parentSpanId, 8) ?? '',
    name,
    kind,
    startNs,
    durationNs: start > 0n && endNs > start ? endNs - start : 0n,
    statusCode: status?.code ?? 0,
    statusMessage: status?.message ?? '',
    service: resource.service,
    attributes,
    resource: copyFields({}, resource.fields),
    events: eventList,
    links,
  };
}

function readEvent(wire: Wire, end: number, startNs: bigint): SpanEvent {
  let timeNs = 0n;
  let name = '';
  const attributes: Record<string, FieldValue> = {};
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === ((1 << 3) | 1)) timeNs = wire.fixed64();
    else if (tag === ((2 << 3) | 2)) name = wire.string();
    else if (tag === ((3 << 3) | 2)) putAttribute(wire, attributes);
    else wire.skip(tag);
  }
  return { timeNs: timeNs > 0n ? timeNs : startNs, name, attributes };
}

/** A link, or null when its ids are not readable (toLink drops it). */
function readLink(wire: Wire, end: number): SpanLink | null {
  let traceId: Uint8Array | undefined;
  let spanId: Uint8Array | undefined;
  let traceState = '';
  const attributes: Record<string, FieldValue> = {};
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === ((1 << 3) | 2)) traceId = wire.bytesOrUnset();
    else if (tag === ((2 << 3) | 2)) spanId = wire.bytesOrUnset();
    else if (tag === ((3 << 3) | 2)) traceState = wire.string();
    else if (tag === ((4 << 3) | 2)) putAttribute(wire, attributes);
    else wire.skip(tag);
  }
  const trace = hexId(traceId, 16);
  const span = hexId(spanId, 8);
  if (!trace || !span) return null;
  if (traceState !== '') attributes['w3c.tracestate'] = traceState;
  return { traceId: trace, spanId: span, attributes };
}

function readStatus(wire: Wire, end: number): { code: number; message: string } {
  let code = 0;
  let message = '';
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === ((2 << 3) | 2)) message = wire.string();
    else if (tag === ((3 << 3) | 0)) code = wire.int32();
    else wire.skip(tag);
  }
  return { code, message };
}
