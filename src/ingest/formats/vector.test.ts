import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../errors.js';
import type { LogEntry } from '../../model/log-entry.js';
import { vectorFormat } from './vector.js';
import { NOW_NS, fixture, formatRequest } from './shipper-test-support.js';

const iso = (s: string) => BigInt(Date.parse(s)) * 1_000_000n;

async function parse(body: Buffer | string): Promise<LogEntry[]> {
  return (await vectorFormat.parse(Buffer.isBuffer(body) ? body : Buffer.from(body), formatRequest())).batch.logs;
}

void test('Vector NDJSON events: message, RFC 3339 timestamp, host and source_type kept, kubernetes flattened', async () => {
  const [file, k8s] = await parse(fixture('vector/events.ndjson'));
  assert.ok(file && k8s);
  assert.deepEqual([file.msg, file.timeNs, file.service], ['GET / HTTP/1.1 200', iso('2024-05-01T12:00:00Z') + 123_456_000n, '']);
  assert.deepEqual(file.fields, { host: 'web-1', source_type: 'file', file: '/var/log/nginx/access.log' });
  assert.deepEqual([k8s.service, k8s.severity, k8s.fields['kubernetes.pod_name'], k8s.fields.stream], ['api', 'warn', 'api-1', 'stderr']);
});

void test('the json codec JSON array and NDJSON give the same entries', async () => {
  const ndjson = fixture('vector/events.ndjson').toString('utf8');
  const array = `[${ndjson.trim().split('\n').join(',')}]`;
  assert.deepEqual(await parse(array), await parse(ndjson));
});

void test('the text codec: each line is a message at receive time', async () => {
  const logs = await parse('first line\r\nsecond line\n\n');
  assert.deepEqual(logs.map((e) => [e.msg, e.timeNs, e.observedNs]), [['first line', NOW_NS, NOW_NS], ['second line', NOW_NS, NOW_NS]]);
});

void test('a Vector syslog-source event takes its service from appname', async () => {
  const [e] = await parse('[{"message":"hi","appname":"sshd","hostname":"h","severity":"info","timestamp":"2024-05-01T12:00:00Z"}]');
  assert.deepEqual([e?.service, e?.severity, e?.fields.appname, e?.fields.hostname], ['sshd', 'info', 'sshd', 'h']);
});

void test('malformed Vector JSON is a 400 naming the line, without quoting the body', async () => {
  await assert.rejects(parse('{"message":"a"}\n{"message":"secret-token'), (e: unknown) =>
    e instanceof ServiceError && e.status === 400 && e.detail === 'Vector line 2 is not valid JSON');
});
