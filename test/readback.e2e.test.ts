// LogsQL read-back over HTTP (DESIGN §4): filters, pipes, parameters, the hits / field_names / field_values
// shapes, errors with a position, event times in every accepted form, freshness (queryable within 2 s of the
// 200, DESIGN §1) and tenant isolation against adversarial queries.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { call, newAccount, sleep, startService, type Reply, type RunningService, type TestAccount } from './support/service.js';
import { ingest, Later, ndjson, obj, query, raw, show, uid, waitForRows } from './support/load.js';

const MIN = 60_000;
const started = new Later(() => startService());
let svc: RunningService;
/** The six-entry data set of the filter table. */
let A: TestAccount;
/** Another account holding distinctive data that A must never see. */
let B: TestAccount;
/** Event-time forms and recency. */
let T: TestAccount;
/** Start of A's data set: a whole minute two hours ago (well inside every retention). */
const t0 = Math.floor(Date.now() / MIN) * MIN - 120 * MIN;
let marker: string;

const iso = (ms: number): string => new Date(ms).toISOString();
/** RFC 3339 with 9 fraction digits, as the query API writes `_time`. */
const nsText = (sec: number, frac9 = '000000000'): string => new Date(sec * 1000).toISOString().replace(/\.\d{3}Z$/, `.${frac9}Z`);

before(async () => {
  svc = await started.get();
  [A, B, T] = await Promise.all([newAccount(svc, { tier: 'custom' }), newAccount(svc, { tier: 'custom' }), newAccount(svc, { tier: 'custom' })]);
  const data = [
    { msg: 'Connection refused by upstream', service: 'api', level: 'error', code: '500', user: 'alice' },
    { msg: 'connection established', service: 'api', level: 'info', code: '200', user: 'bob' },
    { msg: 'disk full on /var', service: 'worker', level: 'error', code: '507', user: 'alice' },
    { msg: 'request served in 12ms', service: 'web', level: 'info', code: '200', user: 'carol' },
    { msg: 'Timeout waiting for lock', service: 'worker', level: 'warn', code: '504', user: 'dave' },
    { msg: 'user login ok', service: 'web', level: 'info', code: '200', user: 'Alice' },
  ].map((d, i) => ({ _time: iso(t0 + i * MIN), _msg: d.msg, service: d.service, level: d.level, code: d.code, user: d.user, n: String(i + 1) }));
  marker = uid('bsecret');
  const bData = Array.from({ length: 4 }, (_, i) => ({
    _time: iso(t0 + i * MIN), _msg: `${marker} payload ${i} Connection refused`, service: `bsvc-${marker}`, bsecret: marker,
    // Fields that collide with A's values and with the tenant column's name.
    tenant_id: A.tenantId, account_id: A.accountId, level: 'error', user: 'alice', n: String(i + 1), code: '500',
  }));
  const [ra, rb] = await Promise.all([ingest(svc.ingest, A.key, JSON.stringify(data)), ingest(svc.ingest, B.key, ndjson(bData))]);
  assert.equal(ra.status, 200, show(ra));
  assert.equal(rb.status, 200, show(rb));
  assert.equal((await waitForRows(svc, A.tenantId, A.key, '*', 6)).rows.length, 6, 'A\'s data set is readable');
  assert.equal((await waitForRows(svc, B.tenantId, B.key, '*', 4)).rows.length, 4, 'B\'s data set is readable');
});
after(() => started.stop());

const ns = (rows: Record<string, unknown>[]): string[] => rows.map((r) => String(r.n));
const sorted = (xs: string[]): string[] => [...xs].sort();

async function tenantGet(acct: TestAccount, sub: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
  return call(`${svc.app}/api/v1/tenants/${acct.tenantId}/select/logsql/${sub}?${new URLSearchParams(params).toString()}`, {
    headers: { 'X-API-Key': acct.key, ...headers },
  });
}

