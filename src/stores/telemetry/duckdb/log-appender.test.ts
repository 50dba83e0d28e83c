// The stream a log row gets when its format gave none (log-appender.ts streamOf): VictoriaLogs' `{service="…"}`,
// quoted as LogsQL reads it, the same text however often a service comes back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LogEntry } from '../../../model/log-entry.js';
import { streamOf } from './log-appender.js';

const entry = (service: string, stream = ''): LogEntry => ({
  timeNs: 0n, observedNs: 0n, service, severity: '', msg: '', traceId: '', spanId: '', stream, fields: {},
});

test('a row without a stream gets its service as one, quotes and backslashes escaped, the same for every row', () => {
  assert.equal(streamOf(entry('')), '{}');
  assert.equal(streamOf(entry('checkout-3')), '{service="checkout-3"}');
  assert.equal(streamOf(entry('a"b\\c')), '{service="a\\"b\\\\c"}');
  assert.equal(streamOf(entry('a"b\\c')), '{service="a\\"b\\\\c"}');
  assert.equal(streamOf(entry('checkout-3', '{app="x"}')), '{app="x"}');
  for (let i = 0; i < 12_000; i++) assert.equal(streamOf(entry(`svc-${i}`)), `{service="svc-${i}"}`);
  assert.equal(streamOf(entry('checkout-3')), '{service="checkout-3"}');
});
