// error_ratio: the burn rate of an SLO's error budget, errors over requests, judged with the Google SRE Workbook's
// multiwindow multi-burn-rate rule (ch. 5 "Alerting on SLOs"; algorithms/burn-rate.ts). Errors and requests are two
// LogsQL filters (entries counted per step) or two PromQL expressions (per-second rates per step, e.g.
// `sum by (service) (rate(http_requests_total{code=~"5.."}[5m]))`); one range read each over the longest window,
// summed per window, so the ratio is errors/requests over that window. Groups are the `group_by` values (LogsQL) or
// the series labels (PromQL); a group with requests but no error series has no errors.
import { ParamError, type DetectorKind, type EvaluateInput, type EvaluateResult, type KindSpec, type Observation, type Series } from '../model.js';
import { burnRates, parseBurnWindow, type BurnWindow, type RatioPoint } from '../algorithms/burn-rate.js';
import { durationMs, durationText, Params, type Raw } from './params.js';
import { alertLabels, alignDown, eligibility, fmt, groupByParam, labelsKey, logFilter, MINUTE_MS } from './common.js';

export interface ErrorRatioParams {
  source: 'logsql' | 'promql';
  errors: string;
  total: string;
  groupBy: string[];
  slo: number;
  windows: BurnWindow[];
  minRequests: number;
}

const spec: KindSpec = {
  kind: 'error_ratio',
  signal: 'logs',
  description: 'SLO error-budget burn rate (errors / requests), multiwindow multi-burn-rate as in the Google SRE Workbook: active when a long and its short window both burn faster than their factor.',
  params: [
    { name: 'errors_query', type: 'logsql', required: false, description: 'LogsQL filter of the failed requests (with total_query).' },
    { name: 'total_query', type: 'logsql', required: false, description: 'LogsQL filter of all requests.' },
    { name: 'errors_expr', type: 'promql', required: false, description: 'PromQL rate of failed requests per series (with total_expr; then the metrics signal applies).' },
    { name: 'total_expr', type: 'promql', required: false, description: 'PromQL rate of all requests, with the same labels as errors_expr.' },
    groupByParam('the LogsQL counts (PromQL groups are the series labels)'),
    { name: 'slo', type: 'number', required: false, default: 0.999, min: 0.5, max: 0.99999, description: 'The objective as a fraction: 0.999 for 99.9% (the budget is 1 − slo).' },
    { name: 'windows', type: 'string[]', required: false, default: ['1h:5m:14.4', '6h:30m:6'], max: 6, description: 'Window pairs `long:short:factor`; the workbook\'s paging pairs by default (add `3d:6h:1` for a ticket-level slow burn).' },
    { name: 'min_requests', type: 'number', required: false, default: 10, min: 0, description: 'Requests a long window needs before it is judged (low-traffic services, SRE Workbook ch. 5).' },
  ],
  min_history_s: 0,
  eligibility: eligibility('logs', { alsoMetrics: true }),
};

function parseParams(raw: Raw): ErrorRatioParams {
  const p = new Params(spec.params, raw);
  const logs = p.has('errors_query') || p.has('total_query');
  const metrics = p.has('errors_expr') || p.has('total_expr');
  if (logs && metrics) throw new ParamError('errors_query', 'give errors_query and total_query (LogsQL) or errors_expr and total_expr (PromQL), not both');
  const source = logs ? 'logsql' : 'promql';
  const [e, t] = source === 'logsql' ? ['errors_query', 'total_query'] : ['errors_expr', 'total_expr'];
  if (!logs && !metrics) throw new ParamError('errors_query', 'give errors_query and total_query (LogsQL) or errors_expr and total_expr (PromQL)');
  if (!p.has(t)) throw new ParamError(t, `is required with ${e}`);
  if (!p.has(e)) throw new ParamError(e, `is required with ${t}`);
  if (source === 'promql' && p.has('group_by')) throw new ParamError('group_by', 'applies to LogsQL; aggregate the PromQL expressions `by (…)` instead');
  const windows = p.list('windows').map((w) => {
    const parsed = parseBurnWindow(w, durationMs);
    if (!parsed) throw new ParamError('windows', `${JSON.stringify(w)} is not long:short:factor with long > short > 0 and factor > 0 (e.g. "1h:5m:14.4")`);
    return parsed;
  });
  if (windows.length === 0) throw new ParamError('windows', 'needs at least one pair');
  const read = (name: string): string => (source === 'logsql' ? logFilter(name, p.str(name)) : p.str(name).trim());
  return { source, errors: read(e), total: read(t), groupBy: p.fields('group_by'), slo: p.num('slo'), windows, minRequests: p.num('min_requests') };
}

