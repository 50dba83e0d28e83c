// Every shipper format end to end (wire-formats.md §3.5–§3.13, DESIGN §5): one realistic body per path through
// the ingest front door (a few through the app door), the 2xx reply its clients read, then the entries read back
// with LogsQL by a tag in the message: `_msg`, `service`, time, severity and format-specific fields.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { encode, ExtData } from '@msgpack/msgpack';
import { call, eventually, newAccount, startService, type Reply, type RunningService, type TestAccount } from './support/service.js';

type Row = Record<string, unknown>;
/** Expected row: every key must deep-equal (or satisfy a predicate); rows are paired by `_msg`. */
type Want = Record<string, unknown>;

const ROOT = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    if (dirname(dir) === dir) throw new Error('repository root not found');
    dir = dirname(dir);
  }
  return dir;
})();
const fx = (path: string): string => readFileSync(join(ROOT, 'test', 'fixtures', path), 'utf8');
const fxJson = (path: string): unknown => JSON.parse(fx(path));
const fxLines = (path: string): string[] => fx(path).split(/\r?\n/).filter((l) => l.trim() !== '');
const newTag = (): string => 'tg' + randomBytes(6).toString('hex');
const gzip = (s: string): Buffer => gzipSync(Buffer.from(s));
const zstd = (s: string): Buffer => execFileSync('/usr/bin/zstd', ['-q', '-c'], { input: Buffer.from(s) });
const show = (x: unknown): string => JSON.stringify(x).slice(0, 1500);
/** RFC 3339 with 9 fraction digits, as the query API writes `_time`. */
const nsTime = (ms: number, subMs = '000000'): string => new Date(ms).toISOString().replace(/Z$/, `${subMs}Z`);
const recent = (v: unknown): boolean => typeof v === 'string' && Math.abs(Date.parse(v) - Date.now()) < 120_000;
/** RFC 3164 time: no year, so the current UTC year, one back when that lands over a day ahead (§3.5). */
function bsd(month: number, day: number, h: number, m: number, s: number): string {
  const year = new Date().getUTCFullYear();
  const t = Date.UTC(year, month, day, h, m, s);
  return nsTime(t - Date.now() > 86_400_000 ? Date.UTC(year - 1, month, day, h, m, s) : t);
}
/** RFC 6587 octet counting; `lf` adds the LF that logplex counts in its frames (§3.6). */
const octets = (lines: string[], lf = ''): string => lines.map((l) => `${Buffer.byteLength(l + lf)} ${l}${lf}`).join('');
/** Fluent's EventTime: msgpack ext type 0, big-endian uint32 seconds then uint32 nanoseconds. */
const eventTime = (sec: number, ns: number): ExtData => new ExtData(0, Buffer.from(((BigInt(sec) << 32n) | BigInt(ns)).toString(16).padStart(16, '0'), 'hex'));

let svc: RunningService;
let acct: TestAccount;
before(async () => {
  svc = await startService();
  acct = await newAccount(svc, { tier: 'custom' });
});
after(() => svc.stop());

