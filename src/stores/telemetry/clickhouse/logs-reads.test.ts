// The LogsQL compiler's two dialects agree (issue 11 items 2–3): the same fixture rows stored in DuckDB and in the
// real ClickHouse engine (chdb, in-process), the same queries — the tenant-isolation attacks and random queries of
// logsql-sql.fixtures.ts plus a table of filters and pipes — give the same answers from every LogsQL read. Also: a
// needle on `_msg` reads through the n-gram index (EXPLAIN indexes=1), and no user value reaches the SQL text.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import type { LogEntry } from '../../../model/log-entry.js';
import { parseLogsql } from '../../../query/logsql/parser.js';
import type { TimeRange } from '../telemetry-store.js';
import type { SqlDb } from '../sql/dialect.js';
import * as facets from '../sql/logsql-facets.js';
import * as reads from '../sql/logsql-reads.js';
import { oldestLogNs } from '../sql/oldest-logs.js';
import { logValueCounts } from '../sql/value-counts.js';
import { onDuckdb } from '../duckdb/duckdb-dialect.js';
import { LOGS_TABLE_SQL } from '../duckdb/schema.js';
import { adversarialQueries, MARKER, queryArbitrary } from '../duckdb/logsql-sql.fixtures.js';
import { onClickhouse } from './clickhouse-dialect.js';
import type { ChExecutor, ChParams } from './executor.js';
import { searchLogs } from './logs-reads.js';
import { LOGS_MIGRATIONS, logRowOf } from './logs-schema.js';

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

const T0 = 1_714_564_800_000_000_000n; // 2024-05-01T12:00:00Z
const SEC = 1_000_000_000n;
const HOUR = 3600n * SEC;
const DAY = 24n * HOUR;
const NOW = T0 + DAY + 60n * SEC;

function entry(timeNs: bigint, service: string, severity: string, msg: string, fields: LogEntry['fields'], more: Partial<LogEntry> = {}): LogEntry {
  return { timeNs, observedNs: timeNs, service, severity, msg, traceId: '', spanId: '', stream: '', fields, ...more };
}

const A: LogEntry[] = [
  entry(T0 + 123_456_789n, 'api', 'error', 'Connection refused to db-1: error 111',
    { 'kubernetes.pod_name': 'api-7f9', dur: 120, status: 500, user: 'alice' }),
  entry(T0 + SEC, 'api', 'info', 'GET /users served in 30ms', { dur: 30, status: 200, user: 'bob', 'http.method': 'GET' },
    { traceId: 'abc123', spanId: '01', stream: '{app="api",env="prod"}' }),
  entry(T0 + 2n * SEC, 'web', '', 'GET /index 200', { dur: 5, status: 200, 'q"t': 'quoted', empty: '', nested: { a: [1, 'x'] } }),
  entry(T0 + 3n * SEC, 'worker', 'warn', 'Retrying job 42: timeout', { attempt: 3, ok: false, user: 'alice' },
    { stream: '{app="worker",env="staging"}' }),
  entry(T0 + HOUR, 'api', 'ERROR', 'connection RESET by peer', { dur: 2500, status: 502, nul: null, level: 'shadowed' }),
  entry(T0 + DAY, 'db', 'debug', 'checkpoint complete', { 'telemetry.sdk.language': 'webjs' }),
  entry(T0 + 4n * SEC, 'api', 'info', 'Ünïcode façade user_id=7 café', { dur: 7.5, user: 'Zoë' }),
];
const B: LogEntry[] = [
  entry(T0, 'api', 'error', `Connection refused to db-1: error 111 ${MARKER}`, { dur: 121, tenant_id: 'A', b: MARKER }),
  entry(T0 + 5n * SEC, 'web', '', `GET /index 200 ${MARKER}`, { dur: 7, "'": 'x', 'a\\b': 'y', b: MARKER },
    { stream: '{tenant_id="A"}' }),
  entry(T0 + 2n * DAY, MARKER, 'ERROR', `connection RESET ${MARKER}`, { b: MARKER }),
];

let dir: string;
let client: ClickHouseClient;
let duck: { instance: DuckDBInstance; c: DuckDBConnection };
/** Every statement ClickHouse ran for the reads, with its parameters. */
const statements: [string, ChParams][] = [];
/** The buffered reads go through `query` only (streamLogs is the store contract's, on the real executor). */
type BufferedReads = Omit<ChExecutor, 'stream'>;
let ch: BufferedReads;
let chDb: SqlDb;
let duckDb: SqlDb;

