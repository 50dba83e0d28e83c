// Agreement with Prometheus itself: the same samples go to Debian's prometheus (2.42, remote write) and to
// our SeriesSources (memory, DuckDB, and ClickHouse in-process through chdb, written as the WAL's drain writes it); every expression of the fixture table is asked as instant queries
// at edge times (staleness, the lookback boundary, after the data) and as range queries through both HTTP
// APIs' shapes; the answers must be equal up to float tolerance.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { MetricSample } from '../../model/metric.js';
import { staleMarker } from '../../model/metric.js';
import { DuckdbSeriesSource, insertSamples, METRIC_TABLES_SQL } from '../../stores/telemetry/duckdb/samples-sql.js';
import { startTestEngine, type TestEngine } from '../../stores/telemetry/clickhouse/test-engine.js';
import type { TelemetryStore } from '../../stores/telemetry/telemetry-store.js';
import {
  agreementExpressions, agreementSeries, agreementTimes, ORDERED, type AgreementTimes,
} from '../../../test/fixtures/promql/agreement-data.js';
import { prometheusAvailable, PROMETHEUS_BIN, startPrometheus, type PrometheusServer } from '../../../test/fixtures/promql/prometheus-server.js';
import { remoteWrite, type FixtureSeries } from '../../../test/fixtures/promql/remote-write.js';
import { promQuery, promQueryRange } from './prometheus-api.js';
import { MemorySeriesSource, type SeriesSource } from '../../model/series-source.js';

const TENANT = 't1';

interface ResultItem { metric: Record<string, string>; value?: [number, string]; values?: [number, string][] }
interface QueryBody { status: string; errorType?: string; data?: { resultType: string; result: unknown } }

function toSamples(series: FixtureSeries[]): MetricSample[] {
  return series.flatMap((s) => {
    const { __name__: name = '', ...labels } = s.labels;
    return s.samples.map((p) => ({ name, labels, timeMs: p.t, value: p.stale === true ? staleMarker() : p.v }));
  });
}

function close(a: string, b: string): boolean {
  if (a === b) return true;
  const x = Number(a.replace('+Inf', 'Infinity').replace('-Inf', '-Infinity'));
  const y = Number(b.replace('+Inf', 'Infinity').replace('-Inf', '-Infinity'));
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  const diff = Math.abs(x - y);
  return diff <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) || diff < 1e-12;
}

function key(metric: Record<string, string>): string {
  return JSON.stringify(Object.keys(metric).sort().map((k) => [k, metric[k]]));
}

function samePairs(want: [number, string][], got: [number, string][], where: string): void {
  assert.equal(got.length, want.length, `${where}: ${got.length} points, Prometheus has ${want.length}`);
  want.forEach(([t, v], i) => {
    const g = got[i];
    assert.ok(g && Math.abs(g[0] - t) < 1e-6, `${where}: point ${i} at ${g?.[0]}, Prometheus at ${t}`);
    assert.ok(close(v, g[1]), `${where}: at ${t} got ${g[1]}, Prometheus ${v}`);
  });
}

function sameBody(want: QueryBody, got: QueryBody, ordered: boolean, where: string): void {
  assert.equal(got.status, want.status, `${where}: status ${got.status} (${JSON.stringify(got)}), Prometheus ${want.status} (${JSON.stringify(want)})`);
  assert.equal(got.errorType, want.errorType, `${where}: error type (${JSON.stringify(got)}), Prometheus ${JSON.stringify(want)}`);
  if (want.status !== 'success' || !want.data || !got.data) return;
  assert.equal(got.data.resultType, want.data.resultType, `${where}: result type`);
  if (want.data.resultType === 'scalar' || want.data.resultType === 'string') {
    samePairs([want.data.result as [number, string]], [got.data.result as [number, string]], where);
    return;
  }
  const w = want.data.result as ResultItem[];
  const g = got.data.result as ResultItem[];
  const gotByKey = new Map(g.map((r) => [key(r.metric), r]));
  assert.deepEqual([...gotByKey.keys()].sort(), w.map((r) => key(r.metric)).sort(), `${where}: label sets`);
  if (ordered) assert.deepEqual(g.map((r) => key(r.metric)), w.map((r) => key(r.metric)), `${where}: order`);
  for (const r of w) {
    const mine = gotByKey.get(key(r.metric));
    const label = `${where} ${key(r.metric)}`;
    if (r.value) samePairs([r.value], mine?.value ? [mine.value] : [], label);
    else samePairs(r.values ?? [], mine?.values ?? [], label);
  }
}

