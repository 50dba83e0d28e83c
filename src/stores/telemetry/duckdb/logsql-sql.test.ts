// LogsQL (the compiler of ../sql/, in DuckDB's dialect) over a real in-memory DuckDB: every filter and pipe against
// fixture rows of two tenants, and tenant isolation — adversarial and random queries run as tenant A give exactly what they give on a database that
// holds A's rows only, never a trace of B's, and the SQL text never carries a user value.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { parseLogsql } from '../../../query/logsql/parser.js';
import type { TimeRange } from '../telemetry-store.js';
import { LOGS_TABLE_SQL } from './schema.js';
import type { SqlDb, SqlParam } from '../sql/dialect.js';
import { logFieldNames, logFieldValues, logHits, searchLogs } from '../sql/logsql-reads.js';
import { onDuckdb } from './duckdb-dialect.js';
import { adversarialQueries, queryArbitrary, MARKER } from './logsql-sql.fixtures.js';
import { streamLabels } from '../sql/logsql-facets.js';

const T0 = 1_714_564_800_000_000_000n; // 2024-05-01T12:00:00Z
const SEC = 1_000_000_000n;
const HOUR = 3600n * SEC;
const DAY = 24n * HOUR;
/** Queries resolve relative times against a minute after the last fixture row. */
const NOW = T0 + DAY + 60n * SEC;

interface Fixture {
  tenant: string; timeNs: bigint; service: string; severity: string; msg: string;
  traceId?: string; spanId?: string; stream?: string; fields: Record<string, unknown>;
}

const A_ROWS: Fixture[] = [
  { tenant: 'A', timeNs: T0 + 123_456_789n, service: 'api', severity: 'error', msg: 'Connection refused to db-1: error 111',
    fields: { 'kubernetes.pod_name': 'api-7f9', dur: 120, status: 500, user: 'alice' } },
  { tenant: 'A', timeNs: T0 + SEC, service: 'api', severity: 'info', msg: 'GET /users served in 30ms', traceId: 'abc123',
    spanId: '01', stream: '{app="api",env="prod"}', fields: { dur: 30, status: 200, user: 'bob', 'http.method': 'GET' } },
  { tenant: 'A', timeNs: T0 + 2n * SEC, service: 'web', severity: '', msg: 'GET /index 200',
    fields: { dur: 5, status: 200, 'q"t': 'quoted', empty: '' } },
  { tenant: 'A', timeNs: T0 + 3n * SEC, service: 'worker', severity: 'warn', msg: 'Retrying job 42: timeout',
    stream: '{app="worker",env="staging"}', fields: { attempt: 3, ok: false, user: 'alice' } },
  { tenant: 'A', timeNs: T0 + HOUR, service: 'api', severity: 'ERROR', msg: 'connection RESET by peer',
    fields: { dur: 2500, status: 502, nul: null } },
  { tenant: 'A', timeNs: T0 + DAY, service: 'db', severity: 'debug', msg: 'checkpoint complete', fields: {} },
];

/** Tenant B's rows look like A's (same words, fields, streams, even `tenant_id: "A"`), each marked with MARKER. */
const B_ROWS: Fixture[] = [
  { tenant: 'B', timeNs: T0, service: 'api', severity: 'error', msg: `Connection refused to db-1: error 111 ${MARKER}`,
    fields: { 'kubernetes.pod_name': 'api-7f9', dur: 121, status: 500, user: 'alice', tenant_id: 'A', b: MARKER } },
  { tenant: 'B', timeNs: T0 + SEC, service: 'api', severity: 'info', msg: `GET /users served ${MARKER}`, traceId: 'abc123',
    spanId: '01', stream: '{app="api",env="prod"}', fields: { dur: 31, status: 200, user: 'bob', 'q"t': 'quoted', b: MARKER } },
  { tenant: 'B', timeNs: T0 + 5n * SEC, service: 'web', severity: '', msg: `GET /index 200 ${MARKER}`,
    stream: '{tenant_id="A"}', fields: { dur: 7, empty: '', "'": 'x', 'a\\b': 'y', b: MARKER } },
  { tenant: 'B', timeNs: T0 + HOUR, service: 'worker', severity: 'warn', msg: `Retrying job 42: timeout ${MARKER}`,
    fields: { attempt: 9, ok: true, b: MARKER } },
  { tenant: 'B', timeNs: T0 + 2n * DAY, service: MARKER, severity: 'ERROR', msg: `connection RESET ${MARKER}`, fields: { b: MARKER } },
];

