// The OTLP protobuf schema (wire-formats.md §3.2), written from the field numbers of
// open-telemetry/opentelemetry-proto `opentelemetry/proto/{common,resource,logs,trace,collector}/v1/*.proto`,
// plus google.rpc.Status for failure bodies. One shared protobufjs Root: the metrics messages (§3.16) are
// added later with `extendOtlpRoot(METRICS_PROTO)`, which resolves against the common/resource types here.
// Field names are camelCased by protobufjs, so `toObject` output has the OTLP/JSON key names (§3.2 quirk 1).
import protobuf from 'protobufjs';
import type { Type } from 'protobufjs';

export const COMMON_PROTO = `
syntax = "proto3";
package opentelemetry.proto.common.v1;
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
`;

export const RESOURCE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.resource.v1;
message Resource {
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}
`;

export const LOGS_PROTO = `
syntax = "proto3";
package opentelemetry.proto.logs.v1;
message LogsData { repeated ResourceLogs resource_logs = 1; }
message ResourceLogs {
  opentelemetry.proto.resource.v1.Resource resource = 1;
  repeated ScopeLogs scope_logs = 2;
  string schema_url = 3;
}
message ScopeLogs {
  opentelemetry.proto.common.v1.InstrumentationScope scope = 1;
  repeated LogRecord log_records = 2;
  string schema_url = 3;
}
enum SeverityNumber {
  SEVERITY_NUMBER_UNSPECIFIED = 0;
  SEVERITY_NUMBER_TRACE = 1; SEVERITY_NUMBER_TRACE2 = 2; SEVERITY_NUMBER_TRACE3 = 3; SEVERITY_NUMBER_TRACE4 = 4;
  SEVERITY_NUMBER_DEBUG = 5; SEVERITY_NUMBER_DEBUG2 = 6; SEVERITY_NUMBER_DEBUG3 = 7; SEVERITY_NUMBER_DEBUG4 = 8;
  SEVERITY_NUMBER_INFO = 9; SEVERITY_NUMBER_INFO2 = 10; SEVERITY_NUMBER_INFO3 = 11; SEVERITY_NUMBER_INFO4 = 12;
  SEVERITY_NUMBER_WARN = 13; SEVERITY_NUMBER_WARN2 = 14; SEVERITY_NUMBER_WARN3 = 15; SEVERITY_NUMBER_WARN4 = 16;
  SEVERITY_NUMBER_ERROR = 17; SEVERITY_NUMBER_ERROR2 = 18; SEVERITY_NUMBER_ERROR3 = 19; SEVERITY_NUMBER_ERROR4 = 20;
  SEVERITY_NUMBER_FATAL = 21; SEVERITY_NUMBER_FATAL2 = 22; SEVERITY_NUMBER_FATAL3 = 23; SEVERITY_NUMBER_FATAL4 = 24;
}
message LogRecord {
  fixed64 time_unix_nano = 1;
  fixed64 observed_time_unix_nano = 11;
  SeverityNumber severity_number = 2;
  string severity_text = 3;
  opentelemetry.proto.common.v1.AnyValue body = 5;
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 6;
  uint32 dropped_attributes_count = 7;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
  string event_name = 12;
}
`;

export const TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.trace.v1;
message TracesData { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans {
  opentelemetry.proto.resource.v1.Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}
message ScopeSpans {
  opentelemetry.proto.common.v1.InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0; SPAN_KIND_INTERNAL = 1; SPAN_KIND_SERVER = 2;
    SPAN_KIND_CLIENT = 3; SPAN_KIND_PRODUCER = 4; SPAN_KIND_CONSUMER = 5;
  }
  SpanKind kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated opentelemetry.proto.common.v1.KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated opentelemetry.proto.common.v1.KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;
}
message Status {
  reserved 1;
  string message = 2;
  enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; }
  StatusCode code = 3;
}
`;

export const COLLECTOR_LOGS_PROTO = `
syntax = "proto3";
package opentelemetry.proto.collector.logs.v1;
message ExportLogsServiceRequest { repeated opentelemetry.proto.logs.v1.ResourceLogs resource_logs = 1; }
message ExportLogsServiceResponse { ExportLogsPartialSuccess partial_success = 1; }
message ExportLogsPartialSuccess { int64 rejected_log_records = 1; string error_message = 2; }
`;

export const COLLECTOR_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.collector.trace.v1;
message ExportTraceServiceRequest { repeated opentelemetry.proto.trace.v1.ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
`;

export const PROTOBUF_ANY_PROTO = `
syntax = "proto3";
package google.protobuf;
message Any { string type_url = 1; bytes value = 2; }
`;

/** google.rpc.Status: the OTLP failure body (§3.2 "Failures"). */
export const RPC_STATUS_PROTO = `
syntax = "proto3";
package google.rpc;
message Status { int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3; }
`;

/** The shared root: every OTLP message lives here under its full proto name. */
export const otlpRoot: protobuf.Root = new protobuf.Root();
for (const text of [COMMON_PROTO, RESOURCE_PROTO, LOGS_PROTO, TRACE_PROTO, COLLECTOR_LOGS_PROTO,
  COLLECTOR_TRACE_PROTO, PROTOBUF_ANY_PROTO, RPC_STATUS_PROTO]) {
  protobuf.parse(text, otlpRoot, { keepCase: false });
}
otlpRoot.resolveAll();

/** Adds more `.proto` text (e.g. metrics.proto and its collector service) to the shared root. */
export function extendOtlpRoot(protoText: string): void {
  protobuf.parse(protoText, otlpRoot, { keepCase: false });
  otlpRoot.resolveAll();
}

/** A message type by full name, e.g. `opentelemetry.proto.logs.v1.LogRecord`. */
export function otlpType(fullName: string): Type {
  return otlpRoot.lookupType(fullName);
}

export const OtlpTypes = {
  AnyValue: otlpType('opentelemetry.proto.common.v1.AnyValue'),
  KeyValue: otlpType('opentelemetry.proto.common.v1.KeyValue'),
  Resource: otlpType('opentelemetry.proto.resource.v1.Resource'),
  LogRecord: otlpType('opentelemetry.proto.logs.v1.LogRecord'),
  ResourceLogs: otlpType('opentelemetry.proto.logs.v1.ResourceLogs'),
  ScopeLogs: otlpType('opentelemetry.proto.logs.v1.ScopeLogs'),
  Span: otlpType('opentelemetry.proto.trace.v1.Span'),
  ResourceSpans: otlpType('opentelemetry.proto.trace.v1.ResourceSpans'),
  ScopeSpans: otlpType('opentelemetry.proto.trace.v1.ScopeSpans'),
  ExportLogsServiceRequest: otlpType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
  ExportLogsServiceResponse: otlpType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse'),
  ExportTraceServiceRequest: otlpType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
  ExportTraceServiceResponse: otlpType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
  RpcStatus: otlpType('google.rpc.Status'),
} as const;

/** Encodes a plain object (camelCase keys, 64-bit values as strings or numbers) as `type`. */
export function encodeMessage(type: Type, value: Record<string, unknown>): Buffer {
  const bytes = type.encode(type.fromObject(value)).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A google.rpc.Status body for an OTLP failure reply in protobuf encoding (§3.2 "Failures"). */
export function encodeRpcStatus(code: number, message: string): Buffer {
  return encodeMessage(OtlpTypes.RpcStatus, { code, message });
}
