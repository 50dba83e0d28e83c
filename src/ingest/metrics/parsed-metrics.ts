// The metrics seam (parallel to ingest/format.ts for logs): every metrics wire format is a pure function
// bytes → ParsedMetrics. Parsers know nothing of tenants, limits or storage (STYLE.md habit 1); the
// shared pipeline does size caps, Content-Encoding, gates, limits, the WAL and the reply shapes.
import type { IncomingHttpHeaders } from 'node:http';
import type { MetricMetadata, MetricSample } from '../../model/metric.js';

export interface MetricsRequest {
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** Service time of receipt, unix ms: the time of points that carry none. */
  readonly nowMs: number;
}

/** Why a parser left something out of `samples` while accepting the request (STYLE.md habit 5). */
export type MetricsDropReason =
  /** Influx string fields: not numeric, not stored. */
  | 'string_field'
  /** A name that sanitises to nothing. */
  | 'invalid_name'
  /** OTLP data points refused inside an accepted request (reported as partial_success). */
  | 'rejected_point';

export interface ParsedMetrics {
  samples: MetricSample[];
  metadata: MetricMetadata[];
  /** Counts for replies (remote write 2.0 `*-Written` headers) and metering. */
  stats: { samples: number; histograms: number; exemplars: number };
  /** OTLP: request encoding for the reply. */
  encoding?: 'json' | 'protobuf';
  /** OTLP: data points refused inside an otherwise accepted request (§3.16 `partial_success`). */
  partialSuccess?: { rejectedDataPoints: number; errorMessage: string };
  /** What was left out of `samples`, by reason. */
  dropped?: Partial<Record<MetricsDropReason, number>>;
}

export type MetricsParser = (body: Buffer, req: MetricsRequest) => ParsedMetrics;

/** The first value of a header, or undefined. Node lower-cases incoming header names. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  if (Array.isArray(v)) return v[0];
  return v;
}

/** `application/x-protobuf;proto=x` → { mediaType: 'application/x-protobuf', params: { proto: 'x' } }. */
export function parseContentType(value: string | undefined): { mediaType: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  if (value === undefined) return { mediaType: '', params };
  const [type = '', ...rest] = value.split(';');
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    params[key] = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return { mediaType: type.trim().toLowerCase(), params };
}
