// Binary operators, after Prometheus 2.x engine.go: scalar–scalar, vector–scalar (VectorscalarBinop),
// vector–vector with one-to-one / group_left / group_right matching (VectorBinop, resultMetric) and the set
// operators (VectorAnd, VectorOr, VectorUnless). Arithmetic drops the metric name; a filtering comparison
// keeps the left-hand element (or the vector's element when the scalar is on the left).
import { labelValue } from '../../model/metric.js';
import type { BinaryOp, VectorMatching } from './ast.js';
import { isComparison } from './ast.js';
import { PromqlError } from './parse.js';
import {
  dropName, formatLabels, keepLabels, labelsKey, matchSignature, removeLabels, setLabel, type Labels, type Sample,
} from './values.js';

/** math.Pow of Go where it differs from `**`: x^±0 = 1 for any x, 1^y = 1, (−1)^±Inf = 1. */
function goPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (x === -1 && Math.abs(y) === Infinity) return 1;
  return x ** y;
}

/** vectorElemBinop: the value and whether a comparison keeps the element. */
export function elemBinop(op: BinaryOp, l: number, r: number): [number, boolean] {
  switch (op) {
    case '+': return [l + r, true];
    case '-': return [l - r, true];
    case '*': return [l * r, true];
    case '/': return [l / r, true];
    case '%': return [l % r, true];
    case '^': return [goPow(l, r), true];
    case 'atan2': return [Math.atan2(l, r), true];
    case '==': return [l, l === r];
    case '!=': return [l, l !== r];
    case '>': return [l, l > r];
    case '<': return [l, l < r];
    case '>=': return [l, l >= r];
    case '<=': return [l, l <= r];
    default: throw new PromqlError(`operator ${JSON.stringify(op)} not allowed for scalar operations`, 'execution');
  }
}

/** Arithmetic results are no longer the metric (shouldDropMetricName). */
function dropsName(op: BinaryOp): boolean {
  return !isComparison(op);
}

export function scalarBinop(op: BinaryOp, l: number, r: number, returnBool: boolean): number {
  const [v, keep] = elemBinop(op, l, r);
  return isComparison(op) && returnBool ? (keep ? 1 : 0) : v;
}

/** `vector op scalar`, or `scalar op vector` when `scalarLeft`. */
export function vectorScalarBinop(
  op: BinaryOp, vec: Sample[], scalar: number, scalarLeft: boolean, returnBool: boolean,
): Sample[] {
  const out: Sample[] = [];
  for (const s of vec) {
    const [l, r] = scalarLeft ? [scalar, s.v] : [s.v, scalar];
    let [v, keep] = elemBinop(op, l, r);
    if (isComparison(op) && scalarLeft) v = r;
    if (returnBool) {
      v = keep ? 1 : 0;
      keep = true;
    }
    if (keep) out.push({ labels: dropsName(op) || returnBool ? dropName(s.labels) : s.labels, v });
  }
  return out;
}

/** resultMetric: the "many" side's labels, narrowed by on/ignoring for one-to-one, with group_x labels copied. */
function resultLabels(many: Labels, one: Labels, op: BinaryOp, m: VectorMatching): Labels {
  let out: Labels = dropsName(op) ? dropName(many) : many;
  if (m.card === 'one-to-one') out = m.on ? keepLabels(out, m.labels) : removeLabels(out, m.labels, false);
  for (const name of m.include) out = setLabel(out, name, labelValue(one, name));
  return out;
}

function matchedLabels(labels: Labels, m: VectorMatching): Labels {
  return m.on ? keepLabels(labels, m.labels) : removeLabels(labels, m.labels, true);
}

export function vectorBinop(
  op: BinaryOp, lhsIn: Sample[], rhsIn: Sample[], m: VectorMatching, returnBool: boolean,
): Sample[] {
  switch (op) {
    case 'and': return setOp(lhsIn, rhsIn, m, (inRhs) => inRhs);
    case 'unless': return setOp(lhsIn, rhsIn, m, (inRhs) => !inRhs);
    case 'or': {
      const leftSigs = new Set(lhsIn.map((s) => matchSignature(s.labels, m.on, m.labels)));
      return [...lhsIn, ...rhsIn.filter((s) => !leftSigs.has(matchSignature(s.labels, m.on, m.labels)))];
    }
    default: break;
  }
  // For one-to-many, swap sides so that the right-hand side is always the "one".
  const swapped = m.card === 'one-to-many';
  const [lhs, rhs] = swapped ? [rhsIn, lhsIn] : [lhsIn, rhsIn];
  const rightSigs = new Map<string, Sample>();
  for (const rs of rhs) {
    const sig = matchSignature(rs.labels, m.on, m.labels);
    const dup = rightSigs.get(sig);
    if (dup) {
      throw new PromqlError(
        `found duplicate series for the match group ${formatLabels(matchedLabels(rs.labels, m))} on the ` +
        `${swapped ? 'left' : 'right'} hand-side of the operation: [${formatLabels(rs.labels)}, ${formatLabels(dup.labels)}]` +
        ';many-to-many matching not allowed: matching labels must be unique on one side', 'execution');
    }
    rightSigs.set(sig, rs);
  }
  const matched = new Map<string, Set<string>>();
  const out: Sample[] = [];
  for (const ls of lhs) {
    const sig = matchSignature(ls.labels, m.on, m.labels);
    const rs = rightSigs.get(sig);
    if (!rs) continue;
    const [vl, vr] = swapped ? [rs.v, ls.v] : [ls.v, rs.v];
    const [value, keep] = elemBinop(op, vl, vr);
    let v = value;
    if (returnBool) v = keep ? 1 : 0;
    else if (!keep) continue;
    let labels = resultLabels(ls.labels, rs.labels, op, m);
    if (returnBool) labels = dropName(labels);
    const seen = matched.get(sig);
    if (m.card === 'one-to-one') {
      if (seen) throw new PromqlError('multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)', 'execution');
      matched.set(sig, new Set());
    } else {
      const key = labelsKey(labels);
      if (seen?.has(key)) throw new PromqlError('multiple matches for labels: grouping labels must ensure unique matches', 'execution');
      if (seen) seen.add(key);
      else matched.set(sig, new Set([key]));
    }
    out.push({ labels, v });
  }
  return out;
}

function setOp(lhs: Sample[], rhs: Sample[], m: VectorMatching, keep: (inRhs: boolean) => boolean): Sample[] {
  const rightSigs = new Set(rhs.map((s) => matchSignature(s.labels, m.on, m.labels)));
  return lhs.filter((s) => keep(rightSigs.has(matchSignature(s.labels, m.on, m.labels))));
}

/** Two elements of one result with the same label set make Prometheus fail the query. */
export function assertUniqueLabelsets(samples: Sample[]): void {
  if (samples.length < 2) return;
  const seen = new Set<string>();
  for (const s of samples) {
    const k = labelsKey(s.labels);
    if (seen.has(k)) throw new PromqlError('vector cannot contain metrics with the same labelset', 'execution');
    seen.add(k);
  }
}
