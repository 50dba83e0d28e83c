// What the Traces page asks of the tenant's trace API (src/query/traces-api.ts; DESIGN §4: ids in lowercase
// hex, times in ns strings), and the span tree the waterfall draws (DESIGN §7: waterfall of one trace).
import { getJson, tenantPath } from '../../lib/api';
import { hrefOf } from '../../lib/route';

export interface TraceSummary {
  trace_id: string;
  root_service: string;
  root_name: string;
  start_ns: string;
  duration_ns: string;
  span_count: number;
  error_count: number;
}

export type Attrs = Record<string, unknown>;

export interface SpanEvent {
  time_unix_nano: string;
  name: string;
  attributes: Attrs;
}

export interface Span {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  kind: number;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  duration_ns: string;
  status: { code: number; message: string };
  service: string;
  attributes: Attrs;
  resource: Attrs;
  events: SpanEvent[];
  links: { trace_id: string; span_id: string; attributes: Attrs }[];
}

export interface TraceSearch {
  service: string;
  name: string;
  /** Minimum span duration in ms, as typed ('' for none). */
  minMs: string;
  /** Only traces with a failed span (the traces API's `status=error`). */
  failed?: boolean;
  start: string;
  end: string;
  limit: number;
}

export const searchTraces = async (tenant: string, s: TraceSearch, signal?: AbortSignal): Promise<TraceSummary[]> =>
  (await getJson<{ traces: TraceSummary[] }>(tenantPath(tenant, 'traces'), {
    query: { service: s.service, name: s.name, min_duration_ms: s.minMs, status: s.failed ? 'error' : undefined, start: s.start, end: s.end, limit: s.limit },
    ...(signal ? { signal } : {}),
  })).traces;

export const getTrace = (tenant: string, traceId: string, signal?: AbortSignal): Promise<{ trace_id: string; spans: Span[] }> =>
  getJson(tenantPath(tenant, `traces/${encodeURIComponent(traceId)}`), signal ? { signal } : {});

/** OTLP SpanKind names (0 unspecified … 5 consumer). */
export const KIND_NAMES = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
/** OTLP status codes (0 unset, 1 ok, 2 error). */
export const STATUS_NAMES = ['unset', 'ok', 'error'];

export const isError = (s: Span): boolean => s.status.code === 2;

/** ns strings → a BigInt, 0n when unreadable. */
export function ns(text: string): bigint {
  try {
    return BigInt(text);
  } catch {
    return 0n;
  }
}

/** ns (BigInt) → unix ms, for display with formatTime. */
export const nsToMs = (v: bigint): number => Number(v / 1_000_000n);

export interface SpanRow {
  span: Span;
  depth: number;
  /** Offset of the span's start from the trace's start, and its duration, in ns (as numbers: well inside 2^53). */
  offsetNs: number;
  durationNs: number;
  childCount: number;
}

export interface TraceTree {
  rows: SpanRow[];
  startNs: bigint;
  /** From the earliest start to the latest end, ns. */
  totalNs: number;
  services: { name: string; spans: number }[];
}

/**
 * Spans nested parent → child, depth first, children in start order. A span whose parent never arrived is a
 * root of its own (the trace is shown as it is, not hidden). `collapsed` hides the descendants of those ids.
 */
export function buildTree(spans: readonly Span[], collapsed: ReadonlySet<string> = new Set()): TraceTree {
  const byId = new Map(spans.map((s) => [s.span_id, s]));
  const children = new Map<string, Span[]>();
  const roots: Span[] = [];
  for (const s of spans) {
    if (s.parent_span_id !== '' && s.parent_span_id !== s.span_id && byId.has(s.parent_span_id)) {
      const list = children.get(s.parent_span_id) ?? [];
      list.push(s);
      children.set(s.parent_span_id, list);
    } else {
      roots.push(s);
    }
  }
  const byStart = (a: Span, b: Span) => {
    const d = ns(a.start_time_unix_nano) - ns(b.start_time_unix_nano);
    return d < 0n ? -1 : d > 0n ? 1 : a.span_id.localeCompare(b.span_id);
  };
  let startNs: bigint | undefined;
  let endNs: bigint | undefined;
  for (const s of spans) {
    const a = ns(s.start_time_unix_nano);
    const b = ns(s.end_time_unix_nano);
    if (startNs === undefined || a < startNs) startNs = a;
    if (endNs === undefined || b > endNs) endNs = b;
  }
  const t0 = startNs ?? 0n;
  const rows: SpanRow[] = [];
  const seen = new Set<string>();
  // An explicit stack, so a deep trace cannot overflow the call stack; `seen` guards against parent cycles.
  const stack: { span: Span; depth: number }[] = [...roots].sort(byStart).reverse().map((span) => ({ span, depth: 0 }));
  while (stack.length > 0) {
    const { span, depth } = stack.pop() as { span: Span; depth: number };
    if (seen.has(span.span_id)) continue;
    seen.add(span.span_id);
    const kids = [...(children.get(span.span_id) ?? [])].sort(byStart);
    rows.push({
      span, depth, childCount: kids.length,
      offsetNs: Number(ns(span.start_time_unix_nano) - t0),
      durationNs: Number(ns(span.duration_ns)),
    });
    if (!collapsed.has(span.span_id)) for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i] as Span, depth: depth + 1 });
  }
  const counts = new Map<string, number>();
  for (const s of spans) counts.set(s.service, (counts.get(s.service) ?? 0) + 1);
  return {
    rows, startNs: t0, totalNs: Math.max(1, Number((endNs ?? t0) - t0)),
    services: [...counts].map(([name, n]) => ({ name, spans: n })).sort((a, b) => b.spans - a.spans || a.name.localeCompare(b.name)),
  };
}

/** Colours that read on both themes; a service keeps its colour across traces (hash of the name). */
const PALETTE = ['#4e9af1', '#e0823d', '#4cb87a', '#b26ad9', '#d4b02f', '#3bb5b5', '#e0649b', '#8c9c3a', '#7d7fe8', '#c0785a'];

export function serviceColour(service: string): string {
  let h = 0;
  for (let i = 0; i < service.length; i++) h = (h * 31 + service.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length] ?? '#4e9af1';
}

/** The attribute value as text for a table cell. */
export const valueText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** Logs are looked for this long either side of the trace: clocks of different hosts drift, logs land late. */
const LOGS_MARGIN_MS = 5 * 60_000;

/**
 * Explore with the logs of a trace (or of one span of it): `trace_id:<id>` (and `span_id:<id>`) over a range
 * around the trace. Explore's row drawer links back here with `View trace` (DESIGN §7: jump from a log's trace_id).
 */
export function logsHref(traceId: string, startNs: bigint, endNs: bigint, spanId = ''): string {
  const query = `trace_id:${traceId}${spanId === '' ? '' : ` span_id:${spanId}`}`;
  return hrefOf('explore', {
    query,
    start: new Date(nsToMs(startNs) - LOGS_MARGIN_MS).toISOString(),
    end: new Date(nsToMs(endNs) + LOGS_MARGIN_MS).toISOString(),
  });
}
