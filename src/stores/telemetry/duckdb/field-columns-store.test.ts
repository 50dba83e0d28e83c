// Promoted field columns in the DuckDB store (field-columns.ts, issue 12 item 3): the whole store contract with every
// key promoted; every read giving the same answer as on a store that keeps all keys in JSON, over rows written before
// and after promotion and values no column holds; a file made before promoted columns opening, migrating and reading
// back; and a read compiled before a column existed never missing the rows written meanwhile.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import type { FieldValue, LogEntry } from '../../../model/log-entry.js';
import type { LogRow, TelemetryStore } from '../telemetry-store.js';
import { parseLogsql } from '../../../query/logsql/parser.js';
import { log, logsBatch, telemetryStoreContract } from '../telemetry-store.contract.js';
import { openDuckdbStore, type DuckdbTelemetryStore } from './duckdb-store.js';
import { adversarialQueries, queryArbitrary } from './logsql-sql.fixtures.js';
import { peekDuckdbLogs } from './peek-logs.js';
import { loadFieldColumns } from './field-catalog.js';

const fileOf = (dir: string) => join(dir, 'telemetry.duckdb');
const EVERY_KEY = { promotion: { minRows: 1, maxColumns: 32 } };
const NO_KEY = { promotion: { minRows: Infinity, maxColumns: 0 } };

telemetryStoreContract('duckdb, every field key in a column', (dir) => openDuckdbStore(fileOf(dir), EVERY_KEY), peekDuckdbLogs);

const T0 = 1_714_564_800_000_000_000n; // 2024-05-01T12:00:00Z
const SEC = 1_000_000_000n;
const NOW = T0 + 2n * 86_400n * SEC;
const uuid = (i: number) => `0a1b2c3d-0000-4${String(i).padStart(3, '0')}-a000-00000000abcd`;

/**
 * Three writes: the first before any key is promoted, the second promoting every key it carries, the third with values
 * of other kinds under those keys, new keys and keys out of order — so the promoted store holds every layout at once.
 */
function writes(): LogEntry[][] {
  const at = (i: number) => T0 + BigInt(i) * 37n * SEC;
  const base = (i: number, fields: Record<string, FieldValue>, over: Partial<LogEntry> = {}): LogEntry => log({
    timeNs: at(i), observedNs: at(i), service: ['api', 'web', 'worker'][i % 3] ?? 'api',
    severity: ['info', 'error', 'warn', ''][i % 4] ?? '', msg: `request ${i} ${i % 5 === 0 ? 'failed: connection reset' : 'served'}`,
    stream: i % 2 === 0 ? '' : '{app="api",env="prod"}', traceId: i % 3 === 0 ? '' : `abc${i}`, spanId: '', fields, ...over,
  });
  const first = Array.from({ length: 12 }, (_, i) => base(i, {
    user: ['alice', 'bob', ''][i % 3] ?? '', dur: i * 10, status: i % 2 === 0 ? 200 : 500, req: uuid(i), ok: i % 2 === 0,
  }));
  const second = Array.from({ length: 12 }, (_, i) => base(12 + i, {
    user: ['alice', 'carol', 'bob'][i % 3] ?? '', dur: 5 + i, status: [200, 404, 500][i % 3] ?? 200, req: uuid(12 + i),
    'kubernetes.pod_name': `api-${i % 2}`, 'q"t': 'quoted', nul: null, empty: '',
  }));
  const third = Array.from({ length: 12 }, (_, i) => base(24 + i, i % 2 === 0
    // Other kinds under promoted keys, a key order no column order gives, nested values, a JSON null.
    ? { empty: 'now set', status: '500', dur: 2.5, user: 7, req: 'not-a-uuid', nested: { a: [1, null] }, nul: null }
    : { req: uuid(24 + i).toUpperCase(), '': 'blank key', "'": 'x', 'a\\b': 'y', '$.*': 1, '*': -0, b: 'bsecret', 'ключ😀\n': 'k' }));
  return [first, second, third];
}

async function fresh(dirs: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sightline-fields-'));
  dirs.push(dir);
  return dir;
}

/** JSON text, so that field order counts too. */
const text = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