before(async () => {
  process.env.TZ = 'UTC';
  dir = mkdtempSync(join(tmpdir(), 'sightline-ch-logs-'));
  // chdb types its connection against @clickhouse/client-common, the client against its bundled copy of the same
  // interface: the cast only bridges the two copies.
  client = createClient({ connection: createChdbConnection({ path: dir }) as unknown as ClientConnection });
  ch = {
    async query(sql, params) {
      statements.push([sql, params ?? {}]);
      // executor.ts: 64-bit integers come back as strings (ns times pass 2^53).
      const rs = await client.query({
        query: sql, query_params: params ?? {}, format: 'JSONEachRow',
        clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
      });
      return rs.json<Record<string, unknown>>();
    },
    async command(sql, params) {
      await client.command({ query: sql, query_params: params ?? {} });
    },
    async insert(table, rows) {
      await client.insert({ table, values: [...rows], format: 'JSONEachRow' });
    },
  };
  for (const m of LOGS_MIGRATIONS) await ch.command(m.sql);
  await ch.insert('logs', [...A.map((e) => logRowOf('A', e, 'test')), ...B.map((e) => logRowOf('B', e, 'test'))]);
  chDb = onClickhouse(ch);

  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  duck = { instance, c };
  await c.run(LOGS_TABLE_SQL);
  for (const [tenant, rows] of [['A', A], ['B', B]] as const) {
    for (const e of rows) {
      // As the DuckDB store writes them: the tenant's number, NULL for no id, stream or fields (schema.ts), so that the
      // streams DuckDB's reads derive are checked against those ClickHouse's writer derives.
      await c.run(`INSERT INTO logs VALUES ($1, $2, $2, $3, $4, $5, nullif($6, ''), nullif($7, ''), nullif($8, ''), nullif($9, '{}'), 'test')`, [
        tenant === 'A' ? 1n : 2n, e.timeNs, e.service, e.severity, e.msg, e.traceId, e.spanId, e.stream, JSON.stringify(e.fields)]);
    }
  }
  duckDb = onDuckdb({ all: async (sql, params) => (await c.runAndReadAll(sql, params)).getRowObjects() },
    (tenantId) => (tenantId === 'A' ? 1n : tenantId === 'B' ? 2n : 0n));
});

