// PromQL evaluation, one step at a time, with the semantics of Prometheus 2.x promql/engine.go: an instant
// selector takes each series' latest sample at or before t − offset that is no older than the lookback delta
// (5m) and not a staleness marker; a range selector takes the samples in [t − offset − range, t − offset]
// without staleness markers; `@` pins the time; subqueries evaluate their inner expression on steps aligned
// to multiples of the step. Series are fetched once per selector for the whole query.
import type { AtModifier, Call, Expr, MatrixSelector, SubqueryExpr, VectorSelector } from './ast.js';
import { aggregate } from './aggregations.js';
import { assertUniqueLabelsets, scalarBinop, vectorBinop, vectorScalarBinop } from './binary.js';
import { INSTANT_FUNCTIONS } from './functions.js';
import { PromqlError } from './parse.js';
import { RANGE_FUNCTIONS, type RangeWindow } from './range-functions.js';
import { isStaleSample, type SeriesSource } from '../../model/series-source.js';
import { FUNCTIONS } from './signatures.js';
import { compareLabels, dropName, labelsKey, type Labels, type Point, type Sample, type Series, type Value } from './values.js';

export interface EngineOptions {
  /** How far back an instant selector looks for a sample (Prometheus --query.lookback-delta, default 5m). */
  lookbackDeltaMs?: number;
  /** Step of a subquery written without one (Prometheus: the global evaluation interval, default 1m). */
  subqueryStepMs?: number;
}

export const DEFAULT_LOOKBACK_MS = 5 * 60_000;
export const DEFAULT_SUBQUERY_STEP_MS = 60_000;

/** One stored series, columns apart so that staleness never rides on NaN bits. */
interface Prepared { labels: Labels; t: number[]; v: number[]; stale: boolean[] }

interface QueryTimes { startMs: number; endMs: number; lookbackMs: number; subqueryStepMs: number }

function atMs(at: AtModifier, q: QueryTimes): number {
  return at.kind === 'time' ? at.ms : at.kind === 'start' ? q.startMs : q.endMs;
}

/** First index whose time is ≥ t (or ≥ length). */
function lowerBound(ts: number[], t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ts[mid] ?? 0) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The time span each selector must be read over for evaluation times in [lo, hi]. */
function collectWindows(e: Expr, lo: number, hi: number, q: QueryTimes, out: Map<VectorSelector, [number, number]>): void {
  const add = (vs: VectorSelector, back: number, l: number, h: number): void => {
    const [bl, bh] = vs.at ? [atMs(vs.at, q), atMs(vs.at, q)] : [l, h];
    const prev = out.get(vs);
    const w: [number, number] = [bl - vs.offsetMs - back, bh - vs.offsetMs];
    out.set(vs, prev ? [Math.min(prev[0], w[0]), Math.max(prev[1], w[1])] : w);
  };
  switch (e.kind) {
    case 'vector': add(e, q.lookbackMs, lo, hi); return;
    case 'matrix': add(e.selector, e.rangeMs, lo, hi); return;
    case 'subquery': {
      const [bl, bh] = e.at ? [atMs(e.at, q), atMs(e.at, q)] : [lo, hi];
      collectWindows(e.expr, bl - e.offsetMs - e.rangeMs, bh - e.offsetMs, q, out);
      return;
    }
    case 'number': case 'string': return;
    case 'paren': case 'unary': collectWindows(e.expr, lo, hi, q, out); return;
    case 'binary': collectWindows(e.lhs, lo, hi, q, out); collectWindows(e.rhs, lo, hi, q, out); return;
    case 'aggregate':
      if (e.param) collectWindows(e.param, lo, hi, q, out);
      collectWindows(e.expr, lo, hi, q, out);
      return;
    case 'call': for (const a of e.args) collectWindows(a, lo, hi, q, out);
  }
}

