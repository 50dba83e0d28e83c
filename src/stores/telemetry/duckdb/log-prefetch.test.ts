// Building the next write's log chunks while the write before commits (log-prefetch.ts): the chunks are built only
// once the write before reaches COMMIT and at most MAX_CHUNKS_AHEAD of them; together with the rest they hold every
// row once; they are dropped when a column was added meanwhile or the write is skipped; a row the build refuses
// fails the write as appending it would have.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { DuckDBDataChunk } from '@duckdb/node-api';
import type { TenantBatch } from '../../../model/batch.js';
import { log, logsBatch } from '../telemetry-store.contract.js';
import { CHUNK_ROWS } from './chunk-writer.js';
import { openDuckdbStore, type DuckdbTelemetryStore, type DuckdbStoreOptions } from './duckdb-store.js';
import { LogPrefetch, MAX_CHUNKS_AHEAD } from './log-prefetch.js';
import { peekDuckdbLogs } from './peek-logs.js';
import type { FieldColumn } from './field-columns.js';
import { loadFieldColumns } from './field-catalog.js';
import { TenantRefs } from './sample-tenants.js';

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

const rowsOf = (chunks: Iterable<DuckDBDataChunk>): number => {
  let n = 0;
  for (const c of chunks) n += c.rowCount;
  return n;
};

const manyLogs = (n: number, tag: string) => Array.from({ length: n }, (_, i) => log({ timeNs: BigInt(i), msg: `${tag} ${i}` }));

void describe('log chunks built ahead', () => {
  const columns: readonly FieldColumn[] = [];

  void test('wait for the commit of the write before, then hold every row once', async () => {
    let reachCommit = (): void => undefined;
    const commit = new Promise<void>((resolve) => { reachCommit = resolve; });
    const rows = 3 * CHUNK_ROWS + 5;
    const p = new LogPrefetch([logsBatch('t1', manyLogs(rows, 'a'))], columns, 0, new TenantRefs(), commit);
    await turns(5);
    const early = new LogPrefetch([logsBatch('t1', manyLogs(rows, 'b'))], columns, 0, new TenantRefs(), new Promise(() => undefined));
    await turns(5);
    assert.equal(early.take(columns)?.built.length, 0, 'nothing is built before the commit');
    reachCommit();
    await turns(10);
    const got = p.take(columns);
    assert.ok(got);
    assert.equal(got.built.length, 4, 'all four chunks were built while the write before committed');
    assert.equal(rowsOf(got.built) + rowsOf(got.rest), rows);
  });

  void test('stop at MAX_CHUNKS_AHEAD and leave the rest to the write', async () => {
    const rows = (MAX_CHUNKS_AHEAD + 3) * CHUNK_ROWS;
    const p = new LogPrefetch([logsBatch('t1', manyLogs(rows, 'a'))], columns, 0, new TenantRefs(), Promise.resolve());
    await turns(MAX_CHUNKS_AHEAD + 20);
    const got = p.take(columns);
    assert.ok(got);
    assert.equal(got.built.length, MAX_CHUNKS_AHEAD);
    assert.equal(rowsOf(got.rest), 3 * CHUNK_ROWS);
  });

  void test('are dropped for a table whose columns changed, and a refused row fails the take', async () => {
    const p = new LogPrefetch([logsBatch('t1', manyLogs(10, 'a'))], columns, 0, new TenantRefs(), Promise.resolve());
    await turns(3);
    assert.equal(p.take([]), null, 'another column list: built again by the write');
    const bad = new LogPrefetch([logsBatch('t1', [log({ msg: null as unknown as string })])], columns, 0, new TenantRefs(), Promise.resolve());
    await turns(3);
    assert.throws(() => bad.take(columns), /takes a string/);
  });
});

