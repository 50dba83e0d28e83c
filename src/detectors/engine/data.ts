// DetectorData over the real stores (detectors/model.ts), bound to one tenant: LogsQL through the query API's own
// compiler (query/logsql-request.ts) and the telemetry store, PromQL through the PromQL engine over the store's
// series, span durations and oldest data through the store's detector reads. Every call first takes one query from
// the tenant's query rate — the limiter the tenant API uses (spec "Plans": alert evaluation is a read bounded by the
// query rate); when it is spent the call throws EvaluationDeferred and the engine defers the evaluation.
// Windows are half-open `[startMs, endMs)` (issue 9 notes), as the store's ranges are.
import type { DetectorData, DetectorSignal, LogLine, Sample, Series, SpanDurations, Window } from '../model.js';
import type { Pipe, LogsqlQuery } from '../../model/logsql-ast.js';
import { canonicalField } from '../../model/logsql-ast.js';
import { compileLogsqlAt } from '../../query/logsql-request.js';
import { parseTimestamp } from '../../query/logsql/time-value.js';
import { evalInstant, evalRange } from '../../query/promql/engine.js';
import { parsePromql } from '../../query/promql/parse.js';
import type { Expr, VectorSelector } from '../../query/promql/ast.js';
import { msToNs } from '../../model/time.js';
import type { TelemetryStore, TimeRange } from '../../stores/telemetry/telemetry-store.js';
import { ServiceError } from '../../errors.js';
import type { Clock } from '../../clock.js';

/** Thrown when the tenant's query rate is spent: the evaluation is deferred, and its alerts show `error` (issue 9). */
export class EvaluationDeferred extends Error {
  constructor(readonly retryAfterS: number, readonly limitPerMin: number) {
    super(`evaluation deferred: the tenant's query rate (${limitPerMin}/min) is spent; next try in ${retryAfterS} s`);
    this.name = 'EvaluationDeferred';
  }
}

/** A query the detector sent that its backend refused (bad LogsQL/PromQL, too many rows). */
export class DetectorQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DetectorQueryError';
  }
}

/** Takes one query from the tenant's query rate; throws EvaluationDeferred when it is spent. */
export type QueryGate = () => void;

/** Stats rows (groups) one evaluation may read: more is a `by` over something like `_msg`. */
export const MAX_GROUPS = 10_000;
/** Points per series of a range read (Prometheus' resolution cap). */
const MAX_POINTS = 11_000;
const COUNT_COLUMN = '__detector_count';

const rangeOf = (w: Window): TimeRange => ({ startNs: msToNs(w.startMs), endNs: msToNs(w.endMs) });

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return v === null || v === undefined ? '' : JSON.stringify(v);
}

/** The metric names a PromQL expression reads; empty when a selector has no fixed name (it may read any metric). */
export function metricNames(e: Expr): string[] {
  const selectors: VectorSelector[] = [];
  const walk = (x: Expr): void => {
    switch (x.kind) {
      case 'vector': selectors.push(x); return;
      case 'matrix': walk(x.selector); return;
      case 'subquery': case 'paren': case 'unary': walk(x.expr); return;
      case 'binary': walk(x.lhs); walk(x.rhs); return;
      case 'aggregate': if (x.param) walk(x.param); walk(x.expr); return;
      case 'call': x.args.forEach(walk); return;
      case 'number': case 'string': return;
    }
  };
  walk(e);
  const names = selectors.map((v) => v.matchers.find((m) => m.name === '__name__' && m.type === '=')?.value);
  return names.some((n) => n === undefined) ? [] : [...new Set(names.filter((n): n is string => n !== undefined))].sort();
}

export class StoreDetectorData implements DetectorData {
  /** Every query text run, in order: the evaluation's evidence (previews show it). */
  readonly queries: string[] = [];

  constructor(
    private readonly telemetry: TelemetryStore,
    private readonly tenantId: string,
    private readonly gate: QueryGate,
    private readonly clock: Clock,
  ) {}

  private take(query: string): void {
    this.gate();
    this.queries.push(query);
  }

  /** LogsQL text → syntax tree; relative times resolve against the window's end. */
  private logsql(query: string, atMs: number): LogsqlQuery {
    try {
      return compileLogsqlAt(query, msToNs(atMs));
    } catch (e) {
      if (e instanceof ServiceError) throw new DetectorQueryError(`LogsQL ${JSON.stringify(query)}: ${e.detail}`);
      throw e;
    }
  }

