// Synthetic traces and logs of a deep-RCA known-answer incident (issue 10 item 7), drawn from incident-scenario.ts:
// each request walks one route of the shop's call tree, with a client span around every call to another service
// (as OpenTelemetry instrumentation records it), noisy self-times, failures that stop the caller and pass up to
// the front door, and the logs each service writes (a share of successes, every failure). Deterministic: the same
// spec gives the same spans and entries.
import type { LogEntry } from '../../model/log-entry.js';
import type { Span } from '../../model/span.js';
import { effect, normal, ROUTES, seeded, type Call, type DeepIncidentSpec } from './incident-scenario.js';

const MS = 1_000_000n;
/** Network time of a call, each way. */
const HOP_MS = 0.3;
const VERSION = '3.12.0';

/** What each service logs when it fails on its own, and when a callee failed under it. */
const OWN_FAILURE: Record<string, string> = {
  frontend: 'render failed: template cache miss',
  api: 'request validation panic: nil pointer',
  checkout: 'order state machine stuck in PENDING',
  inventory: 'stock reservation failed: deadlock detected on table stock',
  payments: 'card processor timeout after 2000 ms',
  db: 'statement cancelled: canceling statement due to user request',
};

export interface TraceIncidentData {
  spans: Span[];
  logs: LogEntry[];
}

/** Traces and logs over the baseline and the window, in time order. */
export function incidentTraces(spec: DeepIncidentSpec): TraceIncidentData {
  const rand = seeded(spec.seed);
  const hex = (bytes: number): string => {
    let s = '';
    for (let i = 0; i < bytes; i++) s += Math.floor(rand() * 256).toString(16).padStart(2, '0');
    return s;
  };
  const out: TraceIncidentData = { spans: [], logs: [] };
  const startMs = spec.windowStartMs - spec.windowMs;
  const total = 2 * spec.tracesPerWindow;
  const gapMs = (2 * spec.windowMs) / total;
  for (let i = 0; i < total; i++) {
    const tMs = startMs + i * gapMs + rand() * gapMs;
    let route = ROUTES[0];
    let pick = rand();
    for (const r of ROUTES) {
      route = r;
      if ((pick -= r.share) < 0) break;
    }
    if (!route) continue;
    const traceId = hex(16);
    const emit = (call: Call, parentSpanId: string, startNs: bigint): { endNs: bigint; failed: boolean } => {
      const spanId = hex(8);
      const fx = effect(spec, call.service, Number(startNs / MS));
      const selfMs = call.selfMs * fx.selfFactor * Math.exp(0.25 * normal(rand));
      let cursor = startNs + msNs(0.4 * selfMs);
      let failedCallee: string | undefined;
      for (const child of call.children) {
        // The client span of the call, in the caller's service, around the callee's server span.
        const clientId = hex(8);
        const clientStart = cursor;
        const res = emit(child, clientId, clientStart + msNs(HOP_MS));
        cursor = res.endNs + msNs(HOP_MS);
        out.spans.push(span(traceId, clientId, spanId, `${child.service} ${child.name}`, 3, clientStart, cursor, call.service, res.failed));
        if (res.failed) {
          failedCallee = child.service;
          break;
        }
      }
      const ownFailure = failedCallee === undefined && rand() < fx.errorRate;
      const endNs = cursor + msNs(0.6 * selfMs);
      const failed = ownFailure || failedCallee !== undefined;
      out.spans.push(span(traceId, spanId, parentSpanId, call.name, 2, startNs, endNs, call.service, failed));
      if (failed || rand() < 0.15) {
        const msg = ownFailure ? (OWN_FAILURE[call.service] ?? 'failed')
          : failedCallee !== undefined ? `${call.name} failed: call to ${failedCallee} returned an error`
            : `${call.name} completed in ${Math.round(Number(endNs - startNs) / 1e6)} ms`;
        out.logs.push({
          timeNs: endNs, observedNs: endNs, service: call.service, severity: failed ? 'ERROR' : 'INFO', msg, traceId, spanId,
          stream: `{service="${call.service}"}`,
          fields: { pod: `${call.service}-${Math.floor(rand() * 3)}`, version: VERSION, route: route.root.name },
        });
      }
      return { endNs, failed };
    };
    emit(route.root, '', BigInt(Math.round(tMs)) * MS);
  }
  out.spans.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  out.logs.sort((a, b) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0));
  return out;
}

const msNs = (ms: number): bigint => BigInt(Math.max(0, Math.round(ms * 1e6)));

function span(traceId: string, spanId: string, parentSpanId: string, name: string, kind: number,
  startNs: bigint, endNs: bigint, service: string, failed: boolean): Span {
  return {
    traceId, spanId, parentSpanId, name, kind, startNs, durationNs: endNs - startNs,
    statusCode: failed ? 2 : 0, statusMessage: failed ? 'error' : '', service,
    attributes: {}, resource: { 'service.name': service, 'service.version': VERSION }, events: [], links: [],
  };
}
