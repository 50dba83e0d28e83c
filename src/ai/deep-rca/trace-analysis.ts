// The traces half of deep RCA (DESIGN §9 `ai/deep-rca`, issue 10 item 3): bounded samples of error and healthy traces
// in the window and its baseline, the error walk over the error traces (propagation.ts), critical-path self-time per
// service over the healthy ones (critical-path.ts), and error rate and latency per service from every span
// (spanDurations). Every read is recorded as evidence.
import type { Span } from '../../model/span.js';
import type { TimeRange, TraceSampleFilter } from '../../stores/telemetry/telemetry-store.js';
import type { AiReadContext } from '../model.js';
import { criticalSelfTimeMs, splitOpKey } from './critical-path.js';
import { firstSustainedShift } from './change-point.js';
import type { Windows } from './model.js';
import { countOrigins, STATUS_ERROR, type OriginCounts } from './propagation.js';
import { groupByTrace, spanTree } from './span-tree.js';
import { mean, welchT } from './stats.js';

/** Traces sampled per window and kind (issue 10: bound the cost). */
export const TRACE_SAMPLE = 200;
/** Welch's t from which a critical-path rise is dated on the timeline. */
const JUMP_T = 3;
/** Durations sampled per (service, span name) by spanDurations: enough for a p95. */
const DURATION_SAMPLE = 200;

export interface ServiceSpans {
  spans: number;
  errors: number;
  /** p95 of the sampled span durations (ms), over all of the service's operations. */
  p95Ms: number;
}

export interface CriticalPathChange {
  /** Mean self-time of the service on a trace's critical path (0 where it is not on it), ms. */
  windowMs: number;
  baselineMs: number;
  /** Welch's t of the per-trace self-times, window vs baseline. */
  t: number;
  /** The service's operations by their growth, largest first. */
  ops: { name: string; windowMs: number; baselineMs: number }[];
  /** Start of the first window trace of a sustained rise of its self-time (unix ms), when there is one. */
  jumpMs?: number;
  /** The window trace where the service spent longest on the critical path. */
  slowestTraceId?: string;
}

export interface TraceFindings {
  /** req.service and everything it calls (undefined: the whole tenant). */
  scope: Set<string> | undefined;
  /** Services seen in the sampled traces, in scope. */
  services: Set<string>;
  /** Caller → callees observed on parent → child spans (all services of the sampled traces). */
  calls: Map<string, Set<string>>;
  origins: OriginCounts;
  baselineOrigins: OriginCounts;
  window: Map<string, ServiceSpans>;
  baseline: Map<string, ServiceSpans>;
  criticalPath: Map<string, CriticalPathChange>;
  /** Mean end-to-end duration of the sampled healthy traces, ms. */
  e2eWindowMs: number;
  e2eBaselineMs: number;
  /** When each error span of a service among the window's sampled error traces ended (unix ms, ascending). */
  errorTimesMs: Map<string, number[]>;
  /** The trace search that drew each sample, to cite. */
  errorSearch: string;
  healthySearch: string;
}

const nsToMs = (ns: bigint): number => Number(ns / 1_000_000n);
const range = (startMs: number, endMs: number): TimeRange => ({
  startNs: BigInt(Math.trunc(startMs)) * 1_000_000n, endNs: BigInt(Math.trunc(endMs)) * 1_000_000n,
});

/** The trace search a sample stands for, as a person would type it on the Traces page. */
export function traceSearchText(filter: TraceSampleFilter, limit: number): string {
  const parts = [filter.service === undefined ? '' : `service=${filter.service}`, filter.status === undefined ? '' : `status=${filter.status}`];
  return [...parts.filter((p) => p !== ''), `limit=${limit}`, 'sample=trace_id_hash'].join(' ');
}

