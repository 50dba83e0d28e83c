// Schema linking (issue 10 item 2: "a word that is a known `service` value becomes `service:<it>`"): the tenant's
// own log field names and values, stream labels, metric names and labels, and span services / names, read through
// the store over a recent window. Every read is recorded as evidence (DESIGN §9: "the exact queries it ran").
import type { AiReadContext } from '../model.js';
import type { LabelMatcher } from '../../model/series-source.js';
import { parseLogsql } from '../../query/logsql/parser.js';
import type { TimeRange } from '../../stores/telemetry/telemetry-store.js';
import { msToNs } from '../../model/time.js';
import type { Ledger } from './tokenizer.js';
import { stem } from './vocabulary.js';

/** Where a value lives: a field of the entry, or only a label of its `_stream` (then `_stream:{label="v"}`). */
export interface ValueRef {
  field: string;
  value: string;
  hits: number;
  streamOnly: boolean;
}

export interface Window {
  startMs: number;
  endMs: number;
}

/** Fields whose values are never linked: free text, times and ids say nothing a word in a question can name. */
const UNLINKED = new Set(['_msg', '_time', '_stream', '_stream_id', 'trace_id', 'span_id']);
/** Names people use for a field that the store calls otherwise; kept only when the tenant has the target. */
const FIELD_SYNONYMS: Record<string, string[]> = {
  app: ['service'], application: ['service'], svc: ['service'], services: ['service'],
  level: ['severity'], severity: ['severity'], loglevel: ['severity'],
  message: ['_msg'], msg: ['_msg'], text: ['_msg'],
  'trace id': ['trace_id'], traceid: ['trace_id'], 'span id': ['span_id'],
  hostname: ['host', 'hostname', 'host.name'], machine: ['host', 'host.name'], server: ['host', 'host.name'],
  node: ['host', 'node'], pod: ['pod', 'k8s.pod.name'], customer: ['customer_id', 'customer'], user: ['user_id', 'user'],
};
const MAX_NGRAM = 4;
const FACET_VALUES = 500;

/** A question's words in the forms a value or a name may be written: "Payment Gateway" → "payment gateway", "payment-gateway"… */
export function keysOf(text: string): string[] {
  const lower = text.toLowerCase();
  const spaced = lower.replace(/[-_./]+/g, ' ').trim();
  const stemmed = spaced.split(' ').map(stem).join(' ');
  return [...new Set([lower, spaced, stemmed])];
}

/** The n-gram at i (longest first) whose keys hit `index`; only unplaced word tokens take part. */
export function longestMatch<T>(l: Ledger, i: number, index: Map<string, T>): { to: number; hit: T } | undefined {
  for (let n = MAX_NGRAM; n >= 1; n--) {
    const words: string[] = [];
    for (let k = i; k < i + n; k++) {
      const t = l.free(k);
      if (t?.kind !== 'word') break;
      words.push(t.text);
    }
    if (words.length !== n) continue;
    const seps = n === 1 ? [''] : [' ', '-', '_', '.', ''];
    for (const sep of seps) {
      for (const key of keysOf(words.join(sep))) {
        const hit = index.get(key);
        if (hit !== undefined) return { to: i + n, hit };
      }
    }
  }
  return undefined;
}

/** The tenant's logs as a question can name them. */
export class LogSchema {
  /** Field name → entries that carry it. */
  readonly fields = new Map<string, number>();
  /** Known values per field, most frequent first. */
  readonly values = new Map<string, ValueRef[]>();
  /** Value key → where that value occurs, best first (service, then by hits). */
  readonly valueIndex = new Map<string, ValueRef[]>();
  /** Field-name key → the field. */
  readonly fieldIndex = new Map<string, string>();

  constructor(private readonly ctx: AiReadContext, readonly window: Window) {}

  /** Reads field names, the top values of every field (facets) and the stream labels; each read is evidence. */
  async load(): Promise<this> {
    const { ctx } = this;
    const all = parseLogsql('*', msToNs(ctx.nowMs));
    const range = this.range();
    const names = await ctx.telemetry.logFieldNames(ctx.tenantId, all, range);
    this.evidence('* | field_names', 'the field names of the tenant\'s logs, for schema linking');
    for (const n of names) this.fields.set(n.value, n.hits);
    for (const fixed of ['service', 'severity', '_msg', 'trace_id', 'span_id']) if (!this.fields.has(fixed)) this.fields.set(fixed, 0);
    const facets = await ctx.telemetry.logFacets(ctx.tenantId, all, range, {
      limit: FACET_VALUES, maxValuesPerField: FACET_VALUES, maxValueLen: 200, keepConstFields: true,
    });
    this.evidence('* | facets', 'the most frequent values of every log field, for schema linking');
    for (const f of facets) {
      if (UNLINKED.has(f.field)) continue;
      this.addValues(f.field, f.values.map((v) => ({ field: f.field, value: v.value, hits: v.hits, streamOnly: false })));
    }
    const streamNames = await ctx.telemetry.logStreamFieldNames(ctx.tenantId, all, range);
    this.evidence('* | stream_field_names', 'the stream labels of the tenant\'s logs');
    for (const s of streamNames) {
      // A label that is also a field (service always is) is linked as that field.
      if (this.fields.has(s.value)) continue;
      const vals = await ctx.telemetry.logStreamFieldValues(ctx.tenantId, all, range, s.value, FACET_VALUES);
      this.evidence(`* | stream_field_values ${s.value}`, `the values of stream label ${s.value}`);
      this.fields.set(s.value, s.hits);
      this.addValues(s.value, vals.map((v) => ({ field: s.value, value: v.value, hits: v.hits, streamOnly: true })));
    }
    this.indexFields();
    return this;
  }

