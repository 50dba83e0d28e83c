// rum_error_spike: browser errors per page (or session, or the whole app) in the window against the rate its
// baseline predicts (algorithms/rate-spike.ts: a Poisson excess, a factor and a minimum count). RUM arrives as OTLP
// logs whose resource says `telemetry.sdk.language` = webjs (src/ingest/formats/otlp-logs.ts); an error is an entry
// at error or fatal level or an exception (OTel `exception.*` attributes, `event.name` exception) — the same filter
// the Replays page counts session errors with (web/app/src/pages/replays/replays-api.ts). Pages are `url.full` by
// default, as browser SDKs set it; `session.id` groups per session (each new session has no baseline, so a session
// fires on `min_count` errors alone).
import type { DetectorKind, EvaluateInput, EvaluateResult, KindSpec, Observation, Series } from '../model.js';
import { countSpike } from '../algorithms/rate-spike.js';
import { durationText, Params, type Raw } from './params.js';
import { andFilters, DAY_MS, eligibility, fmt, groupByParam, HOUR_MS, labelsKey, logFilter, windowMs } from './common.js';

export const RUM_ERRORS = 'telemetry.sdk.language:=webjs (level:error OR level:fatal OR exception.type:* OR event.name:=exception)';

export interface RumErrorSpikeParams {
  /** The RUM error filter ANDed with the user's. */
  query: string;
  groupBy: string[];
  factor: number;
  minCount: number;
  baselineMs: number;
}

const spec: KindSpec = {
  kind: 'rum_error_spike',
  signal: 'rum',
  description: 'Browser (RUM) errors per page or session in the window against the rate of its baseline, with a minimum count.',
  params: [
    { name: 'query', type: 'logsql', required: false, default: '*', description: 'A further LogsQL filter on the RUM error entries (e.g. `service:shop-web`).' },
    groupByParam('the errors: `url.full` per page, `session.id` per session, [] for the whole app', ['url.full']),
    { name: 'factor', type: 'number', required: false, default: 3, min: 1, description: 'Errors must be this many times the baseline rate over the window.' },
    { name: 'min_count', type: 'integer', required: false, default: 5, min: 1, description: 'Errors a group needs in the window to be active.' },
    { name: 'baseline', type: 'duration', required: false, default: '1d', min: 3600, max: 14 * 86400, description: 'History the baseline error rate is computed over.' },
  ],
  min_history_s: DAY_MS / 1000,
  eligibility: eligibility('rum', { history: 'A day of RUM data, so the baseline covers the daily cycle.' }),
};

function parseParams(raw: Raw): RumErrorSpikeParams {
  const p = new Params(spec.params, raw);
  return {
    query: andFilters(RUM_ERRORS, logFilter('query', p.str('query'))), groupBy: p.fields('group_by'),
    factor: p.num('factor'), minCount: p.num('min_count'), baselineMs: p.num('baseline'),
  };
}

interface Tally { labels: Record<string, string>; count: number; firstMs: number }

function tally(series: Series[], groupBy: readonly string[]): Map<string, Tally> {
  const out = new Map<string, Tally>();
  for (const s of series) {
    const labels = Object.fromEntries(groupBy.map((f) => [f, s.labels[f] ?? '']));
    const k = labelsKey(labels);
    const t = out.get(k) ?? { labels, count: 0, firstMs: Number.POSITIVE_INFINITY };
    for (const [at, v] of s.points) {
      t.count += v;
      t.firstMs = Math.min(t.firstMs, at);
    }
    out.set(k, t);
  }
  return out;
}

async function evaluate({ params, window, history, data }: EvaluateInput<RumErrorSpikeParams>): Promise<EvaluateResult> {
  const [nowSeries, baseSeries] = await Promise.all([
    data.logCounts(params.query, window, windowMs(window), params.groupBy),
    data.logCounts(params.query, history, HOUR_MS, params.groupBy),
  ]);
  const base = tally(baseSeries, params.groupBy);
  const length = windowMs(window);
  const observations = [...tally(nowSeries, params.groupBy)].map(([k, t]): Observation => {
    const b = base.get(k);
    // The baseline spans from the group's first hour with errors: a page that started erring an hour ago has an
    // hour of baseline, not a day of zeros before it. A group with no errors in the baseline has none (rate 0).
    const spanMs = b ? history.endMs - Math.max(history.startMs, b.firstMs) : 0;
    const j = countSpike(t.count, b?.count ?? 0, spanMs, length, { factor: params.factor, minCount: params.minCount, z: 3 });
    return {
      labels: t.labels, value: t.count, active: j.active,
      summary: `${t.count} browser errors in ${durationText(length)} vs ` +
        (spanMs > 0 ? `${fmt(j.expected)} expected from the last ${durationText(spanMs)}` : 'none in the baseline'),
    };
  });
  return { observations };
}

export const rumErrorSpike: DetectorKind<RumErrorSpikeParams> = {
  spec,
  parseParams,
  queries: (p) => ({ logsql: [p.query], promql: [] }),
  historyMs: (p) => p.baselineMs,
  requirements: (p) => ({ signal: 'rum', min_history_s: Math.min(p.baselineMs, DAY_MS) / 1000 }),
  evaluate,
};
