// metric_anomaly: a PromQL range query per series judged against its seasonal baseline (anomaly.ts,
// algorithms/seasonal.ts). A series' σ is at least 1% of its level (a flat gauge would otherwise page on its last
// digit), and `min_delta` sets the least absolute change that counts. Counters belong inside `rate()`: the engine's
// `rate` handles a counter reset (a restart), so the baseline sees the request rate, not the reset. Steps where the
// series has no sample are gaps, not zeros (a scrape gap is not a drop to 0).
import type { DetectorKind, EvaluateInput, EvaluateResult, KindSpec } from '../model.js';
import { levelFloor } from '../algorithms/seasonal.js';
import { Params, type Raw } from './params.js';
import { alertLabels, eligibility } from './common.js';
import { anomalyParams, judge, ranges, readAnomaly, SEASONAL_HISTORY_S, seasonalFor, type AnomalyCore } from './anomaly.js';

export interface MetricAnomalyParams extends AnomalyCore {
  expr: string;
  minDelta: number;
}

const spec: KindSpec = {
  kind: 'metric_anomaly',
  signal: 'metrics',
  description: 'A PromQL series per step against its seasonal baseline (same hour of the week, robust median/MAD bands), per series.',
  params: [
    { name: 'expr', type: 'promql', required: true, description: 'PromQL, an instant vector (e.g. `sum by (service) (rate(http_requests_total[5m]))`), evaluated at every step.' },
    ...anomalyParams('both'),
    { name: 'min_delta', type: 'number', required: false, default: 0, min: 0, description: 'The least absolute difference from the expected value that counts as an anomaly.' },
  ],
  min_history_s: SEASONAL_HISTORY_S,
  eligibility: eligibility('metrics', {
    history: 'A week of samples (hour-of-week baseline); younger series are judged against the hour of the day or the last 2 h.',
    hasData: 'The expression returns series in the baseline.',
  }),
};

function parseParams(raw: Raw): MetricAnomalyParams {
  const p = new Params(spec.params, raw);
  return { expr: p.str('expr').trim(), minDelta: p.num('min_delta'), ...readAnomaly(p) };
}

const floor = levelFloor(0.01, 1e-9);

async function evaluate({ params, window, history, data }: EvaluateInput<MetricAnomalyParams>): Promise<EvaluateResult> {
  const { fetch, judgeStart } = ranges(params, window, history);
  // A series without a sample in the judged range has gone (a pod replaced, a job stopped): `absence` is the kind
  // for that, so it is left out here rather than reported as no data.
  const series = (await data.promRange(params.expr, fetch, params.stepMs)).filter((s) => s.points.some(([t]) => t >= judgeStart));
  if (series.length === 0) return { observations: [{ labels: {}, value: null, active: false, nodata: true, summary: 'no series' }] };
  return {
    observations: series.map((s) => judge({
      labels: alertLabels(s.labels), points: s.points, judgeStart, core: params, seasonal: seasonalFor(floor),
      minDelta: () => params.minDelta, unit: '',
    })),
  };
}

export const metricAnomaly: DetectorKind<MetricAnomalyParams> = {
  spec,
  parseParams,
  queries: (p) => ({ logsql: [], promql: [p.expr] }),
  historyMs: (p) => p.baselineMs,
  requirements: (p) => ({ signal: 'metrics', min_history_s: Math.min(p.baselineMs / 1000, SEASONAL_HISTORY_S) }),
  evaluate,
};
