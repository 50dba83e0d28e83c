// PromQL text → AST (ast.ts). The grammar is Prometheus's own (@prometheus-io/lezer-promql, the parser of
// the Prometheus UI); this walks its Lezer tree and applies the checks Prometheus's parser makes after
// parsing (promql/parser/parse.go checkAST): argument counts and types, scalar comparisons need `bool`,
// set operators only between vectors, a selector needs a non-empty matcher, ranges only on selectors.
import { parser } from '@prometheus-io/lezer-promql';
import type {
  AggregateExpr, AggregateOp, AtModifier, BinaryExpr, BinaryOp, Cardinality, Expr, MatrixSelector, SubqueryExpr,
  ValueType, VectorMatching, VectorSelector,
} from './ast.js';
import { isComparison, isSetOp } from './ast.js';
import { parseDurationMs, parseNumberLiteral, unquoteString } from './literals.js';
import { anchoredRegExp, type LabelMatcher } from '../../model/series-source.js';
import { describeType, FUNCTIONS } from './signatures.js';

type Node = ReturnType<typeof parser.parse>['topNode'];

/** A query Prometheus would refuse: `bad_data` for parse errors, `execution` for errors while evaluating. */
export class PromqlError extends Error {
  constructor(message: string, readonly errorType: 'bad_data' | 'execution' = 'bad_data', readonly position?: number) {
    super(message);
    this.name = 'PromqlError';
  }
}

/** ParseErr.Error() of Prometheus: `<line>:<col>: parse error: <msg>`, column 1-based. */
function parseError(text: string, pos: number, msg: string): PromqlError {
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const col = pos - before.lastIndexOf('\n');
  return new PromqlError(`${line}:${col}: parse error: ${msg}`, 'bad_data', pos);
}

const BINARY_OPS: Record<string, BinaryOp> = {
  Add: '+', Sub: '-', Mul: '*', Div: '/', Mod: '%', Pow: '^', Atan2: 'atan2', Eql: '==', Neq: '!=', Gtr: '>', Lss: '<',
  Gte: '>=', Lte: '<=', And: 'and', Or: 'or', Unless: 'unless',
};
const AGGREGATE_OPS = new Set<string>([
  'sum', 'avg', 'min', 'max', 'count', 'group', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values',
]);
const PARAM_OPS = new Set<string>(['topk', 'bottomk', 'quantile', 'count_values']);
const MATCH_OPS: Record<string, LabelMatcher['type']> = { EqlSingle: '=', Neq: '!=', EqlRegex: '=~', NeqRegex: '!~' };

export function parsePromql(text: string): Expr {
  if (text.trim() === '') throw parseError(text, 0, 'no expression found in input');
  const tree = parser.parse(text);
  let bad: { from: number } | undefined;
  tree.iterate({
    enter: (n) => {
      if (bad) return false;
      if (n.type.isError) bad = { from: n.from };
      return undefined;
    },
  });
  if (bad) {
    const rest = text.slice(bad.from).trim();
    const token = /^("[^"]*"?|'[^']*'?|`[^`]*`?|[\w:.]+|\S)/.exec(rest)?.[0];
    throw parseError(text, bad.from, token === undefined ? 'unexpected end of input' : `unexpected ${JSON.stringify(token)}`);
  }
  const top = children(tree.topNode)[0];
  if (!top) throw parseError(text, 0, 'no expression found in input');
  return new Builder(text).expr(top);
}

/** The value type of an expression (Prometheus Expr.Type()). */
export function typeOf(e: Expr): ValueType {
  switch (e.kind) {
    case 'number': return 'scalar';
    case 'string': return 'string';
    case 'vector': return 'vector';
    case 'matrix': case 'subquery': return 'matrix';
    case 'call': return FUNCTIONS.get(e.func)?.returns ?? 'vector';
    case 'aggregate': return 'vector';
    case 'binary': return typeOf(e.lhs) === 'scalar' && typeOf(e.rhs) === 'scalar' ? 'scalar' : 'vector';
    case 'unary': case 'paren': return typeOf(e.expr);
  }
}

function children(n: Node): Node[] {
  const out: Node[] = [];
  for (let c = n.firstChild; c; c = c.nextSibling) if (c.name !== 'LineComment') out.push(c);
  return out;
}