void describe('duckdb store: a write prepared while the one before commits', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  async function fresh(options: DuckdbStoreOptions = {}): Promise<DuckdbTelemetryStore & Required<Pick<DuckdbTelemetryStore, 'prepareWrite'>>> {
    const dir = await mkdtemp(join(tmpdir(), 'sightline-prefetch-'));
    dirs.push(dir);
    const s = await openDuckdbStore(join(dir, 'telemetry.duckdb'), options);
    const prepareWrite = s.prepareWrite?.bind(s);
    assert.ok(prepareWrite, 'the DuckDB store builds ahead');
    return Object.assign(s, { prepareWrite });
  }

  void test('stores every row of both writes once', async () => {
    const s = await fresh();
    try {
      const first = [logsBatch('t1', manyLogs(3 * CHUNK_ROWS, 'first'))];
      const second = [logsBatch('t1', manyLogs(5 * CHUNK_ROWS + 17, 'second')), logsBatch('t2', manyLogs(40, 'other'))];
      const w1 = s.write(first, 10n);
      s.prepareWrite(second);
      await Promise.all([w1, s.write(second, 20n)]);
      assert.equal(await s.walPosition(), 20n);
      const stored = (await peekDuckdbLogs(s, 't1')).map((r) => r.entry.msg).sort();
      const sent = [...first, ...second].filter((b) => b.tenantId === 't1').flatMap((b) => b.batch.logs as { msg: string }[]).map((e) => e.msg).sort();
      assert.deepEqual(stored, sent);
      assert.equal((await peekDuckdbLogs(s, 't2')).length, 40);
    } finally {
      await s.close();
    }
  });

  void test('stores every sample of two prepared metric writes once, their series inserted once', async () => {
    const s = await fresh();
    try {
      const samples = (from: number, n: number) => Array.from({ length: n }, (_, i) =>
        ({ name: 'prepared_total', labels: { shard: String(i % 5) }, timeMs: from + i, value: from + i }));
      const metrics = (from: number, n: number): TenantBatch[] => [{ tenantId: 't1', format: 'remote_write',
        batch: { logs: [], spans: [], samples: samples(from, n), metadata: [{ name: 'prepared_total', type: 'counter', help: 'x', unit: '' }] } }];
      const first = metrics(0, 3 * CHUNK_ROWS);
      const second = [...metrics(1_000_000, 4 * CHUNK_ROWS + 3), logsBatch('t1', manyLogs(30, 'beside'))];
      const w1 = s.write(first, 10n);
      s.prepareWrite(second);
      await Promise.all([w1, s.write(second, 20n)]);
      const got = (await s.reader.all(
        "SELECT count(*) AS n, count(DISTINCT time_ms) AS times, count(DISTINCT series_id) AS series FROM metric_samples " +
        "WHERE tenant_ref = (SELECT tenant_ref FROM metric_tenants WHERE tenant_id = 't1')", []))[0];
      assert.deepEqual(got, { n: BigInt(7 * CHUNK_ROWS + 3), times: BigInt(7 * CHUNK_ROWS + 3), series: 5n });
      assert.equal((await s.reader.all("SELECT count(*) AS n FROM metric_series WHERE tenant_id = 't1'", []))[0]?.n, 5n);
      assert.equal((await peekDuckdbLogs(s, 't1')).length, 30);
    } finally {
      await s.close();
    }
  });

  void test('drops what it built for a write already stored, and for one that earns a new column', async () => {
    const s = await fresh({ promotion: { minRows: 100, maxColumns: 4 } });
    try {
      const first = [logsBatch('t1', manyLogs(CHUNK_ROWS, 'first'))];
      const w1 = s.write(first, 10n);
      s.prepareWrite(first); // its records again: a retry of a write whose commit went through
      await Promise.all([w1, s.write(first, 10n)]);
      assert.equal((await peekDuckdbLogs(s, 't1')).length, CHUNK_ROWS, 'stored once');

      // Built before `region` had a column; the write adds it first, so the chunks are built again with it.
      const second = [logsBatch('t1', Array.from({ length: 2 * CHUNK_ROWS }, (_, i) => log({ msg: `second ${i}`, fields: { region: `r${i % 3}` } })))];
      const w2 = s.write([logsBatch('t1', manyLogs(CHUNK_ROWS, 'between'))], 20n);
      s.prepareWrite(second);
      await Promise.all([w2, s.write(second, 30n)]);
      assert.deepEqual((await loadFieldColumns(s.reader)).map((c) => c.key), ['region'], 'region got a column');
      const stored = (await peekDuckdbLogs(s, 't1')).filter((r) => r.entry.msg.startsWith('second'));
      assert.equal(stored.length, 2 * CHUNK_ROWS);
      assert.ok(stored.every((r) => r.entry.fields.region === `r${Number(r.entry.msg.split(' ')[1]) % 3}`));
    } finally {
      await s.close();
    }
  });
});