async function prepare(
  source: SeriesSource, tenantId: string, e: Expr, q: QueryTimes,
): Promise<Map<VectorSelector, Prepared[]>> {
  const windows = new Map<VectorSelector, [number, number]>();
  collectWindows(e, q.startMs, q.endMs, q, windows);
  const data = new Map<VectorSelector, Prepared[]>();
  await Promise.all([...windows].map(async ([vs, [lo, hi]]) => {
    const series = await source.select(tenantId, vs.matchers, lo, hi);
    data.set(vs, series.map((s) => ({
      labels: Object.freeze({ ...s.labels }),
      t: s.samples.map((x) => x.t),
      v: s.samples.map((x) => x.v),
      stale: s.samples.map(isStaleSample),
    })));
  }));
  return data;
}

function unwrapParens(e: Expr): Expr {
  return e.kind === 'paren' ? unwrapParens(e.expr) : e;
}

/** absent(): the label set from the selector's equality matchers; a label matched twice is left out. */
function absentLabels(e: Expr): Labels {
  const vs = e.kind === 'vector' ? e : e.kind === 'matrix' ? e.selector : undefined;
  const out = new Map<string, string>();
  const seen = new Set<string>();
  for (const m of vs?.matchers ?? []) {
    if (m.name === '__name__') continue;
    if (m.type === '=' && !seen.has(m.name)) out.set(m.name, m.value);
    else out.delete(m.name);
    seen.add(m.name);
  }
  return Object.fromEntries(out);
}

class Evaluator {
  private readonly subqueryCache = new Map<Expr, Map<number, Value>>();

  constructor(private readonly data: Map<VectorSelector, Prepared[]>, private readonly q: QueryTimes) {}

  eval(e: Expr, ts: number): Value {
    switch (e.kind) {
      case 'number': return { type: 'scalar', v: e.value };
      case 'string': return { type: 'string', s: e.value };
      case 'paren': return this.eval(e.expr, ts);
      case 'vector': return { type: 'vector', samples: this.instant(e, ts) };
      case 'matrix': return { type: 'matrix', series: this.range(e, ts) };
      case 'subquery': return { type: 'matrix', series: this.subquery(e, ts) };
      case 'unary': {
        const v = this.eval(e.expr, ts);
        if (e.op === '+') return v;
        if (v.type === 'scalar') return { type: 'scalar', v: -v.v };
        if (v.type !== 'vector') return v;
        const samples = v.samples.map((s) => ({ labels: dropName(s.labels), v: -s.v }));
        assertUniqueLabelsets(samples);
        return { type: 'vector', samples };
      }
      case 'binary': {
        const l = this.eval(e.lhs, ts);
        const r = this.eval(e.rhs, ts);
        if (l.type === 'scalar' && r.type === 'scalar') return { type: 'scalar', v: scalarBinop(e.op, l.v, r.v, e.returnBool) };
        let samples: Sample[];
        if (l.type === 'vector' && r.type === 'vector') {
          samples = vectorBinop(e.op, l.samples, r.samples, e.matching ?? { card: 'one-to-one', on: false, labels: [], include: [] }, e.returnBool);
        } else if (l.type === 'vector' && r.type === 'scalar') samples = vectorScalarBinop(e.op, l.samples, r.v, false, e.returnBool);
        else if (l.type === 'scalar' && r.type === 'vector') samples = vectorScalarBinop(e.op, r.samples, l.v, true, e.returnBool);
        else throw new PromqlError('binary expression must contain only scalar and instant vector types', 'execution');
        assertUniqueLabelsets(samples);
        return { type: 'vector', samples };
      }
      case 'aggregate': {
        const p = e.param ? this.eval(e.param, ts) : undefined;
        const param = p?.type === 'scalar' ? p.v : p?.type === 'string' ? p.s : undefined;
        const v = this.eval(e.expr, ts);
        return { type: 'vector', samples: aggregate(e.op, v.type === 'vector' ? v.samples : [], e.grouping, e.without, param) };
      }
      case 'call': return this.call(e, ts);
    }
  }

