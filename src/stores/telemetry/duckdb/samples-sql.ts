// Metric samples in DuckDB, for the Prometheus API (DESIGN §4, query/promql/): the tables, the rows a write
// appends, and DuckdbSeriesSource, the PromQL engine's SeriesSource over the store's read executor.
// A series is stored once in metric_series, keyed per tenant by a 63-bit hash of its sorted label set, with its name;
// a sample row holds its tenant's number (sample-tenants.ts) and its series id, and a read selects the series first and
// joins their samples by id within the tenant and time range. A staleness marker is a row with `stale`: DuckDB keeps
// NaN but not its payload bits.
// Matchers compile to parameters only; regex matchers use RE2 (`regexp_full_match`), fully anchored as
// Prometheus anchors them; an absent label reads as "".
import { createHash } from 'node:crypto';
import { isStaleMarker, setLabel, type MetricMetadata, type MetricSample } from '../../../model/metric.js';
import type { LabelMatcher, SeriesSource, StoredSeries } from '../../../model/series-source.js';
import type { SqlExecutor, SqlParam } from '../sql/dialect.js';
import { ADD_TENANT_SQL, samplesTableSql, TENANT_REF_SQL, TENANTS_TABLE_SQL } from './sample-tenants.js';

export const SERIES_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS metric_series (
  tenant_id VARCHAR NOT NULL, series_id BIGINT NOT NULL, name VARCHAR NOT NULL, labels JSON NOT NULL,
  PRIMARY KEY (tenant_id, series_id))`;

export const SAMPLES_TABLE_SQL = samplesTableSql('metric_samples');

export const METADATA_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS metric_metadata (
  tenant_id VARCHAR NOT NULL, name VARCHAR NOT NULL, type VARCHAR NOT NULL, help VARCHAR NOT NULL,
  unit VARCHAR NOT NULL, PRIMARY KEY (tenant_id, name, type, help, unit))`;

/** Every statement the store runs at open, in order. */
export const METRIC_TABLES_SQL: readonly string[] = [SERIES_TABLE_SQL, TENANTS_TABLE_SQL, SAMPLES_TABLE_SQL, METADATA_TABLE_SQL];

/** Column order of the tables, for positional appenders (and a check at open, as duckdb-store does). */
export const SERIES_COLUMNS = ['tenant_id', 'series_id', 'name', 'labels'] as const;
export const SAMPLE_COLUMNS = ['tenant_ref', 'series_id', 'time_ms', 'value', 'stale'] as const;
export const METADATA_COLUMNS = ['tenant_id', 'name', 'type', 'help', 'unit'] as const;

/**
 * `idText`: the id in decimal, for keys (metrics-store.ts CommittedKeys). `knownIn`: the set of committed keys the row
 * was last found in (appendMetrics), which tells without a lookup while that set is the one in use.
 */
export interface SeriesRow {
  tenantId: string; seriesId: bigint; name: string; labelsJson: string; idText: string; knownIn?: ReadonlySet<string>;
}
/** `value` is NaN when `stale`; append it as a DOUBLE. */
export interface SampleRow { tenantId: string; seriesId: bigint; name: string; timeMs: bigint; value: number; stale: boolean }

/** The labels other than the name, sorted, empty values left out (Prometheus: an empty label is no label). */
function canonicalLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(labels).sort()) {
    const v = labels[k];
    if (k !== '__name__' && v !== undefined && v !== '') setLabel(out, k, v);
  }
  return out;
}

/** The series id: the first 63 bits of SHA-256 over name and sorted labels (fits BIGINT, never negative). */
export function seriesId(name: string, labels: Readonly<Record<string, string>>): bigint {
  const h = createHash('sha256').update(name);
  for (const [k, v] of Object.entries(canonicalLabels(labels))) h.update(`\u0000${k}\u0000${v}`);
  return h.digest().readBigUInt64BE(0) >> 1n;
}

/**
 * Series ids by SeriesIndex key (the name and the canonical labels' JSON, which say which series): remote write sends
 * the same series with every scrape, and hashing them again on every write was ~12 % of the store worker's time.
 * Bounded: past the limit it starts again empty, which costs only the hashing it saved.
 */
