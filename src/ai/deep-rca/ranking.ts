// Ranking suspect services (DESIGN §9 `ai/deep-rca`, issue 10 item 3) from what the three signals found. Four parts,
// each 0..1 and gated on a test of difference (stats.ts) so ordinary noise between two windows scores nothing:
//   origin         share of the window's error traces whose failure begins in the service, × how clearly its
//                  span error rate rose;
//   critical path  how much its self-time on the critical path grew, as a share of the baseline's end-to-end
//                  latency, × how clearly (Welch's t);
//   metric first   how early its first changed series moved, relative to the first change of all;
//   error jump     how clearly its span error rate or its error logs rose.
// Datadog Watchdog's rule (issue 10 notes): a change or an origin outranks a service that merely shows symptoms.
// Origin and critical-path growth point at the service's own fault; metric and error jumps also show on every
// caller of a failing service. So a service that calls a suspect with stronger own-fault evidence is marked as
// propagating: its symptom parts count half, and it ranks below that downstream suspect.
import { clamp01, countExcessZ, gate, proportionZ } from './stats.js';
import { serviceErrorsQuery, type LogFindings } from './log-errors.js';
import type { MetricFindings } from './metric-changes.js';
import type { DeepEvidence, Suspect, Windows } from './model.js';
import { downstreamOf, type TraceFindings } from './trace-analysis.js';
import { msToRfc3339 } from '../evidence.js';

export const WEIGHTS = { origin: 0.35, criticalPath: 0.3, metricFirst: 0.2, errorJump: 0.15 } as const;
/**
 * A suspect is named with confidence at this score or more. One signal's symptom alone (a metric that moved first,
 * or an error jump, at most 0.2) stays below it; an origin of most errors or a critical-path growth of a quarter
 * of the end-to-end latency, each confirmed by its test, passes it; so do two symptoms together.
 */
export const CONFIDENT_SCORE = 0.3;
/** A propagating caller ends at most at this fraction of the downstream suspect's score. */
const PROPAGATOR_CAP = 0.9;
/** Critical-path growth that counts fully: a quarter of the baseline's end-to-end latency. */
const FULL_GROWTH_SHARE = 0.25;

interface Parts {
  origin: number;
  criticalPath: number;
  metricFirst: number;
  errorJump: number;
  evidence: DeepEvidence[];
}

const pct = (x: number): string => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)}%`;
const ms = (x: number): string => `${x < 10 ? x.toFixed(1) : Math.round(x)} ms`;

export function rankSuspects(w: Windows, traces: TraceFindings, metrics: MetricFindings, logs: LogFindings): Suspect[] {
  const services = new Set<string>(traces.services);
  for (const s of traces.window.keys()) services.add(s);
  for (const c of metrics.changes) if (c.service !== undefined) services.add(c.service);
  for (const [s, e] of logs.services) if (e.window > 0) services.add(s);
  if (traces.scope) for (const s of [...services]) if (!traces.scope.has(s)) services.delete(s);

  const parts = new Map<string, Parts>();
  for (const service of services) parts.set(service, partsOf(service, w, traces, metrics, logs));
  const cause = (p: Parts): number => WEIGHTS.origin * p.origin + WEIGHTS.criticalPath * p.criticalPath;
  const score = (p: Parts, symptomFactor: number): number => cause(p)
    + symptomFactor * (WEIGHTS.metricFirst * p.metricFirst + WEIGHTS.errorJump * p.errorJump);

  const raw = new Map([...parts].map(([s, p]) => [s, score(p, 1)]));
  const scale = 1 / availableWeight(traces, metrics);
  const out: Suspect[] = [];
  for (const [service, p] of parts) {
    let value = score(p, 1);
    // The downstream service (reached through calls) with the strongest own-fault evidence above this one's.
    let culprit: string | undefined;
    for (const d of downstreamOf(service, traces.calls)) {
      const dp = parts.get(d);
      if (d === service || !dp || cause(dp) <= cause(p) || cause(dp) < 0.1) continue;
      if (culprit === undefined || cause(dp) > cause(parts.get(culprit) ?? dp)) culprit = d;
    }
    if (culprit !== undefined) {
      value = Math.min(score(p, 0.5), PROPAGATOR_CAP * (raw.get(culprit) ?? 0));
      p.evidence.push({
        kind: 'propagation', signal: 'traces', query: traces.errorSearch,
        text: `calls ${culprit}, where the fault shows first (its own errors or critical-path time); ${service}'s symptoms are counted half`,
      });
    }
    if (value <= 0 && p.evidence.length === 0) continue;
    // The evidence that weighs most first (what the summary quotes); the unweighted context after it.
    const weight = (kind: string): number => (kind === 'error_origin' ? WEIGHTS.origin * p.origin
      : kind === 'critical_path' ? WEIGHTS.criticalPath * p.criticalPath
        : kind === 'metric_change' ? WEIGHTS.metricFirst * p.metricFirst
          : kind === 'error_jump' || kind === 'log_errors' ? WEIGHTS.errorJump * p.errorJump : 0);
    const evidence = p.evidence.map((e, i) => ({ e, i, w: weight(e.kind) })).sort((a, b) => b.w - a.w || a.i - b.i).map((x) => x.e);
    out.push({ service, score: Math.round(Math.min(1, value * scale) * 1000) / 1000, evidence });
  }
  return out.sort((a, b) => b.score - a.score || (a.service < b.service ? -1 : 1));
}

/**
 * The weight of the signals the tenant has in the two windows. A tenant that sends no spans (or no metrics) cannot
 * show an origin or a critical path (or a metric that moved first); its score is out of what it could show, so a
 * logs-only tenant's clear error jump is a confident suspect rather than capped at the error-jump weight.
 */
