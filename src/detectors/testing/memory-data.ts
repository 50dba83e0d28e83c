// The test double that ships with DetectorData (STYLE habit 3): a tenant's logs, metric samples and spans in arrays,
// answered honestly. LogsQL texts go through the real parser and a small evaluator (memory-logsql.ts); PromQL texts
// go through the real PromQL engine over the real in-memory series source (src/query/promql), so `rate()` handles a
// counter reset here exactly as it does in the service. Windows are half-open `[startMs, endMs)`; log counts are in
// epoch-aligned buckets and, like VictoriaLogs' stats_query_range, empty buckets are left out. Every call is recorded
// in `calls` with its query text, so a test can check that a kind ran only the texts its `queries()` declared.
// The kinds' tests run through this double; the engine's own tests run the same texts against the real stores.
import type { DetectorData, DetectorSignal, LogLine, Sample, Series, SpanDurations, Window } from '../model.js';
import type { LogsqlQuery } from '../../model/logsql-ast.js';
import { parseLogsql } from '../../query/logsql/parser.js';
import { parsePromql } from '../../query/promql/parse.js';
import { evalInstant, evalRange } from '../../query/promql/engine.js';
import { MemorySeriesSource } from '../../model/series-source.js';
import { fieldOf, matches, runStats, type MemoryLog } from './memory-logsql.js';

export type { MemoryLog } from './memory-logsql.js';

export interface MemorySpan {
  timeMs: number;
  service: string;
  name: string;
  durationMs: number;
  error?: boolean;
}

export interface DataCall {
  method: keyof DetectorData;
  query?: string;
  window?: Window;
}

const TENANT = 't';
const inWindow = (t: number, w: Window): boolean => t >= w.startMs && t < w.endMs;

export class MemoryDetectorData implements DetectorData {
  readonly logs: MemoryLog[] = [];
  readonly spans: MemorySpan[] = [];
  readonly calls: DataCall[] = [];
  private readonly metrics = new MemorySeriesSource();
  private oldestSample: number | null = null;

  addLogs(logs: readonly MemoryLog[]): this {
    for (const e of logs) this.logs.push(e);
    return this;
  }

  addSpans(spans: readonly MemorySpan[]): this {
    for (const s of spans) this.spans.push(s);
    return this;
  }

  /** One series' samples: `name{labels}` at `[timeMs, value]` points. */
  addSeries(name: string, labels: Record<string, string>, points: readonly (readonly [number, number])[]): this {
    this.metrics.add(TENANT, points.map(([timeMs, value]) => ({ name, labels, timeMs, value })));
    for (const [t] of points) if (this.oldestSample === null || t < this.oldestSample) this.oldestSample = t;
    return this;
  }

  private parse(query: string): LogsqlQuery {
    return parseLogsql(query, 0n);
  }

  private matching(query: string, window: Window): MemoryLog[] {
    const q = this.parse(query);
    if (q.pipes.length > 0) throw new Error(`MemoryDetectorData: expected a filter without pipes, got ${query}`);
    return this.logs.filter((e) => inWindow(e.timeMs, window) && matches(q.filter, e));
  }

  logStats(query: string, window: Window): Promise<Record<string, unknown>[]> {
    this.calls.push({ method: 'logStats', query, window });
    const q = this.parse(query);
    return Promise.resolve(runStats(q, this.logs.filter((e) => inWindow(e.timeMs, window))));
  }

  logCounts(query: string, window: Window, stepMs: number, by: readonly string[]): Promise<Series[]> {
    this.calls.push({ method: 'logCounts', query, window });
    const series = new Map<string, { labels: Record<string, string>; buckets: Map<number, number> }>();
    for (const e of this.matching(query, window)) {
      const labels = Object.fromEntries(by.map((f) => [f, fieldOf(e, f)]));
      const key = JSON.stringify(labels);
      let s = series.get(key);
      if (!s) series.set(key, (s = { labels, buckets: new Map() }));
      const bucket = Math.floor(e.timeMs / stepMs) * stepMs;
      s.buckets.set(bucket, (s.buckets.get(bucket) ?? 0) + 1);
    }
    return Promise.resolve([...series.values()].map((s) => ({
      labels: s.labels,
      points: [...s.buckets.entries()].sort((a, b) => a[0] - b[0]),
    })));
  }