interface Db { exec: SqlDb; statements: [string, SqlParam[]][]; close(): void }

/** The tenants' numbers in `logs` (sample-tenants.ts TenantRefs gives them out in the store). */
const TENANT_NUMBERS: Record<string, bigint> = { A: 1n, B: 2n };

async function openDb(rows: Fixture[]): Promise<Db> {
  const instance = await DuckDBInstance.create(':memory:');
  const c: DuckDBConnection = await instance.connect();
  await c.run(LOGS_TABLE_SQL);
  for (const r of rows) {
    // As the store writes them: the tenant's number, NULL for no id, stream or fields (schema.ts LOGS_TABLE_SQL).
    await c.run(`INSERT INTO logs VALUES ($1, $2, $2, $3, $4, $5, nullif($6, ''), nullif($7, ''), nullif($8, ''), nullif($9, '{}'), 'test')`, [
      TENANT_NUMBERS[r.tenant] ?? 0n, r.timeNs, r.service, r.severity, r.msg, r.traceId ?? '', r.spanId ?? '', r.stream ?? '',
      JSON.stringify(r.fields)]);
  }
  const statements: [string, SqlParam[]][] = [];
  const exec = onDuckdb({
    all: async (sql, params) => {
      statements.push([sql, params]);
      return (await c.runAndReadAll(sql, params)).getRowObjects();
    },
  }, (tenantId) => TENANT_NUMBERS[tenantId] ?? 0n);
  return { exec, statements, close: () => { c.closeSync(); instance.closeSync(); } };
}

let mixed: Db;
let onlyA: Db;
before(async () => {
  mixed = await openDb([...A_ROWS, ...B_ROWS]);
  onlyA = await openDb(A_ROWS);
});
after(() => {
  mixed.close();
  onlyA.close();
});

const parse = (text: string) => parseLogsql(text, NOW);

/** Row numbers (1-based in A_ROWS) of what a query returns for tenant A. */
async function ids(text: string, range: TimeRange = {}, limit = 100): Promise<number[]> {
  const rows = await searchLogs(mixed.exec, 'A', parse(text), range, limit);
  return rows.map((r) => A_ROWS.findIndex((a) => a.msg === r._msg) + 1);
}

