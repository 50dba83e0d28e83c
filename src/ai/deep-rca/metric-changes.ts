// The metrics half of deep RCA (DESIGN §9 `ai/deep-rca`: "which metric series changed first"): the tenant's series
// over the baseline and the window, each reduced to at most MAX_POINTS per window (bucket means; counters as
// per-second rates), checked for a sustained shift against the baseline (change-point.ts), and ordered by when the
// shift began. Bounded: at most MAX_SERIES series, read one metric name at a time.
import type { LabelMatcher, StoredSeries } from '../../model/series-source.js';
import { isStaleSample } from '../../model/series-source.js';
import type { AiReadContext } from '../model.js';
import { firstSustainedShift } from './change-point.js';
import type { Windows } from './model.js';

export const MAX_SERIES = 2000;
/** Points per window after bucketing: a 1 h window at 30 s, plenty to place a change within a minute or two. */
const MAX_POINTS = 120;
/** Labels that name the service a series belongs to, in order of preference (OTel, then Prometheus habits). */
const SERVICE_LABELS = ['service', 'service_name', 'job', 'app'];

export interface MetricChange {
  /** PromQL that shows the series as analysed (a rate for counters). */
  query: string;
  labels: Record<string, string>;
  service?: string;
  /** Unix ms of the first bucket of the sustained shift. */
  firstChangeMs: number;
  direction: 'up' | 'down';
  /** Median z of the shift, in baseline σ. */
  z: number;
  baselineMedian: number;
  /** The first changed bucket's value. */
  changedValue: number;
}

export interface MetricFindings {
  /** Earliest first; ties by the larger shift. */
  changes: MetricChange[];
  seriesRead: number;
  /** Metric names left out because the series budget was spent. */
  skippedNames: number;
}

export async function analyseMetrics(ctx: AiReadContext, w: Windows, scope?: ReadonlySet<string>): Promise<MetricFindings> {
  const src = ctx.telemetry.metrics;
  // Series per metric name (labels only, no samples) to spend the series budget before reading any samples;
  // a backend without series() gives names only, and the budget then counts series as they are read.
  const perName = new Map<string, number>();
  if (src.series) {
    for (const labels of await src.series(ctx.tenantId, [], w.baselineStartMs, w.endMs)) {
      const name = labels.__name__ ?? '';
      perName.set(name, (perName.get(name) ?? 0) + 1);
    }
  } else {
    for (const name of await src.labelValues(ctx.tenantId, '__name__', [], w.baselineStartMs, w.endMs)) perName.set(name, 0);
  }
  ctx.evidence.add('metrics', 'count by (__name__) ({__name__=~".+"})', w.baselineStartMs, w.endMs, 'the metric names with data in the window or baseline, and their series');
  const counters = new Set((await src.metadata(ctx.tenantId)).filter((m) => m.type === 'counter').map((m) => m.name));
  const bucketMs = Math.max(1, Math.ceil((w.endMs - w.startMs) / MAX_POINTS));
  const out: MetricFindings = { changes: [], seriesRead: 0, skippedNames: 0 };
  for (const [name, count] of [...perName].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (name === '' || out.seriesRead + count > MAX_SERIES || out.seriesRead >= MAX_SERIES) {
      out.skippedNames++;
      continue;
    }
    const matchers: LabelMatcher[] = [{ name: '__name__', type: '=', value: name }];
    const series = await src.select(ctx.tenantId, matchers, w.baselineStartMs, w.endMs);
    const counter = counters.has(name) || /_(total|count|sum|bucket)$/.test(name);
    ctx.evidence.add('metrics', counter ? `rate(${selector(name, {})}[${bucketMs / 1000}s])` : selector(name, {}),
      w.baselineStartMs, w.endMs, `series of ${name}: when each left its baseline`);
    for (const s of series) {
      out.seriesRead++;
      const service = serviceOf(s.labels);
      if (scope !== undefined && (service === undefined || !scope.has(service))) continue;
      const change = seriesChange(s, counter, w, bucketMs);
      if (!change) continue;
      const labels = Object.fromEntries(Object.entries(s.labels).filter(([k]) => k !== '__name__'));
      const sel = selector(name, labels);
      out.changes.push({ ...change, labels, query: counter ? `rate(${sel}[${bucketMs / 1000}s])` : sel, ...(service === undefined ? {} : { service }) });
    }
  }
  out.changes.sort((a, b) => a.firstChangeMs - b.firstChangeMs || Math.abs(b.z) - Math.abs(a.z) || (a.query < b.query ? -1 : 1));
  return out;
}

