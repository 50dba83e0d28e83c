// log_anomaly: the count of a LogsQL query per step, per group, judged against its seasonal baseline (anomaly.ts,
// algorithms/seasonal.ts). Counts are Poisson, so a slot's σ is at least √median; a step without entries is a zero
// (VictoriaLogs, like our store, leaves empty buckets out), from the group's first entry on — before that the group
// did not exist, which is not the same as quiet. An upward anomaly also needs `min_count` entries in the judged range,
// and a downward one that many expected, so a trickle of one line an hour never pages.
import type { DetectorKind, EvaluateInput, EvaluateResult, KindSpec, Observation } from '../model.js';
import { countFloor } from '../algorithms/seasonal.js';
import { durationText, Params, type Raw } from './params.js';
import { eligibility, groupByParam, logFilter } from './common.js';
import { anomalyParams, judge, ranges, readAnomaly, SEASONAL_HISTORY_S, seasonalFor, type AnomalyCore } from './anomaly.js';

export interface LogAnomalyParams extends AnomalyCore {
  query: string;
  groupBy: string[];
  minCount: number;
}

const spec: KindSpec = {
  kind: 'log_anomaly',
  signal: 'logs',
  description: 'The count of a LogsQL query per step against its seasonal baseline (same hour of the week, robust median/MAD bands), per group.',
  params: [
    { name: 'query', type: 'logsql', required: true, description: 'A LogsQL filter (no pipes, no `_time`) whose matching entries are counted.' },
    groupByParam('the counts'),
    ...anomalyParams('above'),
    { name: 'min_count', type: 'integer', required: false, default: 10, min: 0, description: 'Entries the judged range must hold to fire upwards (or be expected to hold, downwards).' },
  ],
  min_history_s: SEASONAL_HISTORY_S,
  eligibility: eligibility('logs', {
    history: 'A week of entries matching the query (hour-of-week baseline); younger series are judged against the hour of the day or the last 2 h.',
    hasData: 'The query matches entries in the baseline.',
  }),
};

function parseParams(raw: Raw): LogAnomalyParams {
  const p = new Params(spec.params, raw);
  return { query: logFilter('query', p.str('query')), groupBy: p.fields('group_by'), minCount: p.num('min_count'), ...readAnomaly(p) };
}

/** Zeros for the steps without entries, from the series' first entry to `end`. */
function filled(points: readonly [number, number][], stepMs: number, end: number): [number, number][] {
  const first = points[0]?.[0];
  if (first === undefined) return [];
  const byT = new Map(points);
  const out: [number, number][] = [];
  for (let t = first; t < end; t += stepMs) out.push([t, byT.get(t) ?? 0]);
  return out;
}

async function evaluate({ params, window, history, data }: EvaluateInput<LogAnomalyParams>): Promise<EvaluateResult> {
  const { fetch, judgeStart } = ranges(params, window, history);
  const series = await data.logCounts(params.query, fetch, params.stepMs, params.groupBy);
  if (series.length === 0) return { observations: [{ labels: {}, value: null, active: false, nodata: true, summary: 'no entries in the baseline or window' }] };
  const observations = series.map((s): Observation => {
    const points = filled(s.points, params.stepMs, fetch.endMs);
    const labels = Object.fromEntries(params.groupBy.map((f) => [f, s.labels[f] ?? '']));
    return judge({
      labels, points, judgeStart, core: params, seasonal: seasonalFor(countFloor), minDelta: () => 0, unit: ` per ${durationText(params.stepMs)}`,
      // Upwards the entries seen must reach min_count; downwards the entries expected must.
      enough: (w, expectedTotal) => Math.max(w.reduce((a, [, v]) => a + v, 0), expectedTotal) >= params.minCount,
    });
  });
  return { observations };
}

export const logAnomaly: DetectorKind<LogAnomalyParams> = {
  spec,
  parseParams,
  queries: (p) => ({ logsql: [p.query], promql: [] }),
  historyMs: (p) => p.baselineMs,
  requirements: (p) => ({ signal: 'logs', min_history_s: Math.min(p.baselineMs / 1000, SEASONAL_HISTORY_S) }),
  evaluate,
};
