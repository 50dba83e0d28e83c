// One trace's spans as a tree (parent → children), the shape both the error walk (propagation.ts) and the critical
// path (critical-path.ts) descend. A span whose parent is missing from the trace (not arrived, or sampled away by
// the sender) is treated as a root, so a partial trace still yields its subtrees.
import type { Span } from '../../model/span.js';

export interface SpanTree {
  roots: Span[];
  children: Map<string, Span[]>;
  byId: Map<string, Span>;
}

export function spanTree(spans: readonly Span[]): SpanTree {
  const byId = new Map<string, Span>();
  for (const s of spans) byId.set(s.spanId, s);
  const children = new Map<string, Span[]>();
  const roots: Span[] = [];
  for (const s of spans) {
    if (s.parentSpanId === '' || s.parentSpanId === s.spanId || !byId.has(s.parentSpanId)) {
      roots.push(s);
      continue;
    }
    let list = children.get(s.parentSpanId);
    if (!list) children.set(s.parentSpanId, (list = []));
    list.push(s);
  }
  return { roots, children, byId };
}

export const endNs = (s: Span): bigint => s.startNs + s.durationNs;

/** Groups spans ordered (or not) by trace into one array per trace. */
export function groupByTrace(spans: readonly Span[]): Span[][] {
  const byTrace = new Map<string, Span[]>();
  for (const s of spans) {
    let list = byTrace.get(s.traceId);
    if (!list) byTrace.set(s.traceId, (list = []));
    list.push(s);
  }
  return [...byTrace.values()];
}
