// The OTLP metrics protobuf schema (wire-formats.md §3.16), written from the field numbers of
// open-telemetry/opentelemetry-proto `opentelemetry/proto/{common,resource,metrics,collector/metrics}/v1/*.proto`.
// It extends the shared OTLP root of ingest/formats/otlp-proto.ts, whose common and resource messages it uses.
// Field names are camelCased, so `toObject` output has the OTLP/JSON key names.
import type { Type } from 'protobufjs';
import { encodeMessage, extendOtlpRoot, otlpType } from '../formats/otlp-proto.js';

export const METRICS_PROTO = `
syntax = "proto3";
package opentelemetry.proto.metrics.v1;
message MetricsData { repeated ResourceMetrics resource_metrics = 1; }
message ResourceMetrics {
  opentelemetry.proto.resource.v1.Resource resource = 1;
  repeated ScopeMetrics scope_metrics = 2;
  string schema_url = 3;
}
message ScopeMetrics {
  opentelemetry.proto.common.v1.InstrumentationScope scope = 1;
  repeated Metric metrics = 2;
  string schema_url = 3;
}
message Metric {
  string name = 1; string description = 2; string unit = 3;
  oneof data {
    Gauge gauge = 5; Sum sum = 7; Histogram histogram = 9;
    ExponentialHistogram exponential_histogram = 10; Summary summary = 11;
  }
  repeated opentelemetry.proto.common.v1.KeyValue metadata = 12;
}
enum AggregationTemporality {
  AGGREGATION_TEMPORALITY_UNSPECIFIED = 0; AGGREGATION_TEMPORALITY_DELTA = 1; AGGREGATION_TEMPORALITY_CUMULATIVE = 2;
}
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum {
  repeated NumberDataPoint data_points = 1; AggregationTemporality aggregation_temporality = 2; bool is_monotonic = 3;
}
message Histogram { repeated HistogramDataPoint data_points = 1; AggregationTemporality aggregation_temporality = 2; }
message ExponentialHistogram {
  repeated ExponentialHistogramDataPoint data_points = 1; AggregationTemporality aggregation_temporality = 2;
}
message Summary { repeated SummaryDataPoint data_points = 1; }
message NumberDataPoint {
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 7;
  fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  oneof value { double as_double = 4; sfixed64 as_int = 6; }
  repeated Exemplar exemplars = 5; uint32 flags = 8;
}
message HistogramDataPoint {
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 9;
  fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  fixed64 count = 4; optional double sum = 5;
  repeated fixed64 bucket_counts = 6; repeated double explicit_bounds = 7;
  repeated Exemplar exemplars = 8; uint32 flags = 10; optional double min = 11; optional double max = 12;
}
message ExponentialHistogramDataPoint {
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 1;
  fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  fixed64 count = 4; optional double sum = 5; sint32 scale = 6; fixed64 zero_count = 7;
  message Buckets { sint32 offset = 1; repeated uint64 bucket_counts = 2; }
  Buckets positive = 8; Buckets negative = 9; uint32 flags = 10;
  repeated Exemplar exemplars = 11; optional double min = 12; optional double max = 13; double zero_threshold = 14;
}
message SummaryDataPoint {
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 7;
  fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  fixed64 count = 4; double sum = 5;
  message ValueAtQuantile { double quantile = 1; double value = 2; }
  repeated ValueAtQuantile quantile_values = 6; uint32 flags = 8;
}
message Exemplar {
  repeated opentelemetry.proto.common.v1.KeyValue filtered_attributes = 7; fixed64 time_unix_nano = 2;
  oneof value { double as_double = 3; sfixed64 as_int = 6; }
  bytes span_id = 4; bytes trace_id = 5;
}
`;

export const COLLECTOR_METRICS_PROTO = `
syntax = "proto3";
package opentelemetry.proto.collector.metrics.v1;
message ExportMetricsServiceRequest { repeated opentelemetry.proto.metrics.v1.ResourceMetrics resource_metrics = 1; }
message ExportMetricsServiceResponse { ExportMetricsPartialSuccess partial_success = 1; }
message ExportMetricsPartialSuccess { int64 rejected_data_points = 1; string error_message = 2; }
`;

extendOtlpRoot(METRICS_PROTO);
extendOtlpRoot(COLLECTOR_METRICS_PROTO);

export const OtlpMetricsTypes: {
  readonly ExportMetricsServiceRequest: Type;
  readonly ExportMetricsServiceResponse: Type;
} = {
  ExportMetricsServiceRequest: otlpType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest'),
  ExportMetricsServiceResponse: otlpType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse'),
};

/**
 * Protobuf bytes → a plain object shaped like OTLP/JSON: camelCase keys, 64-bit integers as decimal strings,
 * bytes as base64, enums as numbers, absent fields absent. Throws on bytes that are not the message.
 */
export function decodeExportMetricsRequest(body: Uint8Array): Record<string, unknown> {
  const type = OtlpMetricsTypes.ExportMetricsServiceRequest;
  const message = type.decode(body);
  return type.toObject(message, { longs: String, bytes: String, enums: Number, defaults: false });
}

/** A plain OTLP/JSON-shaped object (camelCase keys) → protobuf bytes. Tests and tools build bodies with it. */
export function encodeExportMetricsRequest(value: Record<string, unknown>): Buffer {
  return encodeMessage(OtlpMetricsTypes.ExportMetricsServiceRequest, value);
}

/** ExportMetricsServiceResponse in protobuf: empty when nothing was rejected (§3.16 "Encoding and replies"). */
export function encodeExportMetricsResponse(partial?: { rejectedDataPoints: number; errorMessage: string }): Buffer {
  const value = partial === undefined ? {} : { partialSuccess: partial };
  return encodeMessage(OtlpMetricsTypes.ExportMetricsServiceResponse, value);
}

export function decodeExportMetricsResponse(body: Uint8Array): Record<string, unknown> {
  const type = OtlpMetricsTypes.ExportMetricsServiceResponse;
  return type.toObject(type.decode(body), { longs: Number, defaults: false });
}