async function query(q: string): Promise<Row[]> {
  const r = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/select/logsql/query?query=${encodeURIComponent(q)}`, { headers: { 'X-API-Key': acct.key } });
  assert.equal(r.status, 200, r.text);
  return r.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Row);
}
/** The rows tagged `tag`, once `n` of them are there (or what is there after 6 s). */
async function readBack(tag: string, n: number): Promise<Row[]> {
  return (await eventually(async () => { const rows = await query(tag); return rows.length >= n ? rows : null; }, 6000)) ?? query(tag);
}
/** Nothing tagged `tag` is stored: a later sentinel write is visible first (the WAL drains in order). */
async function assertNoneStored(tag: string): Promise<void> {
  const sentinel = newTag();
  assert.equal((await send('/api/v1/ingest', JSON.stringify({ _msg: sentinel }))).status, 200);
  assert.equal((await readBack(sentinel, 1)).length, 1, 'sentinel stored');
  assert.deepEqual(await query(tag), [], 'nothing of the refused body is stored');
}
function assertRows(rows: Row[], want: Want[]): void {
  assert.equal(rows.length, want.length, `row count: ${show(rows)}`);
  const left = [...rows];
  for (const w of want) {
    const i = left.findIndex((r) => r._msg === w._msg);
    assert.ok(i >= 0, `no row with _msg ${show(w._msg)} in ${show(rows)}`);
    const row = left.splice(i, 1)[0] ?? {};
    for (const [k, v] of Object.entries(w)) {
      if (typeof v === 'function') assert.ok((v as (x: unknown) => boolean)(row[k]), `${k} = ${show(row[k])} in ${show(row)}`);
      else assert.deepEqual(row[k], v, `${k} in ${show(row)}`);
    }
  }
}
/** How the key travels: X-API-Key, Firehose's own header, Basic user (Heroku URL userinfo), `?api_key=`, or not at all. */
type Auth = 'x-api-key' | 'firehose' | 'basic' | 'query' | 'none';
interface SendOpts { door?: 'ingest' | 'app'; method?: string; headers?: Record<string, string>; auth?: Auth }
function send(path: string, body: string | Buffer | undefined, o: SendOpts = {}): Promise<Reply> {
  const key: Record<string, string> = {
    'x-api-key': { 'X-API-Key': acct.key }, firehose: { 'X-Amz-Firehose-Access-Key': acct.key },
    basic: { Authorization: `Basic ${Buffer.from(`${acct.key}:`).toString('base64')}` }, query: {}, none: {},
  }[o.auth ?? 'x-api-key'];
  const url = (o.door === 'app' ? svc.app : svc.ingest) + path + (o.auth === 'query' ? `${path.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(acct.key)}` : '');
  return call(url, { method: o.method ?? 'POST', headers: { ...key, ...o.headers }, ...(body === undefined ? {} : { body }) });
}

interface Case extends SendOpts {
  name: string;
  path: string;
  body: (tag: string) => string | Buffer;
  status?: number;
  /** Expected subset of the JSON reply beside the spec's {status: "ok", accepted: <rows>}. */
  reply?: Record<string, unknown>;
  rows: (tag: string) => Want[];
}

// ---- Bodies built from the parser fixtures, every message tagged ----
const S5424 = fxLines('syslog/rfc5424-examples.txt');
const S3164 = fxLines('syslog/rfc3164-examples.txt');
const OTEL_SD = '[opentelemetry trace_id="4bf92f3577b34da6a3ce929d0e0e4736" span_id="00f067aa0ba902b7" trace_flags="01"]';
const msgpackCase = (name: string, path: string, door: 'ingest' | 'app'): Case => ({
  name, path, door, headers: { 'Content-Type': 'application/msgpack' },
  body: (t) => Buffer.concat([
    [eventTime(1714564804, 123456789), { log: `msgpack event ${t}`, stream: 'stderr', kubernetes: { container_name: 'worker', pod_name: 'w-1' } }],
    [1714564805, { message: `integer time ${t}`, level: 'warn', service: 'batch' }],
    [[eventTime(1714564806, 0), { source: 'fb2' }], { log: `fluent bit 2 metadata ${t}` }],
  ].map((ev) => encode(ev))),
  rows: (t) => [
    { _msg: `msgpack event ${t}`, service: 'worker', _time: '2024-05-01T12:00:04.123456789Z', stream: 'stderr', 'kubernetes.pod_name': 'w-1' },
    { _msg: `integer time ${t}`, service: 'batch', severity: 'warn', _time: '2024-05-01T12:00:05.000000000Z' },
    { _msg: `fluent bit 2 metadata ${t}`, _time: '2024-05-01T12:00:06.000000000Z', 'metadata.source': 'fb2' },
  ],
});
const vectorEvents = (t: string): Row[] => fxLines('vector/events.ndjson').map((l) => {
  const e = JSON.parse(l) as Row;
  return { ...e, message: `${String(e.message)} ${t}` };
});
const vectorRows = (t: string): Want[] => [
  { _msg: `GET / HTTP/1.1 200 ${t}`, service: '', _time: '2024-05-01T12:00:00.123456000Z', host: 'web-1', source_type: 'file', file: '/var/log/nginx/access.log' },
  { _msg: `pod started ${t}`, service: 'api', severity: 'warn', _time: '2024-05-01T12:00:01.000000000Z', stream: 'stderr', 'kubernetes.pod_labels.app': 'api' },
];
const CW_MESSAGE = '{"eventVersion":"1.03","userIdentity":{"type":"Root"}';
const CW_IDS = (fxJson('firehose/cloudwatch-data-message.json') as { logEvents: { id: string }[] }).logEvents.map((e) => e.id);
function firehoseBody(t: string, requestId: string): string {
  const data = fxJson('firehose/cloudwatch-data-message.json') as { logEvents: { message: string }[] };
  data.logEvents.forEach((e, i) => { e.message = `${e.message} ${t} #${i}`; });
  const record = (payload: unknown): { data: string } => ({ data: gzipSync(JSON.stringify(payload)).toString('base64') });
  return JSON.stringify({ requestId, timestamp: Date.now(), records: [record(fxJson('firehose/cloudwatch-control-message.json')), record(data)] });
}
const firehoseCase = (name: string, path: string, door: 'ingest' | 'app'): Case => {
  const requestId = randomUUID();
  return {
    name, path, door, auth: 'firehose', body: (t) => firehoseBody(t, requestId),
    headers: {
      'Content-Type': 'application/json', 'X-Amz-Firehose-Protocol-Version': '1.0', 'X-Amz-Firehose-Request-Id': requestId,
      'X-Amz-Firehose-Source-Arn': 'arn:aws:firehose:us-east-1:111111111111:deliverystream/cw', 'X-Amz-Firehose-Common-Attributes': '{"commonAttributes":{"env":"prod"}}',
    },
    reply: { requestId, timestamp: (v: unknown) => typeof v === 'number' && Math.abs(v - Date.now()) < 120_000 },
    rows: (t) => [0, 1, 2].map((i) => ({
      _msg: `${CW_MESSAGE} ${t} #${i}`, service: 'CloudTrail/logs', _time: '2015-05-28T15:27:35.000000000Z', logStream: '111111111111_CloudTrail/logs_us-east-1',
      owner: '111111111111', id: CW_IDS[i], env: 'prod',
    })),
  };
};
const GELF = fxJson('gelf/message.json') as Row;