export function availableWeight(traces: TraceFindings, metrics: MetricFindings): number {
  const hasSpans = traces.window.size + traces.baseline.size > 0;
  const hasMetrics = metrics.seriesRead > 0;
  return WEIGHTS.errorJump + (hasSpans ? WEIGHTS.origin + WEIGHTS.criticalPath : 0) + (hasMetrics ? WEIGHTS.metricFirst : 0);
}

function partsOf(service: string, w: Windows, traces: TraceFindings, metrics: MetricFindings, logs: LogFindings): Parts {
  const p: Parts = { origin: 0, criticalPath: 0, metricFirst: 0, errorJump: 0, evidence: [] };
  const lengthRatio = (w.endMs - w.startMs) / Math.max(1, w.baselineEndMs - w.baselineStartMs);

  // Span error rate, window vs baseline: the gate of the origin part and one half of the error jump.
  const sw = traces.window.get(service);
  const sb = traces.baseline.get(service);
  const spanZ = proportionZ(sw?.errors ?? 0, sw?.spans ?? 0, sb?.errors ?? 0, sb?.spans ?? 0);
  const spanGate = gate(spanZ);
  const rateW = sw && sw.spans > 0 ? sw.errors / sw.spans : 0;
  const rateB = sb && sb.spans > 0 ? sb.errors / sb.spans : 0;

  const origin = traces.origins.origins.get(service);
  if (origin && traces.origins.traces > 0) {
    const share = origin.traces / traces.origins.traces;
    p.origin = share * spanGate;
    const base = traces.baselineOrigins.origins.get(service)?.traces ?? 0;
    // The usual scattering of one-off failures (no rise in the service's error rate) is not evidence.
    if (p.origin > 0) p.evidence.push({
      kind: 'error_origin', signal: 'traces', query: origin.examples.map((id) => `trace_id=${id}`).join(' OR '),
      text: `errors begin here (deepest failing span, its callees healthy) in ${origin.traces} of ${traces.origins.traces} sampled error traces (${pct(share)}); baseline ${base} of ${traces.baselineOrigins.traces}`,
    });
  }
  const propagating = traces.origins.propagators.get(service);
  if (propagating && !origin) {
    p.evidence.push({
      kind: 'error_propagation', signal: 'traces', query: propagating.examples.map((id) => `trace_id=${id}`).join(' OR '),
      text: `fails only when a callee fails: passes errors up in ${propagating.traces} of ${traces.origins.traces} sampled error traces`,
    });
  }

  const cp = traces.criticalPath.get(service);
  if (cp) {
    const growth = cp.windowMs - cp.baselineMs;
    const share = traces.e2eBaselineMs > 0 ? growth / (FULL_GROWTH_SHARE * traces.e2eBaselineMs) : growth > 0 ? 1 : 0;
    p.criticalPath = gate(cp.t) * clamp01(share);
    if (p.criticalPath > 0) {
      const op = cp.ops[0];
      p.evidence.push({
        kind: 'critical_path', signal: 'traces', ...(cp.slowestTraceId === undefined ? {} : { query: `trace_id=${cp.slowestTraceId}` }),
        text: `self-time on the critical path ${ms(cp.baselineMs)} → ${ms(cp.windowMs)} per trace (+${ms(growth)}; end-to-end ${ms(traces.e2eBaselineMs)} → ${ms(traces.e2eWindowMs)})`
          + (op ? `, mostly ${op.name} (${ms(op.baselineMs)} → ${ms(op.windowMs)})` : ''),
      });
    }
  }

  const first = metrics.changes[0];
  const own = metrics.changes.find((c) => c.service === service);
  if (first && own) {
    p.metricFirst = clamp01(1 - (own.firstChangeMs - first.firstChangeMs) / (0.5 * (w.endMs - w.startMs)));
    const rank = metrics.changes.indexOf(own) + 1;
    p.evidence.push({
      kind: 'metric_change', signal: 'metrics', query: own.query,
      text: `${own.query} went ${own.direction} at ${msToRfc3339(own.firstChangeMs)} (baseline median ${fmt(own.baselineMedian)}, then ${fmt(own.changedValue)}; ${Math.abs(own.z).toFixed(1)}σ), change ${rank} of ${metrics.changes.length}`,
    });
  }

  if (spanGate > 0 && rateW > rateB) {
    p.evidence.push({
      kind: 'error_jump', signal: 'traces', query: `service=${service} status=error`,
      text: `span error rate ${pct(rateB)} → ${pct(rateW)} (${sw?.errors ?? 0} of ${sw?.spans ?? 0} spans; z ${spanZ.toFixed(1)})`,
    });
  }
  if (sw && sb && sb.p95Ms > 0 && sw.p95Ms > 1.5 * sb.p95Ms) {
    p.evidence.push({ kind: 'latency', signal: 'traces', text: `p95 span latency ${ms(sb.p95Ms)} → ${ms(sw.p95Ms)} (callees' time included)` });
  }
  const le = logs.services.get(service);
  let logGate = 0;
  if (le) {
    const z = countExcessZ(le.window, le.baseline, lengthRatio);
    logGate = gate(z);
    if (logGate > 0) {
      p.evidence.push({
        kind: 'log_errors', signal: 'logs', query: serviceErrorsQuery(service),
        text: `error logs ${le.baseline} in the baseline → ${le.window} in the window (z ${z.toFixed(1)})`,
      });
    }
  }
  p.errorJump = Math.max(spanGate * (rateW > rateB ? 1 : 0), logGate);
  return p;
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(3);
}