class Builder {
  /** Selectors and subqueries whose offset / `@` has been set: each may be set once. */
  private readonly hasOffset = new WeakSet<object>();
  private readonly hasAt = new WeakSet<object>();
  /** Where each binary / unary expression came from, for postfix() to rebuild it. */
  private readonly made = new WeakMap<Expr, { node: Node; opNode?: Node; matching?: VectorMatching }>();

  constructor(private readonly text: string) {}

  private src(n: Node): string {
    return this.text.slice(n.from, n.to);
  }

  private fail(n: Node, msg: string): never {
    throw parseError(this.text, n.from, msg);
  }

  private expect(n: Node, e: Expr, want: ValueType, context: string): void {
    const got = typeOf(e);
    if (got !== want) this.fail(n, `expected type ${describeType(want)} in ${context}, got ${describeType(got)}`);
  }

  expr(n: Node): Expr {
    switch (n.name) {
      case 'NumberDurationLiteral': {
        const v = parseNumberLiteral(this.src(n).replace(/\s+/g, ''));
        return v === undefined ? this.fail(n, `bad number or duration syntax: ${JSON.stringify(this.src(n))}`) : { kind: 'number', value: v };
      }
      case 'StringLiteral': return { kind: 'string', value: this.string(n) };
      case 'VectorSelector': return this.vectorSelector(n);
      case 'MatrixSelector': return this.matrixSelector(n);
      case 'SubqueryExpr': return this.subquery(n);
      case 'OffsetExpr': return this.offset(n);
      case 'StepInvariantExpr': return this.at(n);
      case 'ParenExpr': return { kind: 'paren', expr: this.expr(this.child(n, 0)) };
      case 'UnaryExpr': {
        const [op, inner] = children(n);
        if (!op || !inner) return this.fail(n, 'unexpected unary expression');
        return this.unary(n, this.src(op).trim() === '-' ? '-' : '+', this.expr(inner));
      }
      case 'BinaryExpr': return this.binary(n);
      case 'FunctionCall': return this.call(n);
      case 'AggregateExpr': return this.aggregate(n);
      default: return this.fail(n, `${n.name} is not supported`);
    }
  }

  private child(n: Node, i: number): Node {
    return children(n)[i] ?? this.fail(n, 'unexpected end of input');
  }

  private string(n: Node): string {
    const v = unquoteString(this.src(n));
    return v === undefined ? this.fail(n, `invalid string literal ${this.src(n)}`) : v;
  }

  private labelName(n: Node): string {
    return n.name === 'QuotedLabelName' ? this.string(this.child(n, 0)) : this.src(n);
  }

  private vectorSelector(n: Node): VectorSelector {
    const matchers: LabelMatcher[] = [];
    let name: string | undefined;
    for (const c of children(n)) {
      if (c.name === 'Identifier') name = this.src(c);
      else if (c.name === 'LabelMatchers') for (const m of children(c)) matchers.push(this.matcher(m));
    }
    if (name !== undefined) {
      const dup = matchers.find((m) => m.name === '__name__');
      if (dup) this.fail(n, `metric name must not be set twice: ${JSON.stringify(name)} or ${JSON.stringify(dup.value)}`);
      matchers.push({ name: '__name__', type: '=', value: name });
    }
    // Prometheus refuses selectors that would match every series (e.g. through a typo).
    const nonEmpty = matchers.some((m) => {
      switch (m.type) {
        case '=': return m.value !== '';
        case '!=': return m.value === '';
        case '=~': return !anchoredRegExp(m.value).test('');
        case '!~': return anchoredRegExp(m.value).test('');
      }
    });
    if (!nonEmpty) this.fail(n, 'vector selector must contain at least one non-empty matcher');
    return { kind: 'vector', ...(name === undefined ? {} : { name }), matchers, offsetMs: 0 };
  }

