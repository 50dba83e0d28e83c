import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { IngestFormat } from '../format.js';
import type { LogEntry } from '../../model/log-entry.js';
import { createVercelFormat, drainFormat, herokuFormat, vercelFormat, vercelVerifyHandler, verifyVercelSignature } from './drains.js';
import { NOW_NS, fakeContext, fixture, formatRequest } from './shipper-test-support.js';
import type { IncomingHttpHeaders } from 'node:http';

const iso = (s: string) => BigInt(Date.parse(s)) * 1_000_000n;
const LOGPLEX: IncomingHttpHeaders = { 'content-type': 'application/logplex-1', 'logplex-msg-count': '10' };

async function parse(format: IngestFormat, body: Buffer | string, headers: IncomingHttpHeaders = {}): Promise<LogEntry[]> {
  const parsed = await format.parse(Buffer.isBuffer(body) ? body : Buffer.from(body), formatRequest({ headers }));
  return parsed.batch.logs;
}

const badRequest = (detail: RegExp) => (e: unknown) => e instanceof ServiceError && e.status === 400 && detail.test(e.detail);

void test('the logplex README example: ten frames whose count includes the trailing LF', async () => {
  const logs = await parse(herokuFormat, fixture('heroku/logplex-readme.txt'), LOGPLEX);
  assert.equal(logs.length, 10);
  for (const e of logs) {
    assert.deepEqual(
      { t: e.timeNs, service: e.service, severity: e.severity, msg: e.msg, fields: e.fields },
      { t: iso('2012-07-22T00:06:26Z'), service: 'erlang', severity: 'info', msg: 'Hi from erlang', fields: { facility: 'local5', priority: 174, hostname: 'host', procid: 'console' } },
    );
  }
});

void test('heroku router lines are parsed into key=value fields; the dyno is the procid', async () => {
  const [router, app] = await parse(herokuFormat, fixture('heroku/logplex-router.txt'), LOGPLEX);
  assert.equal(router?.service, 'heroku');
  assert.equal(router.fields.procid, 'router');
  assert.deepEqual(
    ['at', 'method', 'path', 'host', 'fwd', 'dyno', 'connect', 'router.service', 'status', 'bytes', 'protocol'].map((k) => router.fields[k]),
    ['info', 'GET', '/', 'myapp.herokuapp.com', '204.204.204.204', 'web.1', '1ms', '18ms', '200', '13', 'https'],
  );
  assert.deepEqual([app?.service, app?.fields.procid, app?.msg], ['app', 'web.3', 'State changed from starting to up']);
  assert.equal(app?.fields.at, undefined, 'only router lines are split into fields');
});

void test('logplex frames carry no structured data: a message starting with [ stays the message', async () => {
  const line = '<190>1 2012-11-30T06:45:26+00:00 host app web.1 - [INFO] started\n';
  const [e] = await parse(herokuFormat, `${Buffer.byteLength(line)} ${line}`);
  assert.equal(e?.msg, '[INFO] started');
});

void test('/api/v1/drain takes native JSON, and logplex frames by Content-Type or a leading digit', async () => {
  const json = await parse(drainFormat, '[{"_msg":"a","service":"s"},{"message":"b"}]');
  assert.deepEqual(json.map((e) => [e.msg, e.service]), [['a', 's'], ['b', '']]);
  const byType = await parse(drainFormat, fixture('heroku/logplex-readme.txt'), LOGPLEX);
  const bySniff = await parse(drainFormat, fixture('heroku/logplex-readme.txt'));
  assert.equal(byType.length, 10);
  assert.deepEqual(bySniff, byType);
  assert.deepEqual((await parse(herokuFormat, '{"_msg":"json on heroku"}')).map((e) => e.msg), ['json on heroku']);
});

void test('a logplex count past the end of the body is a 400', async () => {
  await assert.rejects(parse(herokuFormat, '70 <174>1 2012-07-22T00:06:26+00:00 host erlang console - Hi\n', LOGPLEX), badRequest(/frame 1 declares 70 bytes/));
});