export async function analyseTraces(ctx: AiReadContext, w: Windows, service?: string): Promise<TraceFindings> {
  const sample = async (status: 'error' | 'ok', startMs: number, endMs: number, label: string): Promise<Span[][]> => {
    const filter: TraceSampleFilter = { status };
    if (service !== undefined) filter.service = service;
    ctx.evidence.add('traces', traceSearchText(filter, TRACE_SAMPLE), startMs, endMs, label);
    return groupByTrace(await ctx.telemetry.sampleTraces(ctx.tenantId, range(startMs, endMs), filter, TRACE_SAMPLE));
  };
  const [errW, errB, okW, okB] = await Promise.all([
    sample('error', w.startMs, w.endMs, 'error traces in the window: where errors begin and how they propagate'),
    sample('error', w.baselineStartMs, w.baselineEndMs, 'error traces in the baseline: which origins are usual'),
    sample('ok', w.startMs, w.endMs, 'healthy traces in the window: critical-path self-time per service'),
    sample('ok', w.baselineStartMs, w.baselineEndMs, 'healthy traces in the baseline: critical-path self-time per service'),
  ]);
  const calls = callGraph([...errW, ...errB, ...okW, ...okB]);
  const scope = service === undefined ? undefined : downstreamOf(service, calls);
  const inScope = (s: string): boolean => scope === undefined || scope.has(s);

  ctx.evidence.add('traces', 'spans by (service, name): count, errors, durations', w.startMs, w.endMs, 'error rate and latency per service in the window');
  ctx.evidence.add('traces', 'spans by (service, name): count, errors, durations', w.baselineStartMs, w.baselineEndMs, 'error rate and latency per service in the baseline');
  const [durW, durB] = await Promise.all([
    spanStats(ctx, range(w.startMs, w.endMs), inScope),
    spanStats(ctx, range(w.baselineStartMs, w.baselineEndMs), inScope),
  ]);

  const services = new Set<string>();
  for (const t of [...errW, ...okW]) for (const s of t) if (inScope(s.service)) services.add(s.service);
  const cpW = perTraceSelfTimes(okW, inScope);
  const cpB = perTraceSelfTimes(okB, inScope);
  const errorTimesMs = new Map<string, number[]>();
  for (const t of errW) {
    for (const s of t) {
      if (s.statusCode !== STATUS_ERROR || !inScope(s.service)) continue;
      // A span's status is set when it ends: a caller's span starts before its callee fails, but ends after it.
      const at = nsToMs(s.startNs + s.durationNs);
      if (at < w.startMs || at >= w.endMs) continue;
      let list = errorTimesMs.get(s.service);
      if (!list) errorTimesMs.set(s.service, (list = []));
      list.push(at);
    }
  }
  for (const list of errorTimesMs.values()) list.sort((a, b) => a - b);
  const errorFilter: TraceSampleFilter = { status: 'error' };
  const okFilter: TraceSampleFilter = { status: 'ok' };
  if (service !== undefined) errorFilter.service = okFilter.service = service;
  return {
    scope, services, calls,
    origins: countOrigins(errW, scope), baselineOrigins: countOrigins(errB, scope),
    window: durW, baseline: durB,
    criticalPath: compareCriticalPaths(cpW, cpB),
    e2eWindowMs: mean(cpW.map((t) => t.e2eMs)), e2eBaselineMs: mean(cpB.map((t) => t.e2eMs)),
    errorTimesMs,
    errorSearch: traceSearchText(errorFilter, TRACE_SAMPLE),
    healthySearch: traceSearchText(okFilter, TRACE_SAMPLE),
  };
}

/** Per service: spans, errors and p95 latency, from the store's per-(service, name) groups. */
async function spanStats(ctx: AiReadContext, r: TimeRange, inScope: (s: string) => boolean): Promise<Map<string, ServiceSpans>> {
  const groups = await ctx.telemetry.spanDurations(ctx.tenantId, r, {}, DURATION_SAMPLE);
  const acc = new Map<string, { spans: number; errors: number; durations: number[] }>();
  for (const g of groups) {
    if (!inScope(g.service)) continue;
    let a = acc.get(g.service);
    if (!a) acc.set(g.service, (a = { spans: 0, errors: 0, durations: [] }));
    a.spans += g.count;
    a.errors += g.errorCount;
    a.durations.push(...g.durationsMs);
  }
  const out = new Map<string, ServiceSpans>();
  for (const [service, a] of acc) {
    a.durations.sort((x, y) => x - y);
    out.set(service, { spans: a.spans, errors: a.errors, p95Ms: a.durations[Math.floor(0.95 * (a.durations.length - 1))] ?? 0 });
  }
  return out;
}

interface TraceSelfTimes {
  traceId: string;
  startMs: number;
  e2eMs: number;
  /** service\u0000operation → ms of self-time on the critical path. */
  ops: Map<string, number>;
}

