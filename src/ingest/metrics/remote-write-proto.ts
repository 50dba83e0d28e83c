// Prometheus remote write schemas (wire-formats.md §3.14), written from prometheus/prometheus
// `prompb/remote.proto` + `prompb/types.proto` (1.0, package `prometheus`) and
// `prompb/io/prometheus/write/v2/types.proto` (2.0). The TypeScript interfaces describe what
// protobufjs `decode` returns: repeated fields default to [], scalars to 0 / '' on the prototype,
// 64-bit integers are Long objects (or numbers when small), see `toNumber`.
import protobuf from 'protobufjs';
import type { Type } from 'protobufjs';

/** The native histogram message is the same in both versions (field numbers and types). */
const HISTOGRAM_FIELDS = `
  oneof count { uint64 count_int = 1; double count_float = 2; }
  double sum = 3;
  sint32 schema = 4;
  double zero_threshold = 5;
  oneof zero_count { uint64 zero_count_int = 6; double zero_count_float = 7; }
  repeated BucketSpan negative_spans = 8;
  repeated sint64 negative_deltas = 9;
  repeated double negative_counts = 10;
  repeated BucketSpan positive_spans = 11;
  repeated sint64 positive_deltas = 12;
  repeated double positive_counts = 13;
  ResetHint reset_hint = 14;
  int64 timestamp = 15;
  repeated double custom_values = 16;
`;

export const RW1_PROTO = `
syntax = "proto3";
package prometheus;
message WriteRequest { repeated TimeSeries timeseries = 1; reserved 2; repeated MetricMetadata metadata = 3; }
message MetricMetadata {
  enum MetricType { UNKNOWN = 0; COUNTER = 1; GAUGE = 2; HISTOGRAM = 3; GAUGEHISTOGRAM = 4; SUMMARY = 5; INFO = 6; STATESET = 7; }
  MetricType type = 1; string metric_family_name = 2; string help = 4; string unit = 5;
}
message Sample { double value = 1; int64 timestamp = 2; }
message Exemplar { repeated Label labels = 1; double value = 2; int64 timestamp = 3; }
message Histogram {
  enum ResetHint { UNKNOWN = 0; YES = 1; NO = 2; GAUGE = 3; }
  ${HISTOGRAM_FIELDS}
}
message BucketSpan { sint32 offset = 1; uint32 length = 2; }
message TimeSeries { repeated Label labels = 1; repeated Sample samples = 2; repeated Exemplar exemplars = 3; repeated Histogram histograms = 4; }
message Label { string name = 1; string value = 2; }
`;

export const RW2_PROTO = `
syntax = "proto3";
package io.prometheus.write.v2;
message Request { reserved 1 to 3; repeated string symbols = 4; repeated TimeSeries timeseries = 5; }
message TimeSeries {
  repeated uint32 labels_refs = 1; repeated Sample samples = 2; repeated Histogram histograms = 3;
  repeated Exemplar exemplars = 4; Metadata metadata = 5; int64 created_timestamp = 6;
}
message Exemplar { repeated uint32 labels_refs = 1; double value = 2; int64 timestamp = 3; }
message Sample { double value = 1; int64 timestamp = 2; }
message Metadata {
  enum MetricType {
    METRIC_TYPE_UNSPECIFIED = 0; METRIC_TYPE_COUNTER = 1; METRIC_TYPE_GAUGE = 2; METRIC_TYPE_HISTOGRAM = 3;
    METRIC_TYPE_GAUGEHISTOGRAM = 4; METRIC_TYPE_SUMMARY = 5; METRIC_TYPE_INFO = 6; METRIC_TYPE_STATESET = 7;
  }
  MetricType type = 1; uint32 help_ref = 3; uint32 unit_ref = 4;
}
message Histogram {
  enum ResetHint { RESET_HINT_UNSPECIFIED = 0; RESET_HINT_YES = 1; RESET_HINT_NO = 2; RESET_HINT_GAUGE = 3; }
  ${HISTOGRAM_FIELDS}
}
message BucketSpan { sint32 offset = 1; uint32 length = 2; }
`;

const root = new protobuf.Root();
protobuf.parse(RW1_PROTO, root, { keepCase: false });
protobuf.parse(RW2_PROTO, root, { keepCase: false });
root.resolveAll();

export const RemoteWriteTypes: { readonly WriteRequest: Type; readonly RequestV2: Type } = {
  WriteRequest: root.lookupType('prometheus.WriteRequest'),
  RequestV2: root.lookupType('io.prometheus.write.v2.Request'),
};

/** A protobufjs 64-bit value: a Long when the long library is present, else a number. */
export interface LongLike { toNumber(): number }
export type Int64 = number | LongLike;

export function toNumber(v: Int64 | null | undefined): number {
  if (v === null || v === undefined) return 0;
  return typeof v === 'number' ? v : v.toNumber();
}

/** The metric type enum, shared by 1.0 MetricMetadata and 2.0 Metadata, as the metadata API names it. */
export const METRIC_TYPE_NAMES = ['unknown', 'counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset'] as const;

export interface BucketSpan { offset: number; length: number }

export interface NativeHistogram {
  /** protobufjs's oneof getter: which member of `count` is set (members read 0 when unset). */
  count?: 'countInt' | 'countFloat';
  countInt: Int64;
  countFloat: number;
  sum: number;
  schema: number;
  zeroThreshold: number;
  zeroCount?: 'zeroCountInt' | 'zeroCountFloat';
  zeroCountInt: Int64;
  zeroCountFloat: number;
  negativeSpans: BucketSpan[];
  negativeDeltas: Int64[];
  negativeCounts: number[];
  positiveSpans: BucketSpan[];
  positiveDeltas: Int64[];
  positiveCounts: number[];
  resetHint: number;
  timestamp: Int64;
  customValues: number[];
}

export interface Sample { value: number; timestamp: Int64 }

export interface WriteRequestV1 {
  timeseries: {
    labels: { name: string; value: string }[];
    samples: Sample[];
    exemplars: unknown[];
    histograms: NativeHistogram[];
  }[];
  metadata: { type: number; metricFamilyName: string; help: string; unit: string }[];
}

export interface RequestV2 {
  symbols: string[];
  timeseries: {
    labelsRefs: number[];
    samples: Sample[];
    histograms: NativeHistogram[];
    exemplars: unknown[];
    metadata?: { type: number; helpRef: number; unitRef: number } | null;
    createdTimestamp: Int64;
  }[];
}

/** Decodes protobuf bytes; throws on bytes that are not the message. */
export function decodeWriteRequestV1(bytes: Uint8Array): WriteRequestV1 {
  return RemoteWriteTypes.WriteRequest.decode(bytes) as unknown as WriteRequestV1;
}

export function decodeRequestV2(bytes: Uint8Array): RequestV2 {
  return RemoteWriteTypes.RequestV2.decode(bytes) as unknown as RequestV2;
}

/** Plain object (camelCase keys) → protobuf bytes; tests and tools build bodies with it. */
export function encodeRemoteWrite(version: 1 | 2, value: Record<string, unknown>): Buffer {
  const type = version === 1 ? RemoteWriteTypes.WriteRequest : RemoteWriteTypes.RequestV2;
  const bytes = type.encode(type.fromObject(value)).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