void describe('filters', () => {
  const cases: [string, number[]][] = [
    ['*', [6, 5, 4, 3, 2, 1]],
    ['error', [1]],
    ['ERROR', [1]],
    ['connection', [5, 1]],
    ['"refused to"', [1]],
    ['"GET /"', [3, 2]],
    ['conn*', [5, 1]],
    ['onnection*', []],
    ['db*', [1]],
    ['checkpoint comp*', [6]],
    ['service:api', [5, 2, 1]],
    ['service:AP', [5, 2, 1]],
    ['service:="ap"', []],
    ['service:="api"', [5, 2, 1]],
    ['service:="a"*', [5, 2, 1]],
    ['level:error', [5, 1]],
    ['severity:="ERROR"', [5]],
    ['severity:""', [3]],
    ['user:alice', [4, 1]],
    ['kubernetes.pod_name:api*', [1]],
    ['"http.method":get', [2]],
    ['"q\\"t":quoted', [3]],
    ['status:>=500', [5, 1]],
    ['dur:<10', [3]],
    ['dur:>100', [5, 1]],
    ['-dur:>100', [6, 4, 3, 2]],
    ['status:in(200, 502)', [5, 3, 2]],
    ['status:in()', []],
    ['_msg:~"^GET /[a-z]+ "', [3, 2]],
    ['~"(?i)^connection"', [5, 1]],
    ['user:~"^al"', [4, 1]],
    ['user:*', [4, 2, 1]],
    ['user:""', [6, 5, 3]],
    ['empty:""', [6, 5, 4, 3, 2, 1]],
    ['empty:*', []],
    ['nul:*', []],
    ['ok:false', [4]],
    ['trace_id:abc123', [2]],
    ['span_id:="01"', [2]],
    ['trace_id:*', [2]],
    ['_stream:{app="api"}', [2]],
    ['_stream:{service="api"}', [5, 1]],
    ['_stream:{env=~"prod|staging"}', [4, 2]],
    ['_stream:{app!="api"}', [6, 5, 4, 3, 1]],
    ['_stream:{env!~"prod"}', [6, 5, 4, 3, 1]],
    ['_stream:{app=~"w.*", env="staging"}', [4]],
    ['_stream:"app=\\"worker\\""', [4]],
    ['refused OR timeout', [4, 1]],
    ['connection -reset', [1]],
    ['connection AND NOT reset', [1]],
    ['connection !reset', [1]],
    ['(get OR retrying) service:web', [3]],
    ['service:(web OR worker)', [4, 3]],
    ['_time:[2024-05-01T12:00:01Z, 2024-05-01T12:00:03Z)', [3, 2]],
    ['_time:(2024-05-01T12:00:01Z, 2024-05-01T12:00:03Z]', [4, 3]],
    ['_time:2024-05-02', [6]],
    ['-_time:2024-05-01', [6]],
    ['_time:5m', [6]],
    ['_time:2h offset 1d', [4, 3, 2, 1]],
  ];
  for (const [text, want] of cases) {
    void test(`${text} finds rows ${JSON.stringify(want)}`, async () => {
      assert.deepEqual(await ids(text), want);
    });
  }

  void test('the API range bounds the search: start inclusive, end exclusive', async () => {
    assert.deepEqual(await ids('*', { startNs: T0 + SEC, endNs: T0 + 3n * SEC }), [3, 2]);
    assert.deepEqual(await ids('service:api', { startNs: T0 + HOUR }), [5]);
  });
});

void describe('output rows', () => {
  void test('an entry carries _time with ns, _msg, _stream, service, the non-empty ids and every field', async () => {
    const rows = await searchLogs(mixed.exec, 'A', parse('served OR "GET /index" OR refused'), {}, 10);
    assert.deepEqual(rows, [
      { _time: '2024-05-01T12:00:02.000000000Z', _msg: 'GET /index 200', _stream: '{service="web"}', service: 'web',
        dur: 5, status: 200, 'q"t': 'quoted', empty: '' },
      { _time: '2024-05-01T12:00:01.000000000Z', _msg: 'GET /users served in 30ms', _stream: '{app="api",env="prod"}',
        service: 'api', severity: 'info', trace_id: 'abc123', span_id: '01', dur: 30, status: 200, user: 'bob', 'http.method': 'GET' },
      { _time: '2024-05-01T12:00:00.123456789Z', _msg: 'Connection refused to db-1: error 111', _stream: '{service="api"}',
        service: 'api', severity: 'error', 'kubernetes.pod_name': 'api-7f9', dur: 120, status: 500, user: 'alice' },
    ]);
  });

  void test('the limit argument caps the rows after the pipes; 0 means no cap', async () => {
    assert.deepEqual(await ids('*', {}, 2), [6, 5]);
    assert.deepEqual(await ids('* | sort by (_time)', {}, 2), [1, 2]);
    assert.equal((await ids('*', {}, 0)).length, 6);
  });
});

