// Spans as both SQL stores keep them (DuckDB and ClickHouse): events and links as JSON text whose ns are decimal
// strings (JSON numbers cannot hold them exactly), and the row → Span reading, with values as either engine returns
// them (bigint, number, or the quoted 64-bit integers of ClickHouse's JSONEachRow).
import type { FieldValue } from '../../../model/log-entry.js';
import type { Span, SpanEvent, SpanLink } from '../../../model/span.js';

export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'number') return v.toString();
  return '';
}

export function big(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'string' && v !== '') return BigInt(v);
  return 0n;
}

/** A row count or small integer (UInt64 counts arrive as strings from ClickHouse). */
export function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}

export function jsonObject(v: unknown): Record<string, FieldValue> {
  const parsed: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, FieldValue>) : {};
}

export function jsonArray(v: unknown): Record<string, unknown>[] {
  const parsed: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(parsed) ? parsed.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object') : [];
}

export function eventToJson(e: SpanEvent): Record<string, FieldValue> {
  return { time_ns: e.timeNs.toString(), name: e.name, attributes: e.attributes };
}

export function linkToJson(l: SpanLink): Record<string, FieldValue> {
  return { trace_id: l.traceId, span_id: l.spanId, attributes: l.attributes };
}

export function rowToSpan(r: Record<string, unknown>): Span {
  const events = jsonArray(r.events).map((e): SpanEvent => ({
    timeNs: BigInt(str(e.time_ns)), name: str(e.name), attributes: jsonObject(e.attributes),
  }));
  const links = jsonArray(r.links).map((l): SpanLink => ({
    traceId: str(l.trace_id), spanId: str(l.span_id), attributes: jsonObject(l.attributes),
  }));
  return {
    traceId: str(r.trace_id), spanId: str(r.span_id), parentSpanId: str(r.parent_span_id), name: str(r.name),
    kind: num(r.kind), startNs: big(r.start_ns), durationNs: big(r.duration_ns),
    statusCode: num(r.status_code), statusMessage: str(r.status_message), service: str(r.service),
    attributes: jsonObject(r.attributes), resource: jsonObject(r.resource), events, links,
  };
}
