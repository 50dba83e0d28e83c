// DuckdbSeriesSource against a real in-memory DuckDB: the SeriesSource contract, the row helpers a writer
// uses, and the SQL it sends (parameters only, tenant always bound).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { staleMarker } from '../../../model/metric.js';
import { seriesSourceContract } from '../../../query/promql/series-source.contract.js';
import type { SqlExecutor, SqlParam } from '../sql/dialect.js';
import {
  DuckdbSeriesSource, insertMetadata, insertSamples, METRIC_TABLES_SQL, SAMPLE_COLUMNS, sampleRows, seriesId, SERIES_COLUMNS, SeriesIndex,
} from './samples-sql.js';

async function openDb(): Promise<{ exec: SqlExecutor; close: () => void }> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const exec: SqlExecutor = { all: async (sql, params) => (await conn.runAndReadAll(sql, params)).getRowObjectsJS() };
  for (const sql of METRIC_TABLES_SQL) await exec.all(sql, []);
  return { exec, close: () => { conn.closeSync(); db.closeSync(); } };
}

seriesSourceContract('duckdb', async () => {
  const { exec, close } = await openDb();
  return {
    source: new DuckdbSeriesSource(exec),
    write: (tenantId, samples) => insertSamples(exec, tenantId, samples),
    writeMetadata: (tenantId, metadata) => insertMetadata(exec, tenantId, metadata),
    close: () => Promise.resolve(close()),
  };
});

describe('samples-sql', () => {
  it('a series id depends on the label set only, not on label order or empty labels', () => {
    assert.equal(seriesId('m', { a: '1', b: '2' }), seriesId('m', { b: '2', a: '1', c: '' }));
    assert.notEqual(seriesId('m', { a: '1' }), seriesId('n', { a: '1' }));
    assert.ok(seriesId('m', { a: '1' }) >= 0n && seriesId('m', { a: '1' }) < 2n ** 63n);
  });

  it('a label named __proto__ is part of the series: its id and its labels JSON', () => {
    const labels = JSON.parse('{"__proto__":"x","job":"api"}') as Record<string, string>;
    const row = new SeriesIndex('t1').ofLabels('up', labels);
    assert.equal(row.labelsJson, '{"__proto__":"x","job":"api"}');
    assert.notEqual(row.seriesId, seriesId('up', { job: 'api' }));
  });

  it('a labels object kept between writes is one series per tenant, and under another name another series', () => {
    const labels = { route: '/a', job: 'api' };
    const first = new SeriesIndex('t1').ofLabels('up', labels);
    const second = new SeriesIndex('t2').ofLabels('up', labels);
    assert.deepEqual(first, { tenantId: 't1', seriesId: seriesId('up', labels), name: 'up', labelsJson: '{"job":"api","route":"/a"}', idText: String(seriesId('up', labels)) });
    assert.deepEqual(second, { ...first, tenantId: 't2' });
    const renamed = new SeriesIndex('t1').ofLabels('down', labels);
    assert.deepEqual(renamed, { ...first, name: 'down', seriesId: seriesId('down', labels), idText: String(seriesId('down', labels)) });
    assert.equal(new SeriesIndex('t1').ofLabels('up', labels).seriesId, first.seriesId, 'and the first name again');
  });

  it('sampleRows gives each series once and flags staleness markers', () => {
    const rows = sampleRows('t', [
      { name: 'm', labels: { a: '1' }, timeMs: 1, value: 1 },
      { name: 'm', labels: { a: '1' }, timeMs: 2, value: staleMarker() },
    ]);
    assert.equal(rows.series.length, 1);
    assert.equal(rows.series[0]?.labelsJson, '{"a":"1"}');
    assert.deepEqual(rows.samples.map((r) => [r.timeMs, r.stale]), [[1n, false], [2n, true]]);
    assert.deepEqual([...SERIES_COLUMNS], ['tenant_id', 'series_id', 'name', 'labels']);
    assert.deepEqual([...SAMPLE_COLUMNS], ['tenant_ref', 'series_id', 'time_ms', 'value', 'stale']);
  });

  it('binds every value as a parameter and always the tenant', async () => {
    const seen: [string, SqlParam[]][] = [];
    const spy: SqlExecutor = { all: (sql, params) => { seen.push([sql, params]); return Promise.resolve([]); } };
    const evil = "x') OR 1=1 --";
    await new DuckdbSeriesSource(spy).select('t1', [{ name: 'job', type: '=~', value: evil }, { name: '__name__', type: '=', value: evil }], 0, 1);
    await new DuckdbSeriesSource(spy).labelValues('t1', 'job', [[{ name: 'a', type: '!=', value: evil }]], 0, 1);
    for (const [sql, params] of seen) {
      assert.ok(!sql.includes(evil), sql);
      assert.equal(params[0], 't1');
      assert.match(sql, /tenant_id = \$1/);
    }
    assert.match(seen[0]?.[0] ?? '', /regexp_full_match/);
  });

  it('writes in chunks larger than one statement', async () => {
    const { exec, close } = await openDb();
    const samples = Array.from({ length: 1000 }, (_, i) => ({ name: 'big', labels: { i: String(i % 3) }, timeMs: i, value: i / 7 }));
    await insertSamples(exec, 't', samples);
    const got = await new DuckdbSeriesSource(exec).select('t', [{ name: '__name__', type: '=', value: 'big' }], 0, 10_000);
    assert.deepEqual(got.map((s) => s.samples.length).sort(), [333, 333, 334]);
    assert.equal(got.flatMap((s) => s.samples).find((x) => x.t === 500)?.v, 500 / 7);
    close();
  });
});
