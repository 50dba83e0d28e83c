// Metric samples into DuckDB inside the store's write transaction (issue 5): each new series once, every
// sample through an appender a vector at a time (the hot path: a remote-write request may carry 500,000), metadata once.
import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { samplesOf, type TenantBatch } from '../../../model/batch.js';
import { isStaleMarker, type MetricMetadata } from '../../../model/metric.js';
import { SAMPLE_COLUMNS, SeriesIndex, type SeriesRow } from './samples-sql.js';
import { ChunkWriter, type ColumnKind } from './chunk-writer.js';
import { appendChunks, withAppender } from './appender.js';
import { ChunksAhead, type PreparedChunks } from './chunks-ahead.js';
import { recordTenants, type TenantRefs } from './sample-tenants.js';

/** The kinds of SAMPLE_COLUMNS, in order. */
const SAMPLE_KINDS: ColumnKind[] = ['bigint', 'bigint', 'bigint', 'double', 'boolean'];
if (SAMPLE_KINDS.length !== SAMPLE_COLUMNS.length) throw new Error('metrics-store: SAMPLE_KINDS does not match SAMPLE_COLUMNS');

/** The writer connection's staging table for new series (insertSeries). */
const SERIES_STAGE = 'metric_series_stage';

/** Rows per INSERT OR IGNORE of metadata: metric families are few. */
const ROWS_PER_STATEMENT = 400;

/** A committed key: its scope (a tenant's series, or metadata) and the key within it. */
export type CommittedKey = readonly [scope: string, key: string];

/**
 * Keys of the series and metadata rows this process has seen committed. Neither table is ever deleted from
 * (retention deletes samples), so a key in here needs no INSERT OR IGNORE: the same series arrive with every scrape,
 * and checking each against the primary key was most of a remote-write batch's time in DuckDB (issue 12 item 2).
 * By scope, so that a tenant's series are looked up by the id text each series already holds: one key string built
 * and hashed per series per write was ~8 % of the store worker's time under remote write.
 * Bounded: past `limit` keys it starts again empty, which costs only the inserts it saved.
 */
export class CommittedKeys {
  private scopes = new Map<string, Set<string>>();
  private size = 0;
  constructor(private readonly limit = 1_000_000) {}
  /** The keys committed in `scope`, for looking up many. */
  keysOf(scope: string): ReadonlySet<string> {
    return this.scopes.get(scope) ?? NONE;
  }
  has(scope: string, key: string): boolean {
    return this.keysOf(scope).has(key);
  }
  /** Called once the transaction that inserted `added` has committed. */
  commit(added: readonly CommittedKey[]): void {
    if (this.size + added.length > this.limit) {
      this.scopes = new Map();
      this.size = 0;
    }
    for (const [scope, key] of added) {
      let keys = this.scopes.get(scope);
      if (!keys) this.scopes.set(scope, (keys = new Set()));
      if (!keys.has(key)) {
        keys.add(key);
        this.size++;
      }
    }
  }
}
const NONE: ReadonlySet<string> = new Set();
/** The scope of metadata rows and of a tenant's series (sample-tenants.ts has the tenant numbers'). */
const METADATA_SCOPE = 'm';
const seriesScope = (tenantId: string): string => `s\u0000${tenantId}`;

/** Whether a write has samples to append (a batch may carry only metadata, or no metrics at all). */
export function hasSamples(batches: readonly TenantBatch[]): boolean {
  return batches.some((b) => (b.batch.samples?.length ?? 0) > 0 || (b.batch.deferredSamples?.rows ?? 0) > 0);
}

/**
 * What a write's metric chunks leave to insert once appended: the number of each tenant with samples
 * (sample-tenants.ts), each batch's series and metadata families.
 */
export interface MetricRows {
  tenants: Map<string, number>;
  series: { tenantId: string; rows: ReadonlyMap<string, SeriesRow> }[];
  metadata: { tenantId: string; families: readonly MetricMetadata[] }[];
}

