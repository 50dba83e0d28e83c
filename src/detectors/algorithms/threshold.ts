// Threshold comparison with an optional recovery bound. The six operators are PromQL's comparison operators
// (https://prometheus.io/docs/prometheus/latest/querying/operators/#comparison-binary-operators). The recovery
// bound is Grafana's "custom recovery threshold" (Grafana alerting, "Configure recovery thresholds"): once active,
// an alert stays active until the value crosses the recovery bound, so a value hovering at the bound does not flap
// (issue 9 item 4). `for` in the engine is the other half of that defence.

export const COMPARE_OPS = ['>', '>=', '<', '<=', '==', '!='] as const;
export type CompareOp = (typeof COMPARE_OPS)[number];

export function isCompareOp(s: string): s is CompareOp {
  return (COMPARE_OPS as readonly string[]).includes(s);
}

/** `value op bound`; NaN never satisfies any operator but `!=` (as in IEEE 754 and PromQL). */
export function compare(value: number, op: CompareOp, bound: number): boolean {
  switch (op) {
    case '>': return value > bound;
    case '>=': return value >= bound;
    case '<': return value < bound;
    case '<=': return value <= bound;
    case '==': return value === bound;
    case '!=': return value !== bound;
  }
}

/**
 * Whether a recovery bound makes sense for the operator: it must lie on the quiet side of the bound (below it for
 * `>`/`>=`, above it for `<`/`<=`). Equality operators have no side, so they take none.
 */
export function recoveryProblem(op: CompareOp, bound: number, recovery: number): string | null {
  if (op === '==' || op === '!=') return `a recovery bound needs an ordering operator (>, >=, <, <=), not ${op}`;
  if ((op === '>' || op === '>=') && recovery > bound) return `must not be above the threshold ${bound} for ${op}`;
  if ((op === '<' || op === '<=') && recovery < bound) return `must not be below the threshold ${bound} for ${op}`;
  return null;
}

/**
 * Active with hysteresis: a group that was not active becomes active when `value op bound`; a group that was active
 * stays active until the value is past the recovery bound (for `>`: `value <= recovery`). Without a recovery bound
 * this is plain `compare`.
 */
export function thresholdActive(
  value: number, op: CompareOp, bound: number, recovery: number | undefined, wasActive: boolean,
): boolean {
  if (compare(value, op, bound)) return true;
  if (!wasActive || recovery === undefined || Number.isNaN(value)) return false;
  // Still active while the value has not recovered, i.e. while it is on the firing side of the recovery bound.
  switch (op) {
    case '>': return value > recovery;
    case '>=': return value >= recovery;
    case '<': return value < recovery;
    case '<=': return value <= recovery;
    default: return false;
  }
}