const CASES: Case[] = [
  {
    name: 'syslog RFC 5424 with structured data (LF, CRLF)', path: '/api/v1/syslog',
    body: (t) => `${(S5424[2] ?? '').replace(']', `]${OTEL_SD}`)} ${t}\r\n${S5424[1] ?? ''} ${t}\n`,
    rows: (t) => [
      {
        _msg: `An application event log entry... ${t}`, service: 'evntslog', severity: 'notice', _time: '2003-10-11T22:14:15.003000000Z', facility: 'local4', priority: 165,
        hostname: 'mymachine.example.com', msgid: 'ID47', 'sd.exampleSDID@32473.eventSource': 'Application', 'sd.exampleSDID@32473.iut': '3',
        trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7', 'sd.opentelemetry.trace_flags': '01',
      },
      { _msg: `%% It's time to make the do-nuts. ${t}`, service: 'myproc', severity: 'notice', _time: '2003-08-24T12:14:15.000003000Z', procid: '8710', hostname: '192.0.2.1' },
    ],
  },
  {
    name: 'syslog RFC 3164 (LF framing, blank line, CRLF)', path: '/api/v1/syslog', headers: { 'Content-Type': 'text/plain' },
    body: (t) => `${S3164[0] ?? ''} ${t}\n\n${S3164[1] ?? ''} ${t}\r\n<30>Nov  3 09:01:02 web-1 nginx[4321]: upstream timed out ${t}\n`,
    rows: (t) => [
      { _msg: `'su root' failed for lonvick on /dev/pts/8 ${t}`, service: 'su', severity: 'crit', facility: 'auth', hostname: 'mymachine', _time: bsd(9, 11, 22, 14, 15) },
      { _msg: `Use the BFG! ${t}`, service: '', severity: 'notice', facility: 'user', hostname: '10.0.0.99', _time: bsd(1, 5, 17, 32, 18) },
      { _msg: `upstream timed out ${t}`, service: 'nginx', severity: 'info', facility: 'daemon', procid: '4321', hostname: 'web-1', _time: bsd(10, 3, 9, 1, 2) },
    ],
  },
  {
    name: 'syslog octet-counted, several messages (byte counts, LF inside a message)', path: '/api/v1/syslog',
    body: (t) => octets([
      `<14>1 2024-05-01T12:00:00.5Z app-1 billing 77 INV - Invoice ünïcödé ✓ generated ${t}`,
      `<11>1 2024-05-01T12:00:01+02:00 app-1 billing 77 PAY [meta@1 k="a\\"b\\]c"] Payment failed\n  at charge() ${t}`,
      `<38>May  1 12:00:02 app-1 sshd[99]: Accepted publickey ${t}`,
    ]),
    rows: (t) => [
      { _msg: `Invoice ünïcödé ✓ generated ${t}`, service: 'billing', severity: 'info', _time: '2024-05-01T12:00:00.500000000Z', msgid: 'INV', procid: '77' },
      { _msg: `Payment failed\n  at charge() ${t}`, service: 'billing', severity: 'err', _time: '2024-05-01T10:00:01.000000000Z', 'sd.meta@1.k': 'a"b]c' },
      { _msg: `Accepted publickey ${t}`, service: 'sshd', severity: 'info', facility: 'auth', procid: '99', _time: bsd(4, 1, 12, 0, 2) },
    ],
  },
  {
    name: 'Fluent Bit JSON array, date as double seconds', path: '/api/v1/fluentbit', headers: { 'Content-Type': 'application/json' },
    body: (t) => JSON.stringify((fxJson('fluentbit/json-double.json') as Row[]).map((r) => (r.log === undefined ? { ...r, MESSAGE: `${r.MESSAGE as string} ${t}` } : { ...r, log: `${r.log as string} ${t}` }))),
    rows: (t) => [
      { _msg: `GET /healthz 200 ${t}`, service: 'api', _time: '2024-05-01T12:00:00.123456000Z', stream: 'stdout', 'kubernetes.pod_name': 'api-7d9c', 'kubernetes.labels.app': 'api', date: undefined },
      { _msg: `Started Session 1 of user root. ${t}`, service: 'systemd', severity: 'info', _time: '2024-05-01T12:00:01.500000000Z', _HOSTNAME: 'node-1' },
    ],
  },
  {
    name: 'Fluentd NDJSON', path: '/api/v1/fluentd', headers: { 'Content-Type': 'application/x-ndjson' },
    body: (t) => `${JSON.stringify({ log: `charge ok ${t}`, time: '2024-05-01T12:00:02.250Z', level: 'info', service: 'billing', container_id: 'abc' })}\n`
      + `${JSON.stringify({ message: `charge declined ${t}`, time: 1714564803, level: 'error', service: 'billing', amount: 12.5 })}\n`,
    rows: (t) => [
      { _msg: `charge ok ${t}`, service: 'billing', severity: 'info', _time: '2024-05-01T12:00:02.250000000Z', container_id: 'abc' },
      { _msg: `charge declined ${t}`, service: 'billing', severity: 'error', _time: '2024-05-01T12:00:03.000000000Z', amount: 12.5 },
    ],
  },
  {
    name: 'Logstash json_batch (ECS event)', path: '/api/v1/logstash', headers: { 'Content-Type': 'application/json' },
    body: (t) => JSON.stringify((fxJson('fluentbit/logstash-batch.json') as Row[]).map((r) => ({ ...r, message: `${String(r.message)} ${t}`, service: { name: 'auth' } }))),
    rows: (t) => [{ _msg: `user logged in ${t}`, service: 'auth', severity: 'INFO', _time: '2024-05-01T12:00:00.000000000Z', 'host.name': 'web-1', '@version': '1', 'event.original': 'user logged in' }],
  },
  msgpackCase('Fluent Bit msgpack with EventTime', '/api/v1/fluentbit', 'ingest'),
  msgpackCase('Fluentd msgpack (app door)', '/api/v1/fluentd', 'app'),
  {
    name: 'Vector JSON array, gzip', path: '/api/v1/vector', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    body: (t) => gzip(JSON.stringify(vectorEvents(t))), rows: vectorRows,
  },
  {
    name: 'Vector NDJSON, zstd', path: '/api/v1/vector', headers: { 'Content-Type': 'application/x-ndjson', 'Content-Encoding': 'zstd' },
    body: (t) => zstd(vectorEvents(t).map((e) => JSON.stringify(e) + '\n').join('')), rows: vectorRows,
  },
  firehoseCase('CloudWatch via Firehose, X-Amz-Firehose-Access-Key only, CONTROL_MESSAGE skipped', '/api/v1/cloudwatch', 'ingest'),
  firehoseCase('Firehose alias', '/api/v1/firehose', 'ingest'),
  firehoseCase('Firehose alias (app door)', '/api/v1/firehose', 'app'),
  {
    name: 'HEC event: concatenated objects', path: '/services/collector/event', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: (t) => fx('hec/concatenated.txt').replaceAll('the barn"', `the barn ${t}"`).replace('Something happened', `Something happened ${t}`).replace('backslash"', `backslash ${t}"`),
    reply: { text: 'Success', code: 0 },
    rows: (t) => [
      ...[1, 2, 3].map((i) => ({ _msg: `Pony ${i} has left the barn ${t}`, service: '', _time: recent })),
      {
        _msg: `Something happened ${t}`, service: 'random-data-generator', severity: 'INFO', _time: '2015-03-13T20:43:59.000000000Z', host: 'localhost',
        sourcetype: 'my_sample_data', index: 'main', region: 'us-west-1', datacenter: '["us-west-1a","us-west-1b"]',
      },
      { _msg: `a string with } and { and "quotes" and \\ backslash ${t}`, _time: '2015-03-13T20:43:59.123000000Z' },
    ],
  },
  {
    name: 'HEC raw: lines, metadata from the query', path: '/services/collector/raw?sourcetype=nginx:access&host=web-7', headers: { 'X-Splunk-Request-Channel': randomUUID() },
    body: (t) => `10.0.0.1 - - "GET / HTTP/1.1" 200 ${t}\r\n10.0.0.2 - - "POST /login HTTP/1.1" 302 ${t}\n`,
    reply: { text: 'Success', code: 0 },
    rows: (t) => ['10.0.0.1 - - "GET / HTTP/1.1" 200', '10.0.0.2 - - "POST /login HTTP/1.1" 302']
      .map((m) => ({ _msg: `${m} ${t}`, service: 'nginx:access', host: 'web-7', sourcetype: 'nginx:access', _time: recent })),
  },
  {
    name: 'GELF single message on /gelf', path: '/gelf', status: 202,
    body: (t) => JSON.stringify({ ...GELF, short_message: `${String(GELF.short_message)} ${t}` }),
    rows: (t) => [{
      _msg: `A short message that helps you identify what is going on ${t}`, service: 'example.org', severity: 'alert', _time: '2013-11-21T17:11:02.307200000Z',
      full_message: 'Backtrace here\n\nmore stuff', user_id: 9001, some_info: 'foo', some_env_var: 'bar', host: 'example.org',
    }],
  },
  {
    name: 'GELF newline-delimited, gzip, ?api_key= on /api/v1/gelf', path: '/api/v1/gelf', auth: 'query', status: 202, headers: { 'Content-Encoding': 'gzip' },
    body: (t) => gzip([
      { version: '1.1', host: 'web-3', short_message: `cache miss ${t}`, timestamp: 1714564807.25, level: 6, _service: 'cache', _key: 'user:42' },
      { version: '1.1', host: 'web-3', short_message: `cache evict ${t}`, timestamp: '1714564808', level: 4, _service: 'cache', _trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
    ].map((m) => JSON.stringify(m)).join('\n')),
    rows: (t) => [
      { _msg: `cache miss ${t}`, service: 'cache', severity: 'info', _time: '2024-05-01T12:00:07.250000000Z', key: 'user:42', host: 'web-3' },
      { _msg: `cache evict ${t}`, service: 'cache', severity: 'warning', _time: '2024-05-01T12:00:08.000000000Z', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
    ],
  },
  {
    name: 'generic drain: JSON array', path: '/api/v1/drain', headers: { 'Content-Type': 'application/json' },
    body: (t) => JSON.stringify([
      { _msg: `drain one ${t}`, service: 'api', _time: '2024-05-01T12:00:09Z', level: 'warn', region: 'eu' },
      { _msg: `drain two ${t}`, service: 'api', _time: 1714564810123, level: 'error' },
    ]),
    rows: (t) => [
      { _msg: `drain one ${t}`, service: 'api', severity: 'warn', _time: '2024-05-01T12:00:09.000000000Z', region: 'eu' },
      { _msg: `drain two ${t}`, service: 'api', severity: 'error', _time: '2024-05-01T12:00:10.123000000Z' },
    ],
  },
  {
    name: 'Heroku logplex frames, Basic auth with the key as user', path: '/api/v1/drain/heroku', auth: 'basic',
    headers: { 'Content-Type': 'application/logplex-1', 'Logplex-Msg-Count': '2', 'Logplex-Frame-Id': randomBytes(16).toString('hex').toUpperCase(), 'Logplex-Drain-Token': `d.${randomUUID()}`, 'User-Agent': 'Logplex/v123' },
    body: (t) => octets(fxLines('heroku/logplex-router.txt').map((l) => `${l.replace(/^\d+ /, '')} ${t}`), '\n'),
    rows: (t) => [
      {
        _msg: `at=info method=GET path="/" host=myapp.herokuapp.com request_id=c24f0a6c-fb1c-4ab1-a7c4-94e0ec9b8e11 fwd="204.204.204.204" dyno=web.1 connect=1ms service=18ms status=200 bytes=13 protocol=https ${t}`,
        service: 'heroku', severity: 'info', _time: '2012-11-30T06:45:29.000000000Z', procid: 'router', hostname: 'host', method: 'GET', path: '/', status: '200',
        dyno: 'web.1', fwd: '204.204.204.204', host: 'myapp.herokuapp.com', 'router.service': '18ms',
      },
      { _msg: `State changed from starting to up ${t}`, service: 'app', severity: 'info', procid: 'web.3', _time: '2012-11-30T06:45:26.000000000Z' },
    ],
  },
  {
    name: 'Vercel drain: JSON array with a proxy object', path: '/api/v1/drain/vercel', headers: { 'Content-Type': 'application/json' },
    body: (t) => {
      const [build, proxyLog] = fxJson('vercel/logs.json') as Row[];
      const proxy = { ...(proxyLog?.proxy as Row), path: `/api/users?page=1&ref=${t}` };
      return JSON.stringify([{ ...build, message: `${String(build?.message)} ${t}` }, { ...proxyLog, proxy }]);
    },
    rows: (t) => [
      {
        _msg: `Adding customer to database... ${t}`, service: 'my-app', severity: 'info', _time: '2019-11-15T11:26:27.330000000Z', source: 'build', type: 'stdout',
        deploymentId: 'dpl_233NRGRjVZX1caZrXWtz5g1TAksD', environment: 'production', timestamp: undefined,
      },
      {
        _msg: `GET /api/users?page=1&ref=${t} 500`, service: 'gdufoJxB6b9b1fEqr1jUtFkyavUU', severity: 'error', _time: '2019-11-15T11:27:30.283000000Z',
        'proxy.method': 'GET', 'proxy.clientIp': '120.75.16.101', 'proxy.vercelCache': 'MISS', 'proxy.userAgent': '["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)"]',
        statusCode: 500, trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7', requestId: '643af4e3-975a-4cc7-9e7a-1eda11539d90',
      },
    ],
  },
];

describe('formats: reply shape and read-back', { concurrency: true }, () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const tag = newTag();
      const want = c.rows(tag);
      const r = await send(c.path, c.body(tag), c);
      assert.equal(r.status, c.status ?? 200, r.text);
      assert.match(String(r.headers['content-type']), /^application\/json/);
      const reply = r.json as Row;
      for (const [k, v] of Object.entries({ status: 'ok', accepted: want.length, ...c.reply })) {
        if (typeof v === 'function') assert.ok((v as (x: unknown) => boolean)(reply[k]), `reply ${k}: ${r.text}`);
        else assert.deepEqual(reply[k], v, `reply ${k}: ${r.text}`);
      }
      assertRows(await readBack(tag, want.length), want);
    });
  }
});

