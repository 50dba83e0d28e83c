// Metric rows into DuckDB (metrics-store.ts): series and metadata already committed are not inserted again, and a
// write that rolls back leaves nothing remembered, so its series are inserted by the next write; samples given as
// columns are stored as the same samples given one by one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { DeferredSamples, TenantBatch } from '../../../model/batch.js';
import { encodeRemoteWrite } from '../../../ingest/metrics/remote-write-proto.js';
import { parseRemoteWrite } from '../../../ingest/metrics/remote-write.js';
import { wireSampleColumns } from '../../../ingest/metrics/remote-write-wire.js';
import { CHUNK_ROWS } from './chunk-writer.js';
import { CommittedKeys, MAX_METRIC_CHUNKS_AHEAD, MetricPrefetch, appendMetrics } from './metrics-store.js';
import { METRIC_TABLES_SQL, seriesId } from './samples-sql.js';
import { TenantRefs } from './sample-tenants.js';
import { staleMarker } from '../../../model/metric.js';

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

let instance: DuckDBInstance;
let c: DuckDBConnection;
let tenants: TenantRefs;
/** Each sample with its tenant id and its series' name, as reads join them. */
const SAMPLES = '(SELECT t.tenant_id, d.series_id, s.name, d.time_ms, d.value, d.stale, d.rowid AS row_id FROM metric_samples d ' +
  'JOIN metric_tenants t USING (tenant_ref) JOIN metric_series s ON s.tenant_id = t.tenant_id AND s.series_id = d.series_id)';

before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  c = await instance.connect();
  for (const sql of METRIC_TABLES_SQL) await c.run(sql);
  tenants = await TenantRefs.load(c);
});
after(() => {
  c.closeSync();
  instance.closeSync();
});

function batch(job: string, timeMs: number): TenantBatch[] {
  const labels = { job };
  return [{ tenantId: 't1', format: 'remote_write', batch: {
    logs: [], spans: [],
    samples: [{ name: 'up', labels, timeMs, value: 1 }, { name: 'up', labels, timeMs: timeMs + 1, value: 0 }],
    metadata: [{ name: 'up', type: 'gauge', help: 'Target is up.', unit: '' }],
  } }];
}

async function count(table: string): Promise<number> {
  return Number((await c.runAndReadAll(`SELECT count(*) AS n FROM ${table}`)).getRowObjectsJS()[0]?.n);
}

async function write(batches: TenantBatch[], known: CommittedKeys, outcome: 'COMMIT' | 'ROLLBACK'): Promise<void> {
  await c.run('BEGIN TRANSACTION');
  const added = await appendMetrics(c, batches, known, tenants);
  await c.run(outcome);
  if (outcome === 'COMMIT') known.commit(added);
}

test('series and metadata rows are inserted once per process, and a rolled-back insert is not remembered', async () => {
  const known = new CommittedKeys();
  await write(batch('api', 1000), known, 'ROLLBACK');
  assert.equal(await count('metric_series'), 0);
  await write(batch('api', 1000), known, 'COMMIT');
  assert.deepEqual([await count('metric_series'), await count('metric_metadata'), await count('metric_samples')], [1, 1, 2]);

  // Known rows are skipped, not re-checked: deleting them shows that the next write does not touch them.
  await c.run('DELETE FROM metric_series');
  await c.run('DELETE FROM metric_metadata');
  await write(batch('api', 2000), known, 'COMMIT');
  assert.deepEqual([await count('metric_series'), await count('metric_metadata'), await count('metric_samples')], [0, 0, 4]);

  // A new series is inserted; a process that starts afresh (nothing known) inserts what it sees, ignoring duplicates.
  await write(batch('db', 3000), known, 'COMMIT');
  assert.equal(await count('metric_series'), 1);
  await write([...batch('api', 4000), ...batch('db', 4000)], new CommittedKeys(), 'COMMIT');
  assert.deepEqual([await count('metric_series'), await count('metric_metadata')], [2, 1]);
});