  private matcher(n: Node): LabelMatcher {
    if (n.name === 'QuotedLabelName') return { name: '__name__', type: '=', value: this.labelName(n) };
    const [nameNode, opNode, valueNode] = children(n);
    if (!nameNode || !opNode || !valueNode) return this.fail(n, 'unexpected label matcher');
    const type = MATCH_OPS[opNode.firstChild?.name ?? ''] ?? this.fail(opNode, 'unexpected label matching operator');
    const m: LabelMatcher = { name: this.labelName(nameNode), type, value: this.string(valueNode) };
    if (type === '=~' || type === '!~') {
      try {
        anchoredRegExp(m.value);
      } catch (e) {
        this.fail(valueNode, `error parsing regexp: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return m;
  }

  private duration(n: Node): number {
    const kids = children(n);
    if (n.name === 'NumberDurationLiteralInDurationContext') {
      const text = this.src(n);
      const d = parseDurationMs(text);
      if (d !== undefined) return d;
      const v = parseNumberLiteral(text);
      return v === undefined || !Number.isFinite(v) ? this.fail(n, `bad duration syntax: ${JSON.stringify(text)}`) : Math.round(v * 1000);
    }
    if (n.name === 'DurationExpr' || n.name === 'OffsetDurationExpr') {
      const [a, b, c] = kids;
      if (kids.length === 1 && a) return this.duration(a);
      if (kids.length === 2 && a?.name === 'UnaryOp' && b) return this.src(a) === '-' ? -this.duration(b) : this.duration(b);
      if (kids.length === 3 && a && b && c) {
        const x = this.duration(a) / 1000;
        const y = this.duration(c) / 1000;
        const r = { Add: x + y, Sub: x - y, Mul: x * y, Div: x / y, Mod: x % y, Pow: x ** y }[b.name];
        if (r !== undefined && Number.isFinite(r)) return Math.round(r * 1000);
      }
    }
    return this.fail(n, `unsupported duration expression ${JSON.stringify(this.src(n))}`);
  }

  private unary(n: Node, op: '-' | '+', e: Expr): Expr {
    const t = typeOf(e);
    if (t !== 'scalar' && t !== 'vector') {
      this.fail(n, `unary expression only allowed on expressions of type scalar or instant vector, got ${JSON.stringify(describeType(t))}`);
    }
    const out: Expr = { kind: 'unary', op, expr: e };
    this.made.set(out, { node: n });
    return out;
  }

  /**
   * Lezer's grammar gives the postfix modifiers (`[range]`, `[range:step]`, `offset`, `@`) no precedence, so
   * `a - b offset 5m` arrives as `(a - b) offset 5m`. Prometheus binds them to the operand right before them:
   * push `apply` down the right edge of binary and unary expressions, checking each level again.
   */
  private postfix(e: Expr, apply: (operand: Expr) => Expr): Expr {
    const made = this.made.get(e);
    if (e.kind === 'binary' && made?.opNode) {
      return this.makeBinary(made.node, made.opNode, e.op, e.lhs, this.postfix(e.rhs, apply), e.returnBool, made.matching);
    }
    if (e.kind === 'unary' && made) return this.unary(made.node, e.op, this.postfix(e.expr, apply));
    return apply(e);
  }

  private matrixSelector(n: Node): Expr {
    const [inner, dur] = children(n);
    if (!inner || !dur) return this.fail(n, 'unexpected range selector');
    const rangeMs = this.duration(dur);
    if (rangeMs <= 0) this.fail(dur, 'duration must be greater than 0');
    return this.postfix(this.expr(inner), (e): MatrixSelector => {
      if (e.kind !== 'vector') return this.fail(n, 'ranges only allowed for vector selectors');
      if (this.hasOffset.has(e)) this.fail(n, 'no offset modifiers allowed before range');
      if (this.hasAt.has(e)) this.fail(n, 'no @ modifiers allowed before range');
      return { kind: 'matrix', selector: e, rangeMs };
    });
  }

  private subquery(n: Node): Expr {
    const [inner, range, step] = children(n);
    if (!inner || !range) return this.fail(n, 'unexpected subquery');
    const rangeMs = this.duration(range);
    if (rangeMs <= 0) this.fail(range, 'duration must be greater than 0');
    const stepMs = step ? this.duration(step) : undefined;
    if (stepMs !== undefined && stepMs <= 0) this.fail(n, 'duration must be greater than 0');
    return this.postfix(this.expr(inner), (e): SubqueryExpr => {
      const t = typeOf(e);
      if (t !== 'vector') this.fail(n, `subquery is only allowed on instant vector, got ${describeType(t)} instead`);
      return { kind: 'subquery', expr: e, rangeMs, offsetMs: 0, ...(stepMs === undefined ? {} : { stepMs }) };
    });
  }

  /** The selector or subquery an `offset` / `@` modifies (a range selector's modifiers sit on its selector). */
  private target(e: Expr): VectorSelector | SubqueryExpr | undefined {
    if (e.kind === 'vector' || e.kind === 'subquery') return e;
    if (e.kind === 'matrix') return e.selector;
    return undefined;
  }

  private offset(n: Node): Expr {
    const kids = children(n);
    const inner = kids[0];
    const dur = kids[kids.length - 1];
    if (!inner || !dur) return this.fail(n, 'unexpected offset');
    const offsetMs = this.duration(dur);
    return this.postfix(this.expr(inner), (e) => {
      const t = this.target(e) ?? this.fail(n, 'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery');
      if (this.hasOffset.has(t)) this.fail(n, 'offset may not be set multiple times');
      this.hasOffset.add(t);
      t.offsetMs = offsetMs;
      return e;
    });
  }

  private at(n: Node): Expr {
    const kids = children(n);
    const inner = kids[0];
    const value = kids[kids.length - 1];
    if (!inner || !value) return this.fail(n, 'unexpected @ modifier');
    let at: AtModifier;
    if (value.name === 'AtModifierPreprocessors') at = { kind: value.firstChild?.name === 'AtEnd' ? 'end' : 'start' };
    else {
      const v = parseNumberLiteral(this.src(value).replace(/\s+/g, ''));
      if (v === undefined || !Number.isFinite(v) || Math.abs(v) >= 9.2e15) this.fail(value, 'timestamp out of bounds for @ modifier');
      at = { kind: 'time', ms: Math.round(v * 1000) };
    }
    return this.postfix(this.expr(inner), (e) => {
      const t = this.target(e) ?? this.fail(n, '@ modifier must be preceded by an instant vector selector or range vector selector or a subquery');
      if (this.hasAt.has(t)) this.fail(n, '@ <timestamp> may not be set multiple times');
      this.hasAt.add(t);
      t.at = at;
      return e;
    });
  }

  private grouping(n: Node): string[] {
    return children(n).map((c) => this.labelName(c));
  }

  private binary(n: Node): Expr {
    const kids = children(n);
    const lhsNode = kids[0];
    const rhsNode = kids[kids.length - 1];
    const opNode = kids[1];
    if (!lhsNode || !rhsNode || !opNode || kids.length < 3) return this.fail(n, 'unexpected binary expression');
    const op = BINARY_OPS[opNode.name] ?? this.fail(opNode, `binary expression does not support operator ${JSON.stringify(this.src(opNode))}`);
    let returnBool = false;
    let matching: VectorMatching | undefined;
    for (const m of kids.slice(2, -1)) {
      if (m.name === 'BoolModifier') returnBool = true;
      else if (m.name === 'MatchingModifierClause') matching = this.matching(m);
      else this.fail(m, `${m.name} is not supported`);
    }
    // The grammar reads `-2 ^ 2` as (-2) ^ 2; in Prometheus the sign is a unary operator, weaker than `^`.
    const sign = op === '^' && lhsNode.name === 'NumberDurationLiteral' ? /^\s*([+-])/.exec(this.src(lhsNode))?.[1] : undefined;
    if (sign !== undefined) {
      const lhs = this.expr(lhsNode);
      const unsigned: Expr = lhs.kind === 'number' ? { kind: 'number', value: Math.abs(lhs.value) } : lhs;
      return this.unary(n, sign === '-' ? '-' : '+', this.makeBinary(n, opNode, op, unsigned, this.expr(rhsNode), returnBool, matching));
    }
    return this.makeBinary(n, opNode, op, this.expr(lhsNode), this.expr(rhsNode), returnBool, matching);
  }

  /** The checks of Prometheus's checkAST for a binary expression; `matching` as written (or absent). */
  private makeBinary(
    n: Node, opNode: Node, op: BinaryOp, lhs: Expr, rhs: Expr, returnBool: boolean, written: VectorMatching | undefined,
  ): BinaryExpr {
    const lt = typeOf(lhs);
    const rt = typeOf(rhs);
    if (returnBool && !isComparison(op)) this.fail(opNode, 'bool modifier can only be used on comparison operators');
    if (isComparison(op) && !returnBool && lt === 'scalar' && rt === 'scalar') this.fail(opNode, 'comparisons between scalars must use BOOL modifier');
    if (lt !== 'scalar' && lt !== 'vector') this.fail(n, 'binary expression must contain only scalar and instant vector types');
    if (rt !== 'scalar' && rt !== 'vector') this.fail(opNode, 'binary expression must contain only scalar and instant vector types');
    if ((lt === 'scalar' || rt === 'scalar') && isSetOp(op)) this.fail(n, `set operator ${JSON.stringify(op)} not allowed in binary scalar expression`);
    const out: BinaryExpr = { kind: 'binary', op, lhs, rhs, returnBool };
    this.made.set(out, { node: n, opNode, ...(written ? { matching: written } : {}) });
    if (lt !== 'vector' || rt !== 'vector') {
      if (written && written.labels.length > 0) this.fail(n, 'vector matching only allowed between instant vectors');
      return out;
    }
    const matching: VectorMatching = written ? { ...written } : { card: 'one-to-one', on: false, labels: [], include: [] };
    if (isSetOp(op)) {
      if (matching.card !== 'one-to-one') this.fail(n, `no grouping allowed for ${JSON.stringify(op)} operation`);
      matching.card = 'many-to-many';
    }
    out.matching = matching;
    return out;
  }

  private matching(n: Node): VectorMatching {
    const kids = children(n);
    const on = kids[0]?.name === 'On';
    const labels = kids[1] ? this.grouping(kids[1]) : [];
    let card: Cardinality = 'one-to-one';
    if (kids[2]?.name === 'GroupLeft') card = 'many-to-one';
    if (kids[2]?.name === 'GroupRight') card = 'one-to-many';
    const include = kids[3] ? this.grouping(kids[3]) : [];
    if (on) {
      const both = include.find((l) => labels.includes(l));
      if (both !== undefined) this.fail(n, `label ${JSON.stringify(both)} must not occur in ON and GROUP clause at once`);
    }
    return { card, on, labels, include };
  }

  private call(n: Node): Expr {
    const [ident, body] = children(n);
    if (!ident || !body) return this.fail(n, 'unexpected function call');
    const func = this.src(ident);
    const sig = FUNCTIONS.get(func) ?? this.fail(ident, `function ${JSON.stringify(func)} is not supported`);
    const args = children(body).map((c) => this.expr(c));
    const min = sig.args.length - (sig.optional ?? 0);
    const max = sig.variadic ? Infinity : sig.args.length;
    if (args.length < min || args.length > max) {
      const exact = min === max ? `${min}` : args.length < min ? `at least ${min}` : `at most ${max}`;
      this.fail(n, `expected ${exact} argument(s) in call to ${JSON.stringify(func)}, got ${args.length}`);
    }
    args.forEach((a, i) => {
      const want = sig.args[Math.min(i, sig.args.length - 1)] ?? 'vector';
      this.expect(n, a, want, `call to function ${JSON.stringify(func)}`);
    });
    return { kind: 'call', func, args };
  }

  private aggregate(n: Node): AggregateExpr {
    const kids = children(n);
    const opText = this.src(kids[0] ?? n);
    if (!AGGREGATE_OPS.has(opText)) this.fail(n, `aggregation ${JSON.stringify(opText)} is not supported`);
    const op = opText as AggregateOp;
    const body = kids.find((k) => k.name === 'FunctionCallBody') ?? this.fail(n, 'unexpected aggregation');
    const mod = kids.find((k) => k.name === 'AggregateModifier');
    const args = children(body).map((c) => this.expr(c));
    const want = PARAM_OPS.has(op) ? 2 : 1;
    if (args.length !== want) this.fail(n, `wrong number of arguments for aggregate expression provided, expected ${want}, got ${args.length}`);
    const expr = args[want - 1] ?? this.fail(n, 'missing aggregation argument');
    this.expect(n, expr, 'vector', 'aggregation expression');
    const out: AggregateExpr = { kind: 'aggregate', op, expr, grouping: [], without: false };
    if (want === 2 && args[0]) {
      this.expect(n, args[0], op === 'count_values' ? 'string' : 'scalar', 'aggregation parameter');
      out.param = args[0];
    }
    if (mod) {
      const [kw, labels] = children(mod);
      out.without = kw?.name === 'Without';
      out.grouping = labels ? this.grouping(labels) : [];
    }
    return out;
  }
}
