// Reads a metrics question into PromQL (issue 10 item 2: "cpu usage of checkout", "p99 latency of api", "request
// rate by service"), linked to the tenant's own metric names and labels (schema.ts MetricSchema). The metric is
// the one whose name parts match the question's metric words best, and among those the one that has the label
// values the question names (so "cpu of checkout" picks the cpu metric that carries a checkout series).
import { isConnector, Negation, negationStep } from './negation.js';
import { keysOf, longestMatch, type MetricSchema } from './schema.js';
import type { Ledger } from './tokenizer.js';
import { METRIC_WORDS, numberWord, PREPOSITIONS, stem, STOP_WORDS } from './vocabulary.js';

/** Question words → the metric-name parts they stand for. */
const CONCEPTS: Record<string, string[]> = {
  latency: ['duration', 'latency'], latencies: ['duration', 'latency'], duration: ['duration', 'latency'],
  response: ['duration', 'latency'], slow: ['duration', 'latency'],
  cpu: ['cpu'], processor: ['cpu'],
  memory: ['memory', 'mem', 'resident', 'rss'], mem: ['memory', 'mem', 'resident', 'rss'], ram: ['memory', 'mem', 'resident', 'rss'],
  request: ['request', 'requests'], throughput: ['request', 'requests'], traffic: ['request', 'requests'],
  qps: ['request', 'requests'], rps: ['request', 'requests'], call: ['request', 'requests'], hit: ['request', 'requests'],
  // "error rate", "rate by service": a rate of requests, unless a stronger word picks another metric.
  rate: ['request', 'requests'],
};
/** Words that shape the expression rather than pick a metric; placed when used. */
const SHAPE_WORDS = new Set(['usage', 'utilization', 'utilisation', 'consumption', 'used', 'use', 'rate', 'time', 'level',
  'value', 'values', 'over', 'trend', 'second', 'per', 'volume']);
const AGG_WORDS: Record<string, 'avg' | 'max' | 'min' | 'sum'> = {
  average: 'avg', avg: 'avg', mean: 'avg', max: 'max', maximum: 'max', peak: 'max', highest: 'max', min: 'min',
  minimum: 'min', lowest: 'min', total: 'sum', sum: 'sum', overall: 'sum', combined: 'sum',
};
const ERROR_WORDS = new Set(['error', 'errors', 'failed', 'failing', 'failure', 'failures', '5xx', 'erroring']);
const STATUS_LABELS = ['status', 'code', 'status_code', 'http_status', 'http_status_code', 'response_code'];
const GROUP_WORDS = new Set(['by', 'per', 'each']);
const LABEL_SYNONYMS: Record<string, string[]> = {
  service: ['service', 'job', 'app'], app: ['app', 'service', 'job'], host: ['host', 'instance', 'node'],
  machine: ['host', 'instance', 'node'], server: ['host', 'instance'], node: ['node', 'host', 'instance'],
  endpoint: ['path', 'route', 'handler', 'endpoint'], route: ['route', 'path', 'handler'], path: ['path', 'route', 'handler'],
  status: ['status', 'code', 'status_code'], code: ['code', 'status', 'status_code'],
};
/** Label names a bare value prefers when it is a value of several. */
const LABEL_PREFERENCE = ['service', 'job', 'app', 'host', 'instance'];
/** Name parts that are units or suffixes: "per second" must not pick a `_seconds` metric. */
const UNIT_PARTS = new Set(['total', 'second', 'seconds', 'byte', 'bytes', 'count', 'sum', 'bucket', 'ratio', 'info', 'created']);

export interface MetricsIntent {
  metric: string;
  kind: 'histogram' | 'counter' | 'gauge';
  matchers: { label: string; op: '=' | '!=' | '=~' | '!~'; value: string }[];
  groupBy: string[];
  agg: 'sum' | 'avg' | 'max' | 'min';
  quantile?: number;
  /** Mean of a histogram: rate(_sum) / rate(_count). */
  mean?: boolean;
  topk?: number;
  /** Counter total over the range ("how many requests"): `increase(…[<range>])`. */
  increaseOver?: string;
}

export function kindOf(name: string): MetricsIntent['kind'] {
  if (name.endsWith('_bucket')) return 'histogram';
  return /(_total|_count|_sum)$/.test(name) ? 'counter' : 'gauge';
}

