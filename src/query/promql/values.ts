// The four PromQL value types at one evaluation step, and the label-set helpers the operators share
// (Prometheus model/labels: Hash, HashForLabels, HashWithoutLabels, Compare). Label objects are never
// mutated once built, so derived sets and keys are memoised per object.
import { labelValue, setLabel as assignLabel } from '../../model/metric.js';
import { seriesKey } from '../../model/series-source.js';

export type Labels = Readonly<Record<string, string>>;

export const METRIC_NAME = '__name__';

/** One element of an instant vector; `t` is the stored sample's own time, kept for timestamp(). */
export interface Sample { labels: Labels; v: number; t?: number }
export interface Point { t: number; v: number }
export interface Series { labels: Labels; points: Point[] }

export type Value =
  | { type: 'scalar'; v: number }
  | { type: 'string'; s: string }
  | { type: 'vector'; samples: Sample[] }
  | { type: 'matrix'; series: Series[] };

const keys = new WeakMap<Labels, string>();
const withoutName = new WeakMap<Labels, Labels>();

/** The identity of a label set (equal sets, equal keys). */
export function labelsKey(labels: Labels): string {
  let k = keys.get(labels);
  if (k === undefined) keys.set(labels, (k = seriesKey(labels)));
  return k;
}

/** The set without `__name__` (Prometheus drops it wherever a value no longer is "the metric"). */
export function dropName(labels: Labels): Labels {
  if (!(METRIC_NAME in labels)) return labels;
  let out = withoutName.get(labels);
  if (!out) withoutName.set(labels, (out = Object.freeze(omitLabels(labels, (k) => k === METRIC_NAME))));
  return out;
}

/** Only the named labels (`on(…)`, `by(…)`); absent labels stay absent. */
export function keepLabels(labels: Labels, names: readonly string[]): Labels {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = labelValue(labels, n);
    if (v !== '') assignLabel(out, n, v);
  }
  return out;
}

/** All labels but the named ones (`ignoring(…)`); `dropMetric` also removes `__name__` (`without(…)`). */
export function removeLabels(labels: Labels, names: readonly string[], dropMetric: boolean): Labels {
  return omitLabels(labels, (k) => names.includes(k) || (dropMetric && k === METRIC_NAME));
}

/** A copy without the labels `drop` picks. */
export function omitLabels(labels: Labels, drop: (name: string, value: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([k, v]) => !drop(k, v)));
}

/** A copy with `name` set to `value`, or without it when `value` is empty. */
export function setLabel(labels: Labels, name: string, value: string): Labels {
  const out = omitLabels(labels, (k) => k === name);
  if (value !== '') assignLabel(out, name, value);
  return out;
}

/**
 * The matching signature of a sample in a vector–vector operation: HashForLabels(on…) or
 * HashWithoutLabels(ignoring…), which never includes `__name__`.
 */
export function matchSignature(labels: Labels, on: boolean, names: readonly string[]): string {
  return labelsKey(on ? keepLabels(labels, names) : removeLabels(labels, names, true));
}

/** labels.Compare: label by label in name order, name then value; a prefix sorts first. */
export function compareLabels(a: Labels, b: Labels): number {
  const an = Object.keys(a).sort();
  const bn = Object.keys(b).sort();
  for (let i = 0; i < Math.min(an.length, bn.length); i++) {
    const x = an[i] ?? '';
    const y = bn[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
    const xv = a[x] ?? '';
    const yv = b[y] ?? '';
    if (xv !== yv) return xv < yv ? -1 : 1;
  }
  return an.length - bn.length;
}

/** labels.String(): `{a="1", b="2"}` with names sorted. */
export function formatLabels(labels: Labels): string {
  return `{${Object.keys(labels).sort().map((k) => `${k}=${JSON.stringify(labels[k])}`).join(', ')}}`;
}

/** Sorting by value as Prometheus's vectorByValueHeap: NaN first, then ascending. */
export function compareValuesAsc(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : -1;
  if (Number.isNaN(b)) return 1;
  return a - b;
}

/** kahanSumInc of Prometheus: compensated summation step, returns [sum, compensation]. */
export function kahanSumInc(inc: number, sum: number, c: number): [number, number] {
  const t = sum + inc;
  let comp = c;
  if (Math.abs(t) === Infinity) comp = 0;
  else if (Math.abs(sum) >= Math.abs(inc)) comp += (sum - t) + inc;
  else comp += (inc - t) + sum;
  return [t, comp];
}