/** A write's sample chunks, built or to build (chunks-ahead.ts), and what they leave to insert. */
export interface PreparedMetrics extends PreparedChunks {
  rows: MetricRows;
}

/**
 * The samples of `batches` as chunks of rows, built one at a time as they are asked for; `rows` gets each batch's
 * series and metadata as its samples are read. Straight from the samples into the vectors (chunk-writer.ts): no row
 * object per sample. A deferred batch is parsed here, when its turn comes, and let go after (model/batch.ts
 * DeferredSamples). Building needs no transaction, so it can run while the write before commits (MetricPrefetch).
 */
export function* metricChunks(batches: TenantBatch[], rows: MetricRows, tenants: TenantRefs): Generator<DuckDBDataChunk, void> {
  const w = new ChunkWriter(SAMPLE_KINDS);
  let tenantRef = 0;
  /** Writes one sample's row; true when that filled the chunk. */
  const put = (series: SeriesRow, timeMs: number, value: number): boolean => {
    const stale = isStaleMarker(value);
    w.int(0, tenantRef);
    w.bigint(1, series.seriesId);
    w.int(2, Math.trunc(timeMs));
    w.double(3, stale ? Number.NaN : value);
    w.boolean(4, stale);
    return w.endRow();
  };
  for (const { tenantId, batch } of batches) {
    const index = new SeriesIndex(tenantId);
    tenantRef = tenants.refOf(tenantId);
    rows.tenants.set(tenantId, tenantRef);
    // Columns when the format reads them so (remote write 1.0, OTLP gauges and sums): no object per sample.
    const columns = batch.deferredSamples?.readColumns?.() ?? null;
    if (columns !== null) {
      rows.metadata.push({ tenantId, families: columns.metadata });
      const seriesRows = columns.series.map((s) => index.ofSeries(s.name, s.labels));
      for (let k = 0; k < columns.count; k++) {
        const series = seriesRows[columns.seriesOf[k] ?? 0];
        if (series === undefined) throw new RangeError(`metrics-store: sample ${k} names no series`);
        if (put(series, columns.timeMs[k] ?? 0, columns.values[k] ?? 0)) yield w.take() as DuckDBDataChunk;
      }
    } else {
      const { samples, metadata } = samplesOf(batch);
      rows.metadata.push({ tenantId, families: metadata });
      for (const s of samples) if (put(index.of(s), s.timeMs, s.value)) yield w.take() as DuckDBDataChunk;
    }
    rows.series.push({ tenantId, rows: index.series });
    const last = w.take();
    if (last) yield last;
  }
}

/** Most sample chunks built ahead: 262,144 rows, a whole write of the drain's (~15 MB of vectors). */
export const MAX_METRIC_CHUNKS_AHEAD = 128;

/** The next write's sample chunks, built while the write before commits (chunks-ahead.ts). */
export class MetricPrefetch {
  private readonly rows: MetricRows = { tenants: new Map(), series: [], metadata: [] };
  private readonly ahead: ChunksAhead;
  constructor(readonly batches: TenantBatch[], start: Promise<void>, tenants: TenantRefs) {
    this.ahead = new ChunksAhead(metricChunks(batches, this.rows, tenants), MAX_METRIC_CHUNKS_AHEAD, start);
  }
  take(): PreparedMetrics {
    return { ...this.ahead.take(), rows: this.rows };
  }
  drop(): void {
    this.ahead.drop();
  }
}

/**
 * Appends the batches' samples (`ahead`: their chunks begun by a MetricPrefetch, with the same `tenants`) and inserts
 * the tenant numbers, series and metadata rows not in `known`. Returns the keys it inserted, for known.commit() after
 * COMMIT (a rolled-back insert must not be remembered).
 */
