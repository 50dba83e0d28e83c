// The tenant of a `logs` row as a number and a missing id or `fields` as NULL (schema.ts LOGS_TABLE_SQL): two tenants
// read only their own logs, logs and samples of a tenant share its number, the numbers hold across a restart,
// retention finds a tenant's logs, what is stored NULL reads back as the entry had it ('' and {}, a stream derived
// from the service with its quotes and backslashes escaped), and a file of the
// layout before (tenant id, '' and '{}' on every row, promoted columns with their comments) is rewritten with every
// row where it was.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import type { LogEntry } from '../../../model/log-entry.js';
import { parseLogsql } from '../../../query/logsql/parser.js';
import { logsBatch } from '../telemetry-store.contract.js';
import { openDuckdbStore, type DuckdbTelemetryStore } from './duckdb-store.js';
import { loadFieldColumns } from './field-catalog.js';
import { peekDuckdbLogs } from './peek-logs.js';
import { LOG_COLUMNS } from './log-appender.js';
import { tableColumns } from './table-columns.js';

const NOW = 1_700_000_000_000_000_000n;
const log = (over: Partial<LogEntry>): LogEntry => ({
  timeNs: NOW, observedNs: NOW, service: 'api', severity: 'info', msg: 'm', traceId: '', spanId: '', stream: '{service="api"}',
  fields: {},
  ...over,
});

let dir: string;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'log-tenants-')); });
after(async () => { await rm(dir, { recursive: true, force: true }); });

async function msgs(store: DuckdbTelemetryStore, tenantId: string, query = '*'): Promise<unknown[]> {
  return (await store.searchLogs(tenantId, parseLogsql(query, NOW), {}, 100)).map((r) => r._msg);
}