async function askPrometheus(server: PrometheusServer, path: string, params: URLSearchParams): Promise<QueryBody> {
  const res = await fetch(`${server.baseUrl}/api/v1/${path}`, { method: 'POST', body: params });
  return (await res.json()) as QueryBody;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function instantParams(expr: string, t: number): URLSearchParams {
  return new URLSearchParams({ query: expr, time: seconds(t) });
}

function rangeParams(expr: string, start: number, end: number, step: string): URLSearchParams {
  return new URLSearchParams({ query: expr, start: seconds(start), end: seconds(end), step });
}

function queriesFor(times: AgreementTimes): { name: string; path: 'query' | 'query_range'; params: (e: string) => URLSearchParams }[] {
  const instants: [string, number][] = [
    ['end', times.end], ['mid', times.mid], ['afterStale', times.afterStale], ['lookbackEdge', times.lookbackEdge],
    ['pastLookback', times.pastLookback], ['afterEnd', times.afterEnd],
  ];
  return [
    ...instants.map(([name, t]) => ({ name: `instant@${name}`, path: 'query' as const, params: (e: string) => instantParams(e, t) })),
    { name: 'range/30s', path: 'query_range', params: (e) => rangeParams(e, times.t0 + 180_000, times.afterEnd, '30s') },
    { name: 'range/47s', path: 'query_range', params: (e) => rangeParams(e, times.t0 + 1_234, times.end, '47') },
  ];
}

const available = prometheusAvailable();

describe('agreement with Prometheus 2.42 on the same samples', {
  skip: available ? false : `${PROMETHEUS_BIN} is absent: install Debian's prometheus package to run the agreement test`,
}, () => {
  let server: PrometheusServer | undefined;
  let db: DuckDBInstance | undefined;
  let conn: DuckDBConnection | undefined;
  let chEngine: TestEngine | undefined;
  let chStore: TelemetryStore | undefined;
  const sources: [string, SeriesSource][] = [];
  const t0 = Math.floor((Date.now() - 58 * 60_000) / 60_000) * 60_000;
  const times = agreementTimes(t0);

  before(async () => {
    const series = agreementSeries(t0);
    server = await startPrometheus();
    await remoteWrite(server.baseUrl, series);
    const memory = new MemorySeriesSource();
    memory.add(TENANT, toSamples(series));
    db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    conn = c;
    const exec = { all: async (sql: string, params: (string | number | bigint | boolean | null)[]) => (await c.runAndReadAll(sql, params)).getRowObjectsJS() };
    for (const sql of METRIC_TABLES_SQL) await exec.all(sql, []);
    await insertSamples(exec, TENANT, toSamples(series));
    sources.push(['memory', memory], ['duckdb', new DuckdbSeriesSource(exec)]);
    chEngine = await startTestEngine();
    chStore = await chEngine.open('agreement');
    await chStore.write([{ tenantId: TENANT, format: 'remote_write', batch: { logs: [], spans: [], samples: toSamples(series) } }], 1n);
    sources.push(['clickhouse', chStore.metrics]);
  });

  after(async () => {
    conn?.closeSync();
    db?.closeSync();
    await chStore?.close();
    await chEngine?.close();
    await server?.stop();
  });

  const expressions = agreementExpressions(agreementTimes(t0));
  it('covers at least 40 expressions', () => assert.ok(expressions.length >= 40, `${expressions.length} expressions`));

  for (const expr of expressions) {
    it(`agrees on ${expr}`, async () => {
      assert.ok(server);
      for (const q of queriesFor(times)) {
        const want = await askPrometheus(server, q.path, q.params(expr));
        for (const [name, source] of sources) {
          const handler = q.path === 'query' ? promQuery : promQueryRange;
          const got = await handler(source, TENANT, q.params(expr), Date.now());
          sameBody(want, got.body as QueryBody, ORDERED.has(expr) && q.path === 'query', `${q.name} on ${name}`);
        }
      }
    });
  }
});
