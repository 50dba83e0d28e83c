// The Prometheus HTTP API (https://prometheus.io/docs/prometheus/latest/querying/api/) over a SeriesSource,
// independent of the HTTP plumbing: each handler takes the tenant, the merged query/form parameters and the
// clock, and answers `{status, body}` in the exact shapes of Prometheus 2.x web/api/v1/api.go, errors
// included (`bad_data` 400, `execution` 422, `internal` 500). The app plane mounts PROMETHEUS_ROUTES under
// /api/v1/tenants/:tenant/prometheus/api/v1/ (DESIGN §4).
import type { MetricMetadata } from '../../model/metric.js';
import {
  durationParam, invalidParam, matchSets, MAX_TIME_MS, MIN_TIME_MS, requiredTimeParam, timeParam,
} from './api-params.js';
import { evalInstant, evalRange, type EngineOptions } from './engine.js';
import { formatGoFloat } from './literals.js';
import { parsePromql, PromqlError, typeOf } from './parse.js';
import { seriesKey, type SeriesSource } from '../../model/series-source.js';
import { compareLabels, type Labels, type Series, type Value } from './values.js';

export interface PromApiReply { status: number; body: unknown }

export type PromApiHandler = (
  source: SeriesSource, tenantId: string, params: URLSearchParams, nowMs: number,
  pathParams?: Readonly<Record<string, string>>, options?: EngineOptions,
) => Promise<PromApiReply>;

export interface PromApiRoute {
  /** Path below `…/prometheus/api/v1/`, find-my-way style (`label/:name/values`). */
  path: string;
  methods: readonly ('GET' | 'POST')[];
  handler: PromApiHandler;
}

/** Resolution cap of a range query (Prometheus: 11,000 points per series). */
const MAX_POINTS = 11_000;
const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type SamplePair = [number, string];

function pair(tMs: number, v: number): SamplePair {
  return [tMs / 1000, formatGoFloat(v)];
}

function success(data: unknown): PromApiReply {
  return { status: 200, body: { status: 'success', data } };
}

const ERROR_STATUS: Record<string, number> = { bad_data: 400, execution: 422, internal: 500, timeout: 503, canceled: 503 };

function failure(errorType: string, error: string): PromApiReply {
  return { status: ERROR_STATUS[errorType] ?? 500, body: { status: 'error', errorType, error } };
}

/** Runs a handler body; PromqlError becomes its Prometheus reply, anything else an `internal` error. */
async function answer(fn: () => Promise<unknown>): Promise<PromApiReply> {
  try {
    return success(await fn());
  } catch (e) {
    if (e instanceof PromqlError) return failure(e.errorType, e.message);
    return failure('internal', e instanceof Error ? e.message : String(e));
  }
}

function parseQueryParam(params: URLSearchParams): ReturnType<typeof parsePromql> {
  try {
    return parsePromql(params.get('query') ?? '');
  } catch (e) {
    if (e instanceof PromqlError) throw invalidParam('query', e.message);
    throw e;
  }
}

/** `lookback_delta` per request (Prometheus ≥ 2.43) over the configured options. */
function engineOptions(params: URLSearchParams, options: EngineOptions | undefined): EngineOptions {
  const lookback = durationParam(params, 'lookback_delta');
  return lookback === undefined || lookback <= 0 ? { ...options } : { ...options, lookbackDeltaMs: Math.trunc(lookback) };
}

/** The label set with names in order, as Prometheus writes it. */
function metric(labels: Labels): Record<string, string> {
  return Object.fromEntries(Object.keys(labels).sort().map((k) => [k, labels[k] ?? '']));
}

/** The `data` of a query reply for a value computed at `tMs`. */
export function formatValue(v: Value, tMs: number): { resultType: string; result: unknown } {
  switch (v.type) {
    case 'scalar': return { resultType: 'scalar', result: pair(tMs, v.v) };
    case 'string': return { resultType: 'string', result: [tMs / 1000, v.s] };
    case 'vector': return { resultType: 'vector', result: v.samples.map((s) => ({ metric: metric(s.labels), value: pair(tMs, s.v) })) };
    case 'matrix': return { resultType: 'matrix', result: formatMatrix(v.series) };
  }
}

function formatMatrix(series: Series[]): unknown[] {
  return series.map((s) => ({ metric: metric(s.labels), values: s.points.map((p) => pair(p.t, p.v)) }));
}

/** GET/POST /api/v1/query: `query`, `time` (default now), optional `lookback_delta`. */
export const promQuery: PromApiHandler = (source, tenantId, params, nowMs, _path, options) => answer(async () => {
  const timeMs = timeParam(params, 'time', nowMs);
  const opts = engineOptions(params, options);
  const expr = parseQueryParam(params);
  return formatValue(await evalInstant(source, tenantId, expr, timeMs, opts), timeMs);
});

