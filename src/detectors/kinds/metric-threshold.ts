// metric_threshold: a PromQL instant query at the end of the window, one observation per series. With `threshold`
// each series is compared with it; without, the expression is the condition as in a Prometheus alerting rule
// (https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/): every series it returns is active
// (`up == 0`), and an empty result means all is well. Alert labels are the series labels without `__name__`, as
// Prometheus makes them (rules/alerting.go).
import { ParamError, type DetectorKind, type EvaluateInput, type EvaluateResult, type KindSpec, type Observation } from '../model.js';
import { isCompareOp, recoveryProblem, thresholdActive, type CompareOp } from '../algorithms/threshold.js';
import { Params, type Raw } from './params.js';
import { alertLabels, eligibility, fmt, labelsKey, opParam, recoveryParam } from './common.js';
import { activeKeys, withActive } from './hysteresis.js';

export interface MetricThresholdParams {
  expr: string;
  op: CompareOp;
  /** Absent: Prometheus semantics (every returned series is active). */
  threshold?: number;
  recovery?: number;
}

const spec: KindSpec = {
  kind: 'metric_threshold',
  signal: 'metrics',
  description: 'A PromQL instant value per series compared with a threshold; without one, every series the expression returns is active (a Prometheus alerting rule).',
  params: [
    { name: 'expr', type: 'promql', required: true, description: 'PromQL, an instant vector or scalar, evaluated at the end of the window.' },
    opParam(),
    { name: 'threshold', type: 'number', required: false, description: 'The bound each series is compared with; absent: the expression is the condition (`up == 0`).' },
    recoveryParam,
  ],
  min_history_s: 0,
  eligibility: eligibility('metrics', {}),
};

function parseParams(raw: Raw): MetricThresholdParams {
  const p = new Params(spec.params, raw);
  const op = p.str('op');
  if (!isCompareOp(op)) throw new ParamError('op', 'must be a comparison operator');
  const threshold = p.optNum('threshold');
  const recovery = p.optNum('recovery_threshold');
  if (recovery !== undefined) {
    if (threshold === undefined) throw new ParamError('recovery_threshold', 'needs a threshold');
    const problem = recoveryProblem(op, threshold, recovery);
    if (problem !== null) throw new ParamError('recovery_threshold', problem);
  }
  if (threshold === undefined && p.has('op')) throw new ParamError('op', 'needs a threshold');
  return {
    expr: p.str('expr').trim(), op,
    ...(threshold === undefined ? {} : { threshold }), ...(recovery === undefined ? {} : { recovery }),
  };
}

async function evaluate({ params, window, data, state }: EvaluateInput<MetricThresholdParams>): Promise<EvaluateResult> {
  const samples = await data.promInstant(params.expr, window.endMs);
  const { threshold } = params;
  if (threshold === undefined) {
    return { observations: samples.map((s) => ({ labels: alertLabels(s.labels), value: s.value, active: true, summary: `${params.expr} = ${fmt(s.value)}` })) };
  }
  if (samples.length === 0) return { observations: [{ labels: {}, value: null, active: false, nodata: true, summary: 'no series' }], state: {} };
  const wasActive = activeKeys(state);
  const observations = samples.map((s): Observation => {
    const labels = alertLabels(s.labels);
    if (Number.isNaN(s.value)) return { labels, value: null, active: false, nodata: true, summary: 'NaN' };
    const active = thresholdActive(s.value, params.op, threshold, params.recovery, wasActive.has(labelsKey(labels)));
    return { labels, value: s.value, active, summary: `${fmt(s.value)} ${params.op} ${fmt(threshold)}` };
  });
  return withActive(observations, params.recovery !== undefined);
}

export const metricThreshold: DetectorKind<MetricThresholdParams> = {
  spec,
  parseParams,
  queries: (p) => ({ logsql: [], promql: [p.expr] }),
  historyMs: () => 0,
  requirements: () => ({ signal: 'metrics', min_history_s: 0 }),
  evaluate,
};
