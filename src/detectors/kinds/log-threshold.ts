// log_threshold: a LogsQL stats query over the window against a bound, one alert per `by (…)` group — vmalert's
// `type: vlogs` rule (https://docs.victoriametrics.com/victorialogs/vmalert/), whose query ends in `| stats` and
// whose `by` fields become alert labels. A query without a stats pipe is counted: `| stats [by (group_by)] count()`
// is appended. The compared column is the stats result named by `column` (the pipe's only result by default).
import { ParamError, type DetectorKind, type EvaluateInput, type EvaluateResult, type KindSpec, type Observation } from '../model.js';
import { statsShape } from '../../query/logsql-stats.js';
import { ServiceError } from '../../errors.js';
import { isCompareOp, recoveryProblem, thresholdActive, type CompareOp } from '../algorithms/threshold.js';
import { Params, parseLogsqlParam, type Raw } from './params.js';
import { cellNumber, eligibility, fmt, groupByParam, hasTimeFilter, labelsKey, opParam, pickLabels, recoveryParam, statsPipe } from './common.js';
import { activeKeys, withActive } from './hysteresis.js';

export interface LogThresholdParams {
  /** The text run: the query as given, or with `| stats … count() as count` appended. */
  query: string;
  labels: string[];
  column: string;
  op: CompareOp;
  threshold: number;
  recovery?: number;
}

const spec: KindSpec = {
  kind: 'log_threshold',
  signal: 'logs',
  description: 'A LogsQL stats value over the window (count, sum, avg, quantile, …) compared with a threshold, one alert per `stats by (…)` group.',
  params: [
    { name: 'query', type: 'logsql', required: true, description: 'LogsQL. Ending in `| stats [by (…)] fn(…) [as name]` compares that result; a plain filter is counted. No `_time` filter: the window sets the range.' },
    groupByParam('the count of a plain filter (ignored when the query has its own stats pipe)'),
    { name: 'column', type: 'string', required: false, description: 'The stats result to compare (default: the pipe\'s only result, or its first).' },
    opParam(),
    { name: 'threshold', type: 'number', required: true, description: 'The bound the value is compared with.' },
    recoveryParam,
  ],
  min_history_s: 0,
  eligibility: eligibility('logs', {}),
};

function parseParams(raw: Raw): LogThresholdParams {
  const p = new Params(spec.params, raw);
  const given = p.str('query').trim();
  let parsed = parseLogsqlParam('query', given);
  let query = given;
  if (parsed.pipes.length > 0 && !parsed.pipes.some((x) => x.kind === 'stats')) {
    throw new ParamError('query', 'has pipes but no `| stats`: end it with one, or give a plain filter to be counted');
  }
  if (parsed.pipes.length === 0) {
    query = `${given === '' ? '*' : given} | ${statsPipe(p.fields('group_by'), 'count() as count')}`;
    parsed = parseLogsqlParam('query', query);
  } else if (p.has('group_by')) {
    throw new ParamError('group_by', 'the query has its own stats pipe: put the fields in its `by (…)`');
  }
  if (hasTimeFilter(parsed.filter)) throw new ParamError('query', 'must not filter on _time: the detector\'s window sets the time range');
  let shape: { labels: string[]; metrics: string[] };
  try {
    shape = statsShape(parsed);
  } catch (e) {
    if (e instanceof ServiceError) throw new ParamError('query', e.detail.replace(/^invalid query: /, ''));
    throw e;
  }
  const stats = parsed.pipes.filter((x) => x.kind === 'stats').at(-1);
  if (stats?.by.some((g) => g.bucketNs !== undefined)) throw new ParamError('query', 'must not bucket by _time: the window is one bucket');
  const column = p.optStr('column') ?? shape.metrics[0] ?? '';
  if (!shape.metrics.includes(column)) throw new ParamError('column', `must be one of the stats results: ${shape.metrics.join(', ')}`);
  const op = p.str('op');
  if (!isCompareOp(op)) throw new ParamError('op', 'must be a comparison operator');
  const threshold = p.num('threshold');
  const recovery = p.optNum('recovery_threshold');
  if (recovery !== undefined) {
    const problem = recoveryProblem(op, threshold, recovery);
    if (problem !== null) throw new ParamError('recovery_threshold', problem);
  }
  return { query, labels: shape.labels, column, op, threshold, ...(recovery === undefined ? {} : { recovery }) };
}

async function evaluate({ params, window, data, state }: EvaluateInput<LogThresholdParams>): Promise<EvaluateResult> {
  const rows = await data.logStats(params.query, window);
  if (rows.length === 0) return { observations: [{ labels: {}, value: null, active: false, nodata: true, summary: 'no rows' }], state: {} };
  const wasActive = activeKeys(state);
  const observations = rows.map((row): Observation => {
    const labels = pickLabels(row, params.labels);
    const value = cellNumber(row[params.column]);
    if (value === null) return { labels, value: null, active: false, nodata: true, summary: `${params.column} has no value` };
    const active = thresholdActive(value, params.op, params.threshold, params.recovery, wasActive.has(labelsKey(labels)));
    return { labels, value, active, summary: `${params.column} ${fmt(value)} ${params.op} ${fmt(params.threshold)}` };
  });
  return withActive(observations, params.recovery !== undefined);
}

export const logThreshold: DetectorKind<LogThresholdParams> = {
  spec,
  parseParams,
  queries: (p) => ({ logsql: [p.query], promql: [] }),
  historyMs: () => 0,
  requirements: () => ({ signal: 'logs', min_history_s: 0 }),
  evaluate,
};
