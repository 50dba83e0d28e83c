// A YAML runbook → a ParsedPlaybook (issue 10 item 4; DESIGN §9 `format: "yaml"`). The schema (fixtures/*.yaml):
//
//   title: Checkout is failing            # required
//   steps:                                # required, at least one
//     - title: Look at the errors         # required
//       text: What to look for.           # optional prose; bound sentences in it are read as in Markdown
//       query: service:checkout level:error   # optional LogsQL or PromQL, checked by the real parser
//       signal: logs                      # optional: logs | metrics (else guessed from the query)
//       command: kubectl -n shop get pods # optional manual command: shown, never executed
//       alert:                            # optional; one mapping, a list of them, or a sentence ("alert if …")
//         above: 100                      # or `below:` — exactly one; "5%" and "500ms" are taken as written
//         for: 5m                         # optional Prometheus `for`
//         window: 5m                      # optional judged window
//         kind: log_threshold             # optional; log_threshold | metric_threshold | error_ratio |
//                                         #   trace_latency | absence (default: by the query's signal)
//         query: …                        # optional; this alert's own query instead of the step's
//         service: checkout               # trace_latency, error_ratio (without a query)
//         quantile: 0.99                  # trace_latency (default 0.99)
//
// Anything malformed is an AiUnprocessable naming the field; an alert that cannot be mapped is kept with a note.
import { parseDocument } from 'yaml';
import type { CompareOp } from '../../detectors/algorithms/threshold.js';
import { parseDurationMs } from '../../query/promql/literals.js';
import { AiUnprocessable } from '../model.js';
import { extractBound, extractBounds } from './bounds.js';
import { guessQuery, logsqlProblem, promqlProblem } from './queries.js';
import type { Bound, BoundTarget, ParsedPlaybook, ParsedStep, QuerySignal, StepAlert } from './model.js';

const KINDS = ['log_threshold', 'metric_threshold', 'error_ratio', 'trace_latency', 'absence'] as const;
const MAX_STEPS = 200;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function str(o: Obj, key: string, where: string, required: boolean): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) throw new AiUnprocessable(`${where}.${key} is required`);
    return undefined;
  }
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new AiUnprocessable(`${where}.${key} must be text`);
  const s = String(v).trim();
  if (s === '' && required) throw new AiUnprocessable(`${where}.${key} is required`);
  return s === '' ? undefined : s;
}

/** "5m" / 300 → seconds. */
function seconds(o: Obj, key: string, where: string): number | undefined {
  const v = str(o, key, where, false);
  if (v === undefined) return undefined;
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : parseDurationMs(v);
  if (ms === undefined) throw new AiUnprocessable(`${where}.${key} must be seconds or a duration such as "5m"`);
  return Math.round(ms / 1000);
}

/** A step's query and its signal: as stated (checked by that parser), else guessed, else either parser that takes it. */
function queryOf(o: Obj, where: string, nowMs: number): { query: string; signal: QuerySignal } | undefined {
  const query = str(o, 'query', where, false);
  if (query === undefined) return undefined;
  const signal = str(o, 'signal', where, false);
  if (signal !== undefined && signal !== 'logs' && signal !== 'metrics') throw new AiUnprocessable(`${where}.signal must be logs or metrics`);
  if (signal === 'metrics') {
    const p = promqlProblem(query);
    if (p !== null) throw new AiUnprocessable(`${where}.query is not valid PromQL: ${p}`);
    return { query, signal };
  }
  if (signal === 'logs') {
    const p = logsqlProblem(query, nowMs);
    if (p !== null) throw new AiUnprocessable(`${where}.query is not valid LogsQL: ${p}`);
    return { query, signal };
  }
  const guessed = guessQuery(query, nowMs);
  if (guessed) return guessed;
  if (logsqlProblem(query, nowMs) === null) return { query, signal: 'logs' };
  throw new AiUnprocessable(`${where}.query is neither LogsQL nor PromQL that parses (say which with signal: logs | metrics)`);
}

/** `500ms`, `2s`, `5%`, `100` → a number in the kind's unit (ms for latency, a ratio for error_ratio). */
function thresholdOf(raw: string, kind: BoundTarget['kind'], where: string): number {
  const m = /^(-?\d+(?:\.\d+)?)\s*(%|ms|s|m)?$/.exec(raw);
  if (m?.[1] === undefined) throw new AiUnprocessable(`${where} must be a number (also "5%" or "500ms")`);
  const n = Number(m[1]);
  const unit = m[2];
  if (kind === 'trace_latency') return unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
  if (kind === 'error_ratio') return unit === '%' || n > 1 ? n / 100 : n;
  return n;
}