  private promql(expr: string): Expr {
    try {
      return parsePromql(expr);
    } catch (e) {
      throw new DetectorQueryError(`PromQL ${JSON.stringify(expr)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async logStats(query: string, window: Window): Promise<Record<string, unknown>[]> {
    this.take(query);
    const q = this.logsql(query, window.endMs);
    const rows = await this.telemetry.searchLogs(this.tenantId, q, rangeOf(window), MAX_GROUPS + 1);
    if (rows.length > MAX_GROUPS) throw new DetectorQueryError(`LogsQL ${JSON.stringify(query)} gives more than ${MAX_GROUPS} groups`);
    return rows;
  }

  async logCounts(query: string, window: Window, stepMs: number, by: readonly string[]): Promise<Series[]> {
    this.take(query);
    const q = this.logsql(query, window.endMs);
    if (!(stepMs > 0)) throw new DetectorQueryError('logCounts: the step must be positive');
    // Counted by the store as `| stats by (_time:step, by…) count()`: epoch-aligned buckets, empty ones left out.
    const fields = by.map(canonicalField);
    const stats: Pipe = {
      kind: 'stats',
      by: [{ field: '_time', bucketNs: msToNs(stepMs) }, ...fields.map((field) => ({ field }))],
      funcs: [{ fn: 'count', name: COUNT_COLUMN }],
    };
    const rows = await this.telemetry.searchLogs(this.tenantId, { ...q, pipes: [...q.pipes, stats] }, rangeOf(window), MAX_GROUPS * 100 + 1);
    if (rows.length > MAX_GROUPS * 100) throw new DetectorQueryError(`LogsQL ${JSON.stringify(query)} gives too many buckets`);
    const series = new Map<string, Series>();
    for (const row of rows) {
      const t = parseTimestamp(text(row._time))?.startNs;
      if (t === undefined) continue;
      const labels = Object.fromEntries(by.map((name, i) => [name, text(row[fields[i] ?? name])]));
      const key = JSON.stringify(labels);
      let s = series.get(key);
      if (!s) series.set(key, (s = { labels, points: [] }));
      s.points.push([Number(t / 1_000_000n), Number(text(row[COUNT_COLUMN]))]);
    }
    for (const s of series.values()) s.points.sort((a, b) => a[0] - b[0]);
    return [...series.values()];
  }

  async logLines(query: string, window: Window, limit: number, fields: readonly string[]): Promise<LogLine[]> {
    this.take(query);
    const q = this.logsql(query, window.endMs);
    const rows = await this.telemetry.searchLogs(this.tenantId, q, rangeOf(window), Math.max(1, Math.min(limit, MAX_GROUPS)));
    return rows.map((row) => {
      const t = parseTimestamp(text(row._time))?.startNs ?? 0n;
      return {
        timeMs: Number(t / 1_000_000n),
        msg: text(row._msg),
        fields: Object.fromEntries(fields.map((f) => [f, text(row[canonicalField(f)])])),
      };
    });
  }

  async promInstant(expr: string, atMs: number): Promise<Sample[]> {
    this.take(expr);
    const v = await evalInstant(this.telemetry.metrics, this.tenantId, this.promql(expr), atMs);
    if (v.type === 'scalar') return [{ labels: {}, value: v.v }];
    if (v.type !== 'vector') throw new DetectorQueryError(`PromQL ${JSON.stringify(expr)} is a ${v.type}, not an instant vector`);
    return v.samples.map((s) => ({ labels: { ...s.labels }, value: s.v }));
  }

  async promRange(expr: string, window: Window, stepMs: number): Promise<Series[]> {
    this.take(expr);
    if (!(stepMs > 0)) throw new DetectorQueryError('promRange: the step must be positive');
    // Instants in [start, end): the last one is the last step before `end`.
    const last = window.endMs - 1 - ((window.endMs - 1 - window.startMs) % stepMs);
    if (last < window.startMs) return [];
    if ((last - window.startMs) / stepMs > MAX_POINTS) throw new DetectorQueryError(`PromQL ${JSON.stringify(expr)}: more than ${MAX_POINTS} points per series`);
    const series = await evalRange(this.telemetry.metrics, this.tenantId, this.promql(expr), window.startMs, last, stepMs);
    return series.map((s) => ({ labels: { ...s.labels }, points: s.points.map((p): [number, number] => [p.t, p.v]) }));
  }

  async spanDurations(window: Window, filter: { service?: string; name?: string }, limit: number): Promise<SpanDurations[]> {
    this.take(`spans ${JSON.stringify(filter)}`);
    return this.telemetry.spanDurations(this.tenantId, rangeOf(window), filter, limit);
  }

  async oldestDataMs(signal: DetectorSignal, query?: string): Promise<number | null> {
    this.take(`oldest ${signal}${query === undefined ? '' : ` ${query}`}`);
    switch (signal) {
      case 'logs':
      case 'rum':
        return this.telemetry.oldestData(this.tenantId, query === undefined ? { signal } : { signal, query: this.logsql(query, this.clock.now()) });
      case 'metrics':
        return this.telemetry.oldestData(this.tenantId, { signal, names: query === undefined ? [] : metricNames(this.promql(query)) });
      case 'traces':
        return this.telemetry.oldestData(this.tenantId, { signal });
    }
  }
}