  /** The values of one field (those facets left out for having too many): for "customer 42". */
  async valuesOf(field: string): Promise<ValueRef[]> {
    const known = this.values.get(field);
    if (known) return known;
    const { ctx } = this;
    const vals = await ctx.telemetry.logFieldValues(ctx.tenantId, parseLogsql('*', msToNs(ctx.nowMs)), this.range(), field, 10_000);
    this.evidence(`* | field_values ${field}`, `the values of field ${field}`);
    const refs = vals.map((v) => ({ field, value: v.value, hits: v.hits, streamOnly: false }));
    this.values.set(field, refs);
    return refs;
  }

  /** Whether a `field:word` filter (a case-insensitive substring match) would also select another known value. */
  wordIsAmbiguous(field: string, value: string): boolean {
    const v = value.toLowerCase();
    return (this.values.get(field) ?? []).some((r) => r.value.toLowerCase() !== v && r.value.toLowerCase().includes(v));
  }

  private addValues(field: string, refs: ValueRef[]): void {
    const kept = refs.filter((r) => r.value !== '');
    this.values.set(field, kept);
    for (const r of kept) {
      for (const key of keysOf(r.value)) {
        const list = this.valueIndex.get(key) ?? [];
        if (!list.some((x) => x.field === r.field)) list.push(r);
        list.sort((a, b) => Number(b.field === 'service') - Number(a.field === 'service') || b.hits - a.hits);
        this.valueIndex.set(key, list);
      }
    }
  }

  private indexFields(): void {
    for (const name of this.fields.keys()) {
      if (name === '_time' || name === '_stream' || name === '_stream_id') continue;
      const keys = keysOf(name);
      // "customer" names customer_id, "host" host.name: the head before an id/name suffix.
      const head = /^(.+?)[._](id|name|code)$/.exec(name.toLowerCase());
      if (head?.[1] !== undefined) keys.push(...keysOf(head[1]));
      for (const k of keys) if (!this.fieldIndex.has(k)) this.fieldIndex.set(k, name);
    }
    for (const [word, targets] of Object.entries(FIELD_SYNONYMS)) {
      const target = targets.find((t) => this.fields.has(t));
      if (target !== undefined && !this.fieldIndex.has(word)) this.fieldIndex.set(word, target);
    }
  }

  private range(): TimeRange {
    return { startNs: msToNs(this.window.startMs), endNs: msToNs(this.window.endMs) };
  }

  private evidence(query: string, purpose: string): void {
    this.ctx.evidence.add('logs', query, this.window.startMs, this.window.endMs, purpose);
  }
}

/** The tenant's metric names, and per metric its labels and their values (read when a question needs them). */
export class MetricSchema {
  names: string[] = [];
  private readonly labels = new Map<string, Map<string, string[]>>();

  constructor(private readonly ctx: AiReadContext, readonly window: Window) {}

  async load(): Promise<this> {
    const { ctx, window } = this;
    this.names = await ctx.telemetry.metrics.labelValues(ctx.tenantId, '__name__', [], window.startMs, window.endMs);
    ctx.evidence.add('metrics', 'group by (__name__) ({__name__!=""})', window.startMs, window.endMs, 'the tenant\'s metric names, for schema linking');
    return this;
  }

  /** Label name → values of one metric's series. */
  async labelsOf(metric: string): Promise<Map<string, string[]>> {
    const cached = this.labels.get(metric);
    if (cached) return cached;
    const { ctx, window } = this;
    const sel: LabelMatcher[][] = [[{ name: '__name__', type: '=', value: metric }]];
    const out = new Map<string, string[]>();
    const names = await ctx.telemetry.metrics.labelNames(ctx.tenantId, sel, window.startMs, window.endMs);
    for (const name of names) {
      if (name === '__name__') continue;
      out.set(name, await ctx.telemetry.metrics.labelValues(ctx.tenantId, name, sel, window.startMs, window.endMs));
    }
    ctx.evidence.add('metrics', `count by (${[...out.keys()].join(', ')}) (${metric})`, window.startMs, window.endMs,
      `the labels of ${metric} and their values, for schema linking`);
    this.labels.set(metric, out);
    return out;
  }
}

/** Span services and names (traces), from the per-(service, name) duration groups the store keeps for detectors. */
export class SpanSchema {
  readonly services = new Map<string, string>();
  readonly names = new Map<string, { service: string; name: string }>();
  /** Durations (ms, ascending) per service, for "slow" without a bound. */
  readonly durations = new Map<string, number[]>();

  constructor(private readonly ctx: AiReadContext, readonly window: Window) {}

  async load(): Promise<this> {
    const { ctx, window } = this;
    const groups = await ctx.telemetry.spanDurations(ctx.tenantId, { startNs: msToNs(window.startMs), endNs: msToNs(window.endMs) }, {}, 1000);
    ctx.evidence.add('traces', 'span durations by (service, name)', window.startMs, window.endMs, 'the tenant\'s span services and names, for schema linking');
    for (const g of groups) {
      for (const k of keysOf(g.service)) this.services.set(k, g.service);
      for (const k of keysOf(g.name)) this.names.set(k, { service: g.service, name: g.name });
      this.durations.set(g.service, [...(this.durations.get(g.service) ?? []), ...g.durationsMs].sort((a, b) => a - b));
    }
    return this;
  }
}
