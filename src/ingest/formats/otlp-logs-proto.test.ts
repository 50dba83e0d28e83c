// Reading decoded OTLP messages directly (otlp-logs-proto.ts) gives exactly parseOtlpLogs's entries: generated
// requests with every AnyValue kind, 64-bit edges, unset and explicitly default fields, odd ids and keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOtlpLogs } from './otlp-logs.js';
import { protoLogEntries } from './otlp-logs-proto.js';
import { OtlpTypes, encodeMessage } from './otlp-proto.js';
import { logsRequests } from './otlp-test-requests.js';

const NOW = 1_800_000_000_000_000_000n;
const PROTO_CT = { 'content-type': 'application/x-protobuf' };

void test('decoded messages read directly give parseOtlpLogs\'s entries (2,000 generated requests)', () => {
  const nextRequest = logsRequests(7);
  for (let n = 0; n < 2_000; n++) {
    const request = nextRequest();
    const body = encodeMessage(OtlpTypes.ExportLogsServiceRequest, request);
    const want = parseOtlpLogs(body, PROTO_CT, NOW).batch.logs;
    const got = protoLogEntries(OtlpTypes.ExportLogsServiceRequest.decode(body), NOW);
    assert.deepEqual(got, want, `request ${n}: ${JSON.stringify(request, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('hex') : v))}`);
  }
});
