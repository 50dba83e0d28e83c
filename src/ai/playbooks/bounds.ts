// Bound sentences of a runbook → detectors of the catalog (issue 10 item 4: "alert if … above …" sentences become
// detectors). A sentence states a bound when it has an alerting verb ("alert", "page", "notify", …) with a condition
// word ("if", "when", …) and a comparison with a number ("above 5%", "more than 100 errors", "exceeds 500ms"), or
// says that data stops ("no logs from payments for 15 minutes"). What is compared decides the kind:
//
// - a query in backticks, or the step's own query (a fenced block) when the sentence says "it" / "the query" / names
//   nothing else: `log_threshold` for LogsQL, `metric_threshold` for PromQL;
// - an error rate / ratio / percentage: `error_ratio` with the bound as the budget (an SLO of 1 − bound and one
//   window pair with burn factor 1, so it fires exactly when errors / requests over the window pass the bound), or
//   `metric_threshold` on the step's PromQL (which then is the ratio);
// - a latency quantile ("p99 latency", "95th percentile response time"): `trace_latency` with a fixed bound in ms;
// - a count of entries ("more than 100 errors in 5 minutes"): `log_threshold` on the step's LogsQL, else on
//   `level:error` (the level the NL query maps "errors" to, DESIGN §9) and the named service;
// - "no logs" / "stops logging": `absence`.
//
// "for 5 minutes" is Prometheus' `for`; "in / within / over / per 5 minutes" is the judged window. Anything that
// cannot be mapped is kept with a note saying why (never an error: the runbook still imports).
import type { CompareOp } from '../../detectors/algorithms/threshold.js';
import { splitPromqlComparison } from '../../detectors/rules/convert.js';
import { guessQuery, logsqlProblem, promqlProblem } from './queries.js';
import type { Bound, BoundTarget, QuerySignal, StepAlert } from './model.js';

export interface BoundContext {
  /** The step's query (from its fenced block), which "it" / "the query" refer to. */
  query?: string;
  signal?: QuerySignal;
  nowMs: number;
}

const TRIGGER = /\b(alert|alerts|alerted|alerting|page|paged|paging|notify|notified|notification|warn|trigger|fire|escalate|wake|woken)\b/i;
const CONDITION = /\b(if|when|whenever|once|should|as soon as)\b|^\s*(alert|page|notify)\s*:/i;

/** Comparison phrases, longest first so "greater than or equal to" wins over "greater than". */
const COMPARATORS: readonly [string, CompareOp][] = ([
  ['greater than or equal to', '>='], ['more than or equal to', '>='], ['less than or equal to', '<='],
  ['at least', '>='], ['no less than', '>='], ['at most', '<='], ['no more than', '<='], ['not more than', '<='],
  ['goes above', '>'], ['rises above', '>'], ['climbs above', '>'], ['jumps above', '>'], ['spikes above', '>'],
  ['goes over', '>'], ['is above', '>'], ['is over', '>'], ['above', '>'], ['exceeds', '>'], ['exceeding', '>'],
  ['exceed', '>'], ['greater than', '>'], ['more than', '>'], ['higher than', '>'], ['larger than', '>'], ['over', '>'],
  ['drops below', '<'], ['drops under', '<'], ['falls below', '<'], ['falls under', '<'], ['dips below', '<'],
  ['goes below', '<'], ['below', '<'], ['under', '<'], ['less than', '<'], ['fewer than', '<'], ['lower than', '<'],
  ['>=', '>='], ['<=', '<='], ['>', '>'], ['<', '<'],
] as [string, CompareOp][]).sort((a, b) => b[0].length - a[0].length);

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NUMBER = String.raw`(\d[\d,]*(?:\.\d+)?|\.\d+)`;
const VALUE_UNIT = String.raw`(%|percent\b|ms\b|milliseconds?\b|s\b|secs?\b|seconds?\b|minutes?\b|mins?\b|m\b|h\b|hours?\b)?`;
const COMPARISON_RE = new RegExp(`(?<![\\w-])(${COMPARATORS.map(([p]) => escape(p).replace(/ /g, '\\s+')).join('|')})\\s*${NUMBER}\\s*${VALUE_UNIT}`, 'i');
/** "100 or more errors", "10 or fewer requests". */
const POSTFIX_RE = new RegExp(`${NUMBER}\\s*${VALUE_UNIT}\\s+or\\s+(more|greater|higher|above|fewer|less|lower|below)\\b`, 'i');
/** A comparison without a number ("more than twice"): still a bound sentence, kept with a note. */
const COMPARISON_WORD = /\b(above|exceeds?|more than|less than|fewer than|below|greater than|higher than|lower than|drops|spikes?)\b/i;
const ABSENCE_RE = /\b(no (?:new )?(?:logs?|log lines|entries|events|data|lines|messages|requests)|stops? (?:logging|sending|reporting)|goes (?:silent|quiet)|is silent)\b/i;