void describe('pipes', () => {
  const cases: [string, number[]][] = [
    ['* | limit 2', [6, 5]],
    ['* | head 2', [6, 5]],
    ['* | limit 2 | sort by (_time)', [5, 6]],
    ['* | sort by (_time) | limit 2', [1, 2]],
    ['* | offset 4', [2, 1]],
    ['* | sort by (_time) offset 1 limit 2', [2, 3]],
    ['dur:* | sort by (dur desc)', [5, 1, 2, 3]],
    ['dur:* | sort by (dur)', [3, 2, 1, 5]],
    ['* | sort by (service, _time desc)', [5, 2, 1, 6, 3, 4]],
    ['* | sort by (service) desc', [4, 3, 6, 5, 2, 1]],
    ['* | sort by (_time) | sort by (service)', [1, 2, 5, 6, 3, 4]],
  ];
  for (const [text, want] of cases) {
    void test(`${text} gives rows ${JSON.stringify(want)}`, async () => {
      assert.deepEqual(await ids(text), want);
    });
  }

  const rows = async (text: string) => searchLogs(mixed.exec, 'A', parse(text), {}, 100);

  void test('fields keeps only the named fields, in their order', async () => {
    assert.deepEqual(await rows('service:api | fields dur, _msg, nope | limit 2'), [
      { dur: 2500, _msg: 'connection RESET by peer' }, { dur: 30, _msg: 'GET /users served in 30ms' }]);
    assert.deepEqual(await rows('user:alice | fields level, user | sort by (level)'), [
      { severity: 'error', user: 'alice' }, { severity: 'warn', user: 'alice' }]);
  });

  void test('delete drops the named fields, and a dropped field sorts as empty', async () => {
    assert.deepEqual(await rows('_time:5m | delete _stream, service, _time'), [{ _msg: 'checkpoint complete', severity: 'debug' }]);
    assert.deepEqual(await ids('dur:* | delete dur | sort by (dur)'), [5, 3, 2, 1]);
  });

  void test('stats count() counts the matching entries, also none', async () => {
    assert.deepEqual(await rows('* | stats count()'), [{ 'count(*)': '6' }]);
    assert.deepEqual(await rows('nothing-matches | stats count() as n'), [{ n: '0' }]);
  });

  void test('stats by groups, names results, and later pipes see the stats rows', async () => {
    assert.deepEqual(await rows('* | stats by (service) count() as n | sort by (n desc, service)'), [
      { service: 'api', n: '3' }, { service: 'db', n: '1' }, { service: 'web', n: '1' }, { service: 'worker', n: '1' }]);
    assert.deepEqual(await rows('* | stats by (service) count() n | sort by (n desc) | limit 1 | fields n'), [{ n: '3' }]);
    assert.deepEqual(await rows('* | stats by (service) count() n | stats count() groups, sum(n) total'), [
      { groups: '4', total: '6' }]);
  });

  void test('stats functions: count(f), count_uniq, sum, avg, min, max', async () => {
    assert.deepEqual(await rows(
      'service:api | stats by (level) count(user) users, count_uniq(status) u, sum(dur) s, avg(dur) a, min(dur), max(_time)'), [
      { severity: 'ERROR', users: '0', u: '1', s: '2500', a: '2500', 'min(dur)': '2500', 'max(_time)': '2024-05-01T13:00:00.000000000Z' },
      { severity: 'error', users: '1', u: '1', s: '120', a: '120', 'min(dur)': '120', 'max(_time)': '2024-05-01T12:00:00.123456789Z' },
      { severity: 'info', users: '1', u: '1', s: '30', a: '30', 'min(dur)': '30', 'max(_time)': '2024-05-01T12:00:01.000000000Z' },
    ]);
    assert.deepEqual(await rows('* | stats avg(dur) a, sum(nope) s, min(user) lo, max(user) hi, min(nope) none'), [
      { a: '663.75', s: 'NaN', lo: 'alice', hi: 'bob', none: '' }]);
  });

  void test('stats by (_time:step) buckets time, aligned to the epoch', async () => {
    assert.deepEqual(await rows('* | stats by (_time:1h) count() n'), [
      { _time: '2024-05-01T12:00:00.000000000Z', n: '4' }, { _time: '2024-05-01T13:00:00.000000000Z', n: '1' },
      { _time: '2024-05-02T12:00:00.000000000Z', n: '1' }]);
  });

  void test('stats by (_time:step offset d) shifts the buckets\' starts', async () => {
    assert.deepEqual(await rows('* | stats by (_time:1d offset 12h30m) count() n'), [
      { _time: '2024-04-30T12:30:00.000000000Z', n: '4' }, { _time: '2024-05-01T12:30:00.000000000Z', n: '2' }]);
    assert.deepEqual(await rows('* | stats by (_time:1d offset -11h30m) count() n'), [
      { _time: '2024-04-30T12:30:00.000000000Z', n: '4' }, { _time: '2024-05-01T12:30:00.000000000Z', n: '2' }]);
  });

  void test('quantile and median pick the value at floor(phi * n) of the sorted numbers, as VictoriaLogs does', async () => {
    // dur of A: 5, 30, 120, 2500 (two rows have none).
    assert.deepEqual(await rows('* | stats median(dur), quantile(0.9, dur) p90, quantile(0, dur) lo, quantile(1, dur) hi, ' +
      'quantile(0.25, dur) q1, median(nope) none, median(user) text'), [
      { 'median(dur)': '120', p90: '2500', lo: '5', hi: '2500', q1: '30', none: 'NaN', text: 'NaN' }]);
    assert.deepEqual(await rows('* | stats by (service) quantile(0.5, dur) m | sort by (service)'), [
      { service: 'api', m: '120' }, { service: 'db', m: 'NaN' }, { service: 'web', m: '5' }, { service: 'worker', m: 'NaN' }]);
  });

  void test('_stream_id is the MD5 of the _stream text: groupable and filterable', async () => {
    const id = createHash('md5').update('{app="api",env="prod"}').digest('hex');
    assert.deepEqual(await ids(`_stream_id:=${id}`), [2]);
    const values = await logFieldValues(mixed.exec, 'A', parse('*'), {}, '_stream_id', 10);
    assert.equal(values.length, 5);
    assert.ok(values.every((v) => /^[0-9a-f]{32}$/.test(v.value)), JSON.stringify(values));
    assert.ok(values.some((v) => v.value === id && v.hits === 1));
  });
});

