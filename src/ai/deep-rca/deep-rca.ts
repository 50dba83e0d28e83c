// Deep root-cause analysis (DESIGN §9 `POST …/ai/deep-rca`, issue 10 item 3): across traces, metrics and logs of a
// window against the same length just before it, which service is most likely the cause. The traces say where
// errors begin (propagation.ts) and whose critical-path time grew (critical-path.ts); the metrics say which
// series moved first (metric-changes.ts); the logs say whose errors jumped (log-errors.ts); ranking.ts weighs
// them, a cause above its symptoms. The top suspects' error logs then go through log RCA (`ai/rca`) for the
// field values, templates and changes that set them apart. Every read lands in ctx.evidence.
import type { AiReadContext, Hypothesis, RcaRequest, RcaResult } from '../model.js';
import { AiUnprocessable } from '../model.js';
import { msToRfc3339 } from '../evidence.js';
import { rootCauseHypotheses } from '../rca/rca.js';
import { analyseLogs, serviceErrorsQuery, type LogFindings } from './log-errors.js';
import { analyseMetrics, MAX_SERIES, type MetricFindings } from './metric-changes.js';
import { windowsOf, type DeepRcaRequest, type DeepRcaResult, type Suspect, type TimelineEvent, type Windows } from './model.js';
import { CONFIDENT_SCORE, rankSuspects } from './ranking.js';
import { analyseTraces, type TraceFindings } from './trace-analysis.js';

export type { DeepEvidence, DeepRcaResult, Suspect, TimelineEvent } from './model.js';
export { CONFIDENT_SCORE } from './ranking.js';

/** Suspects whose error logs go through log RCA, and hypotheses kept per suspect. */
const HYPOTHESIS_SUSPECTS = 3;
const HYPOTHESES_PER_SUSPECT = 5;
/** Metric changes put on the timeline (the earliest). */
const TIMELINE_METRICS = 10;

type Hypotheses = (req: RcaRequest, ctx: AiReadContext) => Promise<RcaResult>;

/**
 * Ranked suspect services for the window [startMs, endMs) against the same length before it, with evidence, a
 * timeline and the top suspects' log RCA hypotheses. `hypothesesOf` is `ai/rca`'s analysis; a caller (a test)
 * may pass another with the same contract. Throws AiUnprocessable (422) for an empty or inverted window.
 */
export async function deepRootCause(req: DeepRcaRequest, ctx: AiReadContext, hypothesesOf: Hypotheses = rootCauseHypotheses): Promise<DeepRcaResult> {
  if (!(req.endMs > req.startMs)) throw new AiUnprocessable('end must be after start');
  const w = windowsOf(req);
  // Traces first: their call graph gives the scope (req.service and what it calls) the other signals narrow to.
  const traces = await analyseTraces(ctx, w, req.service);
  const scope = traces.scope ?? (req.service === undefined ? undefined : new Set([req.service]));
  const [metrics, logs] = await Promise.all([analyseMetrics(ctx, w, scope), analyseLogs(ctx, w, scope)]);
  const suspects = rankSuspects(w, { ...traces, scope }, metrics, logs);
  const hypotheses = await suspectHypotheses(suspects, logs, w, ctx, hypothesesOf);
  return {
    summary: summarise(suspects, metrics, scope, req.service),
    suspects,
    timeline: timeline(w, traces, metrics, logs, scope),
    hypotheses,
  };
}

/** Log RCA over each confident suspect's error logs, window vs baseline; its top hypotheses join its evidence. */
async function suspectHypotheses(suspects: Suspect[], logs: LogFindings, w: Windows, ctx: AiReadContext, hypothesesOf: Hypotheses): Promise<Hypothesis[]> {
  const out: Hypothesis[] = [];
  for (const s of suspects.slice(0, HYPOTHESIS_SUSPECTS)) {
    if (s.score < CONFIDENT_SCORE || (logs.services.get(s.service)?.window ?? 0) === 0) continue;
    let result: RcaResult;
    try {
      result = await hypothesesOf({
        query: serviceErrorsQuery(s.service), startMs: w.startMs, endMs: w.endMs,
        baselineStartMs: w.baselineStartMs, baselineEndMs: w.baselineEndMs,
      }, ctx);
    } catch (e) {
      // Log RCA refuses what it cannot analyse (too few events); the suspect stands on its other evidence.
      if (e instanceof AiUnprocessable) continue;
      throw e;
    }
    // Log RCA also weighs every service's error share; about this suspect, another service's share says nothing.
    const top = result.hypotheses.filter((h) => h.kind !== 'service' || h.value === s.service).slice(0, HYPOTHESES_PER_SUSPECT);
    out.push(...top);
    for (const h of top.slice(0, 2)) s.evidence.push({ kind: `log_${h.kind}`, signal: 'logs', query: h.query, text: h.summary });
  }
  return out;
}