describe('LogsQL filters and pipes (DESIGN §4 subset), newest first', () => {
  // [query, expected n values; `ordered` when the order is part of the rule]
  const cases: { q: string; want: string[]; ordered?: boolean }[] = [
    { q: '*', want: ['6', '5', '4', '3', '2', '1'], ordered: true },
    { q: 'connection', want: ['1', '2'] },
    { q: 'CONNECTION', want: ['1', '2'] },
    { q: 'refused', want: ['1'] },
    { q: '"connection refused"', want: ['1'] },
    { q: '"Connection Refused By"', want: ['1'] },
    { q: '"refused connection"', want: [] },
    { q: '_msg:timeout', want: ['5'] },
    { q: 'service:worker', want: ['3', '5'] },
    { q: 'user:alice', want: ['1', '3', '6'] },
    { q: 'user:="alice"', want: ['1', '3'] },
    { q: 'user:="Alice"', want: ['6'] },
    { q: 'code:="200"', want: ['2', '4', '6'] },
    { q: 'service:wor*', want: ['3', '5'] },
    { q: 'user:al*', want: ['1', '3', '6'] },
    { q: 'conn*', want: ['1', '2'] },
    { q: '_msg:~"[0-9]+ms"', want: ['4'] },
    { q: 'user:~"^A"', want: ['6'] },
    { q: 'level:error', want: ['1', '3'] },
    { q: 'level:error service:api', want: ['1'] },
    { q: 'level:error AND service:worker', want: ['3'] },
    { q: 'service:api OR service:web', want: ['1', '2', '4', '6'] },
    { q: 'service:api or service:web', want: ['1', '2', '4', '6'] },
    { q: 'NOT service:api', want: ['3', '4', '5', '6'] },
    { q: '-service:api', want: ['3', '4', '5', '6'] },
    { q: 'level:error -service:api', want: ['3'] },
    { q: '(service:api OR service:worker) level:error', want: ['1', '3'] },
    { q: 'service:api OR service:worker level:error', want: ['1', '2', '3'] },
    { q: 'NOT (level:info OR level:warn)', want: ['1', '3'] },
    { q: 'service:(api OR web) NOT user:bob', want: ['1', '4', '6'] },
    { q: `_time:[${iso(t0 + MIN)}, ${iso(t0 + 3 * MIN)})`, want: ['2', '3'] },
    { q: `_time:[${iso(t0 + MIN)}, ${iso(t0 + 3 * MIN)}]`, want: ['2', '3', '4'] },
    { q: `_time:(${iso(t0 + MIN)}, ${iso(t0 + 3 * MIN)}]`, want: ['3', '4'] },
    { q: '_time:5m', want: [] },
    { q: '_time:3h', want: ['1', '2', '3', '4', '5', '6'] },
    { q: '* | limit 2', want: ['6', '5'], ordered: true },
    { q: '* | sort by (n)', want: ['1', '2', '3', '4', '5', '6'], ordered: true },
    { q: '* | sort by (_time)', want: ['1', '2', '3', '4', '5', '6'], ordered: true },
    { q: '* | sort by (n desc) | limit 3', want: ['6', '5', '4'], ordered: true },
    { q: 'level:error | sort by (code desc)', want: ['3', '1'], ordered: true },
  ];
  for (const c of cases) {
    test(`query ${c.q} → [${c.want.join(', ')}]`, async () => {
      const { reply, rows } = await query(svc, A.tenantId, A.key, c.q);
      assert.equal(reply.status, 200, show(reply));
      assert.match(String(reply.headers['content-type']), /json/);
      const got = ns(rows);
      if (c.ordered) assert.deepEqual(got, c.want);
      else assert.deepEqual(sorted(got), sorted(c.want));
    });
  }

  test('rows carry _time (RFC 3339 with ns), _msg, _stream, service and every stored field', async () => {
    const { rows } = await query(svc, A.tenantId, A.key, 'user:="bob"');
    assert.equal(rows.length, 1);
    const row = rows[0] ?? {};
    assert.equal(row._time, nsText((t0 + MIN) / 1000));
    assert.equal(row._msg, 'connection established');
    assert.equal(typeof row._stream, 'string');
    assert.equal(row.service, 'api');
    assert.equal(row.code, '200');
    assert.equal(row.user, 'bob');
  });

  test('| sort by (code desc) orders numbers as numbers', async () => {
    const { rows } = await query(svc, A.tenantId, A.key, '* | sort by (code desc)');
    assert.deepEqual(ns(rows).slice(0, 3), ['3', '5', '1']);
    assert.deepEqual(sorted(ns(rows).slice(3)), ['2', '4', '6']);
  });

  test('| fields a, b keeps only those fields', async () => {
    const { reply, rows } = await query(svc, A.tenantId, A.key, 'service:web | fields _msg, user');
    assert.equal(reply.status, 200, show(reply));
    assert.equal(rows.length, 2);
    for (const row of rows) assert.deepEqual(Object.keys(row).sort(), ['_msg', 'user']);
    assert.deepEqual(rows.map((r) => r.user).sort(), ['Alice', 'carol']);
  });

  test('| stats by (service) count() as n gives one row per service', async () => {
    const { reply, rows } = await query(svc, A.tenantId, A.key, '* | stats by (service) count() as n');
    assert.equal(reply.status, 200, show(reply));
    const got = rows.map((r) => ({ service: r.service, n: String(r.n) })).sort((a, b) => String(a.service).localeCompare(String(b.service)));
    assert.deepEqual(got, [{ service: 'api', n: '2' }, { service: 'web', n: '2' }, { service: 'worker', n: '2' }]);
  });

  test('| stats count() over a filter, and the default result name count(*)', async () => {
    const named = await query(svc, A.tenantId, A.key, 'level:error | stats count() as errors');
    assert.deepEqual(named.rows.map((r) => String(r.errors)), ['2']);
    const dflt = await query(svc, A.tenantId, A.key, '* | stats by (level) count()');
    const byLevel = Object.fromEntries(dflt.rows.map((r) => [String(r.severity ?? r.level), String(r['count(*)'])]));
    assert.deepEqual(byLevel, { error: '2', info: '3', warn: '1' });
  });

  test('start and end parameters (RFC 3339, unix seconds, unix ms) bound the range; start inclusive', async () => {
    const want = ['3'];
    for (const [start, end] of [
      [iso(t0 + 2 * MIN), iso(t0 + 3 * MIN - 30_000)],
      [String((t0 + 2 * MIN) / 1000), String((t0 + 3 * MIN - 30_000) / 1000)],
      [String(t0 + 2 * MIN), String(t0 + 3 * MIN - 30_000)],
    ] as const) {
      const { reply, rows } = await query(svc, A.tenantId, A.key, '*', `&start=${encodeURIComponent(start)}&end=${encodeURIComponent(end)}`);
      assert.equal(reply.status, 200, show(reply));
      assert.deepEqual(ns(rows), want, `start=${start} end=${end}`);
    }
    const open = await query(svc, A.tenantId, A.key, '*', `&start=${encodeURIComponent(iso(t0 + 4 * MIN))}`);
    assert.deepEqual(ns(open.rows), ['6', '5']);
  });

  test('the limit parameter caps the rows after the pipes', async () => {
    assert.deepEqual(ns((await query(svc, A.tenantId, A.key, '*', '&limit=2')).rows), ['6', '5']);
    assert.deepEqual(ns((await query(svc, A.tenantId, A.key, '* | sort by (n)', '&limit=2')).rows), ['1', '2']);
    assert.equal((await query(svc, A.tenantId, A.key, '* | stats by (service) count() as n', '&limit=1')).rows.length, 1);
  });

  test('POST with a form body works like GET', async () => {
    const r = await call(`${svc.app}/api/v1/tenants/${A.tenantId}/select/logsql/query`, {
      method: 'POST', body: new URLSearchParams({ query: 'service:worker', limit: '1' }).toString(),
      headers: { 'X-API-Key': A.key, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(r.status, 200, show(r));
    assert.equal(r.text.trim().split('\n').length, 1);
    assert.equal((JSON.parse(r.text.trim()) as Record<string, unknown>).n, '5');
  });
});

describe('hits, field_names and field_values shapes (VictoriaLogs-compatible)', () => {
  test('hits: {hits: [{fields, timestamps, values, total}]} with one bucket per step', async () => {
    const r = await tenantGet(A, 'hits', { query: '*', start: iso(t0), end: iso(t0 + 6 * MIN), step: '1m' });
    assert.equal(r.status, 200, show(r));
    const hits = obj(r).hits as { fields: unknown; timestamps: string[]; values: number[]; total: number }[];
    assert.equal(hits.length, 1);
    const [h] = hits;
    assert.ok(h);
    assert.deepEqual(h.fields, {});
    assert.deepEqual(h.values, [1, 1, 1, 1, 1, 1]);
    assert.equal(h.total, 6);
    assert.deepEqual(h.timestamps, [0, 1, 2, 3, 4, 5].map((i) => nsText((t0 + i * MIN) / 1000)));
    const filtered = await tenantGet(A, 'hits', { query: 'level:error', step: '1h' });
    const fh = (obj(filtered).hits as { total: number; values: number[] }[])[0];
    assert.equal(fh?.total, 2);
    assert.equal(fh.values.reduce((a, b) => a + b, 0), 2);
  });

  test('field_names: {values: [{value, hits}]} for every field with a value', async () => {
    const r = await tenantGet(A, 'field_names', { query: '*' });
    assert.equal(r.status, 200, show(r));
    const values = obj(r).values as { value: string; hits: number }[];
    const byName = new Map(values.map((v) => [v.value, v.hits]));
    for (const f of ['_msg', '_stream', '_time', 'service', 'code', 'user', 'n']) assert.equal(byName.get(f), 6, `field ${f}: ${JSON.stringify(values)}`);
    const errs = await tenantGet(A, 'field_names', { query: 'level:error' });
    assert.equal(new Map((obj(errs).values as { value: string; hits: number }[]).map((v) => [v.value, v.hits])).get('user'), 2);
  });

  test('field_values: {values: [{value, hits}]}, most frequent first; filtered by query; limit', async () => {
    const r = await tenantGet(A, 'field_values', { query: '*', field: 'code' });
    assert.equal(r.status, 200, show(r));
    const values = obj(r).values as { value: string; hits: number }[];
    assert.deepEqual(values[0], { value: '200', hits: 3 });
    assert.deepEqual(new Set(values.map((v) => v.value)), new Set(['200', '500', '504', '507']));
    const errs = await tenantGet(A, 'field_values', { query: 'level:error', field: 'service' });
    assert.deepEqual((obj(errs).values as { value: string; hits: number }[]).sort((a, b) => a.value.localeCompare(b.value)),
      [{ value: 'api', hits: 1 }, { value: 'worker', hits: 1 }]);
    const one = await tenantGet(A, 'field_values', { query: '*', field: 'service', limit: '1' });
    assert.equal((obj(one).values as unknown[]).length, 1);
    const missing = await tenantGet(A, 'field_values', { query: '*' });
    assert.equal(missing.status, 400, `field is required: ${show(missing)}`);
  });
});

describe('an invalid query is 400 whose detail points at the position', () => {
  const bad: [string, number | null][] = [
    ['service:api AND (', 17],
    ['foo)', 3],
    ['* | bogus', 4],
    ['_msg:~"("', null],
    ['_time:[abc, def)', null],
    ['"unterminated', null],
    ['* | limit x', null],
    ['service:', null],
    ['a OR OR b', null],
  ];
  for (const [q, pos] of bad) {
    test(`${q} → 400 with a position`, async () => {
      for (const sub of ['query', 'hits', 'field_names']) {
        const r = await tenantGet(A, sub, { query: q });
        assert.equal(r.status, 400, `${sub}: ${show(r)}`);
        const detail = String(obj(r).detail);
        const m = /position (\d+)/.exec(detail);
        assert.ok(m, `${sub}: detail must point at the position: "${detail}"`);
        assert.ok(Number(m[1]) <= q.length, detail);
        if (pos !== null) assert.equal(Number(m[1]), pos, detail);
        assert.equal(typeof obj(r).error, 'string');
      }
    });
  }
});

describe('odd query texts and parameters are answered with 200 or 400, never 5xx (5xx makes clients retry)', () => {
  const post = (sub: string, params: Record<string, string>): Promise<Reply> => call(`${svc.app}/api/v1/tenants/${A.tenantId}/select/logsql/${sub}`, {
    method: 'POST', body: new URLSearchParams(params).toString(), headers: { 'X-API-Key': A.key, 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  const ODD = [
    '', ' ', '""', '\\', 'x:~""', 'x:in()', '| stats by () count()', '* | stats by (_time:1h) count()', '_time:1000000y', 'x:=""', 'x:""',
    'x:*', '\u0000', 'a\u0000b', 'x:~"(?i)HELLO"', 'x:~"(?P<n>a)"', '_time:[2026-01-01, 2025-01-01)', '_time:[now-1h, now)', '* | offset 1',
    'x:>1e400', 'x:<-1e400', '* | fields _time | stats count() as c', '_stream:{service=~"x|y"}', 'hello | delete _msg',
    '*|', '(', ')', '"', ':a', '_time:', '_time:[,)', '_stream:{a=}', 'x:~"["', 'x:>abc', 'x:in(', '| limit 99999999999999999999', '| limit -1',
    '| stats count(', 'NOT', 'OR', '_time:-5m', '* | stats by (n) count() as n', Array(2000).fill('a').join(' OR '), Array(2000).fill('-a').join(' '),
    '('.repeat(300) + 'a' + ')'.repeat(300), 'NOT '.repeat(300) + 'a', 'x'.repeat(200_000),
  ];
  test('odd query texts on query, hits, field_names and field_values', async () => {
    for (const q of ODD) {
      for (const sub of ['query', 'hits', 'field_names', 'field_values']) {
        const r = await post(sub, { query: q, ...(sub === 'field_values' ? { field: 'service' } : {}) });
        assert.ok(r.status === 200 || r.status === 400, `${sub} ${JSON.stringify(q.slice(0, 60))} (${q.length} chars): ${show(r)}`);
      }
    }
  });

  test('odd parameters (times, limits, steps, fields)', async () => {
    const PARAMS: Record<string, string>[] = [
      { start: 'abc' }, { end: 'abc' }, { start: '99999999999999999999999' }, { end: '-99999999999999999999999' }, { start: '1e400' },
      { start: '-1' }, { start: '0', end: '0' }, { limit: 'abc' }, { limit: '-1' }, { limit: '99999999999999999999' }, { limit: '0' },
      { step: '0s' }, { step: 'abc' }, { step: '1ms', start: '0' }, { field: '' }, { field: '_time' }, { field: 'a"b' },
      { start: '2026-13-45T00:00:00Z' }, { start: '5m' }, { start: '1.5e9' },
    ];
    for (const params of PARAMS) {
      for (const sub of ['query', 'hits', 'field_names', 'field_values']) {
        const r = await post(sub, { query: '*', ...(sub === 'field_values' && params.field === undefined ? { field: 'service' } : {}), ...params });
        assert.ok(r.status === 200 || r.status === 400, `${sub} ${JSON.stringify(params)}: ${show(r)}`);
      }
    }
  });

  test('a query nested deeper than the store can compile (1,000 NOTs, 500 pipes, 3,000 parentheses) is 400 with a position, not 500', async () => {
    for (const q of ['NOT '.repeat(1000) + 'a', '*' + ' | limit 1'.repeat(500), '('.repeat(3000) + 'a' + ')'.repeat(3000), '-'.repeat(3000) + 'a']) {
      const r = await post('query', { query: q });
      assert.equal(r.status, 400, `${JSON.stringify(q.slice(0, 30))}… (${q.length} chars): ${show(r)}`);
    }
  });

  test('hits with a step too large for the time arithmetic is 400, not 500', async () => {
    const r = await post('hits', { query: '*', step: '99999999999999d' });
    assert.equal(r.status, 400, show(r));
  });
});

describe('event times in every accepted form come back right in _time', () => {
  test('RFC 3339 (offsets, ns fractions) and unix s / ms / µs / ns, in _time and the other time fields', async () => {
    const S = Math.floor(Date.now() / 1000) - 3600;
    const plus2 = new Date((S + 2 * 3600) * 1000).toISOString().slice(0, 19); // wall clock at +02:00
    const cases: { fmt: string; value: unknown; field?: string; want: string }[] = [
      { fmt: 'rfc3339-offset-ns', value: `${plus2}.123456789+02:00`, want: nsText(S, '123456789') },
      { fmt: 'rfc3339-z', value: new Date((S + 1) * 1000).toISOString().slice(0, 19) + 'Z', want: nsText(S + 1) },
      { fmt: 'rfc3339-ms', value: new Date((S + 2) * 1000 + 250).toISOString(), want: nsText(S + 2, '250000000') },
      { fmt: 'unix-s', value: S + 3, want: nsText(S + 3) },
      { fmt: 'unix-s-fraction', value: S + 4.5, want: nsText(S + 4, '500000000') },
      { fmt: 'unix-s-string', value: String(S + 5), want: nsText(S + 5) },
      { fmt: 'unix-ms', value: (S + 6) * 1000 + 123, want: nsText(S + 6, '123000000') },
      { fmt: 'unix-us', value: (S + 7) * 1_000_000 + 123_456, want: nsText(S + 7, '123456000') },
      { fmt: 'unix-ns-string', value: `${S + 8}123456789`, want: nsText(S + 8, '123456789') },
      { fmt: 'timestamp-field', field: 'timestamp', value: new Date((S + 9) * 1000).toISOString(), want: nsText(S + 9, '000000000') },
      { fmt: 'at-timestamp-field', field: '@timestamp', value: (S + 10) * 1000, want: nsText(S + 10) },
    ];
    const body = cases.map((c) => ({ [c.field ?? '_time']: c.value, _msg: `time form ${c.fmt}`, fmt: c.fmt }));
    const r = await ingest(svc.ingest, T.key, ndjson(body));
    assert.equal(r.status, 200, show(r));
    const { rows } = await waitForRows(svc, T.tenantId, T.key, 'fmt:*', cases.length);
    const byFmt = new Map(rows.map((row) => [String(row.fmt), row._time]));
    for (const c of cases) assert.equal(byFmt.get(c.fmt), c.want, `${c.fmt} (${JSON.stringify(c.value)})`);
    // The range filter agrees with the stored time.
    const ranged = await query(svc, T.tenantId, T.key, `fmt:* _time:[${nsText(S + 6, '123000000')}, ${nsText(S + 7)})`);
    assert.deepEqual(ranged.rows.map((row) => row.fmt), ['unix-ms']);
  });

  test('_time:5m holds an entry from 2 minutes ago and not one from 10 minutes ago', async () => {
    const tag = uid('recent');
    const now = Date.now();
    const r = await ingest(svc.ingest, T.key, JSON.stringify([
      { _time: iso(now - 2 * MIN), _msg: 'two minutes ago', tag },
      { _time: iso(now - 10 * MIN), _msg: 'ten minutes ago', tag },
    ]));
    assert.equal(r.status, 200, show(r));
    assert.equal((await waitForRows(svc, T.tenantId, T.key, `tag:=${tag}`, 2)).rows.length, 2);
    assert.deepEqual((await query(svc, T.tenantId, T.key, `tag:=${tag} _time:5m`)).rows.map((row) => row._msg), ['two minutes ago']);
    assert.equal((await query(svc, T.tenantId, T.key, `tag:=${tag} _time:15m`)).rows.length, 2);
  });

  test('an entry without a time gets the time of ingest', async () => {
    const tag = uid('notime');
    const before = Date.now();
    assert.equal((await ingest(svc.ingest, T.key, JSON.stringify([{ _msg: 'no time', tag }]))).status, 200);
    const { rows } = await waitForRows(svc, T.tenantId, T.key, `tag:=${tag}`, 1);
    const at = Date.parse(String(rows[0]?._time));
    assert.ok(at >= before - 1000 && at <= Date.now() + 1000, `_time ${String(rows[0]?._time)}`);
  });
});

test('entries are queryable within 2 s of the 200 (DESIGN §1)', async () => {
  for (let i = 0; i < 3; i++) {
    const tag = uid('fresh');
    const r = await ingest(svc.ingest, T.key, JSON.stringify([{ _msg: `fresh ${tag}`, tag }]));
    assert.equal(r.status, 200, show(r));
    const ackedAt = Date.now();
    let seenAfter = -1;
    while (Date.now() - ackedAt < 5000) {
      if ((await query(svc, T.tenantId, T.key, `tag:=${tag}`)).rows.length === 1) {
        seenAfter = Date.now() - ackedAt;
        break;
      }
      await sleep(50);
    }
    assert.ok(seenAfter >= 0 && seenAfter < 2000, `entry became visible after ${seenAfter} ms (−1: not within 5 s)`);
  }
});

describe('tenant isolation: A never sees B\'s data, whatever it asks', () => {
  const adversarial = (): string[] => [
    '*', '* | limit 100000', marker, `"${marker}"`, `${marker}*`, `_msg:~"${marker}"`, '_msg:~".*"', 'bsecret:*', `bsecret:${marker}`,
    `bsecret:="${marker}"`, `service:bsvc-${marker}`, 'service:bsvc*', `* OR ${marker}`, `${marker} OR *`, `service:api OR bsecret:*`,
    `tenant_id:${A.tenantId}`, `tenant_id:="${A.tenantId}"`, `tenant_id:${B.tenantId}`, `tenant_id:="${B.tenantId}"`, 'tenant_id:*',
    `NOT tenant_id:${A.tenantId}`, `account_id:${A.accountId}`, 'user:alice', 'level:error', 'connection refused', '-service:api',
    'NOT NOT *', '(((*)))', `_stream:{service="bsvc-${marker}"}`, '_stream:{service=~".*"}',
    '_time:[1970-01-01T00:00:00Z, 2200-01-01T00:00:00Z]',
    "' OR 1=1 --", '" OR 1=1 --', `x") OR tenant_id <> '' --`, "service:api'); DROP TABLE logs; --", '*; SELECT * FROM logs',
    `"' OR tenant_id='${B.tenantId}' --"`, `service:="x' OR '1'='1"`, `_msg:~"' OR 1=1 --"`,
    '* | stats by (service) count() as n', '* | stats by (tenant_id) count() as n', '* | stats by (bsecret) count() as n',
    '* | stats count() as n', '* | fields tenant_id, bsecret, _msg', '* | sort by (bsecret desc) | limit 1000',
    '* | stats by (_stream) count() as n',
  ];
  const extras = (): Record<string, string>[] => [
    {}, { limit: '100000' }, { start: '0', end: '4102444800' }, { tenant_id: B.tenantId }, { AccountID: B.tenantId, ProjectID: B.tenantId },
  ];
  const sneakyHeaders = (): Record<string, string> => ({ AccountID: B.tenantId, ProjectID: B.tenantId, 'X-Tenant-Id': B.tenantId, 'X-Scope-OrgID': B.tenantId });

  test('B sees its own data (so the marker is really stored)', async () => {
    const { reply } = await query(svc, B.tenantId, B.key, marker);
    assert.equal(reply.status, 200);
    assert.ok(reply.text.includes(marker));
  });

  test('every adversarial query on query, hits, field_names and field_values answers without any of B\'s data', async () => {
    let answered = 0;
    for (const q of adversarial()) {
      for (const extra of extras()) {
        // The search with every extra; the other read paths once per query (with the sneaky headers).
        const requests: [string, Record<string, string>][] = Object.keys(extra).length > 0 ? [['query', { query: q, ...extra }]] : [
          ['query', { query: q }], ['hits', { query: q, step: '1h' }], ['field_names', { query: q }],
          ['field_values', { query: q, field: 'service' }], ['field_values', { query: q, field: 'bsecret' }],
          ['field_values', { query: q, field: '_msg' }], ['field_values', { query: q, field: 'tenant_id' }],
        ];
        for (const [sub, params] of requests) {
          const r = await tenantGet(A, sub, params, sneakyHeaders());
          const what = `${sub} ${JSON.stringify(params)}`;
          assert.ok(r.status === 200 || r.status === 400, `${what}: ${show(r)}`);
          assert.ok(!r.text.includes(marker), `${what}: LEAK of tenant B's data: ${r.text.slice(0, 300)}`);
          assert.ok(!r.text.includes('bsvc-'), `${what}: LEAK of tenant B's service: ${r.text.slice(0, 300)}`);
          if (r.status === 200) answered++;
        }
      }
    }
    assert.ok(answered > 100, `most adversarial queries parse and run (${answered} did)`);
  });

  test('counts over everything count only A\'s six entries', async () => {
    const n = await query(svc, A.tenantId, A.key, '* | stats count() as n');
    assert.deepEqual(n.rows.map((r) => String(r.n)), ['6']);
    const tid = await query(svc, A.tenantId, A.key, `tenant_id:${A.tenantId} OR *`);
    assert.equal(tid.rows.length, 6);
    const hits = await tenantGet(A, 'hits', { query: '*', start: '0', step: '1d' });
    assert.equal((obj(hits).hits as { total: number }[])[0]?.total, 6);
    const names = (obj(await tenantGet(A, 'field_names', { query: '*' })).values as { value: string }[]).map((v) => v.value);
    for (const leaked of ['bsecret', 'tenant_id', 'account_id']) assert.ok(!names.includes(leaked), `field ${leaked} of B is listed for A: ${names.join(',')}`);
  });

  test('B\'s traces and metrics are invisible to A through the traces and Prometheus APIs', async () => {
    const traceId = randomBytes(16).toString('hex');
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    const otlp = {
      resourceSpans: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: `bsvc-${marker}` } }] },
        scopeSpans: [{ scope: { name: 'iso' }, spans: [{
          traceId, spanId: randomBytes(8).toString('hex'), name: `op-${marker}`, kind: 2,
          startTimeUnixNano: String(nowNs - 5_000_000n), endTimeUnixNano: String(nowNs),
          attributes: [{ key: 'secret', value: { stringValue: marker } }],
        }] }],
      }],
    };
    const tr = await call(`${svc.ingest}/v1/traces`, { method: 'POST', body: JSON.stringify(otlp), headers: { 'X-API-Key': B.key, 'Content-Type': 'application/json' } });
    assert.equal(tr.status, 200, show(tr));
    const metric = `bmetric_${marker}`;
    const mw = await call(`${svc.app}/write?db=iso`, { method: 'POST', body: `${metric},owner=${marker} value=42i\n`, headers: { 'X-API-Key': B.key, 'Content-Type': 'text/plain' } });
    assert.equal(mw.status, 204, show(mw));
    // B sees both (so they are really stored) ...
    const own = async (path: string): Promise<Reply> => call(`${svc.app}/api/v1/tenants/${B.tenantId}/${path}`, { headers: { 'X-API-Key': B.key } });
    const deadline = Date.now() + 5000;
    while ((!(await own(`traces/${traceId}`)).text.includes(marker) || !(await own('prometheus/api/v1/label/__name__/values')).text.includes(metric)) && Date.now() < deadline) await sleep(100);
    assert.ok((await own(`traces/${traceId}`)).text.includes(marker), 'B reads its trace');
    assert.ok((await own('prometheus/api/v1/label/__name__/values')).text.includes(metric), 'B lists its metric');
    // ... and A sees neither, whatever it asks.
    const q = encodeURIComponent;
    const paths = [
      `traces/${traceId}`, `traces/${traceId.toUpperCase()}`, `traces?service=${q(`bsvc-${marker}`)}`, 'traces', `traces?name=${q(`op-${marker}`)}`,
      `prometheus/api/v1/query?query=${q(metric)}`, `prometheus/api/v1/query?query=${q('{__name__=~".+"}')}`,
      `prometheus/api/v1/query?query=${q(`count({__name__=~".+"})`)}`, `prometheus/api/v1/query?query=${q(`${metric} or vector(1)`)}`,
      `prometheus/api/v1/query_range?query=${q('{__name__=~".+"}')}&start=${Math.floor(Date.now() / 1000) - 600}&end=${Math.floor(Date.now() / 1000) + 60}&step=15`,
      `prometheus/api/v1/series?${q('match[]')}=${q('{__name__=~".+"}')}`, `prometheus/api/v1/series?${q('match[]')}=${q(`{owner="${marker}"}`)}`,
      'prometheus/api/v1/labels', 'prometheus/api/v1/label/__name__/values', 'prometheus/api/v1/label/owner/values', 'prometheus/api/v1/metadata',
      `prometheus/api/v1/query?query=${q(`{tenant_id="${B.tenantId}"}`)}`,
    ];
    for (const path of paths) {
      const r = await call(`${svc.app}/api/v1/tenants/${A.tenantId}/${path}`, { headers: { 'X-API-Key': A.key } });
      assert.ok(r.status < 500, `${path}: ${show(r)}`);
      assert.ok(!r.text.includes(marker), `${path}: LEAK of tenant B's data: ${r.text.slice(0, 300)}`);
    }
    const onB = await call(`${svc.app}/api/v1/tenants/${B.tenantId}/traces/${traceId}`, { headers: { 'X-API-Key': A.key } });
    assert.equal(onB.status, 403, show(onB));
  });

  test('A\'s key on B\'s tenant path is 403 on every read path, also with B\'s id smuggled in other ways', async () => {
    for (const sub of ['select/logsql/query?query=*', 'select/logsql/hits?query=*', 'select/logsql/field_names?query=*',
      'select/logsql/field_values?query=*&field=service', 'usage', 'keys']) {
      const r = await call(`${svc.app}/api/v1/tenants/${B.tenantId}/${sub}`, { headers: { 'X-API-Key': A.key } });
      assert.equal(r.status, 403, `${sub}: ${show(r)}`);
      assert.ok(!r.text.includes(marker));
      assert.equal(obj(r).error, 'forbidden');
    }
    for (const path of [
      `/api/v1/tenants/${A.tenantId}/../${B.tenantId}/select/logsql/query?query=*`,
      `/api/v1/tenants/${A.tenantId}/%2e%2e/${B.tenantId}/select/logsql/query?query=*`,
      `/api/v1/tenants/${B.tenantId}%2F..%2F${A.tenantId}/select/logsql/query?query=*`,
      `/api/v1/tenants/${encodeURIComponent(B.tenantId)}/select/logsql/query?query=*`,
      `/api/v1/tenants/${B.tenantId.toUpperCase()}/select/logsql/query?query=*`,
      `/api/v1/tenants/${B.tenantId}%00/select/logsql/query?query=*`,
      `/api/v1/tenants/${A.tenantId}/select/logsql/query?query=*&tenant=${B.tenantId}`,
    ]) {
      const r = await raw(svc.app + path, { headers: { 'X-API-Key': A.key } });
      assert.ok(!r.text.includes(marker), `${path}: LEAK: ${show(r)}`);
      assert.ok(r.status !== 0 && r.status < 500, `${path}: ${show(r)}`);
    }
  });
});