void describe('hits, field names, field values', () => {
  void test('hits counts per step bucket, oldest first, one series', async () => {
    assert.deepEqual(await logHits(mixed.exec, 'A', parse('*'), {}, HOUR), [{
      fields: {}, total: 6, values: [4, 1, 1],
      timestamps: ['2024-05-01T12:00:00.000000000Z', '2024-05-01T13:00:00.000000000Z', '2024-05-02T12:00:00.000000000Z'],
    }]);
    assert.deepEqual(await logHits(mixed.exec, 'A', parse('service:api | limit 1'), { endNs: T0 + HOUR }, DAY), [{
      fields: {}, total: 2, values: [2], timestamps: ['2024-05-01T00:00:00.000000000Z'] }]);
    assert.deepEqual(await logHits(mixed.exec, 'A', parse('nothing-matches'), {}, HOUR), []);
  });

  void test('field names list the fixed fields with values and every key of fields, with hits', async () => {
    assert.deepEqual(await logFieldNames(mixed.exec, 'A', parse('service:api'), {}), [
      { value: '_msg', hits: 3 }, { value: '_stream', hits: 3 }, { value: '_time', hits: 3 }, { value: 'dur', hits: 3 },
      { value: 'http.method', hits: 1 }, { value: 'kubernetes.pod_name', hits: 1 }, { value: 'service', hits: 3 },
      { value: 'severity', hits: 3 }, { value: 'span_id', hits: 1 }, { value: 'status', hits: 3 },
      { value: 'trace_id', hits: 1 }, { value: 'user', hits: 2 }]);
    assert.deepEqual(await logFieldNames(mixed.exec, 'A', parse('* | fields _msg, user'), {}), [
      { value: '_msg', hits: 6 }, { value: 'user', hits: 3 }]);
    assert.deepEqual(await logFieldNames(mixed.exec, 'A', parse('* | stats by (service) count() n'), {}), [
      { value: 'n', hits: 4 }, { value: 'service', hits: 4 }]);
  });

  void test('field values come most frequent first, capped by limit', async () => {
    const values = (q: string, field: string, limit: number) => logFieldValues(mixed.exec, 'A', parse(q), {}, field, limit);
    assert.deepEqual(await values('*', 'service', 2), [{ value: 'api', hits: 3 }, { value: 'db', hits: 1 }]);
    assert.deepEqual(await values('*', 'level', 10), ['ERROR', 'debug', 'error', 'info', 'warn'].map((v) => ({ value: v, hits: 1 })));
    assert.deepEqual(await values('*', 'status', 10), [{ value: '200', hits: 2 }, { value: '500', hits: 1 }, { value: '502', hits: 1 }]);
    assert.deepEqual(await values('_time:5m', '_time', 10), [{ value: '2024-05-02T12:00:00.000000000Z', hits: 1 }]);
    assert.deepEqual(await values('* | stats by (service) count() n', 'n', 10), [{ value: '1', hits: 3 }, { value: '3', hits: 1 }]);
  });
});