  private instant(vs: VectorSelector, ts: number): Sample[] {
    const ref = (vs.at ? atMs(vs.at, this.q) : ts) - vs.offsetMs;
    const out: Sample[] = [];
    for (const s of this.data.get(vs) ?? []) {
      const i = lowerBound(s.t, ref + 1) - 1;
      const t = s.t[i];
      if (t === undefined || t < ref - this.q.lookbackMs || s.stale[i] === true) continue;
      out.push({ labels: s.labels, v: s.v[i] ?? Number.NaN, t });
    }
    return out;
  }

  private range(ms: MatrixSelector, ts: number): Series[] {
    const vs = ms.selector;
    const maxt = (vs.at ? atMs(vs.at, this.q) : ts) - vs.offsetMs;
    const mint = maxt - ms.rangeMs;
    const out: Series[] = [];
    for (const s of this.data.get(vs) ?? []) {
      const points: Point[] = [];
      for (let i = lowerBound(s.t, mint); i < s.t.length && (s.t[i] ?? Infinity) <= maxt; i++) {
        if (s.stale[i] !== true) points.push({ t: s.t[i] ?? 0, v: s.v[i] ?? Number.NaN });
      }
      if (points.length > 0) out.push({ labels: s.labels, points });
    }
    return out;
  }

  private subquery(sq: SubqueryExpr, ts: number): Series[] {
    const step = sq.stepMs ?? this.q.subqueryStepMs;
    const end = (sq.at ? atMs(sq.at, this.q) : ts) - sq.offsetMs;
    const start = end - sq.rangeMs;
    let cache = this.subqueryCache.get(sq.expr);
    if (!cache) this.subqueryCache.set(sq.expr, (cache = new Map<number, Value>()));
    const bySeries = new Map<string, Series>();
    for (let t = Math.ceil(start / step) * step + 0; t <= end; t += step) {
      let v = cache.get(t);
      if (!v) cache.set(t, (v = this.eval(sq.expr, t)));
      if (v.type !== 'vector') continue;
      for (const s of v.samples) {
        const key = labelsKey(s.labels);
        const series = bySeries.get(key);
        if (series) series.points.push({ t, v: s.v });
        else bySeries.set(key, { labels: s.labels, points: [{ t, v: s.v }] });
      }
    }
    return [...bySeries.values()];
  }

  private call(e: Call, ts: number): Value {
    const sig = FUNCTIONS.get(e.func);
    const matrixIndex = sig?.args.indexOf('matrix') ?? -1;
    if (matrixIndex >= 0) return this.rangeCall(e, matrixIndex, ts);
    if (e.func === 'timestamp') {
      const arg = unwrapParens(e.args[0] ?? { kind: 'number', value: 0 });
      const v = this.eval(arg, ts);
      const samples = v.type === 'vector' ? v.samples : [];
      const out = samples.map((s) => ({ labels: dropName(s.labels), v: (arg.kind === 'vector' ? (s.t ?? ts) : ts) / 1000 }));
      assertUniqueLabelsets(out);
      return { type: 'vector', samples: out };
    }
    const args = e.args.map((a) => this.eval(a, ts));
    if (e.func === 'absent') {
      const v = args[0];
      const empty = v?.type !== 'vector' || v.samples.length === 0;
      return { type: 'vector', samples: empty ? [{ labels: absentLabels(e.args[0] ?? e), v: 1 }] : [] };
    }
    const f = INSTANT_FUNCTIONS.get(e.func);
    if (!f) throw new PromqlError(`function ${JSON.stringify(e.func)} is not supported`, 'bad_data');
    const out = f(args, ts);
    if (out.type === 'vector') assertUniqueLabelsets(out.samples);
    return out;
  }

