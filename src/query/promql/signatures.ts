// Argument and return types of the PromQL functions this engine evaluates, as Prometheus 2.x lists them in
// promql/parser/functions.go; `optional` trailing arguments may be left out (Prometheus's Variadic > 0),
// `variadic` repeats the last argument type (Variadic = -1). Names the grammar knows but that are not here
// are answered with "function … is not supported".
import type { ValueType } from './ast.js';

export interface FunctionSignature {
  args: ValueType[];
  optional?: number;
  variadic?: boolean;
  returns: ValueType;
}

const V: ValueType = 'vector';
const M: ValueType = 'matrix';
const S: ValueType = 'scalar';
const STR: ValueType = 'string';

const vectorMath = [
  'abs', 'ceil', 'floor', 'exp', 'sqrt', 'ln', 'log2', 'log10', 'sgn', 'deg', 'rad',
  'acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'cos', 'cosh', 'sin', 'sinh', 'tan', 'tanh',
];
const dateFns = ['day_of_month', 'day_of_week', 'day_of_year', 'days_in_month', 'hour', 'minute', 'month', 'year'];
const rangeFns = [
  'rate', 'irate', 'increase', 'delta', 'idelta', 'deriv', 'changes', 'resets', 'absent_over_time',
  'avg_over_time', 'min_over_time', 'max_over_time', 'sum_over_time', 'count_over_time', 'last_over_time',
  'present_over_time', 'stddev_over_time', 'stdvar_over_time',
];

export const FUNCTIONS: ReadonlyMap<string, FunctionSignature> = new Map<string, FunctionSignature>([
  ...vectorMath.map((n): [string, FunctionSignature] => [n, { args: [V], returns: V }]),
  ...dateFns.map((n): [string, FunctionSignature] => [n, { args: [V], optional: 1, returns: V }]),
  ...rangeFns.map((n): [string, FunctionSignature] => [n, { args: [M], returns: V }]),
  ['quantile_over_time', { args: [S, M], returns: V }],
  ['predict_linear', { args: [M, S], returns: V }],
  ['absent', { args: [V], returns: V }],
  ['clamp', { args: [V, S, S], returns: V }],
  ['clamp_max', { args: [V, S], returns: V }],
  ['clamp_min', { args: [V, S], returns: V }],
  ['round', { args: [V, S], optional: 1, returns: V }],
  ['histogram_quantile', { args: [S, V], returns: V }],
  ['label_replace', { args: [V, STR, STR, STR, STR], returns: V }],
  ['label_join', { args: [V, STR, STR, STR], variadic: true, optional: 1, returns: V }],
  ['scalar', { args: [V], returns: S }],
  ['vector', { args: [S], returns: V }],
  ['time', { args: [], returns: S }],
  ['pi', { args: [], returns: S }],
  ['timestamp', { args: [V], returns: V }],
  ['sort', { args: [V], returns: V }],
  ['sort_desc', { args: [V], returns: V }],
]);

/** How Prometheus names a value type in error messages. */
export function describeType(t: ValueType): string {
  switch (t) {
    case 'scalar': return 'scalar';
    case 'vector': return 'instant vector';
    case 'matrix': return 'range vector';
    case 'string': return 'string';
  }
}