void describe('tenant numbers of logs', () => {
  void test('two tenants read only their own logs, share a number with their samples, and keep it across a restart', async () => {
    const path = join(dir, 'isolation.duckdb');
    let store = await openDuckdbStore(path);
    try {
      await store.write([logsBatch('alpha', [log({ msg: 'a1' })]), logsBatch('beta', [log({ msg: 'b1' })])], 1n);
      assert.deepEqual(await msgs(store, 'alpha'), ['a1']);
      assert.deepEqual(await msgs(store, 'beta'), ['b1']);
      assert.deepEqual(await msgs(store, 'gamma'), [], 'a tenant with no number reads nothing');
      const refs = await store.reader.all('SELECT tenant_id, tenant_ref FROM metric_tenants ORDER BY tenant_ref', []);
      assert.deepEqual(refs, [{ tenant_id: 'alpha', tenant_ref: 1n }, { tenant_id: 'beta', tenant_ref: 2n }]);
      const stored = await store.reader.all('SELECT tenant_ref, msg FROM logs ORDER BY msg', []);
      assert.deepEqual(stored, [{ tenant_ref: 1n, msg: 'a1' }, { tenant_ref: 2n, msg: 'b1' }]);
    } finally {
      await store.close();
    }
    store = await openDuckdbStore(path);
    try {
      await store.write([logsBatch('gamma', [log({ msg: 'g1' })]), logsBatch('alpha', [log({ msg: 'a2', timeNs: NOW + 1n })])], 2n);
      assert.deepEqual(await msgs(store, 'alpha'), ['a2', 'a1']);
      assert.deepEqual(await msgs(store, 'gamma'), ['g1']);
      assert.deepEqual((await store.reader.all('SELECT count(*) AS n FROM metric_tenants', []))[0], { n: 3n });
      assert.equal(await store.deleteOlderThan('alpha', NOW + 1n), 1, 'retention finds the tenant by its number');
      assert.deepEqual(await msgs(store, 'alpha'), ['a2']);
      assert.deepEqual(await msgs(store, 'beta'), ['b1']);
    } finally {
      await store.close();
    }
  });

  void test('an empty id or no fields is stored NULL and reads back as the entry had it', async () => {
    const store = await openDuckdbStore(join(dir, 'nulls.duckdb'));
    try {
      const entries = [
        log({ msg: 'none' }),
        log({ msg: 'ids', timeNs: NOW + 1n, traceId: 'abc', spanId: 'def', fields: { k: 'v' } }),
      ];
      await store.write([logsBatch('t1', entries)], 1n);
      const raw = await store.reader.all('SELECT msg, trace_id, span_id, CAST(fields AS VARCHAR) AS f FROM logs ORDER BY msg', []);
      assert.deepEqual(raw, [
        { msg: 'ids', trace_id: 'abc', span_id: 'def', f: '{"k":"v"}' },
        { msg: 'none', trace_id: null, span_id: null, f: null },
      ]);
      assert.deepEqual((await peekDuckdbLogs(store, 't1')).map((r) => r.entry).sort((a, b) => a.msg.localeCompare(b.msg)),
        [entries[1], entries[0]]);
      assert.deepEqual(await msgs(store, 't1', 'trace_id:""'), ['none'], 'an empty id matches the empty string');
      assert.deepEqual(await msgs(store, 't1', 'span_id:def'), ['ids']);
      assert.deepEqual(await msgs(store, 't1', '-trace_id:abc'), ['none'], 'a NULL is not lost to a negation');
      const hits = await store.logFieldValues('t1', parseLogsql('*', NOW), {}, 'trace_id', 10);
      assert.deepEqual(hits.map((h) => [h.value, h.hits]), [['abc', 1]], 'an empty value is no value, as stored before');
    } finally {
      await store.close();
    }
  });

  void test('a stream is stored only when the entry has one, and reads derive the rest from the service', async () => {
    const store = await openDuckdbStore(join(dir, 'streams.duckdb'));
    try {
      const entries = [
        log({ msg: 'quoted', service: 'a"b\\c', stream: '' }),
        log({ msg: 'no service', service: '', stream: '' }),
        log({ msg: 'own', timeNs: NOW + 1n, stream: '{app="x"}' }),
      ];
      await store.write([logsBatch('t1', entries)], 1n);
      const raw = await store.reader.all('SELECT msg, stream FROM logs ORDER BY msg', []);
      assert.deepEqual(raw, [{ msg: 'no service', stream: null }, { msg: 'own', stream: '{app="x"}' }, { msg: 'quoted', stream: null }]);
      const streams = Object.fromEntries((await peekDuckdbLogs(store, 't1')).map((r) => [r.entry.msg, r.entry.stream]));
      assert.deepEqual(streams, { quoted: '{service="a\\"b\\\\c"}', 'no service': '{}', own: '{app="x"}' });
      assert.deepEqual(await msgs(store, 't1', '_stream:{service="a\\"b\\\\c"}'), ['quoted']);
      assert.deepEqual(await msgs(store, 't1', '_stream:{app="x"}'), ['own']);
      const rows = await store.searchLogs('t1', parseLogsql('*', NOW), {}, 10);
      assert.deepEqual(rows.map((r) => [r._msg, r._stream]).sort(),
        [['no service', '{}'], ['own', '{app="x"}'], ['quoted', '{service="a\\"b\\\\c"}']]);
    } finally {
      await store.close();
    }
  });
});

/** `logs` as the store made it before tenant numbers, with the field-order column and one promoted column. */
const OLD_LOGS_SQL = [`
CREATE TABLE logs (
  tenant_id VARCHAR NOT NULL, time_ns BIGINT NOT NULL, observed_ns BIGINT NOT NULL,
  service VARCHAR NOT NULL, severity VARCHAR NOT NULL, msg VARCHAR NOT NULL,
  trace_id VARCHAR NOT NULL, span_id VARCHAR NOT NULL, stream VARCHAR NOT NULL,
  fields JSON NOT NULL, format VARCHAR NOT NULL, field_order VARCHAR, field_1 BIGINT)`,
"COMMENT ON COLUMN logs.field_1 IS '{\"key\":\"dur\",\"kind\":\"int\"}'"];

