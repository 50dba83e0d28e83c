// Reads a traces question into a trace search (issue 10 item 2: "slow traces from checkout over 500ms", "failed
// traces"). The search is written as the query string of `GET …/traces` (src/query/traces-api.ts):
// `service=checkout&name=GET+%2Fcart&min_duration_ms=500&status=error`, keys in that order, URL-encoded. `status`
// is the one key the API does not read yet (its TraceFilter has no status); see parseTraceSearch.
import { longestMatch, type SpanSchema } from './schema.js';
import type { Ledger } from './tokenizer.js';
import { PREPOSITIONS, STOP_WORDS, TRACE_WORDS } from './vocabulary.js';

export interface TraceSearch {
  service?: string;
  name?: string;
  minDurationMs?: number;
  status?: 'error';
}

const FAILED = new Set(['failed', 'failing', 'failure', 'failures', 'error', 'errors', 'erroring', 'errored', 'broken', 'unsuccessful']);
const SLOW = new Set(['slow', 'slower', 'slowest', 'long', 'lengthy', 'latent']);
/** Words before a bound: "over 500ms", "longer than 2s", "taking more than 1 second", "at least 300 ms". */
const BOUND_LEADS = [['longer', 'than'], ['slower', 'than'], ['more', 'than'], ['greater', 'than'], ['at', 'least'], ['over'],
  ['above'], ['exceeding'], ['>'], ['>='], ['taking'], ['took'], ['lasting'], ['beyond']];
const DURATION_UNITS: Record<string, number> = {
  ms: 1, millisecond: 1, milliseconds: 1, msec: 1, msecs: 1, s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000, us: 0.001, µs: 0.001,
};
const TRACE_FILLERS = new Set(['duration', 'latency', 'with', 'that', 'which', 'took', 'take', 'taking', 'requests', 'request', 'calls']);
/** "slow" with no bound: slower than this share of the service's own spans in the window. */
const SLOW_QUANTILE = 0.95;

export function readTraces(l: Ledger, spans: SpanSchema): TraceSearch {
  const search: TraceSearch = {};
  let slowAt: number | undefined;
  for (let i = 0; i < l.length; i++) {
    const w = l.word(i);
    const t = l.free(i);
    if (!t) continue;
    if (w !== undefined && TRACE_WORDS.has(w)) {
      l.place(i, i + 1);
      continue;
    }
    const bound = boundAt(l, i);
    if (bound) {
      search.minDurationMs = bound.ms;
      l.place(i, bound.to, `'${l.text(i, bound.to)}' → at least ${bound.ms} ms`);
      i = bound.to - 1;
      continue;
    }
    if (w !== undefined && FAILED.has(w)) {
      search.status = 'error';
      l.place(i, i + 1, `'${t.text}' → traces with an error span`);
      continue;
    }
    if (w !== undefined && SLOW.has(w)) {
      slowAt = i;
      continue;
    }
    const svc = longestMatch(l, i, spans.services);
    if (svc && search.service === undefined) {
      search.service = svc.hit;
      l.place(i, svc.to, `'${l.text(i, svc.to)}' is a service of the tenant's spans`);
      i = svc.to - 1;
      continue;
    }
    const name = t.kind === 'quoted' ? spans.names.get(t.lower) : undefined;
    const named = name ? { to: i + 1, hit: name } : longestMatch(l, i, spans.names);
    if (named && search.name === undefined) {
      search.name = named.hit.name;
      l.place(i, named.to, `'${l.text(i, named.to)}' is a span name`);
      i = named.to - 1;
      continue;
    }
    if (w !== undefined && (STOP_WORDS.has(w) || PREPOSITIONS.has(w) || TRACE_FILLERS.has(w))) l.place(i, i + 1);
  }
  if (slowAt !== undefined) {
    if (search.minDurationMs !== undefined) {
      l.place(slowAt, slowAt + 1);
    } else {
      const ms = slowBound(spans, search.service);
      if (ms !== undefined) {
        search.minDurationMs = ms;
        l.place(slowAt, slowAt + 1, `'slow' with no bound → slower than p95 of ${search.service ?? 'all'} spans in the last 7 days (${ms} ms)`);
      }
    }
  }
  return search;
}

function boundAt(l: Ledger, i: number): { ms: number; to: number } | undefined {
  for (const lead of BOUND_LEADS) {
    if (!lead.every((w, k) => l.word(i + k) === w)) continue;
    let at = i + lead.length;
    if (l.word(at) === 'more' && l.word(at + 1) === 'than') at += 2;
    const d = durationAt(l, at);
    if (d) return d;
  }
  return undefined;
}

/** "500ms", "1.5s", "500 ms", "2 seconds". */
export function durationAt(l: Ledger, i: number): { ms: number; to: number } | undefined {
  const w = l.word(i) ?? '';
  const compact = /^(\d+(?:\.\d+)?)([a-zµ]+)$/.exec(w);
  if (compact) {
    const unit = DURATION_UNITS[compact[2] ?? ''];
    return unit === undefined ? undefined : { ms: Number(compact[1]) * unit, to: i + 1 };
  }
  if (!/^\d+(\.\d+)?$/.test(w)) return undefined;
  const unit = DURATION_UNITS[l.word(i + 1) ?? ''];
  return unit === undefined ? undefined : { ms: Number(w) * unit, to: i + 2 };
}

function slowBound(spans: SpanSchema, service: string | undefined): number | undefined {
  const d = service === undefined ? [...spans.durations.values()].flat().sort((a, b) => a - b) : spans.durations.get(service) ?? [];
  if (d.length === 0) return undefined;
  const v = d[Math.min(d.length - 1, Math.floor(SLOW_QUANTILE * d.length))] ?? 0;
  return Math.round(v);
}

const KEYS = ['service', 'name', 'min_duration_ms', 'status'] as const;

export function renderTraceSearch(s: TraceSearch): string {
  const p = new URLSearchParams();
  if (s.service !== undefined) p.set('service', s.service);
  if (s.name !== undefined) p.set('name', s.name);
  if (s.minDurationMs !== undefined) p.set('min_duration_ms', String(s.minDurationMs));
  if (s.status !== undefined) p.set('status', s.status);
  return p.toString();
}

/** A trace search text back to its fields; throws on an unknown key or a bad value (the answer's parse check). */
export function parseTraceSearch(text: string): TraceSearch {
  const out: TraceSearch = {};
  for (const [k, v] of new URLSearchParams(text)) {
    if (!(KEYS as readonly string[]).includes(k)) throw new Error(`unknown trace search key '${k}'`);
    if (k === 'service') out.service = v;
    else if (k === 'name') out.name = v;
    else if (k === 'min_duration_ms') {
      if (!/^\d+(\.\d+)?$/.test(v)) throw new Error('min_duration_ms must be a number');
      out.minDurationMs = Number(v);
    } else if (v === 'error') out.status = 'error';
    else throw new Error(`status must be 'error', not '${v}'`);
  }
  return out;
}
