// The LogsQL reads of the telemetry store (telemetry-store.ts) on ClickHouse (issue 11 items 1–3): the one compiler
// of ../sql/ in ClickHouse's dialect (clickhouse-dialect.ts) over the `logs` table of logs-schema.ts. Each takes the
// store's executor first, then the tenant; values are always bound as `{pN:Type}` parameters.
import type { Filter, LogsqlQuery } from '../../../model/logsql-ast.js';
import type {
  Facet, FacetsOptions, HitsSeries, LogRow, TimeRange, ValueCounts, ValueCountsRequest, ValueHits,
} from '../telemetry-store.js';
import * as facets from '../sql/logsql-facets.js';
import * as reads from '../sql/logsql-reads.js';
import { oldestLogNs } from '../sql/oldest-logs.js';
import { logValueCounts as valueCounts } from '../sql/value-counts.js';
import { onClickhouse } from './clickhouse-dialect.js';
import type { ChExecutor } from './executor.js';
import type { ChunkSink, SqlParam } from '../sql/dialect.js';

export function searchLogs(exec: Pick<ChExecutor, 'query'>, tenantId: string, q: LogsqlQuery, range: TimeRange, limit: number): Promise<LogRow[]> {
  return reads.searchLogs(onClickhouse(exec), tenantId, q, range, limit);
}

/** searchLogs streamed (issue 12 item 5): the same statement, its rows handed over a chunk at a time. */
export function streamLogs(
  exec: ChExecutor, tenantId: string, q: LogsqlQuery, range: TimeRange, limit: number, onChunk: ChunkSink<LogRow>, signal?: AbortSignal,
): Promise<void> {
  const db = { ...onClickhouse(exec), stream: (sql: string, params: SqlParam[], sink: ChunkSink<Record<string, unknown>>, s?: AbortSignal) =>
    exec.stream(sql, Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v])), sink, s) };
  return reads.streamLogs(db, tenantId, q, range, limit, onChunk, signal);
}

export function logHits(exec: ChExecutor, tenantId: string, q: LogsqlQuery, range: TimeRange, stepNs: bigint): Promise<HitsSeries[]> {
  return reads.logHits(onClickhouse(exec), tenantId, q, range, stepNs);
}

export function logFieldNames(exec: ChExecutor, tenantId: string, q: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
  return reads.logFieldNames(onClickhouse(exec), tenantId, q, range);
}

export function logFieldValues(
  exec: ChExecutor, tenantId: string, q: LogsqlQuery, range: TimeRange, field: string, limit: number,
): Promise<ValueHits[]> {
  return reads.logFieldValues(onClickhouse(exec), tenantId, q, range, field, limit);
}

export function logFacets(exec: ChExecutor, tenantId: string, q: LogsqlQuery, range: TimeRange, opts: FacetsOptions): Promise<Facet[]> {
  return facets.logFacets(onClickhouse(exec), tenantId, q, range, opts);
}

export function logStreamFieldNames(exec: ChExecutor, tenantId: string, q: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
  return facets.logStreamFieldNames(onClickhouse(exec), tenantId, q, range);
}

export function logStreamFieldValues(
  exec: ChExecutor, tenantId: string, q: LogsqlQuery, range: TimeRange, field: string, limit: number,
): Promise<ValueHits[]> {
  return facets.logStreamFieldValues(onClickhouse(exec), tenantId, q, range, field, limit);
}

export function logValueCounts(exec: ChExecutor, tenantId: string, q: LogsqlQuery, req: ValueCountsRequest): Promise<ValueCounts> {
  return valueCounts(onClickhouse(exec), tenantId, q, req);
}

/**
 * The logs and RUM cases of oldestData (detectors' `min_history`, DESIGN §8): unix ns of the tenant's oldest entry
 * passing `filter` (browser RUM entries only with `rum`), null when none.
 */
export function oldestLogs(exec: ChExecutor, tenantId: string, filter: Filter, rum: boolean): Promise<bigint | null> {
  return oldestLogNs(onClickhouse(exec), tenantId, filter, rum);
}
