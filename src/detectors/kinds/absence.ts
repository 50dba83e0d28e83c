// absence: no data for a LogsQL query or a PromQL expression over the window is the alert (Prometheus'
// `absent_over_time`, Grafana's "alert on no data"). No data is this kind's condition, so it reports it as active,
// never as `nodata`. With groups (LogsQL `group_by`, or PromQL series), a group is absent when it had data in the
// `lookback` before the window and has none in it: a host that stopped logging, a target that stopped reporting.
// PromQL instants see a sample for 5 minutes after it (Prometheus' lookback delta), so a series reads absent 5
// minutes after its last sample, as `absent()` does.
import type { DetectorKind, EvaluateInput, EvaluateResult, KindSpec, Observation, Window } from '../model.js';
import { ParamError } from '../model.js';
import { durationText, oneOf, Params, type Raw } from './params.js';
import { alertLabels, cellNumber, eligibility, groupByParam, labelsKey, logFilter, MINUTE_MS, pickLabels, statsPipe } from './common.js';

export interface AbsenceParams {
  source: 'logsql' | 'promql';
  /** LogsQL: the stats query run over the window (and the lookback); PromQL: the expression. */
  query: string;
  groupBy: string[];
  lookbackMs: number;
}

const spec: KindSpec = {
  kind: 'absence',
  signal: 'logs',
  description: 'No data for a LogsQL query or a PromQL expression over the window; with groups, a group that had data in the lookback and has none now.',
  params: [
    { name: 'query', type: 'logsql', required: false, description: 'A LogsQL filter (no pipes, no `_time`); give this or expr.' },
    { name: 'expr', type: 'promql', required: false, description: 'A PromQL expression; give this or query (then the metrics signal applies). Each series is a group.' },
    groupByParam('a LogsQL query'),
    { name: 'lookback', type: 'duration', required: false, default: '1h', min: 60, max: 7 * 86400, description: 'How far before the window a group must have had data to be expected in it.' },
  ],
  min_history_s: 0,
  eligibility: eligibility('logs', { alsoMetrics: true, hasData: 'The query or expression has matched data before (else the detector would fire at once).' }),
};

function parseParams(raw: Raw): AbsenceParams {
  const p = new Params(spec.params, raw);
  const source = oneOf(p, 'query', 'expr') === 'a' ? 'logsql' : 'promql';
  const groupBy = p.fields('group_by');
  if (source === 'promql' && groupBy.length > 0) throw new ParamError('group_by', 'applies to LogsQL; each PromQL series is a group already');
  const query = source === 'logsql' ? `${logFilter('query', p.str('query'))} | ${statsPipe(groupBy, 'count() as count')}` : p.str('expr').trim();
  return { source, query, groupBy, lookbackMs: p.num('lookback') };
}

const absent = (labels: Record<string, string>, window: Window, since: string): Observation =>
  ({ labels, value: 0, active: true, summary: `no data for ${durationText(window.endMs - window.startMs)}${since}` });

async function logsql(params: AbsenceParams, window: Window, data: EvaluateInput<AbsenceParams>['data']): Promise<Observation[]> {
  const now = await data.logStats(params.query, window);
  const count = (row: Record<string, unknown>): number => cellNumber(row.count) ?? 0;
  if (params.groupBy.length === 0) {
    const n = now.reduce((a, r) => a + count(r), 0);
    return [n > 0 ? { labels: {}, value: n, active: false } : absent({}, window, '')];
  }
  const before = await data.logStats(params.query, { startMs: window.startMs - params.lookbackMs, endMs: window.startMs });
  const present = new Map(now.filter((r) => count(r) > 0).map((r) => [labelsKey(pickLabels(r, params.groupBy)), count(r)]));
  const out: Observation[] = [...present].map(([key]) => {
    const row = now.find((r) => labelsKey(pickLabels(r, params.groupBy)) === key) ?? {};
    return { labels: pickLabels(row, params.groupBy), value: present.get(key) ?? 0, active: false };
  });
  for (const r of before) {
    const labels = pickLabels(r, params.groupBy);
    if (count(r) > 0 && !present.has(labelsKey(labels))) out.push(absent(labels, window, ` (had ${count(r)} in the ${durationText(params.lookbackMs)} before)`));
  }
  return out;
}

async function promql(params: AbsenceParams, window: Window, data: EvaluateInput<AbsenceParams>['data']): Promise<Observation[]> {
  const step = Math.max(Math.min(Math.floor((window.endMs - window.startMs) / 5), MINUTE_MS), 1000);
  const series = await data.promRange(params.query, { startMs: window.startMs - params.lookbackMs, endMs: window.endMs }, step);
  const out: Observation[] = [];
  for (const s of series) {
    const inWindow = s.points.filter(([t]) => t >= window.startMs);
    const labels = alertLabels(s.labels);
    if (inWindow.length > 0) {
      out.push({ labels, value: inWindow.length, active: false });
    } else {
      const last = s.points.at(-1)?.[0];
      out.push(absent(labels, window, last === undefined ? '' : ` (last at ${new Date(last).toISOString()})`));
    }
  }
  // As `absent()`: no series at all is one alert with no labels.
  if (series.length === 0) out.push(absent({}, window, ''));
  return out;
}

export const absence: DetectorKind<AbsenceParams> = {
  spec,
  parseParams,
  queries: (p) => (p.source === 'logsql' ? { logsql: [p.query], promql: [] } : { logsql: [], promql: [p.query] }),
  historyMs: (p) => (p.source === 'logsql' && p.groupBy.length === 0 ? 0 : p.lookbackMs),
  requirements: (p) => ({ signal: p.source === 'logsql' ? 'logs' : 'metrics', min_history_s: 0 }),
  evaluate: async ({ params, window, data }): Promise<EvaluateResult> =>
    ({ observations: params.source === 'logsql' ? await logsql(params, window, data) : await promql(params, window, data) }),
};