after(async () => {
  await client.close();
  duck.c.closeSync();
  duck.instance.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const parse = (text: string) => parseLogsql(text, NOW);

/** Every LogsQL read of the store for tenant A, as plain JSON (DuckDB's BIGINTs and ClickHouse's strings alike). */
async function allReads(db: SqlDb, text: string, range: TimeRange = {}): Promise<unknown> {
  const q = parse(text);
  const out = {
    search: await reads.searchLogs(db, 'A', q, range, 1000),
    hits: await reads.logHits(db, 'A', q, range, HOUR),
    names: await reads.logFieldNames(db, 'A', q, range),
    values: await Promise.all(['b', '_msg', '_stream', 'service', 'dur', 'level', '_time'].map(
      (f) => reads.logFieldValues(db, 'A', q, range, f, 100))),
    streamNames: await facets.logStreamFieldNames(db, 'A', q, range),
    streamValues: await facets.logStreamFieldValues(db, 'A', q, range, 'app', 10),
  };
  return JSON.parse(JSON.stringify(out, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

async function agree(text: string, range: TimeRange = {}): Promise<void> {
  statements.length = 0;
  const [d, c] = [await allReads(duckDb, text, range), await allReads(chDb, text, range)];
  assert.deepEqual(c, d, text);
  assert.ok(!JSON.stringify(c).includes(MARKER), `${text} leaked tenant B`);
  for (const [sql, params] of statements) {
    assert.equal(params.p1, 'A', text);
    assert.match(sql, /FROM logs WHERE tenant_id = \{p1:String\} AND \(/, text);
    assert.ok(!/zq|1=1|alice|refused/i.test(sql), `${text}: a user value reached the SQL text: ${sql}`);
  }
}

const TABLE = [
  '*', 'error', 'connection', '"refused to"', 'conn*', 'onnection', 'onnection*', 'service:AP', 'service:="api"',
  'level:error', 'severity:""', 'user:alice', 'user:zoë', 'café', 'FAÇADE', 'user_id', 'kubernetes.pod_name:api*',
  '"q\\"t":quoted', 'status:>=500', 'dur:<10', '-dur:>100', 'status:in(200, 502)', '_msg:~"^GET /[a-z]+ "',
  '~"(?i)^connection"', 'user:*', 'empty:""', 'nul:*', 'ok:false', 'nested:*', 'trace_id:abc123', '_stream:{app="api"}',
  '_stream:{service="api"}', '_stream:{env=~"prod|staging"}', '_stream:{app!="api"}', '_stream:{env!~"prod"}',
  // DuckDB stores no stream for these rows and matches their derived one on `service` (logsql-filter.ts).
  '_stream:{service!="api"}', '_stream:{service=~"a.*"}', '_stream:{service!~"api"}', '_stream:{service=""}',
  '_stream:{env=""}', '_stream:{env!=""}', '_stream:{service="api", env=""}', '* | stats by (_stream) count()',
  'refused OR timeout', 'connection -reset', '_time:[2024-05-01T12:00:01Z, 2024-05-01T12:00:03Z)', '_time:5m',
  '* | sort by (dur desc)', '* | sort by (service, _time desc) | limit 3', '* | offset 2 | sort by (_time)',
  '* | fields dur, _msg, nope', '* | delete _stream, service', '* | stats count()',
  '* | stats by (service) count() n, count_uniq(user) u, sum(dur) s, avg(dur) a, min(dur) lo, max(_time) hi',
  '* | stats by (level) min(user) lo, max(user) hi, count(user) c', '* | stats by (_time:1h) count() n',
  '* | stats by (_time:1d offset 12h30m) count() n', '* | stats by (service) count() n | stats count() g, sum(n) t',
  '* | stats median(dur), quantile(0.9, dur) p90, quantile(0, dur) lo, quantile(1, dur) hi, median(nope) none',
  '* | stats by (service) quantile(0.5, dur) m', '_stream_id:*',
];

void describe('DuckDB and ClickHouse give the same answers', () => {
  for (const text of TABLE) void test(text, () => agree(text));
  void test('an API range bounds every read the same', () => agree('*', { startNs: T0 + SEC, endNs: T0 + HOUR }));
  for (const text of adversarialQueries) void test(`isolation: ${text}`, () => agree(text));
  void test('random queries from the grammar', async () => {
    for (const text of fc.sample(queryArbitrary, { numRuns: 60, seed: 11 })) await agree(text);
  });

  void test('facets, value counts and the oldest entry', async () => {
    const q = parse('*');
    const opts = { limit: 3, maxValuesPerField: 5, maxValueLen: 40, keepConstFields: false };
    assert.deepEqual(await facets.logFacets(chDb, 'A', q, {}, opts), await facets.logFacets(duckDb, 'A', q, {}, opts));
    const req = { ranges: [{ startNs: T0, endNs: T0 + HOUR }, { startNs: T0 + HOUR }], groups: [['service'], ['user', 'level'], ['dur']], minCount: 1 };
    // Value rows come in no particular order (telemetry-store.ts ValueCounts).
    const counts = async (db: SqlDb) => {
      const { totals, values } = await logValueCounts(db, 'A', q, req);
      return { totals, values: values.map((v) => JSON.stringify(v)).sort() };
    };
    assert.deepEqual(await counts(chDb), await counts(duckDb));
    for (const rum of [false, true]) {
      assert.equal(await oldestLogNs(chDb, 'A', q.filter, rum), await oldestLogNs(duckDb, 'A', q.filter, rum));
    }
    assert.equal(await oldestLogNs(chDb, 'nobody', q.filter, false), null);
  });
});

void test('a needle on _msg reads only the granules its n-grams allow (EXPLAIN indexes=1)', async () => {
  await client.command({ query: `INSERT INTO logs (tenant_id, time_ns, observed_ns, service, msg) SELECT 'big', ` +
    `${T0} + number * 1000000, 0, 'svc', concat('request ', toString(number), if(number = 54321, ' NeedleZap', '')) ` +
    'FROM numbers(200000)' });
  statements.length = 0;
  const rows = await searchLogs(ch, 'big', parse('needlezap'), {}, 10);
  assert.deepEqual(rows.map((r) => r._msg), ['request 54321 NeedleZap']);
  const [sql, params] = statements[0] ?? ['', {}];
  assert.ok(!sql.toLowerCase().includes('needlezap'), sql);
  const plan = (await ch.query(`EXPLAIN indexes = 1 ${sql}`, params)).map((r) => String(r.explain)).join('\n');
  const skip = /Name: msg_ngrams[\s\S]*?Granules: (\d+)\/(\d+)/.exec(plan);
  assert.ok(skip, plan);
  assert.ok(Number(skip[1]) < Number(skip[2]) / 4, plan);
});
