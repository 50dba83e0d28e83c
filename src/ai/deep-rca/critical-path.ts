// The critical path of a trace (DESIGN §9 `ai/deep-rca`: "the slowest critical path against its baseline"): the
// chain of spans that sets the end-to-end latency. From the root, the child that finished last is what the parent
// waited for; before that child started, the parent waited for the child that finished last before that point,
// and so on; time in which the parent waited for no child is its own (self) time on the path. This is Jaeger's
// algorithm (jaeger-ui `CriticalPath/index.tsx`, after Uber's CRISP): children are first clipped to their parent's
// interval, since clock skew between hosts puts a child's edges slightly outside it.
import type { Span } from '../../model/span.js';
import { endNs, spanTree } from './span-tree.js';

/** A stretch of the critical path that belongs to one span's own work. */
export interface PathSection {
  span: Span;
  startNs: bigint;
  endNs: bigint;
}

interface Clipped {
  span: Span;
  start: bigint;
  end: bigint;
  parent: Clipped | undefined;
  /** Children clipped to this span, latest end first. */
  kids: Clipped[];
}

/** The sections of the critical path of the trace's root that finishes last (latest first). */
export function criticalPath(spans: readonly Span[]): PathSection[] {
  const tree = spanTree(spans);
  let root: Span | undefined;
  for (const r of tree.roots) if (!root || endNs(r) > endNs(root)) root = r;
  if (!root) return [];
  const top = clip(root, root.startNs, endNs(root), undefined, tree.children);
  const out: PathSection[] = [];
  let cur: Clipped = top;
  // `bound`: the time up to which `cur` is on the path; undefined = up to its own end (on first arrival).
  let bound: bigint | undefined;
  // Climbing back: the position, in cur.kids, of the child just walked; only children after it are candidates.
  let from = -1;
  // Every step descends to a child or climbs to a parent past the child it came from, so the walk ends; the cap
  // guards against a malformed tree all the same.
  for (let steps = 0; steps < 4 * spans.length + 4; steps++) {
    const until = bound ?? cur.end;
    // Arriving at a span: its last-finishing child. Climbing back to it: the last child done by `until` (Jaeger
    // asks for strictly before; a call that ends exactly when the next begins was still waited for).
    const at = bound === undefined ? (cur.kids.length > 0 ? 0 : -1) : cur.kids.findIndex((k, i) => i > from && k.end <= until);
    const next = cur.kids[at];
    if (next) {
      if (next.end < until) out.push({ span: cur.span, startNs: next.end, endNs: until });
      cur = next;
      bound = undefined;
      from = -1;
      continue;
    }
    if (cur.start < until) out.push({ span: cur.span, startNs: cur.start, endNs: until });
    const parent = cur.parent;
    if (!parent) break;
    bound = cur.start;
    from = parent.kids.indexOf(cur);
    cur = parent;
  }
  return out;
}

/** Builds the clipped tree under `s`: each child limited to [start, end] of its parent, dropped when outside it. */
function clip(s: Span, start: bigint, end: bigint, parent: Clipped | undefined, children: Map<string, Span[]>,
  seen = new Set<Span>()): Clipped {
  seen.add(s);
  const node: Clipped = { span: s, start, end, parent, kids: [] };
  for (const k of children.get(s.spanId) ?? []) {
    if (seen.has(k)) continue;
    const ks = k.startNs > start ? k.startNs : start;
    const ke = endNs(k) < end ? endNs(k) : end;
    if (ks >= end || ke < ks) continue;
    node.kids.push(clip(k, ks, ke, node, children, seen));
  }
  // Latest end first; ties by later start (the shorter wait), then span id, so the path is deterministic.
  node.kids.sort((a, b) => (a.end !== b.end ? (b.end > a.end ? 1 : -1)
    : a.start !== b.start ? (b.start > a.start ? 1 : -1) : a.span.spanId < b.span.spanId ? -1 : 1));
  return node;
}

/** Self-time on the critical path per (service, operation), in ms; the key is `service\u0000name`. */
export function criticalSelfTimeMs(spans: readonly Span[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const sec of criticalPath(spans)) {
    const key = opKey(sec.span.service, sec.span.name);
    out.set(key, (out.get(key) ?? 0) + Number(sec.endNs - sec.startNs) / 1e6);
  }
  return out;
}

export const opKey = (service: string, name: string): string => `${service}\u0000${name}`;

export function splitOpKey(key: string): { service: string; name: string } {
  const i = key.indexOf('\u0000');
  return { service: key.slice(0, i), name: key.slice(i + 1) };
}
