import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../errors.js';
import type { LogEntry } from '../../model/log-entry.js';
import { gelfFormat } from './gelf.js';
import { NOW_NS, fakeContext, fixture, formatRequest } from './shipper-test-support.js';

const badRequest = (detail: RegExp) => (e: unknown) => e instanceof ServiceError && e.status === 400 && detail.test(e.detail);

async function parse(body: Buffer | string): Promise<LogEntry[]> {
  return (await gelfFormat.parse(Buffer.isBuffer(body) ? body : Buffer.from(body), formatRequest({ path: '/gelf' }))).batch.logs;
}

void test('the GELF 1.1 doc example: short_message, full_message, fractional seconds, level, _fields', async () => {
  const [e] = await parse(fixture('gelf/message.json'));
  assert.deepEqual(
    [e?.msg, e?.timeNs, e?.severity, e?.service],
    ['A short message that helps you identify what is going on', 1385053862307200000n, 'alert', 'example.org'],
  );
  assert.deepEqual(e?.fields, { host: 'example.org', full_message: 'Backtrace here\n\nmore stuff', user_id: 9001, some_info: 'foo', some_env_var: 'bar' });
});

void test('service comes from _service, else facility, else host; _id is dropped; trace ids fill the columns', async () => {
  const [a, b, c] = await parse([
    '{"version":"1.1","host":"h","short_message":"a","_service":"billing","facility":"f","_id":"x"}',
    '{"version":"1.1","host":"h","short_message":"b","facility":"f","level":"4"}',
    '{"version":"1.1","host":"h","short_message":"c","_trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","_span_id":"00f067aa0ba902b7","level":6}',
  ].join('\n'));
  assert.deepEqual([a?.service, a?.fields.id, a?.fields.facility, a?.severity], ['billing', undefined, 'f', '']);
  assert.deepEqual([b?.service, b?.severity], ['f', 'warning']);
  assert.deepEqual([c?.service, c?.severity, c?.traceId, c?.spanId, c?.timeNs], ['h', 'info', '4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7', NOW_NS]);
});

void test('newline- and NUL-delimited messages are each an entry', async () => {
  const logs = await parse('{"host":"h","short_message":"one"}\r\n{"host":"h","short_message":"two"}\0{"host":"h","short_message":"three"}\0');
  assert.deepEqual(logs.map((e) => e.msg), ['one', 'two', 'three']);
});

void test('a message without short_message is a 400 naming it', async () => {
  await assert.rejects(parse('{"host":"h","short_message":"ok"}\n{"host":"h","full_message":"no short"}'), badRequest(/^GELF message 2: short_message is required$/));
  await assert.rejects(parse('{"host":"h","short_message":"x","timestamp":"later"}'), badRequest(/timestamp must be epoch seconds/));
  await assert.rejects(parse('{"host":"h","short_message":'), badRequest(/GELF line 1 is not valid JSON/));
});

void test('the reply is 202 with the spec fields, as Graylog answers', () => {
  const { ctx, out } = fakeContext('POST', '/gelf');
  gelfFormat.reply?.(ctx, 3, { batch: { logs: [], spans: [] }, signal: 'logs' });
  assert.deepEqual([out.status, out.json()], [202, { status: 'ok', accepted: 3 }]);
});