function seriesChange(s: StoredSeries, counter: boolean, w: Windows, bucketMs: number):
  Omit<MetricChange, 'query' | 'labels' | 'service'> | null {
  const points = counter ? rates(s) : s.samples.filter((x) => !isStaleSample(x)).map((x) => ({ t: x.t, v: x.v }));
  const base = bucketMeans(points, w.baselineStartMs, w.baselineEndMs, bucketMs);
  const win = bucketMeans(points, w.startMs, w.endMs, bucketMs);
  const values = (b: { v: number }[]): number[] => b.map((x) => x.v);
  if (base.length < 4 || win.length < 2) return null;
  const shift = firstSustainedShift(values(base), values(win), 0.05, counter ? poissonRateFloor(values(base), bucketMs) : 0);
  const at = shift ? win[shift.index] : undefined;
  if (!shift || !at) return null;
  return { firstChangeMs: at.t, direction: shift.direction > 0 ? 'up' : 'down', z: shift.z, baselineMedian: shift.baselineMedian, changedValue: at.v };
}

/**
 * The σ a rate of counted events has at least, from Poisson noise: √(events per bucket + 1) events over the bucket.
 * A counter of rare events (errors) has a baseline of mostly zeros, MAD 0; without this floor one or two events in
 * a row would read as a change of millions of σ.
 */
function poissonRateFloor(baseline: number[], bucketMs: number): number {
  const seconds = bucketMs / 1000;
  let sum = 0;
  for (const v of baseline) sum += v;
  const perBucket = (sum / Math.max(1, baseline.length)) * seconds;
  return Math.sqrt(perBucket + 1) / seconds;
}

/** Per-second increase between consecutive samples; a drop is a counter reset, counted from zero as rate() does. */
function rates(s: StoredSeries): { t: number; v: number }[] {
  const out: { t: number; v: number }[] = [];
  let prev: { t: number; v: number } | undefined;
  for (const x of s.samples) {
    if (isStaleSample(x) || !Number.isFinite(x.v)) {
      prev = undefined;
      continue;
    }
    if (prev && x.t > prev.t) out.push({ t: x.t, v: (x.v >= prev.v ? x.v - prev.v : x.v) / ((x.t - prev.t) / 1000) });
    prev = { t: x.t, v: x.v };
  }
  return out;
}

/** Means of the points in each bucket of [startMs, endMs); empty buckets are left out. */
function bucketMeans(points: { t: number; v: number }[], startMs: number, endMs: number, bucketMs: number): { t: number; v: number }[] {
  const sums = new Map<number, { sum: number; n: number }>();
  for (const p of points) {
    if (p.t < startMs || p.t >= endMs || !Number.isFinite(p.v)) continue;
    const b = startMs + Math.floor((p.t - startMs) / bucketMs) * bucketMs;
    const acc = sums.get(b) ?? { sum: 0, n: 0 };
    acc.sum += p.v;
    acc.n++;
    sums.set(b, acc);
  }
  return [...sums].sort((a, b) => a[0] - b[0]).map(([t, a]) => ({ t, v: a.sum / a.n }));
}

export function serviceOf(labels: Record<string, string>): string | undefined {
  for (const l of SERVICE_LABELS) {
    const v = labels[l];
    // Prometheus jobs are often `namespace/app`: the last segment names the service.
    if (v !== undefined && v !== '') return l === 'job' ? v.slice(v.lastIndexOf('/') + 1) : v;
  }
  return undefined;
}

/** A PromQL selector for the name and labels, values escaped as PromQL strings. */
export function selector(name: string, labels: Record<string, string>): string {
  const pairs = Object.keys(labels).sort().map((k) => `${k}="${(labels[k] ?? '').replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  const plain = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name);
  if (plain) return pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`;
  return `{${[`__name__="${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`, ...pairs].join(',')}}`;
}