describe('formats: companions and refusals', { concurrency: true }, () => {
  test('Firehose access key is refused on /api/v1/ingest (401)', async () => {
    const r = await send('/api/v1/ingest', JSON.stringify({ _msg: 'x' }), { auth: 'firehose' });
    assert.equal(r.status, 401, r.text);
  });
  test('Firehose refusal echoes requestId with an errorMessage (wire-formats §3.11 Response)', async () => {
    const requestId = randomUUID();
    const r = await send('/api/v1/cloudwatch', JSON.stringify({ requestId, timestamp: Date.now(), records: [{ data: '!!not base64' }] }),
      { auth: 'firehose', headers: { 'X-Amz-Firehose-Request-Id': requestId } });
    assert.equal(r.status, 400, r.text);
    assert.equal((r.json as Row).requestId, requestId, r.text);
    assert.ok(typeof (r.json as Row).errorMessage === 'string', r.text);
  });
  test('HEC health and ack', async () => {
    // Vector's splunk_hec_logs health check sends its token the Splunk way, which only the event routes refuse.
    const health = await send('/services/collector/health', undefined, { method: 'GET', auth: 'none', headers: { Authorization: `Splunk ${acct.key}` } });
    assert.equal(health.status, 200, health.text);
    assert.deepEqual([(health.json as Row).text, (health.json as Row).code], ['HEC is healthy', 17]);
    const ack = await send('/services/collector/ack', JSON.stringify({ acks: [0, 1] }));
    assert.equal(ack.status, 200, ack.text);
    assert.deepEqual((ack.json as Row).acks, { 0: true, 1: true });
  });
  test('HEC event without `event` → 400 with a non-zero code and a detail; nothing stored', async () => {
    const tag = newTag();
    const r = await send('/services/collector/event', `{"event":"first is fine ${tag}"}{"time":1700000000,"host":"h"}`);
    assert.equal(r.status, 400, r.text);
    const j = r.json as Row;
    assert.ok(typeof j.code === 'number' && j.code !== 0, r.text);
    assert.ok(typeof j.detail === 'string' && j.detail !== '', r.text);
    await assertNoneStored(tag);
  });
  test('HEC missing `event` carries Splunk\'s own code 12 and invalid-event-number (wire-formats §3.12)', async () => {
    const r = await send('/services/collector/event', '{"event":"ok"}{"time":1700000000}');
    assert.deepEqual([r.status, (r.json as Row).text, (r.json as Row).code, (r.json as Row)['invalid-event-number']], [400, 'Event field is required', 12, 1], r.text);
  });
  test('Vercel endpoint verification: GET and HEAD → 200', async () => {
    assert.equal((await send('/api/v1/drain/vercel', undefined, { method: 'GET', auth: 'none' })).status, 200);
    assert.equal((await send('/api/v1/drain/vercel', undefined, { method: 'HEAD', auth: 'none' })).status, 200);
  });
  test('/api/v1/ingest with a malformed line → 400, none of the body stored', async () => {
    const tag = newTag();
    const r = await send('/api/v1/ingest', `{"_msg":"good ${tag}"}\n{"_msg": "broken ${tag}"\n{"_msg":"also good ${tag}"}\n`);
    assert.equal(r.status, 400, r.text);
    assert.equal((r.json as Row).error, 'bad_request', r.text);
    await assertNoneStored(tag);
  });
});

describe('formats: metering', () => {
  test('usage by_signal.logs grows by exactly the decompressed bytes of one accepted body', async () => {
    const usage = async (): Promise<number> => {
      const r = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/usage`, { headers: { 'X-API-Key': acct.key } });
      assert.equal(r.status, 200, r.text);
      return (r.json as { by_signal: { logs: number } }).by_signal.logs;
    };
    const before = await usage();
    const tag = newTag();
    const plain = vectorEvents(tag).map((e) => JSON.stringify(e) + '\n').join('');
    const r = await send('/api/v1/vector', zstd(plain), { headers: { 'Content-Encoding': 'zstd' } });
    assert.equal(r.status, 200, r.text);
    const size = Buffer.byteLength(plain);
    await eventually(async () => (await usage()) - before === size, 3000);
    assert.equal((await usage()) - before, size, 'by_signal.logs delta');
  });
});