void describe('promoted field columns, against a store without them', () => {
  const dirs: string[] = [];
  let plain: DuckdbTelemetryStore;
  let promoted: DuckdbTelemetryStore;

  before(async () => {
    const [first, second, third] = writes();
    plain = await openDuckdbStore(fileOf(await fresh(dirs)), NO_KEY);
    const dir = await fresh(dirs);
    // The first write lands before the store promotes anything (as on a file from before promoted columns).
    const early = await openDuckdbStore(fileOf(dir), NO_KEY);
    await early.write([logsBatch('A', first ?? [])], 1n);
    await early.close();
    promoted = await openDuckdbStore(fileOf(dir), EVERY_KEY);
    await plain.write([logsBatch('A', first ?? [])], 1n);
    let position = 1n;
    for (const rows of [second ?? [], third ?? []]) {
      position++;
      await plain.write([logsBatch('A', rows)], position);
      await promoted.write([logsBatch('A', rows), logsBatch('B', rows.slice(0, 3))], position);
    }
    // Reopened: the columns' keys and kinds come back from the file (keys with quotes, backslashes, emoji and all).
    await promoted.close();
    promoted = await openDuckdbStore(fileOf(dir), EVERY_KEY);
  });
  after(async () => {
    await plain.close();
    await promoted.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('the keys earned columns of their kinds, and the rows of the last writes hold their values there', async () => {
    const kinds = Object.fromEntries((await loadFieldColumns(promoted.reader)).map((c) => [c.key, c.kind]));
    assert.equal(kinds.user, 'text');
    assert.equal(kinds.dur, 'int');
    assert.equal(kinds.req, 'uuid');
    assert.equal(kinds.nul, undefined, 'a key whose values are all null has no kind');
    assert.equal(kinds["'"], 'text');
    assert.equal(kinds['ключ😀\n'], 'text');
    // Of a row of the second write only the null is left in the JSON (a null has no kind).
    const row = await promoted.reader.all("SELECT fields FROM logs WHERE tenant_ref = (SELECT tenant_ref FROM metric_tenants WHERE tenant_id = 'A') AND msg = 'request 13 served'", []);
    assert.deepEqual(row, [{ fields: '{"nul":null}' }]);
  });

  test('the stored rows come back the same, field order included', async () => {
    const sorted = (rows: Awaited<ReturnType<typeof peekDuckdbLogs>>) => rows.map(text).sort();
    assert.deepEqual(sorted(await peekDuckdbLogs(promoted, 'A')), sorted(await peekDuckdbLogs(plain, 'A')));
  });

  const same = async (what: string, fn: (s: TelemetryStore) => Promise<unknown>): Promise<void> => {
    const want = await fn(plain).then(text, (e: unknown) => `error ${String(e)}`);
    const got = await fn(promoted).then(text, (e: unknown) => `error ${String(e)}`);
    assert.equal(got, want, what);
  };

  test('searches, hits, field names and values answer the same, for hand-written and random queries', async () => {
    const queries = [...adversarialQueries, 'user:alice', 'dur:>10', 'req:*', 'status:=500', 'empty:""', '-nul:*',
      `req:="${uuid(13)}"`, 'nested:*', '"": blank', '* | stats by (user, status) count() n, sum(dur) s',
      '* | sort by (req) | fields req, user', '* | stats by (req) count() n | sort by (req)',
      ...fc.sample(queryArbitrary, { numRuns: 150, seed: 20240501 })];
    for (const q of queries) {
      const query = parseLogsql(q, NOW);
      await same(`search ${q}`, (s) => s.searchLogs('A', query, {}, 1000));
      await same(`hits ${q}`, (s) => s.logHits('A', query, {}, 3600n * SEC));
      await same(`field names ${q}`, (s) => s.logFieldNames('A', query, {}));
      for (const f of ['user', 'dur', 'req', 'empty', 'nul']) await same(`values of ${f} in ${q}`, (s) => s.logFieldValues('A', query, {}, f, 10));
    }
  });

  test('streamed searches, facets, value counts, stream fields and the oldest entry answer the same', async () => {
    for (const q of ['*', 'user:alice', 'status:=500 OR req:*', 'nested:*']) {
      const query = parseLogsql(q, NOW);
      await same(`stream ${q}`, async (s) => {
        const rows: LogRow[] = [];
        await s.streamLogs('A', query, {}, 0, (chunk) => { rows.push(...chunk); return Promise.resolve(true); });
        return rows;
      });
      await same(`facets ${q}`, (s) => s.logFacets('A', query, {}, { limit: 10, maxValuesPerField: 100, maxValueLen: 100, keepConstFields: true }));
      // Value counts come in no particular order (telemetry-store.ts ValueCounts).
      await same(`value counts ${q}`, async (s) => {
        const counts = await s.logValueCounts('A', query, {
          ranges: [{ startNs: T0 + 600n * SEC }, { endNs: T0 + 600n * SEC }],
          groups: [['user'], ['status', 'service'], ['req'], ['dur', 'user'], ['empty']], minCount: 1,
        });
        return { ...counts, values: counts.values.map(text).sort() };
      });
      await same(`stream field names ${q}`, (s) => s.logStreamFieldNames('A', query, {}));
      await same(`stream field values ${q}`, (s) => s.logStreamFieldValues('A', query, {}, 'app', 10));
      await same(`oldest ${q}`, (s) => s.oldestData('A', { signal: 'logs', query }));
    }
  });
});

/** The `logs` table as the store made it before promoted columns, in that DuckDB's default file format. */
const OLD_LOGS_SQL = `
CREATE TABLE logs (
  tenant_id VARCHAR NOT NULL, time_ns BIGINT NOT NULL, observed_ns BIGINT NOT NULL,
  service VARCHAR NOT NULL, severity VARCHAR NOT NULL, msg VARCHAR NOT NULL,
  trace_id VARCHAR NOT NULL, span_id VARCHAR NOT NULL, stream VARCHAR NOT NULL,
  fields JSON NOT NULL, format VARCHAR NOT NULL)`;

void describe('a data file from before promoted columns', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('opens, migrates in place, reads its rows and promotes keys for new ones', async () => {
    const path = fileOf(await fresh(dirs));
    const old = Array.from({ length: 5 }, (_, i) => log({ timeNs: T0 + BigInt(i), msg: `old ${i}`, fields: { host: `h${i}`, n: i } }));
    const instance = await DuckDBInstance.create(path);
    const c = await instance.connect();
    await c.run(OLD_LOGS_SQL);
    await c.run('CREATE TABLE wal_state (id INTEGER PRIMARY KEY, position BIGINT NOT NULL)');
    await c.run('INSERT INTO wal_state VALUES (1, 7)');
    for (const e of old) {
      await c.run("INSERT INTO logs VALUES ('t1', $1, $1, $2, $3, $4, '', '', '', $5, 'native')",
        [e.timeNs, e.service, e.severity, e.msg, JSON.stringify(e.fields)]);
    }
    c.closeSync();
    instance.closeSync();

    let s = await openDuckdbStore(path, EVERY_KEY);
    try {
      assert.equal(await s.walPosition(), 7n);
      const fresh = [log({ timeNs: T0 + 10n, msg: 'new', fields: { n: 10, host: 'h10' } })];
      await s.write([logsBatch('t1', fresh)], 8n);
      const rows = await s.searchLogs('t1', parseLogsql('host:h*', NOW), {}, 100);
      assert.deepEqual(rows.map((r) => [r._msg, r.host, r.n]), [['new', 'h10', 10], ...[4, 3, 2, 1, 0].map((i) => [`old ${i}`, `h${i}`, i])]);
      assert.deepEqual((await s.searchLogs('t1', parseLogsql('n:>2', NOW), {}, 100)).map((r) => r._msg), ['new', 'old 4', 'old 3']);
    } finally {
      await s.close();
    }
    s = await openDuckdbStore(path);
    try {
      const stored = (await peekDuckdbLogs(s, 't1')).map((r) => r.entry.fields);
      assert.deepEqual(stored.slice(-1), [{ n: 10, host: 'h10' }]);
      assert.deepEqual(Object.keys(stored.at(-1) ?? {}), ['n', 'host']);
    } finally {
      await s.close();
    }
  });
});

void describe('a read compiled before a column existed', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('still finds the rows written while it runs: the writer keeps the key in JSON until it has finished', async () => {
    const s = await openDuckdbStore(fileOf(await fresh(dirs)), EVERY_KEY);
    try {
      await s.write([logsBatch('t1', [log({ msg: 'before', fields: {} })])], 1n);
      // A streamed search that pauses after its first chunk: its SQL was compiled with no promoted column.
      let resume = (): void => undefined;
      let firstChunk = (): void => undefined;
      const started = new Promise<void>((r) => { firstChunk = r; });
      const stream = s.streamLogs('t1', parseLogsql('*', NOW), {}, 0, async () => {
        firstChunk();
        await new Promise<void>((r) => { resume = r; });
        return true;
      });
      await started;
      await s.write([logsBatch('t1', [log({ timeNs: T0 + 1n, msg: 'during', fields: { k: 'v1' } })])], 2n);
      const during = await s.reader.all("SELECT fields, field_1 FROM logs WHERE msg = 'during'", []);
      assert.deepEqual(during, [{ fields: '{"k":"v1"}', field_1: null }]);
      resume();
      await stream;
      await s.write([logsBatch('t1', [log({ timeNs: T0 + 2n, msg: 'after', fields: { k: 'v2' } })])], 3n);
      const later = await s.reader.all("SELECT fields, field_1 FROM logs WHERE msg = 'after'", []);
      assert.deepEqual(later, [{ fields: null, field_1: 'v2' }], 'no field left: NULL (schema.ts)');
      assert.deepEqual((await s.searchLogs('t1', parseLogsql('k:v*', NOW), {}, 10)).map((r) => r._msg), ['after', 'during']);
    } finally {
      await s.close();
    }
  });
});
