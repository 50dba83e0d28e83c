// The OTLP schema against bytes worked out by hand from the protobuf encoding rules and the field numbers
// of wire-formats.md §3.2: if a field number or type were wrong here, real exporters' bytes would misparse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OtlpTypes, encodeMessage, encodeRpcStatus, extendOtlpRoot, otlpType } from './otlp-proto.js';

// ExportLogsServiceRequest{resource_logs:[{scope_logs:[{log_records:[{time_unix_nano:1, severity_number:9,
// body:{string_value:"hi"}}]}]}]}
//   LogRecord: 09 <fixed64 1 LE> | 10 09 | 2a 04 (0a 02 'h' 'i')          = 17 bytes
//   ScopeLogs: 12 11 <LogRecord>                                             = 19 bytes
//   ResourceLogs: 12 13 <ScopeLogs>                                          = 21 bytes
//   Request: 0a 15 <ResourceLogs>                                            = 23 bytes
const HAND_LOGS = '0a15' + '1213' + '1211' + '09' + '0100000000000000' + '1009' + '2a04' + '0a026869';

const SMALL_LOGS = {
  resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1', severityNumber: 9, body: { stringValue: 'hi' } }] }] }],
};

void test('a small ExportLogsServiceRequest encodes to the hand-computed bytes', () => {
  assert.equal(encodeMessage(OtlpTypes.ExportLogsServiceRequest, SMALL_LOGS).toString('hex'), HAND_LOGS);
});

void test('the hand-computed bytes decode back with OTLP/JSON key names and 64-bit values as strings', () => {
  const t = OtlpTypes.ExportLogsServiceRequest;
  const obj = t.toObject(t.decode(Buffer.from(HAND_LOGS, 'hex')), { longs: String });
  assert.deepEqual(JSON.parse(JSON.stringify(obj)), SMALL_LOGS);
});

// Span{trace_id:16×0x01 (field 1), span_id:8×0x02 (2), name:"s" (5), kind:2 (6), start:5 (7 fixed64),
// status:{code:2} (15 → tag 0x7a)}: 0a 10 <16> 12 08 <8> 2a 01 73 30 02 39 <fixed64 5> 7a 02 18 02
void test('a Span encodes its ids, kind, start time and status on the spec field numbers', () => {
  const hex = encodeMessage(OtlpTypes.Span, {
    traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2), name: 's', kind: 2, startTimeUnixNano: '5', status: { code: 2 },
  }).toString('hex');
  assert.equal(hex, `0a10${'01'.repeat(16)}` + `1208${'02'.repeat(8)}` + '2a0173' + '3002' + '39' + '0500000000000000' + '7a021802');
});

void test('fixed64 nanosecond times survive beyond 2^53', () => {
  const t = OtlpTypes.LogRecord;
  const bytes = encodeMessage(t, { timeUnixNano: '1700000000123456789' });
  assert.equal(t.toObject(t.decode(bytes), { longs: String }).timeUnixNano, '1700000000123456789');
});

void test('an empty partial-success response is zero bytes; a filled one uses fields 1 and 2', () => {
  assert.equal(encodeMessage(OtlpTypes.ExportLogsServiceResponse, {}).length, 0);
  const bytes = encodeMessage(OtlpTypes.ExportTraceServiceResponse, { partialSuccess: { rejectedSpans: 3, errorMessage: 'x' } });
  assert.equal(bytes.toString('hex'), '0a05' + '0803' + '120178');
});

void test('google.rpc.Status carries code and message', () => {
  assert.equal(encodeRpcStatus(3, 'bad').toString('hex'), '0803' + '1203626164');
});

void test('the root takes more messages (metrics later) that resolve against the common types', () => {
  extendOtlpRoot(`syntax = "proto3"; package test.ext.v1;
    message Probe { repeated opentelemetry.proto.common.v1.KeyValue attributes = 1; }`);
  const probe = otlpType('test.ext.v1.Probe');
  const bytes = encodeMessage(probe, { attributes: [{ key: 'k', value: { intValue: '7' } }] });
  assert.equal(bytes.toString('hex'), '0a07' + '0a016b' + '12021807');
});
