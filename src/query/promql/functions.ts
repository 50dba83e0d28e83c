// Functions of instant vectors and scalars, after Prometheus 2.x promql/functions.go. Math and date
// functions drop the metric name; sort, sort_desc, label_replace and label_join keep it. Functions of range
// vectors are in range-functions.ts; absent, absent_over_time and timestamp need the syntax tree and are
// evaluated by engine.ts.
import { PromqlError } from './parse.js';
import { histogramQuantile } from './histogram.js';
import { labelValue } from '../../model/metric.js';
import { anchoredRegExp } from '../../model/series-source.js';
import { dropName, setLabel, type Sample, type Value } from './values.js';

export type InstantFunction = (args: Value[], evalMs: number) => Value;

const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function vectorArg(args: Value[], i: number): Sample[] {
  const a = args[i];
  return a?.type === 'vector' ? a.samples : [];
}

function scalarArg(args: Value[], i: number, fallback = Number.NaN): number {
  const a = args[i];
  return a?.type === 'scalar' ? a.v : fallback;
}

function stringArg(args: Value[], i: number): string {
  const a = args[i];
  return a?.type === 'string' ? a.s : '';
}

function vector(samples: Sample[]): Value {
  return { type: 'vector', samples };
}

/** simpleFunc: f applied to every element, metric name dropped. */
function simple(f: (v: number) => number): InstantFunction {
  return (args) => vector(vectorArg(args, 0).map((s) => ({ labels: dropName(s.labels), v: f(s.v) })));
}

/** The date functions read each value as unix seconds (whole seconds, UTC); no argument means vector(time()). */
function dateFn(f: (d: Date) => number): InstantFunction {
  return (args, evalMs) => {
    const input = args.length === 0 ? [{ labels: {}, v: evalMs / 1000 }] : vectorArg(args, 0);
    return vector(input.map((s) => ({ labels: dropName(s.labels), v: f(new Date(Math.trunc(s.v) * 1000)) })));
  };
}

function dayOfYear(d: Date): number {
  return Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

/** Sorts by value with NaN last, as Prometheus's sort / sort_desc. */
function sortBy(desc: boolean): InstantFunction {
  return (args) => {
    const out = [...vectorArg(args, 0)];
    out.sort((a, b) => {
      if (Number.isNaN(a.v)) return Number.isNaN(b.v) ? 0 : 1;
      if (Number.isNaN(b.v)) return -1;
      return desc ? b.v - a.v : a.v - b.v;
    });
    return vector(out);
  };
}

/** Regexp.ExpandString of Go: `$1`, `${1}`, `$name`, `${name}`, `$$`; an unknown group expands to nothing. */
export function expandTemplate(template: string, match: RegExpExecArray): string {
  return template.replace(/\$(\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g, (whole, _x: string, braced?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = braced ?? bare ?? '';
    if (/^\d+$/.test(name)) return match[Number(name)] ?? '';
    return match.groups?.[name] ?? '';
  });
}

function labelReplace(args: Value[]): Value {
  const [dst, repl, src, regex] = [stringArg(args, 1), stringArg(args, 2), stringArg(args, 3), stringArg(args, 4)];
  let re: RegExp;
  try {
    re = anchoredRegExp(regex);
  } catch {
    throw new PromqlError(`invalid regular expression in label_replace(): ${regex}`, 'execution');
  }
  if (!LABEL_NAME_RE.test(dst)) throw new PromqlError(`invalid destination label name in label_replace(): ${dst}`, 'execution');
  return vector(vectorArg(args, 0).map((s) => {
    const m = re.exec(labelValue(s.labels, src));
    return m ? { labels: setLabel(s.labels, dst, expandTemplate(repl, m)), v: s.v } : { labels: s.labels, v: s.v };
  }));
}

function labelJoin(args: Value[]): Value {
  const dst = stringArg(args, 1);
  const sep = stringArg(args, 2);
  const srcs = args.slice(3).map((_, i) => stringArg(args, i + 3));
  if (!LABEL_NAME_RE.test(dst)) throw new PromqlError(`invalid destination label name in label_join(): ${dst}`, 'execution');
  const badSrc = srcs.find((s) => !LABEL_NAME_RE.test(s));
  if (badSrc !== undefined) throw new PromqlError(`invalid source label name in label_join(): ${badSrc}`, 'execution');
  return vector(vectorArg(args, 0).map((s) => ({
    labels: setLabel(s.labels, dst, srcs.map((n) => labelValue(s.labels, n)).join(sep)), v: s.v,
  })));
}

export const INSTANT_FUNCTIONS: ReadonlyMap<string, InstantFunction> = new Map<string, InstantFunction>([
  ['abs', simple(Math.abs)],
  ['ceil', simple(Math.ceil)],
  ['floor', simple(Math.floor)],
  ['exp', simple(Math.exp)],
  ['sqrt', simple(Math.sqrt)],
  ['ln', simple(Math.log)],
  ['log2', simple(Math.log2)],
  ['log10', simple(Math.log10)],
  ['sgn', simple((v) => (v < 0 ? -1 : v > 0 ? 1 : v))],
  ['deg', simple((v) => (v * 180) / Math.PI)],
  ['rad', simple((v) => (v * Math.PI) / 180)],
  ...(['acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'cos', 'cosh', 'sin', 'sinh', 'tan', 'tanh'] as const)
    .map((n): [string, InstantFunction] => [n, simple((v) => Math[n](v))]),
  ['round', (args) => {
    const inverse = 1 / scalarArg(args, 1, 1);
    return vector(vectorArg(args, 0).map((s) => ({ labels: dropName(s.labels), v: Math.floor(s.v * inverse + 0.5) / inverse })));
  }],
  ['clamp', (args) => {
    const min = scalarArg(args, 1);
    const max = scalarArg(args, 2);
    if (max < min) return vector([]);
    return vector(vectorArg(args, 0).map((s) => ({ labels: dropName(s.labels), v: Math.max(min, Math.min(max, s.v)) })));
  }],
  ['clamp_max', (args) => simple((v) => Math.min(v, scalarArg(args, 1)))(args, 0)],
  ['clamp_min', (args) => simple((v) => Math.max(v, scalarArg(args, 1)))(args, 0)],
  ['day_of_month', dateFn((d) => d.getUTCDate())],
  ['day_of_week', dateFn((d) => d.getUTCDay())],
  ['day_of_year', dateFn(dayOfYear)],
  ['days_in_month', dateFn((d) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate())],
  ['hour', dateFn((d) => d.getUTCHours())],
  ['minute', dateFn((d) => d.getUTCMinutes())],
  ['month', dateFn((d) => d.getUTCMonth() + 1)],
  ['year', dateFn((d) => d.getUTCFullYear())],
  ['histogram_quantile', (args) => vector(histogramQuantile(scalarArg(args, 0), vectorArg(args, 1)))],
  ['label_replace', labelReplace],
  ['label_join', labelJoin],
  ['scalar', (args) => {
    const v = vectorArg(args, 0);
    return { type: 'scalar', v: v.length === 1 ? (v[0]?.v ?? Number.NaN) : Number.NaN };
  }],
  ['vector', (args) => vector([{ labels: {}, v: scalarArg(args, 0) }])],
  ['time', (_args, evalMs) => ({ type: 'scalar', v: evalMs / 1000 })],
  ['pi', () => ({ type: 'scalar', v: Math.PI })],
  ['sort', sortBy(false)],
  ['sort_desc', sortBy(true)],
]);
