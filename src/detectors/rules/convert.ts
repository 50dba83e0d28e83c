// Rule-file rules → detector bodies, as POST …/detectors takes them (DESIGN §8 "Rule files"), and the query
// rewriting both directions share. The mapping, chosen to mean what the rule meant:
//
// - A Prometheus alerting rule (`expr` PromQL) is a `metric_threshold`. When the expression is a comparison of an
//   expression with a number (`sum(rate(x[5m])) by (job) > 5`, also `5 < x`), it becomes `expr` + `op` +
//   `threshold`: the same series fire, and an empty result is reported as `nodata` (Grafana's NoData) instead of
//   silence. Any other expression (`up == 0 and on() …`, `absent(x)`, a `bool` comparison) stays whole with no
//   threshold, which the kind evaluates with Prometheus' own rule: every series the expression returns is firing.
// - A vmalert `type: vlogs` rule (https://docs.victoriametrics.com/victorialogs/vmalert/) is a `log_threshold`. Its
//   expression ends in `| stats … | filter <result>:<op><number>` and vmalert fires for every row that passes the
//   filter; the filter becomes `column` + `op` + `threshold` over the stats query. The window is the group interval
//   (vmalert appends `_time:<interval>`), or the query's own leading `_time:<duration>`. A query without such a
//   filter fires for every row, which no threshold states: it is skipped with that reason.
// - Recording rules are skipped: Sightline keeps no recorded series.
import { parser } from '@prometheus-io/lezer-promql';
import { parseDurationMs, parseNumberLiteral } from '../../query/promql/literals.js';
import type { CompareOp } from '../algorithms/threshold.js';
import type { RuleEntry, RuleGroup } from './rule-file.js';