void test('Vercel doc example: service, ms time, level, proxy.* flattened and a synthesised message', async () => {
  const [build, lambda] = await parse(vercelFormat, fixture('vercel/logs.json'));
  assert.ok(build && lambda);
  assert.deepEqual([build.msg, build.service, build.severity, build.timeNs], ['Adding customer to database...', 'my-app', 'info', 1573817187330n * 1_000_000n]);
  assert.equal(build.fields.projectId, 'gdufoJxB6b9b1fEqr1jUtFkyavUU');
  assert.equal(build.fields.deploymentId, 'dpl_233NRGRjVZX1caZrXWtz5g1TAksD');
  assert.equal(build.fields.timestamp, undefined);
  assert.equal(lambda.msg, 'GET /api/users?page=1 500');
  assert.equal(lambda.service, 'gdufoJxB6b9b1fEqr1jUtFkyavUU', 'projectId when there is no projectName');
  assert.deepEqual([lambda.severity, lambda.traceId, lambda.spanId], ['error', '4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7']);
  assert.equal(lambda.fields['proxy.userAgent'], '["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)"]');
  assert.deepEqual([lambda.fields['proxy.clientIp'], lambda.fields['proxy.statusCode'], lambda.fields.statusCode], ['120.75.16.101', 500, 500]);
});

void test('Vercel NDJSON delivery and the empty test delivery', async () => {
  const ndjson = '{"id":"1","message":"a","timestamp":1700000000000,"projectId":"p","level":"warning"}\n{"id":"2","message":"b","timestamp":1700000000001,"projectId":"p","level":"info"}\n';
  assert.deepEqual((await parse(vercelFormat, ndjson)).map((e) => [e.msg, e.severity]), [['a', 'warning'], ['b', 'info']]);
  const empty = await vercelFormat.parse(Buffer.alloc(0), formatRequest());
  assert.equal(empty.batch.logs.length, 0);
  const { ctx, out } = fakeContext();
  vercelFormat.reply?.(ctx, 0, empty);
  assert.deepEqual([out.status, out.json()], [200, { status: 'ok', accepted: 0 }]);
});

void test('a malformed Vercel body is a 400 naming the line', async () => {
  await assert.rejects(parse(vercelFormat, '{"id":"1"}\n{"id":'), badRequest(/^Vercel drain line 2 is not valid JSON$/));
  await assert.rejects(parse(vercelFormat, '[1]'), badRequest(/element 1 is not a JSON object/));
});

void test('x-vercel-signature is the hex HMAC-SHA1 of the raw body', () => {
  const body = fixture('vercel/logs.json');
  const sig = createHmac('sha1', 'drain-secret').update(body).digest('hex');
  assert.equal(verifyVercelSignature(body, 'drain-secret', sig), true);
  assert.equal(verifyVercelSignature(body, 'drain-secret', sig.toUpperCase()), true);
  assert.equal(verifyVercelSignature(body, 'other-secret', sig), false);
  assert.equal(verifyVercelSignature(Buffer.concat([body, Buffer.from(' ')]), 'drain-secret', sig), false);
  assert.equal(verifyVercelSignature(body, 'drain-secret', undefined), false);
  assert.equal(verifyVercelSignature(body, 'drain-secret', sig.slice(0, 20)), false);
  assert.equal(verifyVercelSignature(body, 'drain-secret', 'zz'.repeat(20)), false);
});

void test('endpoint verification: GET and HEAD answer 200 with x-vercel-verify when a token is configured', async () => {
  const get = fakeContext('GET', '/api/v1/drain/vercel');
  await vercelVerifyHandler('tok-123')(get.ctx);
  assert.deepEqual([get.out.status, get.out.headers['x-vercel-verify'], get.out.json()], [200, 'tok-123', { status: 'ok' }]);
  const head = fakeContext('HEAD', '/api/v1/drain/vercel');
  await vercelVerifyHandler('tok-123')(head.ctx);
  assert.deepEqual([head.out.status, head.out.headers['x-vercel-verify'], head.out.body], [200, 'tok-123', '']);
  const none = fakeContext('GET', '/api/v1/drain/vercel');
  await vercelVerifyHandler(undefined)(none.ctx);
  assert.deepEqual([none.out.status, none.out.headers['x-vercel-verify']], [200, undefined]);
  const post = fakeContext();
  createVercelFormat('tok-123').reply?.(post.ctx, 2, { batch: { logs: [], spans: [] }, signal: 'logs' });
  assert.deepEqual([post.out.status, post.out.headers['x-vercel-verify'], post.out.json()], [200, 'tok-123', { status: 'ok', accepted: 2 }]);
});

void test('every drain entry is observed at receive time', async () => {
  const logs = await parse(vercelFormat, fixture('vercel/logs.json'));
  assert.ok(logs.every((e) => e.observedNs === NOW_NS));
});