const knownSeriesIds = new Map<string, bigint>();
const MAX_KNOWN_SERIES_IDS = 200_000;

function knownSeriesId(key: string, name: string, labels: Readonly<Record<string, string>>): bigint {
  let id = knownSeriesIds.get(key);
  if (id === undefined) {
    id = seriesId(name, labels);
    if (knownSeriesIds.size >= MAX_KNOWN_SERIES_IDS) knownSeriesIds.clear();
    knownSeriesIds.set(key, id);
  }
  return id;
}

/**
 * What a series is, whatever its tenant: its SeriesIndex key, its labels' JSON and its id (and the id as text); `row`,
 * its SeriesRow for the tenant it was last asked for (a sender's series come back with every write, of one tenant).
 */
interface SeriesIdentity {
  name: string;
  key: string;
  labelsJson: string;
  seriesId: bigint;
  idText: string;
  row: SeriesRow | null;
}

/**
 * Series identities by labels object. The wire readers hand out one labels object per series for as long as they keep
 * it (ingest/metrics/known-series.ts), so a series seen before is found without sorting, JSON or hashing: they were
 * most of the store worker's time under OTLP metrics, whose every point may be a series of its own. Labels objects are
 * never changed once made. Weak: an object no one holds any more takes its entry with it.
 */
const identities = new WeakMap<object, SeriesIdentity>();

function identityOf(name: string, labelsObject: Readonly<Record<string, string>>): SeriesIdentity {
  let identity = identities.get(labelsObject);
  if (identity?.name !== name) {
    const labels = canonicalLabels(labelsObject);
    const labelsJson = JSON.stringify(labels);
    const key = `${name}\u0000${labelsJson}`;
    const id = knownSeriesId(key, name, labels);
    identity = { name, key, labelsJson, seriesId: id, idText: id.toString(), row: null };
    identities.set(labelsObject, identity);
  }
  return identity;
}

/**
 * Each sample's series, for one tenant: every distinct series once in `series` (to insert with INSERT OR IGNORE).
 * The parsers hand every sample of a series the same labels object: sorting, JSON and hashing once per object
 * instead of once per sample made remote write's store side several times cheaper (issue 12 item 2).
 */
export class SeriesIndex {
  readonly series = new Map<string, SeriesRow>();
  private readonly byLabelsObject = new Map<Readonly<Record<string, string>>, SeriesRow>();
  constructor(private readonly tenantId: string) {}

  of(s: MetricSample): SeriesRow {
    return this.ofLabels(s.name, s.labels);
  }

  /** The series of `name` and `labels`, for a labels object that may come again in this batch (a sample's). */
  ofLabels(name: string, labelsObject: Readonly<Record<string, string>>): SeriesRow {
    let row = this.byLabelsObject.get(labelsObject);
    if (row?.name !== name) {
      row = this.ofSeries(name, labelsObject);
      this.byLabelsObject.set(labelsObject, row);
    }
    return row;
  }

  /** The series of `name` and `labels`, for a labels object given once (a series of a wire reader's columns). */
  ofSeries(name: string, labelsObject: Readonly<Record<string, string>>): SeriesRow {
    const identity = identityOf(name, labelsObject);
    let row = this.series.get(identity.key);
    if (row === undefined) {
      row = identity.row?.tenantId === this.tenantId ? identity.row
        : (identity.row = { tenantId: this.tenantId, seriesId: identity.seriesId, name, labelsJson: identity.labelsJson, idText: identity.idText });
      this.series.set(identity.key, row);
    }
    return row;
  }
}

/** The rows one batch adds: each distinct series once (insert with INSERT OR IGNORE) and every sample. */
export function sampleRows(tenantId: string, samples: readonly MetricSample[]): { series: SeriesRow[]; samples: SampleRow[] } {
  const index = new SeriesIndex(tenantId);
  const rows: SampleRow[] = samples.map((s) => {
    const stale = isStaleMarker(s.value);
    return { tenantId, seriesId: index.of(s).seriesId, name: s.name, timeMs: BigInt(Math.trunc(s.timeMs)), value: stale ? Number.NaN : s.value, stale };
  });
  return { series: [...index.series.values()], samples: rows };
}

