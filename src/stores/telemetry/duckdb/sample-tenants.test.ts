// Tenant numbers of metric samples (sample-tenants.ts): two tenants with the same series read only their own
// samples, a number stays its tenant's across a restart and is never given twice, a number another tenant holds is
// refused, and a file of the layout before (tenant id and name on every sample) opens with every sample where it was.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TenantBatch } from '../../../model/batch.js';
import type { MetricSample } from '../../../model/metric.js';
import { openDuckdbStore, type DuckdbTelemetryStore } from './duckdb-store.js';
import { CommittedKeys, appendMetrics } from './metrics-store.js';
import { METRIC_TABLES_SQL, seriesId } from './samples-sql.js';
import { TenantRefs } from './sample-tenants.js';

let dir: string;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'sample-tenants-')); });
after(async () => { await rm(dir, { recursive: true, force: true }); });

const up = (value: number, timeMs: number): MetricSample => ({ name: 'up', labels: { job: 'api' }, timeMs, value });
const metrics = (tenantId: string, samples: MetricSample[]): TenantBatch =>
  ({ tenantId, format: 'remote_write', batch: { logs: [], spans: [], samples } });

async function read(store: DuckdbTelemetryStore, tenantId: string, name = 'up'): Promise<[number, number][]> {
  const series = await store.metrics.select(tenantId, [{ name: '__name__', type: '=', value: name }], 0, 1e9);
  return series.flatMap((s) => s.samples.map((x): [number, number] => [x.t, x.v]));
}

async function refs(store: DuckdbTelemetryStore): Promise<Record<string, number>> {
  const rows = await store.reader.all('SELECT tenant_id, tenant_ref FROM metric_tenants ORDER BY tenant_ref', []);
  return Object.fromEntries(rows.map((r) => [String(r.tenant_id), Number(r.tenant_ref)]));
}