void describe('a data file from before tenant numbers in logs', () => {
  void test('is rewritten in the new layout with every row, its order and its promoted column', async () => {
    const path = join(dir, 'old.duckdb');
    const instance = await DuckDBInstance.create(path);
    const c = await instance.connect();
    for (const sql of OLD_LOGS_SQL) await c.run(sql);
    await c.run('CREATE TABLE wal_state (id INTEGER NOT NULL, position BIGINT NOT NULL)');
    await c.run('INSERT INTO wal_state VALUES (1, 7)');
    // A tenant already numbered for its samples keeps its number; 3,000 rows so that order spans vectors.
    await c.run('CREATE TABLE metric_tenants (tenant_id VARCHAR PRIMARY KEY, tenant_ref BIGINT NOT NULL UNIQUE)');
    await c.run("INSERT INTO metric_tenants VALUES ('metrics-only', 1), ('beta', 2)");
    await c.run(`INSERT INTO logs SELECT CASE WHEN i % 3 = 0 THEN 'beta' ELSE 'alpha' END, ${NOW} + i, ${NOW} + i, 'api', 'info',
      'row ' || i, CASE WHEN i = 1 THEN 'ABC' ELSE '' END, '', '', CASE WHEN i = 2 THEN '{"k":"v"}' ELSE '{}' END, 'native', NULL,
      CASE WHEN i % 2 = 0 THEN i END FROM range(3000) r(i)`);
    c.closeSync();
    instance.closeSync();

    const store = await openDuckdbStore(path);
    try {
      assert.equal(await store.walPosition(), 7n);
      const writer = { all: (sql: string) => store.reader.all(sql, []) };
      assert.deepEqual((await loadFieldColumns(writer)).map((col) => [col.column, col.key, col.kind]), [['field_1', 'dur', 'int']]);
      const refs = await store.reader.all('SELECT tenant_id, tenant_ref FROM metric_tenants ORDER BY tenant_ref', []);
      assert.deepEqual(refs.map((r) => [r.tenant_id, r.tenant_ref]), [['metrics-only', 1n], ['beta', 2n], ['alpha', 3n]]);
      const order = await store.reader.all('SELECT time_ns FROM logs', []);
      assert.deepEqual(order.map((r) => r.time_ns), Array.from({ length: 3000 }, (_, i) => NOW + BigInt(i)), 'rows kept their order');
      assert.equal((await msgs(store, 'beta', 'row')).length, 100, 'the search limit');
      assert.deepEqual(await msgs(store, 'alpha', 'trace_id:abc'), ['row 1']);
      assert.deepEqual(await msgs(store, 'alpha', 'k:v'), ['row 2']);
      assert.deepEqual(await msgs(store, 'beta', 'dur:2994'), ['row 2994'], 'the promoted column reads by its key');
      const nulls = await store.reader.all(
        "SELECT count(*) FILTER (WHERE span_id IS NULL) AS span, count(*) FILTER (WHERE fields IS NULL) AS f FROM logs", []);
      assert.deepEqual(nulls, [{ span: 3000n, f: 2999n }]);
      // The new layout: the writer's columns, and a write of a new tenant gets the next number.
      const cols = await store.reader.all(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'logs' ORDER BY ordinal_position", []);
      assert.deepEqual(cols.map((r) => r.column_name), [...LOG_COLUMNS, 'field_1']);
      await store.write([logsBatch('gamma', [log({ msg: 'g' })])], 8n);
      assert.deepEqual(await msgs(store, 'gamma'), ['g']);
    } finally {
      await store.close();
    }
    const reopened = await DuckDBInstance.create(path);
    const rc = await reopened.connect();
    try {
      assert.ok(!(await tableColumns(rc, 'logs')).includes('tenant_id'));
      assert.deepEqual((await rc.runAndReadAll("SELECT tenant_ref FROM metric_tenants WHERE tenant_id = 'gamma'")).getRowObjectsJS(),
        [{ tenant_ref: 4n }]);
    } finally {
      rc.closeSync();
      reopened.closeSync();
    }
  });
});