/** A step fine enough for the shortest window (a fifth of it), between 10 s and 5 min. */
export function stepFor(windows: readonly BurnWindow[]): number {
  const shortest = Math.min(...windows.map((w) => w.shortMs));
  return Math.min(Math.max(alignDown(shortest / 5, 10_000), 10_000), 5 * MINUTE_MS);
}

const longest = (p: ErrorRatioParams): number => Math.max(...p.windows.map((w) => w.longMs));

function groupsOf(series: Series[], labelsOf: (s: Series) => Record<string, string>): Map<string, { labels: Record<string, string>; points: Map<number, number> }> {
  const out = new Map<string, { labels: Record<string, string>; points: Map<number, number> }>();
  for (const s of series) {
    const labels = labelsOf(s);
    const key = labelsKey(labels);
    let g = out.get(key);
    if (!g) out.set(key, (g = { labels, points: new Map() }));
    for (const [t, v] of s.points) g.points.set(t, (g.points.get(t) ?? 0) + v);
  }
  return out;
}

async function evaluate({ params, window, data }: EvaluateInput<ErrorRatioParams>): Promise<EvaluateResult> {
  const step = stepFor(params.windows);
  const end = alignDown(window.endMs, step);
  const range = { startMs: end - longest(params), endMs: end };
  const [errors, total] = params.source === 'logsql'
    ? await Promise.all([params.errors, params.total].map((q) => data.logCounts(q, range, step, params.groupBy)))
    : await Promise.all([params.errors, params.total].map((q) => data.promRange(q, range, step)));
  const labelsOf = (s: Series): Record<string, string> => (params.source === 'logsql'
    ? Object.fromEntries(params.groupBy.map((f) => [f, s.labels[f] ?? '']))
    : alertLabels(s.labels));
  const errorGroups = groupsOf(errors ?? [], labelsOf);
  const totalGroups = groupsOf(total ?? [], labelsOf);
  if (totalGroups.size === 0) return { observations: [{ labels: {}, value: null, active: false, nodata: true, summary: 'no requests in the longest window' }] };
  // Per-second rates sum to requests per step seconds; counts are requests already.
  const countScale = params.source === 'promql' ? step / 1000 : 1;
  const observations = [...totalGroups].map(([key, g]): Observation => {
    const errs = errorGroups.get(key)?.points ?? new Map<number, number>();
    const points: RatioPoint[] = [...g.points].map(([t, v]) => ({ t, total: v, errors: errs.get(t) ?? 0 }));
    const r = burnRates(points, end, params.slo, params.windows, params.minRequests, countScale);
    const shown = r.pairs.find((x) => x.firing) ?? r.pairs.reduce((a, b) => (b.long.burn > a.long.burn ? b : a));
    const w = shown.window;
    return {
      labels: g.labels, value: r.burn, active: r.firing,
      summary: `burn ${fmt(shown.long.burn)}× over ${durationText(w.longMs)} and ${fmt(shown.short.burn)}× over ${durationText(w.shortMs)} ` +
        `(factor ${fmt(w.factor)}, SLO ${fmt(params.slo * 100)}%, ${fmt(shown.long.ratio * 100)}% errors)`,
    };
  });
  return { observations };
}

export const errorRatio: DetectorKind<ErrorRatioParams> = {
  spec,
  parseParams,
  queries: (p) => (p.source === 'logsql' ? { logsql: [p.errors, p.total], promql: [] } : { logsql: [], promql: [p.errors, p.total] }),
  historyMs: (p, windowMs) => Math.max(0, longest(p) - windowMs),
  requirements: (p) => ({ signal: p.source === 'logsql' ? 'logs' : 'metrics', min_history_s: 0 }),
  evaluate,
};