function parts(name: string): Set<string> {
  return new Set(name.toLowerCase().split(/[_:]+/).flatMap((p) => [p, stem(p)]));
}

/** Whether the question names a metric: a metric word, a concept, a quantile, or a metric's own name. */
export function soundsLikeMetrics(l: Ledger, names: readonly string[]): boolean {
  for (let i = 0; i < l.length; i++) {
    const w = l.word(i);
    if (w === undefined) continue;
    if (METRIC_WORDS.has(w) || /^p\d{1,2}(\.\d+)?$/.test(w) || ['percentile', 'quantile', 'latency', 'cpu', 'memory', 'throughput', 'qps', 'rps', 'rate', 'usage', 'utilization'].includes(w)) return true;
    if (names.includes(w)) return true;
  }
  return false;
}

export async function readMetrics(l: Ledger, schema: MetricSchema, rangeMs: number): Promise<MetricsIntent | undefined> {
  const chosen = await chooseMetric(l, schema);
  if (!chosen) return undefined;
  return new MetricsReader(l, chosen.name, await schema.labelsOf(chosen.name), chosen.concept, rangeMs).read(chosen.words, schema.names);
}

/** Concept or name-part words of the question (indices), and the metric they pick. */
async function chooseMetric(l: Ledger, schema: MetricSchema): Promise<{ name: string; words: number[]; concept: string[] } | undefined> {
  const scored: { name: string; words: number[]; concept: string[]; score: number }[] = [];
  for (const name of schema.names) {
    if (name.endsWith('_sum') || name.endsWith('_count')) {
      if (schema.names.includes(name.replace(/_(sum|count)$/, '_bucket'))) continue; // the histogram stands for them
    }
    const p = parts(name);
    const words: number[] = [];
    const concept: string[] = [];
    let score = 0;
    for (let i = 0; i < l.length; i++) {
      const w = l.word(i);
      if (w === undefined) continue;
      if (w === name.toLowerCase()) {
        words.push(i);
        score += 10;
        continue;
      }
      const wanted = CONCEPTS[w] ?? CONCEPTS[stem(w)];
      if (wanted?.some((c) => p.has(c))) {
        words.push(i);
        concept.push(...wanted);
        score += w === 'rate' ? 1 : 2;
      } else if (!STOP_WORDS.has(w) && !PREPOSITIONS.has(w) && w.length > 2 && !UNIT_PARTS.has(stem(w)) && (p.has(w) || p.has(stem(w)))) {
        words.push(i);
        score += 1;
      }
    }
    if (score > 0) scored.push({ name, words, concept, score });
  }
  if (scored.length === 0) return undefined;
  const best = Math.max(...scored.map((s) => s.score));
  const top = scored.filter((s) => s.score === best);
  if (top.length === 1) return top[0];
  // Several tie on the words: the one whose labels hold the most of the question's other words, then histograms for
  // latency and counters for requests, then the shortest name.
  const withCover = await Promise.all(top.map(async (s) => ({ s, cover: valueCover(l, await schema.labelsOf(s.name), s.words) })));
  withCover.sort((a, b) => b.cover - a.cover || rankKind(b.s) - rankKind(a.s) || a.s.name.length - b.s.name.length || (a.s.name < b.s.name ? -1 : 1));
  return withCover[0]?.s;
}

function rankKind(s: { name: string; concept: string[] }): number {
  const k = kindOf(s.name);
  if (s.concept.includes('duration')) return k === 'histogram' ? 2 : 0;
  return k === 'counter' ? 1 : 0;
}

/** How many of the question's other words are values or names of the metric's labels ("of checkout", "by service"). */
function valueCover(l: Ledger, labels: Map<string, string[]>, used: number[]): number {
  const index = new Map<string, unknown>(labelValueIndex(labels));
  for (const label of labels.keys()) for (const k of keysOf(label)) index.set(k, label);
  for (const [word, targets] of Object.entries(LABEL_SYNONYMS)) if (targets.some((t) => labels.has(t))) index.set(word, word);
  let n = 0;
  for (let i = 0; i < l.length; i++) if (!used.includes(i) && longestMatch(l, i, index)) n++;
  return n;
}