const TIME_UNIT = String.raw`(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)`;
const FOR_RE = new RegExp(`\\bfor\\s+(?:more than\\s+|at least\\s+|over\\s+|longer than\\s+|the\\s+(?:last|past)\\s+)?(\\d+(?:\\.\\d+)?|an?|one)\\s*-?\\s*${TIME_UNIT}\\b`, 'i');
const WINDOW_RE = new RegExp(`\\b(?:in|within|over|during|per|every|across|inside)\\s+(?:the\\s+)?(?:last\\s+|past\\s+)?(?:a\\s+|an\\s+|one\\s+)?(\\d+(?:\\.\\d+)?)?\\s*-?\\s*${TIME_UNIT}(?:\\s+window)?\\b`, 'i');
const WINDOW_NOUN_RE = new RegExp(`\\b(?:an?|the|one)\\s+(\\d+(?:\\.\\d+)?)\\s*-?\\s*${TIME_UNIT}\\s+(?:window|period|interval)\\b`, 'i');

const LATENCY_RE = /\b(p\d{2,4}|(\d{2}(?:\.\d+)?)(?:th|st|nd|rd)?\s+percentile|median|latency|latencies|response times?|duration|slow(?:ness)?)\b/i;
const AVERAGE_RE = /\b(average|mean|avg)\b/i;
const ERROR_RATE_RE = /\b(error|errors|failure|5xx)[\s-]+(rate|ratio|percentage|share|fraction)\b|\b(rate|ratio|percentage|share) of (errors|failures|failed requests)\b|\berrors?\s*%/i;
const COUNT_NOUN_RE = /\b(errors?|exceptions?|failures?|timeouts?|warnings?|log lines|lines|entries|events|logs|messages|results|matches|hits|requests|occurrences|times)\b/i;
const ERROR_NOUN_RE = /\b(errors?|exceptions?|failures?|failed)\b/i;
const WARN_NOUN_RE = /\bwarnings?\b/i;
const TIMEOUT_NOUN_RE = /\btimeouts?\b/i;

const NOT_A_SERVICE = new Set([
  'the', 'a', 'an', 'all', 'any', 'each', 'every', 'this', 'that', 'these', 'those', 'it', 'them', 'us', 'our', 'your',
  'errors', 'error', 'requests', 'request', 'logs', 'log', 'entries', 'events', 'users', 'customers', 'service',
  'services', 'more', 'less', 'over', 'production', 'prod', 'staging', 'minutes', 'minute', 'seconds', 'hours', 'time',
  'latency', 'p99', 'p95', 'p50', 'traffic', 'example', 'instance', 'instances', 'pods', 'pod', 'hosts', 'host',
  'last', 'past', 'next', 'first', 'hour', 'day', 'week', 'now', 'on-call', 'oncall', 'team', 'me', 'someone',
]);

function unitSeconds(unit: string): number {
  const u = unit.toLowerCase();
  if (u === 'ms' || u.startsWith('millisecond')) return 0.001;
  if (u === 's' || u.startsWith('sec')) return 1;
  if (u === 'm' || u.startsWith('min')) return 60;
  if (u === 'h' || u.startsWith('h')) return 3600;
  return 86_400;
}

function amount(text: string | undefined): number {
  if (text === undefined || /^(an?|one)$/i.test(text)) return 1;
  return Number(text);
}

const numberOf = (text: string): number => Number(text.replace(/,/g, ''));

