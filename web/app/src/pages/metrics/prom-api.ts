// What the Metrics page and the PromQL dashboard panels ask of the tenant's Prometheus HTTP API (DESIGN §4
// `prometheus/api/v1/…`, DESIGN §7 Metrics): instant and range queries, the metric names, and the conversion of
// a range reply into uPlot's aligned columns. Prometheus words its errors `{status:"error", errorType, error}`
// rather than with `detail`; they are turned into an ApiError carrying the `error` text, so ErrorNote shows the
// parser's own words ("1:5: parse error: …").
import { ApiError, getJson, tenantPath } from '../../lib/api';
import type { ChartSeries } from '../../components/TimeChart';

export type Labels = Record<string, string>;
export interface InstantSample { metric: Labels; value: [number, string] }
export interface RangeSeries { metric: Labels; values: [number, string][] }

export type InstantResult =
  | { resultType: 'vector'; result: InstantSample[] }
  | { resultType: 'matrix'; result: RangeSeries[] }
  | { resultType: 'scalar'; result: [number, string] }
  | { resultType: 'string'; result: [number, string] };

interface PromReply<T> { status: string; data: T; warnings?: string[] }

/** A Prometheus error body (`{status:"error", errorType, error}`) as an ApiError with the error's text. */
export function promError(e: unknown): unknown {
  if (!(e instanceof ApiError)) return e;
  try {
    const body = JSON.parse(e.detail) as { error?: unknown; errorType?: unknown };
    if (typeof body.error === 'string') return new ApiError(e.status, body.error, typeof body.errorType === 'string' ? body.errorType : '');
  } catch {
    // not Prometheus's shape (a credential refusal already carries `detail`): as it came
  }
  return e;
}

async function promGet<T>(tenant: string, endpoint: string, query: Record<string, string>, signal?: AbortSignal): Promise<T> {
  try {
    const reply = await getJson<PromReply<T>>(tenantPath(tenant, `prometheus/api/v1/${endpoint}`), { query, ...(signal ? { signal } : {}) });
    return reply.data;
  } catch (e) {
    throw promError(e);
  }
}

/** Seconds per point so that the range holds about `points` of them (Prometheus UI: range / 250). */
export function stepSeconds(spanMs: number, points = 250): number {
  return Math.max(1, Math.ceil(spanMs / points / 1000));
}

export interface Range { start: string; end: string }

export async function queryRange(tenant: string, expr: string, range: Range, signal?: AbortSignal): Promise<{ series: RangeSeries[]; step: number; grid: Grid }> {
  const startMs = Date.parse(range.start);
  const endMs = Date.parse(range.end);
  const step = stepSeconds(endMs - startMs);
  const data = await promGet<{ resultType: string; result: RangeSeries[] }>(tenant, 'query_range', {
    query: expr, start: range.start, end: range.end, step: String(step),
  }, signal);
  return { series: data.result, step, grid: { startMs, endMs, stepMs: step * 1000 } };
}

export const queryInstant = (tenant: string, expr: string, time: string, signal?: AbortSignal): Promise<InstantResult> =>
  promGet<InstantResult>(tenant, 'query', { query: expr, time }, signal);

export const metricNames = (tenant: string, signal?: AbortSignal): Promise<string[]> =>
  promGet<string[]>(tenant, 'label/__name__/values', {}, signal);

/** `name{a="1", b="2"}`, as Prometheus prints a series. */
export function seriesName(metric: Labels): string {
  const name = metric.__name__ ?? '';
  const rest = Object.keys(metric).filter((k) => k !== '__name__').sort()
    .map((k) => `${k}=${JSON.stringify(metric[k] ?? '')}`);
  if (rest.length === 0) return name === '' ? '{}' : name;
  return `${name}{${rest.join(', ')}}`;
}

/** A sample's text as a number to draw; NaN and ±Inf cannot be drawn and leave a gap. */
export function sampleNumber(text: string): number | null {
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** The times a range query evaluates at: start, start + step, … up to end (unix seconds). */
export interface Grid { startMs: number; endMs: number; stepMs: number }

/**
 * A range reply as uPlot's aligned columns, gaps as null. With the query's grid every evaluation time is a
 * column, so the x axis spans the whole range asked for (a dashboard's panels line up), not only the data.
 */
export function toChart(series: RangeSeries[], grid?: Grid): { times: number[]; series: ChartSeries[] } {
  const all = new Set<number>();
  if (grid && grid.stepMs > 0) for (let t = grid.startMs; t <= grid.endMs; t += grid.stepMs) all.add(t);
  for (const s of series) for (const [t] of s.values) all.add(Math.round(t * 1000));
  const times = [...all].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  return {
    times: times.map((t) => t / 1000),
    series: series.map((s) => {
      const values = new Array<number | null>(times.length).fill(null);
      for (const [t, v] of s.values) {
        const i = index.get(Math.round(t * 1000));
        if (i !== undefined) values[i] = sampleNumber(v);
      }
      return { label: seriesName(s.metric), values };
    }),
  };
}

/** Seconds as the shortest Prometheus duration (`15s`, `5m`, `1h30m`). */
export function formatStep(seconds: number): string {
  const units: [number, string][] = [[86_400, 'd'], [3600, 'h'], [60, 'm'], [1, 's']];
  let left = seconds;
  let out = '';
  for (const [size, unit] of units) {
    if (left >= size) {
      out += `${Math.floor(left / size)}${unit}`;
      left %= size;
    }
  }
  return out === '' ? '0s' : out;
}