function labelValueIndex(labels: Map<string, string[]>): Map<string, { label: string; value: string }> {
  const index = new Map<string, { label: string; value: string }>();
  const order = [...labels.keys()].sort((a, b) => rankLabel(a) - rankLabel(b));
  for (const label of order) {
    if (label === 'le' || label === 'quantile') continue;
    for (const value of labels.get(label) ?? []) for (const k of keysOf(value)) if (!index.has(k)) index.set(k, { label, value });
  }
  return index;
}

function rankLabel(l: string): number {
  const i = LABEL_PREFERENCE.indexOf(l);
  return i < 0 ? LABEL_PREFERENCE.length : i;
}

class MetricsReader {
  private readonly neg = new Negation();
  private readonly intent: MetricsIntent;
  private readonly values: Map<string, { label: string; value: string }>;
  private readonly names = new Map<string, string>();
  /** Error words, placed only when the metric has a status label with 5xx values. */
  private readonly errorWords: number[] = [];

  constructor(private readonly l: Ledger, metric: string, private readonly labels: Map<string, string[]>,
    private readonly concept: string[], private readonly rangeMs: number) {
    this.intent = { metric, kind: kindOf(metric), matchers: [], groupBy: [], agg: 'sum' };
    this.values = labelValueIndex(labels);
    for (const label of labels.keys()) for (const k of keysOf(label)) this.names.set(k, label);
    for (const [word, targets] of Object.entries(LABEL_SYNONYMS)) {
      const t = targets.find((x) => labels.has(x));
      if (t !== undefined && !this.names.has(word)) this.names.set(word, t);
    }
  }

  read(metricWords: number[], allNames: readonly string[]): MetricsIntent | undefined {
    const { l, intent } = this;
    l.placeAt(metricWords, `the metric words pick ${intent.metric} (one of the tenant's ${allNames.length} metrics)`);
    for (let i = 0; i < l.length;) {
      if (!l.free(i)) {
        i++;
        continue;
      }
      const next = this.step(i);
      if (next === undefined) {
        this.neg.reset();
        i++;
      } else {
        i = next;
      }
    }
    if (this.errorWords.length > 0 && this.errorMatcher()) l.placeAt(this.errorWords);
    if (this.concept.includes('cpu') && intent.kind === 'counter' && (this.labels.get('mode') ?? []).includes('idle')) {
      intent.matchers.push({ label: 'mode', op: '!=', value: 'idle' });
      l.notes.push('cpu usage leaves out mode="idle"');
    }
    if (intent.kind === 'histogram' && intent.quantile === undefined && !intent.mean) {
      intent.quantile = 0.95;
      l.notes.push('no percentile named, so p95');
    }
    return intent;
  }

  private step(i: number): number | undefined {
    const { l, intent } = this;
    const w = l.word(i) ?? '';
    const steered = negationStep(l, i, this.neg);
    if (steered !== undefined) return steered;
    const q = quantileAt(l, i);
    if (q) {
      intent.quantile = q.phi;
      l.place(i, q.to, `'${l.text(i, q.to)}' → quantile ${q.phi}`);
      return q.to;
    }
    if (w === 'top') return this.topAt(i);
    const agg = AGG_WORDS[w];
    if (agg !== undefined) {
      if (intent.kind === 'histogram' && agg === 'avg') intent.mean = true;
      else intent.agg = agg;
      l.place(i, i + 1, `'${w}' → ${intent.kind === 'histogram' && agg === 'avg' ? 'the mean' : agg}`);
      return i + 1;
    }
    if ((w === 'how' && l.word(i + 1) === 'many') || w === 'count' || (w === 'number' && l.word(i + 1) === 'of')) {
      const to = w === 'count' ? i + 1 : i + 2;
      if (intent.kind !== 'counter') return undefined;
      intent.increaseOver = promDuration(this.rangeMs);
      l.place(i, to, `'${l.text(i, to)}' → the increase over the range`);
      return to;
    }
    if (ERROR_WORDS.has(w)) {
      this.errorWords.push(i);
      return i + 1;
    }
    if (GROUP_WORDS.has(w) || (w === 'for' && l.word(i + 1) === 'each')) {
      let at = w === 'for' ? i + 2 : i + 1;
      const labels: string[] = [];
      for (;;) {
        const m = longestMatch(l, at, this.names);
        if (!m) break;
        labels.push(m.hit);
        at = m.to;
        if (!isConnector(l, at) || !longestMatch(l, at + 1, this.names)) break;
        at++;
      }
      if (labels.length > 0) {
        intent.groupBy.push(...labels);
        l.place(i, at, `'${l.text(i, at)}' → by (${labels.join(', ')})`);
        this.neg.reset();
        return at;
      }
    }
    const name = longestMatch(l, i, this.names);
    if (name && l.free(name.to)) {
      const v = l.free(name.to);
      const known = (this.labels.get(name.hit) ?? []).find((x) => x.toLowerCase() === v?.lower);
      if (known !== undefined) {
        this.addMatcher(name.hit, known, i, name.to + 1);
        return name.to + 1;
      }
    }
    const value = longestMatch(l, i, this.values);
    if (value) {
      let to = value.to;
      const trailing = longestMatch(l, to, this.names);
      if (trailing?.hit === value.hit.label) to = trailing.to;
      this.addMatcher(value.hit.label, value.hit.value, i, to);
      return to;
    }
    if (SHAPE_WORDS.has(w) || STOP_WORDS.has(w) || PREPOSITIONS.has(w) || METRIC_WORDS.has(w)) {
      l.place(i, i + 1);
      this.neg.filler();
      return i + 1;
    }
    return undefined;
  }