/** The service a sentence names: `service:x`, "the x service", "of / for / from x", "x's". */
export function serviceOf(text: string): string | undefined {
  const patterns = [
    /\bservice\s*[:=]\s*"?([\w.-]+)"?/i,
    /\bthe\s+([a-z][\w.-]*)\s+service\b/i,
    /\b([a-z][\w.-]*)\s+service\b/i,
    /\bservice\s+"?([a-z][\w.-]*)"?/i,
    /\b(?:of|for|from|on|by)\s+(?:the\s+)?([a-z][\w.-]*)\b/i,
    /\b([a-z][\w.-]*)'s\b/i,
  ];
  for (const re of patterns) {
    const m = re.exec(text);
    const name = m?.[1]?.replace(/[.-]+$/, '');
    if (name !== undefined && name !== '' && !NOT_A_SERVICE.has(name.toLowerCase()) && !/^\d/.test(name)) return name;
  }
  return undefined;
}

/** A LogsQL field filter with the value quoted when it is not a plain word. */
const fieldFilter = (field: string, value: string): string => `${field}:${/^[\w.-]+$/.test(value) ? value : JSON.stringify(value)}`;

interface Comparison { op: CompareOp; value: number; unit: string; noun: string; start: number; end: number }

function comparisonOf(sentence: string): Comparison | null {
  const m = COMPARISON_RE.exec(sentence);
  if (m?.[1] !== undefined && m[2] !== undefined) {
    const phrase = m[1].toLowerCase().replace(/\s+/g, ' ');
    const op = COMPARATORS.find(([p]) => p === phrase)?.[1] ?? '>';
    const end = m.index + m[0].length;
    const noun = /^\s*([a-z][\w-]*(?:\s+(?:lines|requests|responses|logs|entries))?)/i.exec(sentence.slice(end))?.[1] ?? '';
    return { op, value: numberOf(m[2]), unit: m[3] ?? '', noun, start: m.index, end };
  }
  const p = POSTFIX_RE.exec(sentence);
  if (p?.[1] !== undefined && p[3] !== undefined) {
    const op: CompareOp = /more|greater|higher|above/i.test(p[3]) ? '>=' : '<=';
    const end = p.index + p[0].length;
    const noun = /^\s*([a-z][\w-]*)/i.exec(sentence.slice(end))?.[1] ?? '';
    return { op, value: numberOf(p[1]), unit: p[2] ?? '', noun, start: p.index, end };
  }
  return null;
}

function timesOf(rest: string): { window_s?: number; for_s?: number } {
  const out: { window_s?: number; for_s?: number } = {};
  const f = FOR_RE.exec(rest);
  if (f?.[2] !== undefined) out.for_s = Math.round(amount(f[1]) * unitSeconds(f[2]));
  const withoutFor = f ? rest.slice(0, f.index) + rest.slice(f.index + f[0].length) : rest;
  const w = WINDOW_NOUN_RE.exec(withoutFor) ?? WINDOW_RE.exec(withoutFor);
  if (w?.[2] !== undefined) out.window_s = Math.round(amount(w[1]) * unitSeconds(w[2]));
  return out;
}