/** A DOUBLE parameter as text: the binding would take an integral number such as 1e308 for an int64. */
function doubleParam(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}

const ROWS_PER_STATEMENT = 400;

async function insertChunked<T>(exec: SqlExecutor, head: string, rowSql: (base: number) => string, width: number,
  rows: readonly T[], values: (r: T) => SqlParam[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    const sql = head + chunk.map((_, j) => rowSql(j * width)).join(', ');
    await exec.all(sql, chunk.flatMap(values));
  }
}

/**
 * Writes a batch through plain INSERTs (tests and small writers): the tenant gets its number in SQL. The store appends
 * SAMPLE_COLUMNS instead, with the numbers its writer gives out (sample-tenants.ts TenantRefs); the two never share a file.
 */
export async function insertSamples(exec: SqlExecutor, tenantId: string, samples: readonly MetricSample[]): Promise<void> {
  const rows = sampleRows(tenantId, samples);
  await insertChunked(exec, 'INSERT OR IGNORE INTO metric_series VALUES ',
    (b) => `($${b + 1}, $${b + 2}, $${b + 3}, CAST($${b + 4} AS JSON))`, 4, rows.series,
    (r) => [r.tenantId, r.seriesId, r.name, r.labelsJson]);
  await exec.all(ADD_TENANT_SQL, [tenantId]);
  const ref = (await exec.all(`SELECT ${TENANT_REF_SQL} AS ref`, [tenantId]))[0]?.ref;
  if (typeof ref !== 'bigint' && typeof ref !== 'number') throw new Error(`samples-sql: tenant ${tenantId} got no number`);
  await insertChunked(exec, 'INSERT INTO metric_samples VALUES ',
    (b) => `($${b + 1}, $${b + 2}, $${b + 3}, CAST($${b + 4} AS DOUBLE), $${b + 5})`, 5, rows.samples,
    (r) => [BigInt(ref), r.seriesId, r.timeMs, doubleParam(r.value), r.stale]);
}

export async function insertMetadata(exec: SqlExecutor, tenantId: string, metadata: readonly MetricMetadata[]): Promise<void> {
  await insertChunked(exec, 'INSERT OR IGNORE INTO metric_metadata VALUES ',
    (b) => `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5})`, 5, metadata,
    (m) => [tenantId, m.name, m.type, m.help, m.unit]);
}

/** Numbered parameters, `$1` being the tenant id. */
class Params {
  readonly values: SqlParam[];
  constructor(tenantId: string) {
    this.values = [tenantId];
  }
  add(v: SqlParam): string {
    return `$${this.values.push(v)}`;
  }
}

/** One matcher as a condition on metric_series aliased `s`. */
function matcherSql(m: LabelMatcher, p: Params): string {
  const col = m.name === '__name__' ? 's.name' : `coalesce(s.labels->>${p.add(m.name)}, '')`;
  switch (m.type) {
    case '=': return `${col} = ${p.add(m.value)}`;
    case '!=': return `${col} <> ${p.add(m.value)}`;
    case '=~': return `regexp_full_match(${col}, ${p.add(m.value)})`;
    case '!~': return `NOT regexp_full_match(${col}, ${p.add(m.value)})`;
  }
}

function setSql(set: readonly LabelMatcher[], p: Params): string {
  return set.length === 0 ? 'TRUE' : set.map((m) => `(${matcherSql(m, p)})`).join(' AND ');
}

/** Series of the tenant matching any set (all when none) with a sample in [start, end]. */
function seriesWhere(sets: readonly LabelMatcher[][], startMs: number, endMs: number, p: Params): string {
  const any = sets.length === 0 ? 'TRUE' : sets.map((s) => `(${setSql(s, p)})`).join(' OR ');
  return `s.tenant_id = $1 AND (${any}) AND EXISTS (SELECT 1 FROM metric_samples d WHERE d.tenant_ref = ${TENANT_REF_SQL} ` +
    `AND d.series_id = s.series_id AND d.time_ms BETWEEN ${p.add(timeParam(startMs))} AND ${p.add(timeParam(endMs))})`;
}

