// The normalized trace span (OTLP's Span, flattened). Ids are lowercase hex.
import type { FieldValue } from './log-entry.js';

export interface SpanEvent {
  timeNs: bigint;
  name: string;
  attributes: Record<string, FieldValue>;
}

export interface SpanLink {
  traceId: string;
  spanId: string;
  attributes: Record<string, FieldValue>;
}

export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind number: 0 unspecified … 5 consumer. */
  kind: number;
  startNs: bigint;
  durationNs: bigint;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  service: string;
  attributes: Record<string, FieldValue>;
  resource: Record<string, FieldValue>;
  events: SpanEvent[];
  links: SpanLink[];
}