/** Inline code spans of a sentence, and the sentence with them replaced by `CODE`. */
function inlineCode(sentence: string): { spans: string[]; plain: string } {
  const spans: string[] = [];
  const plain = sentence.replace(/`([^`]+)`/g, (_m, code: string) => {
    spans.push(code.trim());
    return 'CODE';
  });
  return { spans, plain };
}

/** Whether a sentence states a bound at all (an alerting verb, a condition, and a comparison or an absence). */
export function isBoundSentence(sentence: string): boolean {
  const { plain } = inlineCode(sentence);
  return TRIGGER.test(plain) && CONDITION.test(plain)
    && (comparisonOf(plain) !== null || ABSENCE_RE.test(plain) || /CODE/.test(plain) || COMPARISON_WORD.test(plain));
}

type Mapped = { target: BoundTarget; threshold: number; op?: CompareOp; note?: undefined } | { note: string };

function percentOrRatio(c: Comparison): number {
  if (c.unit === '%' || /^percent/i.test(c.unit)) return c.value / 100;
  return c.value > 1 ? c.value / 100 : c.value;
}

const isTimeUnit = (unit: string): boolean => unit !== '' && unit !== '%' && !/^percent/i.test(unit);

function stepTarget(ctx: BoundContext, c: Comparison): Mapped | null {
  if (ctx.query === undefined) return null;
  if (ctx.signal === 'metrics') {
    // Prometheus keeps durations in seconds (its naming conventions: `_seconds`), so "above 2s" is 2 and 500ms 0.5.
    const threshold = isTimeUnit(c.unit) ? c.value * unitSeconds(c.unit) : c.value;
    return { target: { kind: 'metric_threshold', expr: ctx.query }, threshold };
  }
  return { target: { kind: 'log_threshold', query: ctx.query }, threshold: c.value };
}

/** A query given inline: LogsQL → log_threshold, PromQL → metric_threshold (its own `> n` when no words compare). */
function inlineTarget(code: string, c: Comparison | null, nowMs: number): Mapped {
  // Backticks in an alert sentence mark a query: a bare word (`error`) is LogsQL's word filter unless it has PromQL's
  // shape (guessQuery: a selector, a call, a metric name).
  const guessed = guessQuery(code, nowMs)
    ?? (logsqlProblem(code, nowMs) === null ? { query: code, signal: 'logs' as const } : null)
    ?? (promqlProblem(code) === null ? { query: code, signal: 'metrics' as const } : null);
  if (!guessed) return { note: `\`${code}\` is neither LogsQL nor PromQL that parses` };
  if (c === null) {
    // `rate(x[5m]) > 0.1` states its own bound, as a Prometheus alerting rule does (detectors/rules/convert.ts).
    const split = guessed.signal === 'metrics' ? splitPromqlComparison(guessed.query) : null;
    if (split) return { target: { kind: 'metric_threshold', expr: split.expr }, threshold: split.threshold, op: split.op };
    return { note: `no bound for \`${code}\`: say "above N" or "below N"` };
  }
  return guessed.signal === 'metrics'
    ? { target: { kind: 'metric_threshold', expr: guessed.query }, threshold: c.value }
    : { target: { kind: 'log_threshold', query: guessed.query }, threshold: c.value };
}

