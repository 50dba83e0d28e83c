// trace_latency: a span-duration quantile per (service, span name) over the window, against a fixed bound or against
// the same quantile over its own baseline times a factor. Quantiles, not means: a latency SLO is a tail statement
// (Google SRE Book ch. 6 "Monitoring Distributed Systems", on latency percentiles; Datadog APM monitors alert on p99
// the same way). A group with fewer than `min_spans` spans in the window — or in its baseline — is not judged: the
// p99 of twelve spans is the slowest of them, which says nothing. `min_delta_ms` keeps a 1 ms span that doubles to
// 2 ms from paging.
import { ParamError, type DetectorKind, type EvaluateInput, type EvaluateResult, type KindSpec, type Observation, type SpanDurations } from '../model.js';
import { quantile } from '../algorithms/robust.js';
import { Params, type Raw } from './params.js';
import { eligibility, fmt, HOUR_MS } from './common.js';

export interface TraceLatencyParams {
  service?: string;
  spanName?: string;
  quantile: number;
  /** Fixed-bound mode when set; else baseline mode with `factor`. */
  thresholdMs?: number;
  factor: number;
  minDeltaMs: number;
  minSpans: number;
  baselineMs: number;
  sample: number;
}

const spec: KindSpec = {
  kind: 'trace_latency',
  signal: 'traces',
  description: 'A span-duration quantile per service and span name over the window, above a fixed bound or above its own baseline times a factor.',
  params: [
    { name: 'service', type: 'string', required: false, description: 'Only spans of this service.' },
    { name: 'span_name', type: 'string', required: false, description: 'Only spans of this name.' },
    { name: 'quantile', type: 'number', required: false, default: 0.99, min: 0.5, max: 1, description: 'The duration quantile compared (0.99: p99).' },
    { name: 'threshold_ms', type: 'number', required: false, min: 0, description: 'A fixed bound in ms; without it the quantile is compared with its baseline times factor.' },
    { name: 'factor', type: 'number', required: false, default: 2, min: 1, description: 'Without threshold_ms: active when the quantile exceeds its baseline quantile this many times.' },
    { name: 'min_delta_ms', type: 'number', required: false, default: 50, min: 0, description: 'Without threshold_ms: the least increase over the baseline, in ms, that counts.' },
    { name: 'min_spans', type: 'integer', required: false, default: 20, min: 1, description: 'Spans a (service, name) needs in the window, and in its baseline, to be judged.' },
    { name: 'baseline', type: 'duration', required: false, default: '1d', min: 3600, max: 14 * 86400, description: 'Without threshold_ms: the history the baseline quantile is computed over.' },
    { name: 'sample', type: 'integer', required: false, default: 5000, min: 100, max: 100000, description: 'Durations read per (service, name) and window (a sample when there are more).' },
  ],
  min_history_s: HOUR_MS / 1000,
  eligibility: eligibility('traces', { history: 'Without threshold_ms, an hour of spans to form the baseline quantile.', hasData: 'Spans match the service and span name filters.' }),
};

function parseParams(raw: Raw): TraceLatencyParams {
  const p = new Params(spec.params, raw);
  const thresholdMs = p.optNum('threshold_ms');
  if (thresholdMs !== undefined && p.has('factor')) throw new ParamError('factor', 'give threshold_ms (a fixed bound) or factor (against the baseline), not both');
  const service = p.optStr('service');
  const spanName = p.optStr('span_name');
  return {
    ...(service === undefined ? {} : { service }), ...(spanName === undefined ? {} : { spanName }),
    ...(thresholdMs === undefined ? {} : { thresholdMs }),
    quantile: p.num('quantile'), factor: p.num('factor'), minDeltaMs: p.num('min_delta_ms'), minSpans: p.num('min_spans'),
    baselineMs: p.num('baseline'), sample: p.num('sample'),
  };
}

const key = (g: SpanDurations): string => JSON.stringify([g.service, g.name]);
const pName = (q: number): string => (q === 0.5 ? 'p50' : `p${fmt(q * 100)}`);
const ms = (v: number): string => (v >= 1000 ? `${fmt(v / 1000)} s` : `${fmt(v)} ms`);

async function evaluate({ params, window, history, data }: EvaluateInput<TraceLatencyParams>): Promise<EvaluateResult> {
  const filter = { ...(params.service === undefined ? {} : { service: params.service }), ...(params.spanName === undefined ? {} : { name: params.spanName }) };
  const now = await data.spanDurations(window, filter, params.sample);
  if (now.length === 0) return { observations: [{ labels: {}, value: null, active: false, nodata: true, summary: 'no spans in the window' }] };
  const fixed = params.thresholdMs;
  const base = fixed === undefined ? new Map((await data.spanDurations(history, filter, params.sample)).map((g) => [key(g), g])) : new Map<string, SpanDurations>();
  const q = pName(params.quantile);
  const observations = now.map((g): Observation => {
    const labels = { service: g.service, span_name: g.name };
    const value = quantile(g.durationsMs, params.quantile);
    const head = `${q} of ${g.service}/${g.name} ${ms(value)}`;
    if (g.count < params.minSpans) return { labels, value, active: false, summary: `${head} over only ${g.count} spans (needs ${params.minSpans})` };
    if (fixed !== undefined) return { labels, value, active: value > fixed, summary: `${head} vs ${ms(fixed)}` };
    const b = base.get(key(g));
    if (!b || b.count < params.minSpans) return { labels, value, active: false, summary: `${head}: no baseline yet (${b?.count ?? 0} spans)` };
    const expected = quantile(b.durationsMs, params.quantile);
    const active = value > params.factor * expected && value - expected >= params.minDeltaMs;
    return { labels, value, active, summary: `${head} vs ${ms(expected)} baseline (×${fmt(value / expected)}, fires over ×${fmt(params.factor)})` };
  });
  return { observations };
}

export const traceLatency: DetectorKind<TraceLatencyParams> = {
  spec,
  parseParams,
  // Spans are read through DetectorData.spanDurations, not a query language: nothing for the parsers to check.
  queries: () => ({ logsql: [], promql: [] }),
  historyMs: (p) => (p.thresholdMs === undefined ? p.baselineMs : 0),
  requirements: (p) => ({ signal: 'traces', min_history_s: p.thresholdMs === undefined ? HOUR_MS / 1000 : 0 }),
  evaluate,
};