function summarise(suspects: Suspect[], metrics: MetricFindings, scope: ReadonlySet<string> | undefined, service?: string): string {
  const where = service === undefined ? '' : ` (${service} and what it calls: ${[...(scope ?? [])].sort().join(', ')})`;
  const first = metrics.changes[0];
  const firstText = (first ? ` The first metric to move was ${first.query} at ${msToRfc3339(first.firstChangeMs)}.` : '')
    + (metrics.skippedNames > 0 ? ` ${metrics.skippedNames} metric names were left out past the ${MAX_SERIES}-series budget.` : '');
  const top = suspects[0];
  if (!top || top.score < CONFIDENT_SCORE) {
    return `No confident suspect${where}: no service's errors, critical-path time or metrics changed against the baseline `
      + `enough to reach a score of ${CONFIDENT_SCORE}${top ? ` (highest: ${top.service}, ${top.score})` : ''}.${firstText}`;
  }
  const lead = top.evidence[0];
  const others = suspects.slice(1).filter((s) => s.score >= CONFIDENT_SCORE).map((s) => s.service);
  return `Most likely cause${where}: ${top.service} (score ${top.score})${lead ? `: ${lead.text}` : ''}.`
    + (others.length > 0 ? ` Also affected: ${others.join(', ')}.` : '') + firstText;
}

function timeline(w: Windows, traces: TraceFindings, metrics: MetricFindings, logs: LogFindings, scope: ReadonlySet<string> | undefined): TimelineEvent[] {
  const events: { ms: number; e: Omit<TimelineEvent, 'time'> }[] = [];
  const inWindow = (ms: number): boolean => ms >= w.startMs && ms < w.endMs;
  for (const c of metrics.changes.slice(0, TIMELINE_METRICS)) {
    events.push({ ms: c.firstChangeMs, e: { signal: 'metrics', ...(c.service === undefined ? {} : { service: c.service }),
      text: `${c.query} went ${c.direction} (${Math.abs(c.z).toFixed(1)}σ from its baseline)` } });
  }
  for (const [service, cp] of traces.criticalPath) {
    if (cp.jumpMs === undefined) continue;
    events.push({ ms: cp.jumpMs, e: { signal: 'traces', service,
      text: `${service}'s critical-path self-time rose (baseline ${cp.baselineMs.toFixed(1)} ms, window ${cp.windowMs.toFixed(1)} ms per trace)` } });
  }
  for (const [service, e] of logs.services) {
    if (e.riseMs === undefined || (scope !== undefined && !scope.has(service))) continue;
    events.push({ ms: e.riseMs, e: { signal: 'logs', service, text: `${service}'s error logs rose (${e.baseline} in the baseline, ${e.window} in the window)` } });
  }
  // For each service whose errors rose, its first failing span from the rise on (errors before it are the usual
  // noise), and whether failures begin there.
  for (const [service, times] of traces.errorTimesMs) {
    const rise = logs.services.get(service)?.riseMs;
    const ms = rise === undefined ? undefined : times.find((t) => t >= rise);
    if (ms === undefined) continue;
    const origin = traces.origins.origins.get(service);
    events.push({ ms, e: { signal: 'traces', service, text: `first failing ${service} span in the sampled error traces${origin ? ` (errors begin here in ${origin.traces} of ${traces.origins.traces})` : ''}` } });
  }
  return events.filter((x) => inWindow(x.ms))
    .sort((a, b) => a.ms - b.ms || (a.e.text < b.e.text ? -1 : 1))
    .map((x) => ({ time: msToRfc3339(x.ms), ...x.e }));
}