  private rangeCall(e: Call, matrixIndex: number, ts: number): Value {
    const arg = unwrapParens(e.args[matrixIndex] ?? { kind: 'number', value: 0 });
    const params: number[] = [];
    e.args.forEach((a, i) => {
      if (i === matrixIndex) return;
      const v = this.eval(a, ts);
      params.push(v.type === 'scalar' ? v.v : Number.NaN);
    });
    let series: Series[];
    let w: RangeWindow;
    if (arg.kind === 'matrix') {
      const vs = arg.selector;
      const endMs = (vs.at ? atMs(vs.at, this.q) : ts) - vs.offsetMs;
      w = { startMs: endMs - arg.rangeMs, endMs, rangeMs: arg.rangeMs, evalMs: ts };
      series = this.range(arg, ts);
    } else if (arg.kind === 'subquery') {
      const endMs = (arg.at ? atMs(arg.at, this.q) : ts) - arg.offsetMs;
      w = { startMs: endMs - arg.rangeMs, endMs, rangeMs: arg.rangeMs, evalMs: ts };
      series = this.subquery(arg, ts);
    } else throw new PromqlError(`expected a range vector in call to ${JSON.stringify(e.func)}`, 'bad_data');
    if (e.func === 'absent_over_time') {
      return { type: 'vector', samples: series.length === 0 ? [{ labels: absentLabels(arg), v: 1 }] : [] };
    }
    const f = RANGE_FUNCTIONS.get(e.func);
    if (!f) throw new PromqlError(`function ${JSON.stringify(e.func)} is not supported`, 'bad_data');
    const out: Sample[] = [];
    for (const s of series) {
      const v = f(s.points, w, params);
      // last_over_time acts like an offset: it keeps the metric name; every other range function drops it.
      if (v !== undefined) out.push({ labels: e.func === 'last_over_time' ? s.labels : dropName(s.labels), v });
    }
    assertUniqueLabelsets(out);
    return { type: 'vector', samples: out };
  }
}

function times(startMs: number, endMs: number, opts: EngineOptions): QueryTimes {
  return {
    startMs, endMs,
    lookbackMs: opts.lookbackDeltaMs ?? DEFAULT_LOOKBACK_MS,
    subqueryStepMs: opts.subqueryStepMs ?? DEFAULT_SUBQUERY_STEP_MS,
  };
}

/** The expression's value at one time (an instant query). */
export async function evalInstant(
  source: SeriesSource, tenantId: string, expr: Expr, timeMs: number, opts: EngineOptions = {},
): Promise<Value> {
  const q = times(timeMs, timeMs, opts);
  return new Evaluator(await prepare(source, tenantId, expr, q), q).eval(expr, timeMs);
}

/**
 * A range query: the expression at start, start + step, … ≤ end, as a matrix sorted by label set (a scalar
 * expression becomes one series without labels). The caller checks the expression type.
 */
export async function evalRange(
  source: SeriesSource, tenantId: string, expr: Expr, startMs: number, endMs: number, stepMs: number,
  opts: EngineOptions = {},
): Promise<Series[]> {
  const q = times(startMs, endMs, opts);
  const ev = new Evaluator(await prepare(source, tenantId, expr, q), q);
  const bySeries = new Map<string, Series>();
  const push = (labels: Labels, t: number, v: number): void => {
    const key = labelsKey(labels);
    const s = bySeries.get(key);
    if (s) s.points.push({ t, v });
    else bySeries.set(key, { labels, points: [{ t, v }] });
  };
  for (let ts = startMs; ts <= endMs; ts += stepMs) {
    const v = ev.eval(expr, ts);
    if (v.type === 'scalar') push({}, ts, v.v);
    else if (v.type === 'vector') {
      assertUniqueLabelsets(v.samples);
      for (const s of v.samples) push(s.labels, ts, s.v);
    } else throw new PromqlError(`invalid expression type "${v.type === 'matrix' ? 'range vector' : 'string'}" for range query, must be Scalar or instant Vector`, 'bad_data');
  }
  return [...bySeries.values()].sort((a, b) => compareLabels(a.labels, b.labels));
}
