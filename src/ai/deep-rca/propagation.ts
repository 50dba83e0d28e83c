// Error propagation along parent → child spans (DESIGN §9 `ai/deep-rca`, issue 10 item 3). In a trace with errors,
// a failure shows on the span that failed and on every caller that passed it up: the deepest span with status ERROR
// whose children are not in error is where it began (the origin); its erroring ancestors merely propagate it.
// Counting origins over many sampled error traces names the service errors start in, not the front door that
// reports them (Datadog Watchdog's rule: a symptom is never the root cause).
import type { Span } from '../../model/span.js';
import { spanTree } from './span-tree.js';

/** OTLP status code ERROR (model/span.ts). */
export const STATUS_ERROR = 2;

export interface ErrorWalk {
  /** Error spans none of whose children is in error: where the failures began. */
  origins: Span[];
  /** Error spans with a child in error: they pass a failure up. */
  propagators: Span[];
}

/**
 * Walks one trace from each error root (an error span whose parent is not in error) down through erroring
 * children. A branch where a child also failed is followed to that child; a span that failed with no failing
 * child is an origin. A trace can have several origins (two downstreams that both failed).
 */
export function errorWalk(spans: readonly Span[]): ErrorWalk {
  const { roots, children } = spanTree(spans);
  const origins: Span[] = [];
  const propagators: Span[] = [];
  const seen = new Set<Span>();
  // Depth-first from every root; error roots start wherever an error span hangs under a healthy parent.
  const stack = [...roots];
  while (stack.length > 0) {
    const s = stack.pop();
    if (!s || seen.has(s)) continue;
    seen.add(s);
    const kids = children.get(s.spanId) ?? [];
    if (s.statusCode === STATUS_ERROR) {
      if (kids.some((k) => k.statusCode === STATUS_ERROR)) propagators.push(s);
      else origins.push(s);
    }
    stack.push(...kids);
  }
  return { origins, propagators };
}

export interface OriginCounts {
  /** Error traces walked. */
  traces: number;
  /** Per service: traces in which it is an origin, and a few of their ids to show. */
  origins: Map<string, { traces: number; examples: string[] }>;
  /** Per service: traces in which it only passes a failure up (an error span of it, but no origin of it). */
  propagators: Map<string, { traces: number; examples: string[] }>;
}

const EXAMPLES = 3;

/** Counts origin and propagating services over error traces (one array of spans per trace); once per trace each. */
export function countOrigins(traces: readonly (readonly Span[])[], within?: ReadonlySet<string>): OriginCounts {
  const out: OriginCounts = { traces: 0, origins: new Map(), propagators: new Map() };
  const bump = (m: OriginCounts['origins'], service: string, traceId: string): void => {
    let c = m.get(service);
    if (!c) m.set(service, (c = { traces: 0, examples: [] }));
    c.traces++;
    if (c.examples.length < EXAMPLES) c.examples.push(traceId);
  };
  for (const spans of traces) {
    const walk = errorWalk(spans);
    if (walk.origins.length === 0) continue;
    out.traces++;
    const keep = (s: Span): boolean => within === undefined || within.has(s.service);
    const originServices = new Set(walk.origins.filter(keep).map((s) => s.service));
    for (const service of originServices) bump(out.origins, service, walk.origins[0]?.traceId ?? '');
    for (const service of new Set(walk.propagators.filter(keep).map((s) => s.service))) {
      if (!originServices.has(service)) bump(out.propagators, service, walk.propagators[0]?.traceId ?? '');
    }
  }
  return out;
}