  /** "top 3 services by request rate": topk over the named labels; "by" then leads to the metric's own words. */
  private topAt(i: number): number {
    const { l, intent } = this;
    const n = numberWord(l.word(i + 1));
    let to = n === undefined || l.word(i + 1) === 'a' ? i + 1 : i + 2;
    intent.topk = n !== undefined && Number.isInteger(n) && n > 0 ? n : 10;
    const labels = longestMatch(l, to, this.names);
    if (labels) {
      intent.groupBy.push(labels.hit);
      to = labels.to;
      if (l.word(to) === 'by' && (l.isPlaced(to + 1) || SHAPE_WORDS.has(l.word(to + 1) ?? '') || ERROR_WORDS.has(l.word(to + 1) ?? ''))) to++;
    }
    l.place(i, to, `'${l.text(i, to)}' → topk(${intent.topk}${labels ? `, by ${labels.hit}` : ''})`);
    return to;
  }

  private addMatcher(label: string, value: string, from: number, to: number): void {
    const negated = this.neg.take();
    const same = this.intent.matchers.find((m) => m.label === label && (m.op === '=' || m.op === '=~') && !negated);
    if (same) {
      // "checkout or cart": alternatives of one label become a regexp.
      same.op = '=~';
      same.value = `${same.value}|${escapeRe(value)}`;
    } else if (negated) {
      this.intent.matchers.push({ label, op: '!=', value });
    } else {
      this.intent.matchers.push({ label, op: '=', value });
    }
    this.l.place(from, to, `'${this.l.text(from, to)}' is a value of label ${label}${negated ? ', excluded' : ''}`);
  }

  /** "error rate": the status label's 5xx values. Without such a label the error words stay unplaced. */
  private errorMatcher(): boolean {
    const label = STATUS_LABELS.find((s) => (this.labels.get(s) ?? []).some((v) => /^5\d\d$/.test(v)));
    if (label === undefined) return false;
    this.intent.matchers.push({ label, op: '=~', value: '5..' });
    this.l.notes.push(`errors → ${label}=~"5.."`);
    return true;
  }
}

function escapeRe(v: string): string {
  return v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** "p99", "p99.9", "99th percentile", "median". */
function quantileAt(l: Ledger, i: number): { phi: number; to: number } | undefined {
  const w = l.word(i) ?? '';
  const p = /^p(\d{1,2}(?:\.\d+)?)$/.exec(w);
  if (p) return { phi: Number(p[1]) / 100, to: i + 1 };
  if (w === 'median') return { phi: 0.5, to: i + 1 };
  const th = /^(\d{1,2}(?:\.\d+)?)(th|st|nd|rd)?$/.exec(w);
  if (th && (l.word(i + 1) === 'percentile' || l.word(i + 1) === 'pct')) return { phi: Number(th[1]) / 100, to: i + 2 };
  return undefined;
}

/** A range in PromQL's duration syntax: whole days, hours, minutes or seconds. */
export function promDuration(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s % 86_400 === 0) return `${s / 86_400}d`;
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s % 60 === 0) return `${s / 60}m`;
  return `${s}s`;
}
