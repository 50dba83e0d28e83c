// Aggregation operators over an instant vector, after Prometheus 2.x engine.go aggregation(): groups in order
// of first appearance, `by` keeps only the listed labels, `without` drops them and the metric name, topk and
// bottomk keep whole series (NaN ranks last), count_values adds its label before grouping.
import type { AggregateOp } from './ast.js';
import { formatGoFloat } from './literals.js';
import { PromqlError } from './parse.js';
import { quantile } from './range-functions.js';
import { keepLabels, labelsKey, removeLabels, type Labels, type Sample } from './values.js';

interface Group {
  labels: Labels;
  value: number;
  mean: number;
  count: number;
  members: Sample[];
}

const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const MAX_INT64 = 9223372036854774784;
const MIN_INT64 = -9223372036854775808;

function groupLabels(labels: Labels, grouping: string[], without: boolean): Labels {
  return without ? removeLabels(labels, grouping, true) : keepLabels(labels, grouping);
}

/** One step of the group's running value, as the switch of aggregation() does for every later sample. */
function accumulate(op: AggregateOp, g: Group, v: number): void {
  switch (op) {
    case 'sum': g.value += v; break;
    case 'avg':
      g.count++;
      if (Math.abs(g.mean) === Infinity) {
        // An infinite mean stays as it is unless a NaN or an infinity of the other sign arrives.
        if (Math.abs(v) === Infinity && (g.mean > 0) === (v > 0)) break;
        if (Math.abs(v) !== Infinity && !Number.isNaN(v)) break;
      }
      g.mean += v / g.count - g.mean / g.count;
      break;
    case 'max': if (g.value < v || Number.isNaN(g.value)) g.value = v; break;
    case 'min': if (g.value > v || Number.isNaN(g.value)) g.value = v; break;
    case 'count': case 'count_values': g.count++; break;
    case 'stddev': case 'stdvar': {
      g.count++;
      const delta = v - g.mean;
      g.mean += delta / g.count;
      g.value += delta * (v - g.mean);
      break;
    }
    default: break;
  }
}

/** The k highest (topk) or lowest (bottomk) members, NaN after every number. */
function pickK(members: Sample[], k: number, top: boolean): Sample[] {
  const sorted = [...members].sort((a, b) => {
    if (Number.isNaN(a.v)) return Number.isNaN(b.v) ? 0 : 1;
    if (Number.isNaN(b.v)) return -1;
    return top ? b.v - a.v : a.v - b.v;
  });
  return sorted.slice(0, k);
}

export function aggregate(
  op: AggregateOp, samples: Sample[], grouping: string[], without: boolean, param: number | string | undefined,
): Sample[] {
  let k = 0;
  if (op === 'topk' || op === 'bottomk') {
    const f = typeof param === 'number' ? param : Number.NaN;
    if (!(f <= MAX_INT64 && f >= MIN_INT64)) throw new PromqlError(`Scalar value ${formatGoFloat(f)} overflows int64`, 'execution');
    k = Math.trunc(f);
    if (k < 1) return [];
  }
  let groupBy = grouping;
  let input = samples;
  if (op === 'count_values') {
    const valueLabel = typeof param === 'string' ? param : '';
    if (!LABEL_NAME_RE.test(valueLabel)) throw new PromqlError(`invalid label name ${JSON.stringify(valueLabel)}`, 'execution');
    if (!without) groupBy = [...grouping, valueLabel];
    input = samples.map((s) => ({ labels: { ...s.labels, [valueLabel]: formatGoFloat(s.v) }, v: s.v }));
  }
  const groups = new Map<string, Group>();
  for (const s of input) {
    const labels = groupLabels(s.labels, groupBy, without);
    const key = labelsKey(labels);
    const g = groups.get(key);
    if (g) {
      accumulate(op, g, s.v);
      g.members.push(s);
    } else {
      const first: Group = { labels, value: s.v, mean: s.v, count: 1, members: [s] };
      if (op === 'stddev' || op === 'stdvar') first.value = 0;
      if (op === 'group') first.value = 1;
      groups.set(key, first);
    }
  }
  const out: Sample[] = [];
  for (const g of groups.values()) {
    switch (op) {
      case 'topk': case 'bottomk':
        for (const m of pickK(g.members, k, op === 'topk')) out.push({ labels: m.labels, v: m.v });
        continue;
      case 'avg': g.value = g.mean; break;
      case 'count': case 'count_values': g.value = g.count; break;
      case 'stdvar': g.value = g.value / g.count; break;
      case 'stddev': g.value = Math.sqrt(g.value / g.count); break;
      case 'quantile': g.value = quantile(typeof param === 'number' ? param : Number.NaN, g.members.map((m) => m.v)); break;
      default: break;
    }
    out.push({ labels: g.labels, v: g.value });
  }
  return out;
}