function mapBound(plain: string, spans: string[], c: Comparison | null, ctx: BoundContext): Mapped {
  const service = serviceOf(plain.replace(/CODE/g, ''));
  const svcFilter = service === undefined ? undefined : fieldFilter('service', service);
  if (ABSENCE_RE.test(plain) && (c === null || c.start > (ABSENCE_RE.exec(plain)?.index ?? 0))) {
    const query = spans[0] ?? (ctx.signal === 'logs' ? ctx.query : undefined) ?? svcFilter;
    if (query === undefined) return { note: 'no data from what? name the service or give the LogsQL query in backticks' };
    if (logsqlProblem(query, ctx.nowMs) !== null) return { note: `\`${query}\` is not a LogsQL filter` };
    return { target: { kind: 'absence', query }, threshold: 0 };
  }
  const code = spans[0];
  if (code !== undefined) return inlineTarget(code, c, ctx.nowMs);
  if (c === null) return { note: 'no number to compare with: say "above N" or "below N"' };
  const subject = `${plain.slice(0, c.start)} ${c.noun}`;

  if (ERROR_RATE_RE.test(plain)) {
    const ratio = percentOrRatio(c);
    if (ctx.signal === 'metrics' && ctx.query !== undefined) return { target: { kind: 'metric_threshold', expr: ctx.query }, threshold: ratio };
    if (c.op !== '>' && c.op !== '>=') return { note: 'an error rate bound must be an upper bound ("above 5%")' };
    const base = svcFilter ?? (ctx.signal === 'logs' && ctx.query !== undefined && !ERROR_NOUN_RE.test(ctx.query) ? ctx.query : undefined);
    if (base === undefined) return { note: 'the error rate of what? name the service (e.g. "of checkout") or give the step a LogsQL query of its requests' };
    if (ratio <= 0 || ratio > 0.5) return { note: `an error rate bound of ${ratio * 100}% is outside what error_ratio judges (above 0%, at most 50%)` };
    return { target: { kind: 'error_ratio', errorsQuery: `(${base}) level:error`, totalQuery: base }, threshold: ratio };
  }

  if (LATENCY_RE.test(subject) && isTimeUnit(c.unit)) {
    const ms = c.value * unitSeconds(c.unit) * 1000;
    const onMetrics = ctx.signal === 'metrics' ? stepTarget(ctx, c) : null;
    if (onMetrics) return onMetrics;
    if (AVERAGE_RE.test(subject)) return { note: 'an average latency: trace_latency judges quantiles (p50, p95, p99); say which' };
    if (c.op !== '>' && c.op !== '>=') return { note: 'a latency bound must be an upper bound ("above 500ms")' };
    const q = quantileOf(subject);
    return { target: { kind: 'trace_latency', quantile: q, ...(service === undefined ? {} : { service }) }, threshold: ms };
  }

  const countNoun = COUNT_NOUN_RE.exec(subject)?.[1];
  if (countNoun !== undefined && c.unit !== '%' && !/^percent/i.test(c.unit)) {
    const stepQ = stepTarget(ctx, c);
    if (stepQ) return stepQ;
    const level = ERROR_NOUN_RE.test(countNoun) ? 'level:error' : WARN_NOUN_RE.test(countNoun) ? 'level:(warn OR warning)' : TIMEOUT_NOUN_RE.test(countNoun) ? 'timeout' : undefined;
    const parts = [svcFilter, level].filter((x): x is string => x !== undefined);
    if (parts.length === 0) return { note: `${countNoun} of what? name the service or give the step a LogsQL query` };
    return { target: { kind: 'log_threshold', query: parts.join(' ') }, threshold: c.value };
  }

  const fromStep = stepTarget(ctx, c);
  if (fromStep) return fromStep;
  return { note: 'could not tell what to compare: give the query in backticks (alert if `<query>` is above N) or put it in a fenced logsql / promql block of this step' };
}

function quantileOf(subject: string): number {
  const p = /\bp(\d{2,4})\b/i.exec(subject)?.[1];
  if (p !== undefined) return Number(`0.${p}`);
  const pct = /\b(\d{2}(?:\.\d+)?)(?:th|st|nd|rd)?\s+percentile\b/i.exec(subject)?.[1];
  if (pct !== undefined) return Number(pct) / 100;
  if (/\bmedian\b/i.test(subject)) return 0.5;
  return 0.99;
}

/** The sentence as a StepAlert (a detector to create, or a note why not); null when it states no bound. */
export function extractBound(sentence: string, ctx: BoundContext): StepAlert | null {
  const text = sentence.trim();
  if (!isBoundSentence(text)) return null;
  const { spans, plain } = inlineCode(text);
  const c = comparisonOf(plain);
  const rest = c ? plain.slice(0, c.start) + ' ' + plain.slice(c.end) : plain;
  const times = timesOf(rest);
  const mapped = mapBound(plain, spans, c, ctx);
  if (mapped.note !== undefined) return { sentence: text, note: mapped.note };
  const bound: Bound = { target: mapped.target, op: mapped.op ?? c?.op ?? '>', threshold: mapped.threshold, ...times };
  return { sentence: text, bound };
}

/** Sentences of a block of prose: lines, then sentence ends outside inline code. */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const codes: string[] = [];
    const masked = line.replace(/`[^`]*`/g, (m) => `\u2063${codes.push(m) - 1}\u2063`);
    for (const part of masked.split(/(?<=[.!?;])\s+(?=[A-Z\u2063"(])/)) {
      const restored = part.replace(/\u2063(\d+)\u2063/g, (_m, i: string) => codes[Number(i)] ?? '').trim();
      if (restored !== '') out.push(restored.replace(/^[-*+]\s+|^\d+[.)]\s+/, ''));
    }
  }
  return out;
}

/** Every bound a piece of prose states, in order. */
export function extractBounds(text: string, ctx: BoundContext): StepAlert[] {
  return sentencesOf(text).map((s) => extractBound(s, ctx)).filter((a): a is StepAlert => a !== null);
}