test('a series found committed is skipped until the set starts again, and is then inserted again', async () => {
  const labels = { job: 'same-object' }; // one labels object: the same series row on every write (samples-sql.ts)
  const of = (timeMs: number): TenantBatch[] => [{ tenantId: 't1', format: 'remote_write', batch: {
    logs: [], spans: [], samples: [{ name: 'kept', labels, timeMs, value: 1 }],
  } }];
  const known = new CommittedKeys(2);
  await write(of(1), known, 'COMMIT'); // inserted
  await write(of(2), known, 'COMMIT'); // found committed: marked
  await c.run("DELETE FROM metric_series WHERE name = 'kept'");
  await write(of(3), known, 'COMMIT'); // marked: not looked up, not inserted
  assert.equal(Number((await c.runAndReadAll("SELECT count(*) AS n FROM metric_series WHERE name = 'kept'")).getRowObjectsJS()[0]?.n), 0);
  known.commit([['x', 'a'], ['x', 'b']]); // past the limit: the set starts again
  await write(of(4), known, 'COMMIT');
  assert.equal(Number((await c.runAndReadAll("SELECT count(*) AS n FROM metric_series WHERE name = 'kept'")).getRowObjectsJS()[0]?.n), 1);
});

test('past its limit the set starts again empty rather than growing without bound', () => {
  const known = new CommittedKeys(3);
  known.commit([['s', 'a'], ['s', 'b'], ['t', 'a'], ['s', 'a']]);
  assert.ok(known.has('s', 'a') && known.has('s', 'b') && known.has('t', 'a') && !known.has('t', 'b'));
  known.commit([['t', 'd']]);
  assert.ok(known.has('t', 'd') && !known.has('s', 'a') && !known.has('t', 'a'));
  assert.equal(known.keysOf('s').size, 0);
});

test('samples are written a vector at a time with their values, stale markers and series ids intact', async () => {
  await c.run('DELETE FROM metric_samples');
  const labels = { job: 'vec' };
  // More than one vector (2,048 rows), two tenants, a stale marker, -0 and a large value.
  const samples = Array.from({ length: 5000 }, (_, i) => ({ name: 'vec_total', labels, timeMs: 10_000 + i, value: i === 7 ? staleMarker() : i === 8 ? -0 : i * 1.5 }));
  await write([
    { tenantId: 't1', format: 'remote_write', batch: { logs: [], spans: [], samples } },
    { tenantId: 't2', format: 'remote_write', batch: { logs: [], spans: [], samples: [{ name: 'up', labels, timeMs: 1, value: 1e308 }] } },
  ], new CommittedKeys(), 'COMMIT');
  const rows = (await c.runAndReadAll(`SELECT tenant_id, series_id, name, time_ms, value, stale FROM ${SAMPLES} ORDER BY tenant_id, time_ms`)).getRowObjectsJS();
  assert.equal(rows.length, 5001);
  const id = seriesId('vec_total', labels);
  assert.deepEqual(rows[0], { tenant_id: 't1', series_id: id, name: 'vec_total', time_ms: 10_000n, value: 0, stale: false });
  assert.equal(rows[7]?.stale, true);
  assert.ok(Number.isNaN(rows[7].value));
  assert.ok(Object.is(rows[8]?.value, -0));
  assert.deepEqual(rows[4999], { tenant_id: 't1', series_id: id, name: 'vec_total', time_ms: 14_999n, value: 4999 * 1.5, stale: false });
  assert.deepEqual(rows[5000], { tenant_id: 't2', series_id: seriesId('up', labels), name: 'up', time_ms: 1n, value: 1e308, stale: false });
});

