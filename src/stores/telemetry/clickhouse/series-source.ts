// Metric samples in ClickHouse (issue 11 item 1): the rows a write inserts, and ClickhouseSeriesSource, the PromQL
// engine's SeriesSource over the store (model/series-source.ts; the DuckDB twin is duckdb/samples-sql.ts).
// Label matchers resolve on `series` first, then samples are read by (tenant, metric, fingerprint, ts), the sort key
// (clickhouse.md "Metrics"). The fingerprint is duckdb/samples-sql.ts's series id, so both stores name a series alike.
// Matchers compile to parameters; regexes go to RE2 (`match`), anchored as Prometheus anchors them; an absent label
// reads as '' (a Map's missing key), as Prometheus reads it.
import type { TenantBatch } from '../../../model/batch.js';
import type { MetricMetadata } from '../../../model/metric.js';
import type { LabelMatcher, SeriesSource, StoredSeries } from '../../../model/series-source.js';
import { sampleRows } from '../duckdb/samples-sql.js';
import type { ChExecutor, ChParams } from './executor.js';
import { float, floatIn, num, str } from './values.js';

export interface MetricRows {
  series: Record<string, unknown>[];
  samples: Record<string, unknown>[];
  metadata: Record<string, unknown>[];
}

/** The rows of every table a batch's metrics go to; each series once per batch. */
export function metricRows(batches: readonly TenantBatch[]): MetricRows {
  const series = new Map<string, Record<string, unknown>>();
  const samples: Record<string, unknown>[] = [];
  const metadata: Record<string, unknown>[] = [];
  for (const { tenantId, batch } of batches) {
    if (batch.samples && batch.samples.length > 0) {
      const rows = sampleRows(tenantId, batch.samples);
      for (const s of rows.series) {
        series.set(`${tenantId}\u0000${s.seriesId}`, {
          tenant_id: tenantId, metric: s.name, fingerprint: s.seriesId.toString(), labels: JSON.parse(s.labelsJson) as unknown,
        });
      }
      for (const r of rows.samples) {
        samples.push({
          tenant_id: tenantId, metric: r.name, fingerprint: r.seriesId.toString(), ts: r.timeMs.toString(),
          value: r.stale ? 'nan' : floatIn(r.value), stale: r.stale ? 1 : 0,
        });
      }
    }
    for (const m of batch.metadata ?? []) metadata.push({ tenant_id: tenantId, name: m.name, type: m.type, help: m.help, unit: m.unit });
  }
  return { series: [...series.values()], samples, metadata };
}

/** Named parameters p0, p1, …, the tenant as `tenant`. */
class Params {
  readonly values: ChParams;
  private n = 0;
  constructor(tenantId: string) {
    this.values = { tenant: tenantId };
  }
  add(v: unknown, type: string): string {
    const name = `p${this.n++}`;
    this.values[name] = v;
    return `{${name}:${type}}`;
  }
}

/** One matcher as a condition on `series`. */
function matcherSql(m: LabelMatcher, p: Params): string {
  const col = m.name === '__name__' ? 'metric' : `labels[${p.add(m.name, 'String')}]`;
  switch (m.type) {
    case '=': return `${col} = ${p.add(m.value, 'String')}`;
    case '!=': return `${col} != ${p.add(m.value, 'String')}`;
    case '=~': return `match(${col}, ${p.add(`^(?:${m.value})$`, 'String')})`;
    case '!~': return `NOT match(${col}, ${p.add(`^(?:${m.value})$`, 'String')})`;
  }
}

function setSql(set: readonly LabelMatcher[], p: Params): string {
  return set.length === 0 ? '1' : set.map((m) => `(${matcherSql(m, p)})`).join(' AND ');
}

function timeParam(ms: number, p: Params): string {
  return p.add(Math.trunc(Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, ms))).toString(), 'Int64');
}

/** `series` rows of the tenant matching any set (all when none) with a sample in [start, end]. */
function seriesWhere(sets: readonly LabelMatcher[][], startMs: number, endMs: number, p: Params): string {
  const any = sets.length === 0 ? '1' : sets.map((s) => `(${setSql(s, p)})`).join(' OR ');
  return `tenant_id = {tenant:String} AND (${any}) AND fingerprint IN (SELECT fingerprint FROM samples ` +
    `WHERE tenant_id = {tenant:String} AND ts BETWEEN ${timeParam(startMs, p)} AND ${timeParam(endMs, p)})`;
}

function labelsOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out[k] = str(x);
  return out;
}

export class ClickhouseSeriesSource implements SeriesSource {
  constructor(private readonly exec: ChExecutor) {}

  async select(tenantId: string, matchers: LabelMatcher[], startMs: number, endMs: number): Promise<StoredSeries[]> {
    const p = new Params(tenantId);
    const nameEq = matchers.find((m) => m.name === '__name__' && m.type === '=');
    const sql = `SELECT d.fingerprint AS fingerprint, s.metric AS metric, s.labels AS labels, d.ts AS ts,
        toString(d.value) AS value, d.stale AS stale
      FROM samples AS d
      INNER JOIN (SELECT DISTINCT fingerprint, metric, labels FROM series
                  WHERE tenant_id = {tenant:String} AND ${setSql(matchers, p)}) AS s
        ON d.fingerprint = s.fingerprint AND d.metric = s.metric
      WHERE d.tenant_id = {tenant:String} ${nameEq ? `AND d.metric = ${p.add(nameEq.value, 'String')}` : ''}
        AND d.ts BETWEEN ${timeParam(startMs, p)} AND ${timeParam(endMs, p)}
      ORDER BY d.fingerprint, d.ts`;
    const out: StoredSeries[] = [];
    let current: StoredSeries | undefined;
    let currentId: unknown;
    for (const r of await this.exec.query(sql, p.values)) {
      if (!current || r.fingerprint !== currentId) {
        current = { labels: { ...labelsOf(r.labels), __name__: str(r.metric) }, samples: [] };
        currentId = r.fingerprint;
        out.push(current);
      }
      const t = num(r.ts);
      // Two writes of one timestamp: Prometheus keeps one sample; so do we.
      if (current.samples[current.samples.length - 1]?.t === t) continue;
      current.samples.push(num(r.stale) === 1 ? { t, v: Number.NaN, stale: true } : { t, v: float(r.value) });
    }
    return out;
  }

  async series(tenantId: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<Record<string, string>[]> {
    const p = new Params(tenantId);
    const sql = `SELECT DISTINCT metric, labels FROM series WHERE ${seriesWhere(matchers, startMs, endMs, p)}`;
    return (await this.exec.query(sql, p.values)).map((r) => ({ ...labelsOf(r.labels), __name__: str(r.metric) }));
  }

  async labelNames(tenantId: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<string[]> {
    const p = new Params(tenantId);
    const sql = `SELECT DISTINCT arrayJoin(arrayPushBack(mapKeys(labels), '__name__')) AS k FROM series ` +
      `WHERE ${seriesWhere(matchers, startMs, endMs, p)} ORDER BY k`;
    return (await this.exec.query(sql, p.values)).map((r) => str(r.k));
  }

  async labelValues(tenantId: string, name: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<string[]> {
    const p = new Params(tenantId);
    const col = name === '__name__' ? 'metric' : `labels[${p.add(name, 'String')}]`;
    const sql = `SELECT DISTINCT ${col} AS v FROM series WHERE ${seriesWhere(matchers, startMs, endMs, p)} AND v != '' ORDER BY v`;
    return (await this.exec.query(sql, p.values)).map((r) => str(r.v));
  }

  async metadata(tenantId: string, metric?: string, limit?: number): Promise<MetricMetadata[]> {
    const p = new Params(tenantId);
    let where = 'tenant_id = {tenant:String}';
    if (metric !== undefined) where += ` AND name = ${p.add(metric, 'String')}`;
    if (limit !== undefined && limit > 0) {
      where += ` AND name IN (SELECT DISTINCT name FROM metric_metadata WHERE ${where} ORDER BY name LIMIT ${p.add(Math.trunc(limit), 'UInt64')})`;
    }
    const rows = await this.exec.query(
      `SELECT DISTINCT name, type, help, unit FROM metric_metadata WHERE ${where} ORDER BY name, type, help, unit`, p.values);
    return rows.map((r) => ({ name: str(r.name), type: str(r.type), help: str(r.help), unit: str(r.unit) }));
  }
}