/** GET/POST /api/v1/query_range: `query`, `start`, `end`, `step`. */
export const promQueryRange: PromApiHandler = (source, tenantId, params, _nowMs, _path, options) => answer(async () => {
  const startMs = requiredTimeParam(params, 'start');
  const endMs = requiredTimeParam(params, 'end');
  if (endMs < startMs) throw invalidParam('end', 'end timestamp must not be before start time');
  const step = durationParam(params, 'step');
  if (step === undefined) throw invalidParam('step', 'cannot parse "" to a valid duration');
  const stepMs = Math.trunc(step);
  if (stepMs <= 0) throw invalidParam('step', 'zero or negative query resolution step widths are not accepted. Try a positive integer');
  if ((endMs - startMs) / step > MAX_POINTS) {
    throw new PromqlError('exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)', 'bad_data');
  }
  const opts = engineOptions(params, options);
  const expr = parseQueryParam(params);
  const type = typeOf(expr);
  if (type !== 'vector' && type !== 'scalar') {
    throw invalidParam('query', `invalid expression type ${JSON.stringify(type === 'matrix' ? 'range vector' : type)} for range query, must be Scalar or instant Vector`);
  }
  const series = await evalRange(source, tenantId, expr, startMs, endMs, stepMs, opts);
  return { resultType: 'matrix', result: formatMatrix(series) };
});

/** GET/POST /api/v1/series: label sets of the series matching any `match[]` in [start, end]. */
export const promSeries: PromApiHandler = (source, tenantId, params) => answer(async () => {
  if (params.getAll('match[]').length === 0) throw new PromqlError('no match[] parameter provided', 'bad_data');
  const startMs = timeParam(params, 'start', MIN_TIME_MS);
  const endMs = timeParam(params, 'end', MAX_TIME_MS);
  const sets = matchSets(params);
  const seen = new Map<string, Record<string, string>>();
  if (source.series) {
    for (const labels of await source.series(tenantId, sets, startMs, endMs)) seen.set(seriesKey(labels), metric(labels));
  } else {
    for (const set of sets) {
      for (const s of await source.select(tenantId, set, startMs, endMs)) seen.set(seriesKey(s.labels), metric(s.labels));
    }
  }
  return [...seen.values()].sort(compareLabels);
});

/** GET/POST /api/v1/labels. */
export const promLabels: PromApiHandler = (source, tenantId, params) => answer(async () => {
  const startMs = timeParam(params, 'start', MIN_TIME_MS);
  const endMs = timeParam(params, 'end', MAX_TIME_MS);
  return source.labelNames(tenantId, matchSets(params), startMs, endMs);
});

/** GET /api/v1/label/<name>/values. */
export const promLabelValues: PromApiHandler = (source, tenantId, params, _nowMs, path) => answer(async () => {
  const name = path?.name ?? '';
  if (!LABEL_NAME_RE.test(name)) throw new PromqlError(`invalid label name: ${JSON.stringify(name)}`, 'bad_data');
  const startMs = timeParam(params, 'start', MIN_TIME_MS);
  const endMs = timeParam(params, 'end', MAX_TIME_MS);
  return source.labelValues(tenantId, name, matchSets(params), startMs, endMs);
});

/** GET /api/v1/metadata: `{<metric>: [{type, help, unit}]}`; `limit` caps metric names, `metric` picks one. */
export const promMetadata: PromApiHandler = (source, tenantId, params) => answer(async () => {
  const limitText = params.get('limit');
  let limit = -1;
  if (limitText !== null && limitText !== '') {
    if (!/^[+-]?\d+$/.test(limitText)) throw new PromqlError('limit must be a number', 'bad_data');
    limit = Number(limitText);
  }
  const out: Record<string, { type: string; help: string; unit: string }[]> = {};
  if (limit === 0) return out;
  const metricName = params.get('metric');
  const rows: MetricMetadata[] = await source.metadata(
    tenantId, metricName === null || metricName === '' ? undefined : metricName, limit > 0 ? limit : undefined);
  for (const m of rows) (out[m.name] ??= []).push({ type: m.type, help: m.help, unit: m.unit });
  return out;
});

/** GET /api/v1/status/buildinfo: Grafana reads it to learn the flavour; we answer as the Prometheus we follow. */
export const promBuildInfo: PromApiHandler = () => Promise.resolve(success({
  version: '2.42.0', revision: 'sightline', branch: '', buildUser: '', buildDate: '', goVersion: '',
}));

export const PROMETHEUS_ROUTES: readonly PromApiRoute[] = [
  { path: 'query', methods: ['GET', 'POST'], handler: promQuery },
  { path: 'query_range', methods: ['GET', 'POST'], handler: promQueryRange },
  { path: 'series', methods: ['GET', 'POST'], handler: promSeries },
  { path: 'labels', methods: ['GET', 'POST'], handler: promLabels },
  { path: 'label/:name/values', methods: ['GET'], handler: promLabelValues },
  { path: 'metadata', methods: ['GET'], handler: promMetadata },
  { path: 'status/buildinfo', methods: ['GET'], handler: promBuildInfo },
];