test('samples given as columns (remote write read from the wire) are stored as the same samples given one by one', async () => {
  await c.run('DELETE FROM metric_samples');
  const body = encodeRemoteWrite(1, {
    timeseries: Array.from({ length: 300 }, (_, s) => ({
      labels: [{ name: '__name__', value: `cols_total_${s % 4}` }, { name: 'instance', value: `node-${s}` }],
      samples: Array.from({ length: 9 }, (_, i) => ({ value: s === 7 && i === 3 ? staleMarker() : s * 10 + i * 0.5, timestamp: 5_000 + i })),
    })),
    metadata: [{ type: 1, metricFamilyName: 'cols_total_0', help: 'Columns.', unit: '' }],
  });
  const columns = wireSampleColumns(body);
  assert.ok(columns);
  const parsed = parseRemoteWrite(body, { query: new URLSearchParams(), headers: {}, nowMs: 0 });
  const deferred: DeferredSamples = {
    rows: columns.count + 1,
    read: () => assert.fail('the columns are read, not the samples'),
    readColumns: () => columns,
  };
  await write([
    { tenantId: 'by-columns', format: 'remote_write', batch: { logs: [], spans: [], deferredSamples: deferred } },
    { tenantId: 'by-samples', format: 'remote_write', batch: { logs: [], spans: [], samples: parsed.samples, metadata: parsed.metadata } },
  ], new CommittedKeys(), 'COMMIT');
  const rows = async (tenant: string) => (await c.runAndReadAll(
    `SELECT series_id, name, time_ms, CAST(value AS VARCHAR) AS value, stale FROM ${SAMPLES} WHERE tenant_id = '${tenant}' ORDER BY row_id`,
  )).getRowObjectsJS();
  const byColumns = await rows('by-columns');
  assert.equal(byColumns.length, 2700);
  assert.deepEqual(byColumns, await rows('by-samples'));
  assert.equal(byColumns.filter((r) => r.stale === true).length, 1);
  // Each series its own id, the hash of its name and labels (ids are kept between writes: samples-sql.ts).
  const ids = (await c.runAndReadAll("SELECT DISTINCT series_id, name, labels FROM metric_series WHERE tenant_id = 'by-columns'")).getRowObjectsJS();
  assert.equal(ids.length, 300);
  for (const r of ids) assert.equal(r.series_id, seriesId(r.name as string, JSON.parse(r.labels as string) as Record<string, string>));
  const metadata = (await c.runAndReadAll("SELECT tenant_id, name, type FROM metric_metadata WHERE name = 'cols_total_0' ORDER BY tenant_id")).getRowObjectsJS();
  assert.deepEqual(metadata, [{ tenant_id: 'by-columns', name: 'cols_total_0', type: 'counter' }, { tenant_id: 'by-samples', name: 'cols_total_0', type: 'counter' }]);
});

test('sample chunks built ahead wait for the commit before, stop at their cap, and append with the rest as the same rows', async () => {
  await c.run('DELETE FROM metric_samples');
  await c.run('DELETE FROM metric_series');
  const rows = (MAX_METRIC_CHUNKS_AHEAD + 2) * CHUNK_ROWS + 9;
  const samples = Array.from({ length: rows }, (_, i) => ({ name: 'ahead_total', labels: { shard: String(i % 3) }, timeMs: i, value: i }));
  const batches: TenantBatch[] = [{ tenantId: 't1', format: 'remote_write', batch: { logs: [], spans: [], samples,
    metadata: [{ name: 'ahead_total', type: 'counter', help: 'Ahead.', unit: '' }] } }];
  let reachCommit = (): void => undefined;
  const ahead = new MetricPrefetch(batches, new Promise<void>((resolve) => { reachCommit = resolve; }), tenants);
  await turns(5);
  assert.equal(ahead.take().built.length, 0, 'nothing is built before the commit before');

  const p = new MetricPrefetch(batches, Promise.resolve(), tenants);
  await turns(MAX_METRIC_CHUNKS_AHEAD + 20);
  const prepared = p.take();
  assert.equal(prepared.built.length, MAX_METRIC_CHUNKS_AHEAD);
  assert.equal(prepared.rows.series.length, 0, 'the series are known once every sample is read');
  const known = new CommittedKeys();
  await c.run('BEGIN TRANSACTION');
  const added = await appendMetrics(c, batches, known, tenants, prepared);
  await c.run('COMMIT');
  known.commit(added);
  assert.equal(await count('metric_samples'), rows);
  assert.equal(await count('metric_series'), 3);
  const sum = (await c.runAndReadAll('SELECT sum(value) AS s, count(DISTINCT time_ms) AS n FROM metric_samples')).getRowObjectsJS()[0];
  assert.deepEqual(sum, { s: (rows * (rows - 1)) / 2, n: BigInt(rows) });
  reachCommit();
  ahead.drop();
});

test('a refused sample fails the take of the chunks built ahead, as appending it would have', async () => {
  const bad: TenantBatch[] = [{ tenantId: 't1', format: 'remote_write', batch: { logs: [], spans: [],
    samples: [{ name: 'bad', labels: {}, timeMs: Number.NaN, value: 1 }] } }];
  const p = new MetricPrefetch(bad, Promise.resolve(), tenants);
  await turns(3);
  assert.throws(() => p.take(), RangeError);
});