function structuredAlert(a: Obj, where: string, step: ParsedStep, nowMs: number): StepAlert {
  const above = str(a, 'above', where, false);
  const below = str(a, 'below', where, false);
  if ((above === undefined) === (below === undefined)) throw new AiUnprocessable(`${where} needs exactly one of above or below`);
  const op: CompareOp = above !== undefined ? '>' : '<';
  const own = queryOf(a, where, nowMs);
  const query = own?.query ?? step.query;
  const signal = own?.signal ?? step.signal;
  const kindText = str(a, 'kind', where, false) ?? (signal === 'metrics' ? 'metric_threshold' : 'log_threshold');
  const kind = KINDS.find((k) => k === kindText);
  if (!kind) throw new AiUnprocessable(`${where}.kind must be one of ${KINDS.join(', ')}`);
  const service = str(a, 'service', where, false);
  const sentence = `${kind}: ${query ?? service ?? ''} ${op} ${above ?? below ?? ''}`.replace(/\s+/g, ' ').trim();
  const note = (text: string): StepAlert => ({ sentence, note: text });
  let target: BoundTarget;
  if (kind === 'trace_latency') {
    const quantile = Number(str(a, 'quantile', where, false) ?? '0.99');
    if (!(quantile >= 0.5 && quantile <= 1)) throw new AiUnprocessable(`${where}.quantile must be from 0.5 to 1`);
    target = { kind, quantile, ...(service === undefined ? {} : { service }) };
  } else if (kind === 'error_ratio') {
    const base = service !== undefined ? `service:${JSON.stringify(service)}` : signal === 'logs' ? query : undefined;
    if (base === undefined) return note('error_ratio needs a service or a LogsQL query of the requests');
    target = { kind, errorsQuery: `(${base}) level:error`, totalQuery: base };
  } else if (kind === 'metric_threshold') {
    if (query === undefined || signal !== 'metrics') return note('metric_threshold needs a PromQL query');
    target = { kind, expr: query };
  } else {
    if (query === undefined || signal !== 'logs') return note(`${kind} needs a LogsQL query`);
    target = kind === 'absence' ? { kind, query } : { kind, query };
  }
  const window_s = seconds(a, 'window', where);
  const for_s = seconds(a, 'for', where);
  const bound: Bound = {
    target, op, threshold: thresholdOf(above ?? below ?? '', kind, `${where}.${above !== undefined ? 'above' : 'below'}`),
    ...(window_s === undefined ? {} : { window_s }), ...(for_s === undefined ? {} : { for_s }),
  };
  return { sentence, bound };
}

function alertsOf(raw: unknown, where: string, step: ParsedStep, nowMs: number): StepAlert[] {
  if (raw === undefined || raw === null) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((a, i) => {
    const at = Array.isArray(raw) ? `${where}[${i}]` : where;
    const ctx = { ...(step.query === undefined ? {} : { query: step.query }), ...(step.signal === undefined ? {} : { signal: step.signal }), nowMs };
    if (typeof a === 'string') {
      // A sentence: as in Markdown; one that states no bound is kept with a note rather than dropped.
      return extractBound(/\b(alert|page|notify)\b/i.test(a) ? a : `Alert if ${a}`, ctx) ?? { sentence: a, note: 'states no bound ("above N" / "below N")' };
    }
    if (!isObj(a)) throw new AiUnprocessable(`${at} must be a mapping or a sentence`);
    return structuredAlert(a, at, step, nowMs);
  });
}

function stepOf(raw: unknown, i: number, nowMs: number): ParsedStep {
  const where = `steps[${i}]`;
  if (typeof raw === 'string' && raw.trim() !== '') raw = { title: raw };
  if (!isObj(raw)) throw new AiUnprocessable(`${where} must be a mapping with a title`);
  const title = str(raw, 'title', where, true) ?? '';
  const text = str(raw, 'text', where, false) ?? '';
  const step: ParsedStep = { title, text, alerts: [], notes: [] };
  const q = queryOf(raw, where, nowMs);
  if (q) Object.assign(step, q);
  const command = str(raw, 'command', where, false);
  if (command !== undefined) {
    step.manual = { language: 'shell', command };
    // In the text too, for a client that reads only DESIGN §9's {title, text, query?, signal?}.
    step.text = `${text}${text === '' ? '' : '\n\n'}${command}`;
  }
  const ctx = { ...(step.query === undefined ? {} : { query: step.query }), ...(step.signal === undefined ? {} : { signal: step.signal }), nowMs };
  step.alerts = [...extractBounds(text, ctx), ...alertsOf(raw.alert ?? raw.alerts, `${where}.alert`, step, nowMs)];
  return step;
}

export function parseYaml(content: string, nowMs: number): ParsedPlaybook {
  const doc = parseDocument(content, { prettyErrors: true });
  const [err] = doc.errors;
  if (err) throw new AiUnprocessable(`the YAML does not parse: ${err.message.split('\n')[0] ?? err.message}`);
  const root: unknown = doc.toJS();
  if (!isObj(root)) throw new AiUnprocessable('a YAML playbook is a mapping with title and steps');
  const title = str(root, 'title', 'playbook', false) ?? 'Untitled playbook';
  const steps = root.steps;
  if (!Array.isArray(steps) || steps.length === 0) throw new AiUnprocessable('a YAML playbook needs steps: a list of {title, text?, query?, alert?}');
  if (steps.length > MAX_STEPS) throw new AiUnprocessable(`a playbook may have at most ${MAX_STEPS} steps`);
  return { title, format: 'yaml', steps: steps.map((s, i) => stepOf(s, i, nowMs)) };
}
