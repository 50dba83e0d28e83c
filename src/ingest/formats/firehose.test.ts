import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import { ServiceError } from '../../errors.js';
import type { ParsedBody } from '../format.js';
import { FIREHOSE_MAX_DECODED_BYTES, firehoseErrorBody, firehoseFormat } from './firehose.js';
import { NOW_NS, fakeContext, fixture, formatRequest } from './shipper-test-support.js';

const REQUEST_ID = 'ed4acda5-034f-9f42-bba1-f29aea6d7d8f';
const failsWith = (status: number, detail: RegExp) => (e: unknown) => e instanceof ServiceError && e.status === status && detail.test(e.detail);

async function parse(body: unknown, headers: IncomingHttpHeaders = {}): Promise<ParsedBody> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return firehoseFormat.parse(bytes, formatRequest({ path: '/api/v1/cloudwatch', headers }));
}

const envelope = (...data: (Buffer | string)[]) => ({
  requestId: REQUEST_ID,
  timestamp: 1578090901599,
  records: data.map((d) => ({ data: (Buffer.isBuffer(d) ? d : Buffer.from(d)).toString('base64') })),
});

void test('the Firehose doc request: each plain record is a message; the reply echoes requestId', async () => {
  const parsed = await parse(fixture('firehose/request.json'));
  assert.deepEqual(parsed.batch.logs.map((e) => [e.msg, e.timeNs]), [['hello', 1578090901599n * 1_000_000n], ['hello world', 1578090901599n * 1_000_000n]]);
  const { ctx, out } = fakeContext('POST', '/api/v1/firehose');
  firehoseFormat.reply?.(ctx, 2, parsed);
  assert.equal(out.status, 200);
  assert.equal(out.headers['content-type'], 'application/json');
  assert.deepEqual(out.json(), { requestId: REQUEST_ID, timestamp: Number(NOW_NS / 1_000_000n), status: 'ok', accepted: 2 });
});

void test('a gzipped CloudWatch subscription payload gives one entry per logEvent; CONTROL_MESSAGE is skipped', async () => {
  const data = gzipSync(fixture('firehose/cloudwatch-data-message.json'));
  const control = gzipSync(fixture('firehose/cloudwatch-control-message.json'));
  const headers = { 'x-amz-firehose-common-attributes': '{"commonAttributes":{"env":"prod","team":"core"}}' };
  const logs = (await parse(envelope(control, data), headers)).batch.logs;
  assert.equal(logs.length, 3);
  const [first] = logs;
  assert.deepEqual([first?.service, first?.timeNs, first?.msg], ['CloudTrail/logs', 1432826855000n * 1_000_000n, '{"eventVersion":"1.03","userIdentity":{"type":"Root"}']);
  assert.deepEqual(first?.fields, {
    env: 'prod', team: 'core', logGroup: 'CloudTrail/logs', logStream: '111111111111_CloudTrail/logs_us-east-1', owner: '111111111111',
    subscriptionFilters: '["Destination"]', id: '31953106606966983378809025079804211143289615424298221568',
  });
});

void test('a JSON object record is mapped like a log record; raw text lines are one entry each', async () => {
  const obj = '{"message":"from kinesis","level":"error","service":"orders","timestamp":"2024-05-01T12:00:00Z","order":{"id":7}}';
  const logs = (await parse(envelope(obj, 'line one\r\nline two\n{"msg":"json line"}\n'))).batch.logs;
  assert.deepEqual(logs.map((e) => [e.msg, e.service, e.severity]), [['from kinesis', 'orders', 'error'], ['line one', '', ''], ['line two', '', ''], ['json line', '', '']]);
  assert.equal(logs[0]?.timeNs, BigInt(Date.parse('2024-05-01T12:00:00Z')) * 1_000_000n);
  assert.equal(logs[0].fields['order.id'], 7);
});

void test('no requestId in the body: the X-Amz-Firehose-Request-Id header is echoed', async () => {
  const parsed = await parse({ records: [] }, { 'x-amz-firehose-request-id': 'hdr-id' });
  const { ctx, out } = fakeContext();
  firehoseFormat.reply?.(ctx, 0, parsed);
  assert.deepEqual(out.json(), { requestId: 'hdr-id', timestamp: Number(NOW_NS / 1_000_000n), status: 'ok', accepted: 0 });
});

void test('malformed deliveries are 400s with a useful detail', async () => {
  await assert.rejects(parse('not json'), failsWith(400, /Firehose body is not a JSON object/));
  await assert.rejects(parse({ requestId: 'x', records: {} }), failsWith(400, /records must be an array/));
  await assert.rejects(parse({ requestId: 'x', records: [{ data: 'aGk=' }, { data: '%%%' }] }), failsWith(400, /^Firehose record 2: data must be a base64 string$/));
  await assert.rejects(parse({ requestId: 'x', records: [{ nodata: true }] }), failsWith(400, /record 1: data must be a base64 string/));
  const corrupt = Buffer.concat([gzipSync('{"messageType":"DATA_MESSAGE"}').subarray(0, 12), Buffer.from('garbage')]);
  await assert.rejects(parse(envelope(corrupt)), failsWith(400, /record 1: corrupt gzip data/));
  await assert.rejects(parse(envelope(gzipSync('{"messageType":"DATA_MESSAGE"}'))), failsWith(400, /no logEvents array/));
});

void test('gunzip output is bounded: a gzip bomb is refused with 413, not inflated', async () => {
  const bomb = gzipSync(Buffer.alloc(FIREHOSE_MAX_DECODED_BYTES + 1024));
  assert.ok(bomb.length < 200_000);
  await assert.rejects(parse(envelope(bomb)), failsWith(413, /over the limit of 67108864 bytes/));
});

void test('firehoseErrorBody carries errorMessage beside the echoed requestId', () => {
  assert.deepEqual(firehoseErrorBody('id-1', 'Rate limit exceeded', 1700000000000), { requestId: 'id-1', timestamp: 1700000000000, errorMessage: 'Rate limit exceeded' });
});