export async function appendMetrics(c: DuckDBConnection, batches: TenantBatch[], known: CommittedKeys, tenants: TenantRefs,
  ahead?: PreparedMetrics): Promise<CommittedKey[]> {
  const rows: MetricRows = ahead?.rows ?? { tenants: new Map(), series: [], metadata: [] };
  const chunks = ahead ?? { built: [], rest: metricChunks(batches, rows, tenants) };
  // Without samples there is no appender to open: the chunks' generator only reads the batches' metadata.
  if (hasSamples(batches)) await appendChunks(c, 'metric_samples', chunks);
  else while (chunks.rest.next().done !== true) continue;
  /** New series by scope and id text. */
  const series = new Map<string, Map<string, SeriesRow>>();
  for (const { tenantId, rows: indexed } of rows.series) {
    const scope = seriesScope(tenantId);
    const committed = known.keysOf(scope);
    let added = series.get(scope);
    for (const row of indexed.values()) {
      // A sender's series come with every write: one found committed before is not looked up again (a lookup in a set
      // of up to a million keys was ~5 % of the store worker's time under remote write). A set only grows until
      // CommittedKeys starts again with new ones, so a row found in this very set is in it still.
      if (row.knownIn === committed) continue;
      if (committed.has(row.idText)) {
        row.knownIn = committed;
        continue;
      }
      if (!added) series.set(scope, (added = new Map<string, SeriesRow>()));
      added.set(row.idText, row);
    }
  }
  const metadata = new Map<string, [string, string, string, string, string]>();
  for (const { tenantId, families } of rows.metadata) {
    for (const m of families) {
      const row: [string, string, string, string, string] = [tenantId, m.name, m.type, m.help, m.unit];
      const key = row.join('\u0000');
      if (!known.has(METADATA_SCOPE, key)) metadata.set(key, row);
    }
  }
  const added = await recordTenants(c, rows.tenants, known);
  await insertSeries(c, [...series.values()].flatMap((byId) => [...byId.values()]));
  await insertIgnoring(c, 'metric_metadata', '($1, $2, $3, $4, $5)', 5, [...metadata.values()]);
  for (const [scope, byId] of series) for (const id of byId.keys()) added.push([scope, id]);
  for (const key of metadata.keys()) added.push([METADATA_SCOPE, key]);
  return added;
}

/**
 * New series through a staging table: appended a vector at a time, then one INSERT OR IGNORE … SELECT. A VALUES list
 * of 400 bound rows took ~150 µs a series (12,000 new series held a write for 1.5–2.7 s); this takes a few µs.
 */
async function insertSeries(c: DuckDBConnection, rows: readonly SeriesRow[]): Promise<void> {
  if (rows.length === 0) return;
  await c.run(`CREATE TEMP TABLE IF NOT EXISTS ${SERIES_STAGE} (tenant_id VARCHAR, series_id BIGINT, name VARCHAR, labels VARCHAR)`);
  await withAppender(c, SERIES_STAGE, (a) => {
    const w = new ChunkWriter(['varchar', 'bigint', 'varchar', 'varchar']);
    for (const r of rows) {
      w.string(0, r.tenantId);
      w.bigint(1, r.seriesId);
      w.string(2, r.name);
      w.string(3, r.labelsJson);
      if (w.endRow()) w.flush(a);
    }
    w.flush(a);
  });
  await c.run(`INSERT OR IGNORE INTO metric_series SELECT tenant_id, series_id, name, CAST(labels AS JSON) FROM ${SERIES_STAGE}`);
  await c.run(`DELETE FROM ${SERIES_STAGE}`);
}

/** INSERT OR IGNORE in chunks; `tuple` is written for parameters $1…$width and renumbered per row. */
async function insertIgnoring(c: DuckDBConnection, table: string, tuple: string, width: number,
  rows: (string | bigint)[][]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    const values = chunk.map((_, j) => tuple.replace(/\$(\d+)/g, (_m, n: string) => `$${j * width + Number(n)}`));
    await c.run(`INSERT OR IGNORE INTO ${table} VALUES ${values.join(', ')}`, chunk.flat());
  }
}