function timeParam(ms: number): bigint {
  return BigInt(Math.trunc(Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, ms))));
}

function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : Number(v);
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v);
}

export class DuckdbSeriesSource implements SeriesSource {
  constructor(private readonly exec: SqlExecutor) {}

  async select(tenantId: string, matchers: LabelMatcher[], startMs: number, endMs: number): Promise<StoredSeries[]> {
    const p = new Params(tenantId);
    const sql = `WITH s AS (SELECT series_id, name, CAST(labels AS VARCHAR) AS labels_json FROM metric_series s ` +
      `WHERE s.tenant_id = $1 AND ${setSql(matchers, p)}) ` +
      'SELECT d.series_id, s.name, s.labels_json, d.time_ms, d.value, d.stale FROM metric_samples d ' +
      `JOIN s ON d.series_id = s.series_id WHERE d.tenant_ref = ${TENANT_REF_SQL} ` +
      `AND d.time_ms BETWEEN ${p.add(timeParam(startMs))} AND ${p.add(timeParam(endMs))} ORDER BY d.series_id, d.time_ms`;
    const out: StoredSeries[] = [];
    let current: StoredSeries | undefined;
    let currentId: unknown;
    for (const r of await this.exec.all(sql, p.values)) {
      if (!current || r.series_id !== currentId) {
        const labels = JSON.parse(text(r.labels_json)) as Record<string, string>;
        current = { labels: { ...labels, __name__: text(r.name) }, samples: [] };
        currentId = r.series_id;
        out.push(current);
      }
      const t = num(r.time_ms);
      // Two writes of one timestamp: Prometheus keeps one sample; so do we.
      if (current.samples[current.samples.length - 1]?.t === t) continue;
      current.samples.push(r.stale === true ? { t, v: Number.NaN, stale: true } : { t, v: num(r.value) });
    }
    return out;
  }

  async series(tenantId: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<Record<string, string>[]> {
    const p = new Params(tenantId);
    const sql = `SELECT s.name, CAST(s.labels AS VARCHAR) AS labels_json FROM metric_series s WHERE ${seriesWhere(matchers, startMs, endMs, p)}`;
    return (await this.exec.all(sql, p.values)).map((r) => ({ ...(JSON.parse(text(r.labels_json)) as Record<string, string>), __name__: text(r.name) }));
  }

  async labelNames(tenantId: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<string[]> {
    const p = new Params(tenantId);
    const sql = `SELECT DISTINCT unnest(list_append(json_keys(s.labels), '__name__')) AS k FROM metric_series s ` +
      `WHERE ${seriesWhere(matchers, startMs, endMs, p)} ORDER BY k`;
    return (await this.exec.all(sql, p.values)).map((r) => text(r.k));
  }

  async labelValues(tenantId: string, name: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<string[]> {
    const p = new Params(tenantId);
    const col = name === '__name__' ? 's.name' : `s.labels->>${p.add(name)}`;
    const sql = `SELECT DISTINCT ${col} AS v FROM metric_series s WHERE ${seriesWhere(matchers, startMs, endMs, p)} ` +
      `AND coalesce(${col}, '') <> '' ORDER BY v`;
    return (await this.exec.all(sql, p.values)).map((r) => text(r.v));
  }

  async metadata(tenantId: string, metric?: string, limit?: number): Promise<MetricMetadata[]> {
    const p = new Params(tenantId);
    let where = 'tenant_id = $1';
    if (metric !== undefined) where += ` AND name = ${p.add(metric)}`;
    if (limit !== undefined && limit > 0) {
      where += ` AND name IN (SELECT DISTINCT name FROM metric_metadata WHERE ${where} ORDER BY name LIMIT ${p.add(BigInt(Math.trunc(limit)))})`;
    }
    const rows = await this.exec.all(`SELECT name, type, help, unit FROM metric_metadata WHERE ${where} ORDER BY name, type, help, unit`, p.values);
    return rows.map((r) => ({ name: text(r.name), type: text(r.type), help: text(r.help), unit: text(r.unit) }));
  }
}