/** A detector as POST …/detectors takes it (times in seconds). */
export interface DetectorBody {
  name: string;
  kind: 'metric_threshold' | 'log_threshold';
  params: Record<string, unknown>;
  window_s?: number;
  interval_s?: number;
  for_s?: number;
  keep_firing_for_s?: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export type Converted = { ok: true; body: DetectorBody } | { ok: false; reason: string };

type Node = ReturnType<typeof parser.parse>['topNode'];

const COMPARISONS: Record<string, CompareOp> = { Eql: '==', Neq: '!=', Gtr: '>', Lss: '<', Gte: '>=', Lte: '<=' };
/** `5 < x` is `x > 5`. */
const MIRRORED: Record<CompareOp, CompareOp> = { '>': '<', '<': '>', '>=': '<=', '<=': '>=', '==': '==', '!=': '!=' };
/** `-n:>10` (NOT) is `n <= 10`. */
const NEGATED: Record<CompareOp, CompareOp> = { '>': '<=', '>=': '<', '<': '>=', '<=': '>', '==': '!=', '!=': '==' };

function kids(n: Node): Node[] {
  const out: Node[] = [];
  for (let c = n.firstChild; c; c = c.nextSibling) if (c.name !== 'LineComment') out.push(c);
  return out;
}

function finiteNumber(text: string): number | undefined {
  const v = parseNumberLiteral(text.trim());
  return v !== undefined && Number.isFinite(v) ? v : undefined;
}

/** The PromQL expression's top node, or null when it does not parse (the kind's validation will say why). */
function topNode(expr: string): Node | null {
  const tree = parser.parse(expr);
  const seen = { error: false };
  tree.iterate({ enter: (n) => { if (n.type.isError) seen.error = true; } });
  return seen.error ? null : kids(tree.topNode)[0] ?? null;
}

/** `lhs op number` (or `number op rhs`) at the top of a PromQL expression, without `bool` or vector matching. */
export function splitPromqlComparison(expr: string): { expr: string; op: CompareOp; threshold: number } | null {
  const top = topNode(expr);
  if (top?.name !== 'BinaryExpr') return null;
  const [lhs, opNode, rhs, ...rest] = kids(top);
  const op = opNode ? COMPARISONS[opNode.name] : undefined;
  if (!lhs || !rhs || op === undefined || rest.length > 0) return null; // a bool or on()/ignoring() modifier
  const text = (n: Node): string => expr.slice(n.from, n.to);
  const unparen = (n: Node): string => {
    const inner = n.name === 'ParenExpr' ? kids(n)[0] : undefined;
    return inner ? text(inner) : text(n);
  };
  const right = rhs.name === 'NumberDurationLiteral' ? finiteNumber(text(rhs)) : undefined;
  if (right !== undefined && lhs.name !== 'NumberDurationLiteral') return { expr: unparen(lhs), op, threshold: right };
  const left = lhs.name === 'NumberDurationLiteral' ? finiteNumber(text(lhs)) : undefined;
  if (left !== undefined && rhs.name !== 'NumberDurationLiteral') return { expr: unparen(rhs), op: MIRRORED[op], threshold: left };
  return null;
}

/** Whether a PromQL expression must be parenthesized before a comparison is appended to it. */
export function needsParens(expr: string): boolean {
  const top = topNode(expr);
  return top === null || top.name === 'BinaryExpr';
}

/** Offsets of the top-level `|` of a LogsQL query (not those inside quoted strings). */
export function pipeOffsets(q: string): number[] {
  const out: number[] = [];
  let quote: string | null = null;
  for (let i = 0; i < q.length; i++) {
    const c = q[i];
    if (quote !== null) {
      if (c === '\\' && quote !== '`') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '|') out.push(i);
  }
  return out;
}

const FIELD = String.raw`("(?:[^"\\]|\\.)*"|[A-Za-z_][\w.]*)`;
const NUMBER = String.raw`([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)`;
const FILTER_RE = new RegExp(String.raw`^filter\s+(-|!|not\s+)?${FIELD}\s*:\s*(>=|<=|>|<|=)?\s*${NUMBER}\s*$`, 'i');
const TIME_RE = /^_time\s*:\s*(\d+(?:ms|[smhdwy])(?:\d+(?:ms|[smhdwy]))*)(?:\s+(?:and\s+)?|\s*$)/i;

export interface VlogsThreshold {
  query: string;
  column: string;
  op: CompareOp;
  threshold: number;
  /** From a leading `_time:<duration>` of the query. */
  windowMs?: number;
}

/** A vmalert vlogs expression → the stats query and its comparison; a string says why it cannot be one. */
export function splitVlogsQuery(expr: string): VlogsThreshold | string {
  const offsets = pipeOffsets(expr);
  const last = offsets.at(-1);
  const m = last === undefined ? null : FILTER_RE.exec(expr.slice(last + 1).trim());
  if (last === undefined || !m) {
    return 'the query does not end in `| filter <stats result>:<op><number>`: vmalert fires for every row it returns, which no threshold states; add the comparison (e.g. `| filter errors:>0`)';
  }
  const [, not, field = '', opText, numText = ''] = m;
  const column = field.startsWith('"') ? (JSON.parse(field) as string) : field;
  const threshold = Number(numText);
  let op: CompareOp = opText === undefined || opText === '=' ? '==' : (opText as CompareOp);
  if (not !== undefined) op = NEGATED[op];
  let query = expr.slice(0, last).trim();
  let windowMs: number | undefined;
  const t = TIME_RE.exec(query);
  if (t?.[1] !== undefined) {
    windowMs = parseDurationMs(t[1].toLowerCase());
    query = query.slice(t[0].length).trim();
    if (query === '' || query.startsWith('|')) query = `*${query === '' ? '' : ` ${query}`}`;
  }
  return { query, column, op, threshold, ...(windowMs === undefined ? {} : { windowMs }) };
}

function seconds(text: string | undefined, what: string): number | string | undefined {
  if (text === undefined) return undefined;
  const ms = parseDurationMs(text.trim());
  if (ms === undefined) return `${what} ${JSON.stringify(text)} is not a Prometheus duration`;
  if (ms % 1000 !== 0) return `${what} ${JSON.stringify(text)} is not a whole number of seconds`;
  return ms / 1000;
}

/** One rule of a group → the detector to create, or why it is skipped. */
export function convertRule(group: RuleGroup, rule: RuleEntry): Converted {
  if (rule.record !== undefined) return { ok: false, reason: 'recording rule: Sightline keeps no recorded series, only alerting rules become detectors' };
  const times: Partial<Record<'interval_s' | 'for_s' | 'keep_firing_for_s', number>> = {};
  for (const [key, text, what] of [
    ['interval_s', group.interval, `group interval`], ['for_s', rule.for, 'for'], ['keep_firing_for_s', rule.keepFiringFor, 'keep_firing_for'],
  ] as const) {
    const s = seconds(text, what);
    if (typeof s === 'string') return { ok: false, reason: s };
    if (s !== undefined) times[key] = s;
  }
  const common = { name: rule.alert ?? '', labels: { ...group.labels, ...rule.labels }, annotations: rule.annotations, ...times };
  if (group.type === 'prometheus') {
    const split = splitPromqlComparison(rule.expr);
    const params = split ? { expr: split.expr, op: split.op, threshold: split.threshold } : { expr: rule.expr.trim() };
    return { ok: true, body: { ...common, kind: 'metric_threshold', params } };
  }
  const v = splitVlogsQuery(rule.expr);
  if (typeof v === 'string') return { ok: false, reason: v };
  // vmalert's window is the group interval unless the query says otherwise.
  const windowS = v.windowMs !== undefined ? Math.round(v.windowMs / 1000) : times.interval_s;
  return {
    ok: true,
    body: {
      ...common, kind: 'log_threshold', params: { query: v.query, column: v.column, op: v.op, threshold: v.threshold },
      ...(windowS === undefined ? {} : { window_s: windowS }),
    },
  };
}