function perTraceSelfTimes(traces: readonly Span[][], inScope: (s: string) => boolean): TraceSelfTimes[] {
  const out: TraceSelfTimes[] = [];
  for (const spans of traces) {
    const first = spans[0];
    if (!first) continue;
    let start = first.startNs;
    let end = first.startNs + first.durationNs;
    for (const s of spans) {
      if (s.startNs < start) start = s.startNs;
      if (s.startNs + s.durationNs > end) end = s.startNs + s.durationNs;
    }
    const ops = new Map([...criticalSelfTimeMs(spans)].filter(([k]) => inScope(splitOpKey(k).service)));
    out.push({ traceId: first.traceId, startMs: nsToMs(start), e2eMs: Number(end - start) / 1e6, ops });
  }
  return out.sort((a, b) => a.startMs - b.startMs || (a.traceId < b.traceId ? -1 : 1));
}

/**
 * Per service, its per-trace critical-path self-time in the window against the baseline: the mean of each, the
 * t statistic of the difference, the operations that grew, and when a sustained rise began (change-point.ts over
 * the window's traces in time order).
 */
function compareCriticalPaths(win: TraceSelfTimes[], base: TraceSelfTimes[]): Map<string, CriticalPathChange> {
  const services = new Set<string>();
  for (const t of [...win, ...base]) for (const k of t.ops.keys()) services.add(splitOpKey(k).service);
  const out = new Map<string, CriticalPathChange>();
  for (const service of services) {
    const perTrace = (ts: TraceSelfTimes[]): number[] => ts.map((t) => {
      let sum = 0;
      for (const [k, ms] of t.ops) if (splitOpKey(k).service === service) sum += ms;
      return sum;
    });
    const w = perTrace(win);
    const b = perTrace(base);
    const opNames = new Set<string>();
    for (const t of [...win, ...base]) for (const k of t.ops.keys()) if (splitOpKey(k).service === service) opNames.add(splitOpKey(k).name);
    const opMean = (ts: TraceSelfTimes[], name: string): number => mean(ts.map((t) => t.ops.get(`${service}\u0000${name}`) ?? 0));
    const ops = [...opNames].map((name) => ({ name, windowMs: opMean(win, name), baselineMs: opMean(base, name) }))
      .sort((x, y) => (y.windowMs - y.baselineMs) - (x.windowMs - x.baselineMs) || (x.name < y.name ? -1 : 1));
    const change: CriticalPathChange = { windowMs: mean(w), baselineMs: mean(b), t: welchT(w, b), ops };
    if (change.t >= JUMP_T) {
      // When the rise began, over the traces the service is on (a route that skips it says nothing of it).
      const on = win.flatMap((t, i) => ((w[i] ?? 0) > 0 ? [{ t, ms: w[i] ?? 0 }] : []));
      const shift = firstSustainedShift(b.filter((x) => x > 0), on.map((x) => x.ms), 0.1);
      const jumped = shift && shift.direction > 0 ? on[shift.index] : undefined;
      if (jumped) change.jumpMs = jumped.t.startMs;
    }
    let slowest = -1;
    w.forEach((ms, i) => {
      if (ms > slowest) {
        slowest = ms;
        const id = win[i]?.traceId;
        if (id !== undefined) change.slowestTraceId = id;
      }
    });
    out.set(service, change);
  }
  return out;
}

/** Caller → callees from parent → child spans whose services differ. */
function callGraph(traces: readonly Span[][]): Map<string, Set<string>> {
  const calls = new Map<string, Set<string>>();
  for (const spans of traces) {
    const { byId } = spanTree(spans);
    for (const s of spans) {
      const parent = byId.get(s.parentSpanId);
      if (!parent || parent.service === s.service) continue;
      let callees = calls.get(parent.service);
      if (!callees) calls.set(parent.service, (callees = new Set()));
      callees.add(s.service);
    }
  }
  return calls;
}

/** The service and everything it calls, directly or through others (req.service narrows to these). */
export function downstreamOf(service: string, calls: ReadonlyMap<string, ReadonlySet<string>>): Set<string> {
  const out = new Set([service]);
  const queue = [service];
  for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
    for (const c of calls.get(s) ?? []) if (!out.has(c)) { out.add(c); queue.push(c); }
  }
  return out;
}
