// The PromQL syntax tree the engine evaluates, built from the Lezer tree of @prometheus-io/lezer-promql
// (parse.ts). Shapes follow Prometheus's promql/parser/ast.go: offsets and `@` live on the selector or
// subquery they modify; durations are milliseconds.
import type { LabelMatcher } from '../../model/series-source.js';

export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

/** `@ <time>`, `@ start()`, `@ end()` (Prometheus ≥ 2.25). */
export type AtModifier = { kind: 'time'; ms: number } | { kind: 'start' } | { kind: 'end' };

export interface NumberLiteral { kind: 'number'; value: number }
export interface StringLiteral { kind: 'string'; value: string }

export interface VectorSelector {
  kind: 'vector';
  /** The metric name when written before the braces (also present as a `__name__` matcher). */
  name?: string;
  matchers: LabelMatcher[];
  offsetMs: number;
  at?: AtModifier;
}

export interface MatrixSelector {
  kind: 'matrix';
  selector: VectorSelector;
  rangeMs: number;
}

export interface SubqueryExpr {
  kind: 'subquery';
  expr: Expr;
  rangeMs: number;
  /** Absent: the engine's default subquery step (Prometheus: the global evaluation interval). */
  stepMs?: number;
  offsetMs: number;
  at?: AtModifier;
}

export interface Call {
  kind: 'call';
  func: string;
  args: Expr[];
}

export type AggregateOp =
  'sum' | 'avg' | 'min' | 'max' | 'count' | 'group' | 'stddev' | 'stdvar' | 'topk' | 'bottomk' | 'quantile' | 'count_values';

export interface AggregateExpr {
  kind: 'aggregate';
  op: AggregateOp;
  /** The first argument of topk, bottomk, quantile and count_values. */
  param?: Expr;
  expr: Expr;
  grouping: string[];
  without: boolean;
}

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%' | '^' | 'atan2';
export type ComparisonOp = '==' | '!=' | '>' | '<' | '>=' | '<=';
export type SetOp = 'and' | 'or' | 'unless';
export type BinaryOp = ArithmeticOp | ComparisonOp | SetOp;

export type Cardinality = 'one-to-one' | 'many-to-one' | 'one-to-many' | 'many-to-many';

/** `on(…)` / `ignoring(…)` and `group_left(…)` / `group_right(…)` of a binary operation between vectors. */
export interface VectorMatching {
  card: Cardinality;
  on: boolean;
  labels: string[];
  /** Labels copied from the "one" side (`group_left(include…)`). */
  include: string[];
}

export interface BinaryExpr {
  kind: 'binary';
  op: BinaryOp;
  lhs: Expr;
  rhs: Expr;
  /** `bool` modifier of a comparison. */
  returnBool: boolean;
  /** Present when both sides are vectors. */
  matching?: VectorMatching;
}

export interface UnaryExpr { kind: 'unary'; op: '-' | '+'; expr: Expr }
export interface ParenExpr { kind: 'paren'; expr: Expr }

export type Expr =
  NumberLiteral | StringLiteral | VectorSelector | MatrixSelector | SubqueryExpr | Call | AggregateExpr | BinaryExpr |
  UnaryExpr | ParenExpr;

export const COMPARISON_OPS: ReadonlySet<string> = new Set(['==', '!=', '>', '<', '>=', '<=']);
export const SET_OPS: ReadonlySet<string> = new Set(['and', 'or', 'unless']);

export function isComparison(op: BinaryOp): op is ComparisonOp {
  return COMPARISON_OPS.has(op);
}

export function isSetOp(op: BinaryOp): op is SetOp {
  return SET_OPS.has(op);
}