void describe('tenant numbers of metric samples', () => {
  void test('two tenants with the same series read only their own samples, and keep their numbers across a restart', async () => {
    const path = join(dir, 'isolation.duckdb');
    let store = await openDuckdbStore(path);
    try {
      await store.write([metrics('alpha', [up(1, 1000), up(2, 2000)]), metrics('beta', [up(10, 1000)])], 1n);
      assert.deepEqual(await read(store, 'alpha'), [[1000, 1], [2000, 2]]);
      assert.deepEqual(await read(store, 'beta'), [[1000, 10]]);
      assert.deepEqual(await read(store, 'gamma'), [], 'a tenant with no samples has no number and reads nothing');
      assert.deepEqual(await refs(store), { alpha: 1, beta: 2 });
    } finally {
      await store.close();
    }
    store = await openDuckdbStore(path);
    try {
      await store.write([metrics('gamma', [up(100, 3000)]), metrics('alpha', [up(3, 3000)])], 2n);
      assert.deepEqual(await refs(store), { alpha: 1, beta: 2, gamma: 3 }, 'the numbers committed are loaded, the next is new');
      assert.deepEqual(await read(store, 'alpha'), [[1000, 1], [2000, 2], [3000, 3]]);
      assert.deepEqual(await read(store, 'gamma'), [[3000, 100]]);
      assert.equal(await store.deleteOlderThan('alpha', 2_500_000_000n), 2, 'retention finds the tenant by its number');
      assert.deepEqual(await read(store, 'alpha'), [[3000, 3]]);
      assert.deepEqual(await read(store, 'beta'), [[1000, 10]]);
    } finally {
      await store.close();
    }
  });

  void test('a number given to a write that rolls back is inserted by the next, and one another tenant holds is refused', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    try {
      for (const sql of METRIC_TABLES_SQL) await c.run(sql);
      const tenants = await TenantRefs.load(c);
      const known = new CommittedKeys();
      const write = async (batches: TenantBatch[], given: TenantRefs, outcome: 'COMMIT' | 'ROLLBACK'): Promise<void> => {
        await c.run('BEGIN TRANSACTION');
        try {
          const added = await appendMetrics(c, batches, known, given);
          await c.run(outcome);
          if (outcome === 'COMMIT') known.commit(added);
        } catch (e) {
          await c.run('ROLLBACK');
          throw e;
        }
      };
      await write([metrics('alpha', [up(1, 1)])], tenants, 'ROLLBACK');
      assert.equal((await c.runAndReadAll('SELECT count(*) AS n FROM metric_tenants')).getRowObjectsJS()[0]?.n, 0n);
      await write([metrics('alpha', [up(1, 1)])], tenants, 'COMMIT');
      const rows = (await c.runAndReadAll('SELECT tenant_id, tenant_ref FROM metric_tenants')).getRowObjectsJS();
      assert.deepEqual(rows, [{ tenant_id: 'alpha', tenant_ref: 1n }]);
      // A writer that did not load the numbers would give alpha's to beta: the table refuses it, and nothing is stored.
      await assert.rejects(write([metrics('beta', [up(2, 2)])], new TenantRefs(), 'COMMIT'), /constraint/i);
      assert.equal((await c.runAndReadAll('SELECT count(*) AS n FROM metric_samples')).getRowObjectsJS()[0]?.n, 1n);
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  });

  void test('a file with the tenant id and name on every sample opens with each sample under its tenant', async () => {
    const path = join(dir, 'before.duckdb');
    const instance = await DuckDBInstance.create(path);
    const c = await instance.connect();
    const id = seriesId('up', { job: 'api' });
    // The layout before, as that code created it, and the same series for two tenants.
    await c.run(`CREATE TABLE metric_series (tenant_id VARCHAR NOT NULL, series_id BIGINT NOT NULL, name VARCHAR NOT NULL,
      labels JSON NOT NULL, PRIMARY KEY (tenant_id, series_id))`);
    await c.run(`CREATE TABLE metric_samples (tenant_id VARCHAR NOT NULL, series_id BIGINT NOT NULL, name VARCHAR NOT NULL,
      time_ms BIGINT NOT NULL, value DOUBLE NOT NULL, stale BOOLEAN NOT NULL)`);
    for (const tenant of ['beta', 'alpha']) {
      await c.run('INSERT INTO metric_series VALUES ($1, $2, $3, $4)', [tenant, id, 'up', '{"job":"api"}']);
    }
    await c.run('INSERT INTO metric_samples VALUES ($1, $2, $3, 1000, 1, false), ($1, $2, $3, 2000, \'NaN\', true), ' +
      '($4, $2, $3, 1000, 7.5, false)', ['alpha', id, 'up', 'beta']);
    c.closeSync();
    instance.closeSync();

    const store = await openDuckdbStore(path);
    try {
      const alpha = await store.metrics.select('alpha', [{ name: 'job', type: '=', value: 'api' }], 0, 1e9);
      assert.equal(alpha.length, 1);
      const [series] = alpha;
      assert.ok(series);
      assert.deepEqual(series.labels, { job: 'api', __name__: 'up' });
      assert.equal(series.samples.length, 2);
      assert.deepEqual(series.samples[0], { t: 1000, v: 1 });
      assert.equal(series.samples[1]?.stale, true);
      assert.deepEqual(await read(store, 'beta'), [[1000, 7.5]]);
      assert.deepEqual(await refs(store), { alpha: 1, beta: 2 });
      // The numbers the migration gave are the writer's: the next tenant gets a new one, a known tenant keeps its own.
      await store.write([metrics('gamma', [up(3, 3000)]), metrics('beta', [up(8, 3000)])], 1n);
      assert.deepEqual(await refs(store), { alpha: 1, beta: 2, gamma: 3 });
      assert.deepEqual(await read(store, 'beta'), [[1000, 7.5], [3000, 8]]);
      const columns = await store.reader.all(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'metric_samples' ORDER BY ordinal_position", []);
      assert.deepEqual(columns.map((r) => r.column_name), ['tenant_ref', 'series_id', 'time_ms', 'value', 'stale']);
    } finally {
      await store.close();
    }
  });
});
