// What several kinds share: the parameters that recur (op, threshold, group_by, …) as ParamSpecs, the eligibility
// rules as data, LogsQL text building (field quoting, `stats by`), label keys, and numbers for summaries.
import { ParamError, type DetectorSignal, type EligibilityRule, type ParamSpec, type Window } from '../model.js';
import type { Filter } from '../../model/logsql-ast.js';
import { COMPARE_OPS } from '../algorithms/threshold.js';
import { parseLogsqlParam } from './params.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

const SIGNAL_WORDS: Record<DetectorSignal, string> = {
  logs: 'logs', metrics: 'metrics (the plan\'s metrics feature)', traces: 'traces', rum: 'RUM (browser telemetry)',
};

/** The eligibility rules a kind states in the catalog (DESIGN §8: 422 names the one that fails). */
export function eligibility(signal: DetectorSignal, opts: { history?: string; hasData?: string; alsoMetrics?: boolean }): EligibilityRule[] {
  const signals = opts.alsoMetrics === true ? `${SIGNAL_WORDS[signal]}, or metrics when the detector uses PromQL` : SIGNAL_WORDS[signal];
  const out: EligibilityRule[] = [
    { id: 'signal_enabled', description: `The account can use ${signals}.` },
    { id: 'query_valid', description: 'Every query the detector runs parses (LogsQL with the LogsQL parser, PromQL with the PromQL parser).' },
  ];
  if (opts.history !== undefined) out.push({ id: 'min_history', description: opts.history });
  if (opts.hasData !== undefined) out.push({ id: 'has_data', description: opts.hasData });
  return out;
}

export const opParam = (dflt = '>'): ParamSpec => ({
  name: 'op', type: 'string', required: false, default: dflt, enum: COMPARE_OPS,
  description: 'How the value compares with the threshold to be active (PromQL comparison operators).',
});

export const recoveryParam: ParamSpec = {
  name: 'recovery_threshold', type: 'number', required: false,
  description: 'Once active, stay active until the value is past this bound (hysteresis for values that hover at the threshold); on the quiet side of the threshold.',
};

export const groupByParam = (what: string, dflt: string[] = []): ParamSpec => ({
  name: 'group_by', type: 'string[]', required: false, default: dflt, max: 10,
  description: `Fields that split ${what} into one alert per value combination (their values become alert labels).`,
});

/** A field name as LogsQL text: bare when it is a plain word, else quoted. */
export function quoteField(name: string): string {
  return /^[A-Za-z_][\w.-]*$/.test(name) ? name : JSON.stringify(name);
}

/** `stats by (a, b) count() as count`, or without `by` when there are no fields. */
export function statsPipe(by: readonly string[], func: string): string {
  return by.length === 0 ? `stats ${func}` : `stats by (${by.map(quoteField).join(', ')}) ${func}`;
}

/** The filter holds a `_time:…` filter somewhere. */
export function hasTimeFilter(f: Filter): boolean {
  if (f.kind === 'time') return true;
  if (f.kind === 'and' || f.kind === 'or') return f.filters.some(hasTimeFilter);
  if (f.kind === 'not') return hasTimeFilter(f.filter);
  return false;
}

/**
 * A LogsQL filter parameter: parses, has no pipes (the kind adds its own) and no `_time` filter (the window is the
 * detector's: the engine passes it separately, with the evaluation delay applied).
 */
export function logFilter(name: string, text: string): string {
  const q = parseLogsqlParam(name, text);
  if (q.pipes.length > 0) throw new ParamError(name, 'must be a filter without pipes (this kind adds its own `| stats`)');
  if (hasTimeFilter(q.filter)) throw new ParamError(name, 'must not filter on _time: the detector\'s window sets the time range');
  return text.trim() === '' ? '*' : text.trim();
}

/** Two filters ANDed, each in parentheses so an `OR` in either keeps its meaning. */
export function andFilters(a: string, b: string): string {
  if (b === '*' || b === '') return a;
  return `${a} (${b})`;
}

/** A stable key for a label set (sorted names). */
export function labelsKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));
}

/** Labels without `__name__` (Prometheus drops it from alert labels: rules/alerting.go). */
export function alertLabels(labels: Record<string, string>): Record<string, string> {
  const { __name__: _name, ...rest } = labels;
  return rest;
}

/** The fields' values of a row or entry as labels (missing → ''). */
export function pickLabels(source: Record<string, unknown>, fields: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = source[f];
    out[f] = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

/** A stats cell as a number: VictoriaLogs prints numbers as text, `NaN` or '' when there were none. */
export function cellNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string' || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** A number for a summary: up to 3 significant digits, no exponent for everyday sizes. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (n !== 0 && Math.abs(n) < 0.001) return n.toExponential(2);
  return Number(n.toPrecision(3)).toString();
}

export const windowMs = (w: Window): number => w.endMs - w.startMs;
export const alignDown = (t: number, step: number): number => Math.floor(t / step) * step;
export const alignUp = (t: number, step: number): number => Math.ceil(t / step) * step;