  logLines(query: string, window: Window, limit: number, fields: readonly string[]): Promise<LogLine[]> {
    this.calls.push({ method: 'logLines', query, window });
    const lines = this.matching(query, window).sort((a, b) => b.timeMs - a.timeMs).slice(0, limit);
    return Promise.resolve(lines.map((e) => ({
      timeMs: e.timeMs, msg: e.msg, fields: Object.fromEntries(fields.map((f) => [f, fieldOf(e, f)])),
    })));
  }

  async promInstant(expr: string, atMs: number): Promise<Sample[]> {
    this.calls.push({ method: 'promInstant', query: expr });
    const v = await evalInstant(this.metrics, TENANT, parsePromql(expr), atMs);
    if (v.type === 'scalar') return [{ labels: {}, value: v.v }];
    if (v.type !== 'vector') throw new Error(`MemoryDetectorData.promInstant: ${expr} is a ${v.type}`);
    return v.samples.map((s) => ({ labels: { ...s.labels }, value: s.v }));
  }

  async promRange(expr: string, window: Window, stepMs: number): Promise<Series[]> {
    this.calls.push({ method: 'promRange', query: expr, window });
    // Instants in [start, end): the last one is the first step before `end`.
    const last = window.endMs - 1 - ((window.endMs - 1 - window.startMs) % stepMs);
    if (last < window.startMs) return [];
    const series = await evalRange(this.metrics, TENANT, parsePromql(expr), window.startMs, last, stepMs);
    return series.map((s) => ({ labels: { ...s.labels }, points: s.points.map((p): [number, number] => [p.t, p.v]) }));
  }

  spanDurations(window: Window, filter: { service?: string; name?: string }, limit: number): Promise<SpanDurations[]> {
    this.calls.push({ method: 'spanDurations', window });
    const groups = new Map<string, SpanDurations>();
    for (const s of this.spans) {
      if (!inWindow(s.timeMs, window)) continue;
      if (filter.service !== undefined && s.service !== filter.service) continue;
      if (filter.name !== undefined && s.name !== filter.name) continue;
      const key = JSON.stringify([s.service, s.name]);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { service: s.service, name: s.name, durationsMs: [], count: 0, errorCount: 0 }));
      g.count++;
      if (s.error === true) g.errorCount++;
      g.durationsMs.push(s.durationMs);
    }
    // A sample when there are more than `limit`: every k-th span, so the sample keeps the whole window's shape.
    for (const g of groups.values()) {
      if (g.durationsMs.length > limit) {
        const every = g.durationsMs.length / limit;
        g.durationsMs = Array.from({ length: limit }, (_, i) => g.durationsMs[Math.floor(i * every)] ?? 0);
      }
    }
    return Promise.resolve([...groups.values()]);
  }

  oldestDataMs(signal: DetectorSignal, query?: string): Promise<number | null> {
    this.calls.push({ method: 'oldestDataMs', ...(query === undefined ? {} : { query }) });
    if (signal === 'metrics') return Promise.resolve(this.oldestSample);
    if (signal === 'traces') return Promise.resolve(minOf(this.spans.map((s) => s.timeMs)));
    const filter = query === undefined ? null : this.parse(query).filter;
    const rum = (e: MemoryLog): boolean => e.fields?.['telemetry.sdk.language'] === 'webjs';
    const logs = this.logs.filter((e) => (signal === 'rum' ? rum(e) : true) && (filter === null || matches(filter, e)));
    return Promise.resolve(minOf(logs.map((e) => e.timeMs)));
  }
}

function minOf(xs: readonly number[]): number | null {
  let m: number | null = null;
  for (const x of xs) if (m === null || x < m) m = x;
  return m;
}