void test('times at the ends of int64 and before 1970 format and bucket without overflow', async () => {
  const ends = [2n ** 63n - 1n, -(2n ** 63n), -1n].map((timeNs): Fixture =>
    ({ tenant: 'A', timeNs, service: 's', severity: '', msg: String(timeNs), fields: {} }));
  const db = await openDb(ends);
  try {
    const stats = await searchLogs(db.exec, 'A', parse('* | stats by (_time:1h) count() n, max(_time) t'), {}, 10);
    assert.deepEqual(stats.map((r) => [r._time, r.t]), [
      ['1677-09-21T00:12:43.145224192Z', '1677-09-21T00:12:43.145224192Z'],
      ['1969-12-31T23:00:00.000000000Z', '1969-12-31T23:59:59.999999999Z'],
      ['2262-04-11T23:00:00.000000000Z', '2262-04-11T23:47:16.854775807Z']]);
    const rows = await searchLogs(db.exec, 'A', parse('*'), {}, 10);
    assert.deepEqual(rows.map((r) => r._time), stats.map((r) => r.t).reverse());
    assert.equal((await logHits(db.exec, 'A', parse('*'), {}, DAY))[0]?.total, 3);
  } finally {
    db.close();
  }
});

void describe('tenant isolation', () => {
  /** Runs all four reads as tenant A on both databases: the answers must agree and hold nothing of B's. */
  async function checkIsolated(text: string): Promise<void> {
    const q = parse(text);
    const reads = async (db: Db) => [
      await searchLogs(db.exec, 'A', q, {}, 1000),
      await logHits(db.exec, 'A', q, {}, HOUR),
      await logFieldNames(db.exec, 'A', q, {}),
      await logFieldValues(db.exec, 'A', q, {}, 'b', 100),
      await logFieldValues(db.exec, 'A', q, {}, '_msg', 100),
      await logFieldValues(db.exec, 'A', q, {}, '_stream', 100),
    ];
    mixed.statements.length = 0;
    const got = await reads(mixed);
    assert.deepEqual(got, await reads(onlyA), text);
    assert.ok(!JSON.stringify(got).includes(MARKER), `${text} leaked tenant B`);
    for (const [sql, params] of mixed.statements) {
      assert.equal(params[0], 1n, text);
      assert.match(sql, /FROM logs\) AS logs WHERE tenant_ref = CAST\(\$1 AS BIGINT\) AND \(/, text);
      assert.equal(sql.match(/FROM logs/g)?.length, 1, text);
      assert.ok(!/zq|1=1/i.test(sql), `${text}: a user value reached the SQL text: ${sql}`);
    }
  }

  for (const text of adversarialQueries) {
    void test(`${text} sees tenant A only`, () => checkIsolated(text));
  }

  void test('tenant B sees its own rows through the same path', async () => {
    const rows = await searchLogs(mixed.exec, 'B', parse('*'), {}, 100);
    assert.equal(rows.length, B_ROWS.length);
    assert.ok(rows.every((r) => String(r._msg).includes(MARKER)));
  });

  void test('random queries from the grammar never reach tenant B', async () => {
    await fc.assert(fc.asyncProperty(queryArbitrary, (text) => checkIsolated(text)), { numRuns: 150 });
  });
});

void test('stream labels read back as the ingest formats write them, stopping at anything malformed', () => {
  const cases: [string, [string, string][]][] = [
    ['{app="shop",env="prod"}', [['app', 'shop'], ['env', 'prod']]],
    ['{ app = "a b" , k8s.ns="x\\"y\\\\z\\n"}', [['app', 'a b'], ['k8s.ns', 'x"y\\z\n']]],
    ['{}', []], ['', []], ['{a="1",b=2}', [['a', '1']]], ['{a="unterminated}', []], ['service="x"', []],
  ];
  for (const [text, want] of cases) assert.deepEqual(streamLabels(text), want, text);
});
