// new_log_pattern: message templates mined from `_msg` with Drain (algorithms/drain.ts); a template first seen less
// than `new_for` ago that has occurred at least `min_count` times is active, one alert per template. First-seen
// templates live in the kind's state, durably: Loki keeps patterns in an LRU, so an evicted pattern comes back "new"
// (issue 9 notes); here a template is forgotten only when the state is full, and then the most recently first-seen
// go first, so the long-established baseline is what stays. The first evaluation learns the baseline from the
// history in hourly slices (a sample of each hour rather than only its last minutes); later ones read the window.
import type { DetectorKind, EvaluateInput, EvaluateResult, KindSpec, KindState, LogLine, Observation, Window } from '../model.js';
import { Drain, templateText, type Template } from '../algorithms/drain.js';
import { durationText, Params, type Raw } from './params.js';
import { DAY_MS, eligibility, groupByParam, HOUR_MS, logFilter } from './common.js';

export interface NewLogPatternParams {
  query: string;
  groupBy: string[];
  minCount: number;
  newForMs: number;
  baselineMs: number;
  similarity: number;
  maxTemplates: number;
  maxLines: number;
}

/** One known template: id (stable across wildcard updates), group key, text, first seen (ms), occurrences. */
interface Entry { i: string; g: string; t: string; f: number; n: number }
// A type, not an interface, so that it is a KindState (a JSON object) as it stands.
type PatternState = { v: 1; primed_ms: number; templates: Entry[]; dropped: number };

const spec: KindSpec = {
  kind: 'new_log_pattern',
  signal: 'logs',
  description: 'A log message template (mined with Drain; numbers, hex, UUIDs and IPs masked) never seen in the baseline, once it occurs min_count times.',
  params: [
    { name: 'query', type: 'logsql', required: false, default: '*', description: 'A LogsQL filter (no pipes, no `_time`) of the entries whose messages are mined.' },
    groupByParam('the mining (each value combination learns its own templates)'),
    { name: 'min_count', type: 'integer', required: false, default: 5, min: 1, description: 'Occurrences a new template needs before it is active.' },
    { name: 'new_for', type: 'duration', required: false, default: '1h', min: 60, max: 7 * 86400, description: 'How long after its first occurrence a template counts as new (the alert resolves after that).' },
    { name: 'baseline', type: 'duration', required: false, default: '1d', min: 3600, max: 14 * 86400, description: 'History the first evaluation learns the known templates from.' },
    { name: 'similarity', type: 'number', required: false, default: 0.4, min: 0.1, max: 0.95, description: 'Drain similarity threshold: the share of tokens a message must share with a template to be that template.' },
    { name: 'max_templates', type: 'integer', required: false, default: 2000, min: 100, max: 20000, description: 'Templates kept in the detector\'s state; past it the most recently first-seen are forgotten.' },
    { name: 'max_lines', type: 'integer', required: false, default: 5000, min: 100, max: 100000, description: 'Entries read per evaluation (the newest when there are more).' },
  ],
  min_history_s: DAY_MS / 1000,
  eligibility: eligibility('logs', { history: 'A day of entries matching the query, to learn the known templates from.', hasData: 'The query matches entries in the baseline.' }),
};

function parseParams(raw: Raw): NewLogPatternParams {
  const p = new Params(spec.params, raw);
  return {
    query: logFilter('query', p.str('query')), groupBy: p.fields('group_by'), minCount: p.num('min_count'), newForMs: p.num('new_for'),
    baselineMs: p.num('baseline'), similarity: p.num('similarity'), maxTemplates: p.num('max_templates'), maxLines: p.num('max_lines'),
  };
}

function isEntry(x: unknown): x is Entry {
  if (typeof x !== 'object' || x === null) return false;
  const e = x as Record<string, unknown>;
  return typeof e.i === 'string' && typeof e.g === 'string' && typeof e.t === 'string' && typeof e.f === 'number' && typeof e.n === 'number';
}

/** The stored state, or null when there is none yet (or it is of another version: learn afresh). */
function readState(s: KindState): PatternState | null {
  if (s.v !== 1 || typeof s.primed_ms !== 'number' || !Array.isArray(s.templates)) return null;
  return { v: 1, primed_ms: s.primed_ms, templates: s.templates.filter(isEntry).map((e) => ({ ...e })), dropped: typeof s.dropped === 'number' ? s.dropped : 0 };
}

/** FNV-1a, 32 bits, hex: a short stable id for a template's alert labels. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

class Miner {
  private readonly drains = new Map<string, { drain: Drain; entries: Map<Template, Entry> }>();
  readonly entries: Entry[] = [];
  readonly seenInWindow = new Map<Entry, number>();

  constructor(private readonly similarity: number, known: Entry[]) {
    for (const e of known) {
      const d = this.drainFor(e.g);
      const tpl = d.drain.seed(e.t);
      const prev = d.entries.get(tpl);
      // Two stored templates that now read as one (a wildcard learnt since): keep the older, add the counts.
      if (prev) {
        prev.f = Math.min(prev.f, e.f);
        prev.n += e.n;
        continue;
      }
      d.entries.set(tpl, e);
      this.entries.push(e);
    }
  }

  private drainFor(g: string): { drain: Drain; entries: Map<Template, Entry> } {
    let d = this.drains.get(g);
    if (!d) this.drains.set(g, (d = { drain: new Drain({ similarity: this.similarity }), entries: new Map() }));
    return d;
  }

  learn(line: LogLine, groupBy: readonly string[], inWindow: boolean): void {
    const g = JSON.stringify(groupBy.map((f) => line.fields[f] ?? ''));
    const d = this.drainFor(g);
    const { template } = d.drain.add(line.msg);
    let e = d.entries.get(template);
    if (!e) {
      e = { i: fnv1a(`${g}\u0000${templateText(template)}`), g, t: templateText(template), f: line.timeMs, n: 0 };
      d.entries.set(template, e);
      this.entries.push(e);
    }
    e.n++;
    e.t = templateText(template);
    if (inWindow) this.seenInWindow.set(e, (this.seenInWindow.get(e) ?? 0) + 1);
  }
}

const oldestFirst = (lines: LogLine[]): LogLine[] => [...lines].sort((a, b) => a.timeMs - b.timeMs);

/** The history in hourly slices (at most 24), each read with its own limit, oldest first. */
function slices(history: Window): Window[] {
  const length = history.endMs - history.startMs;
  const n = Math.min(24, Math.max(1, Math.ceil(length / HOUR_MS)));
  return Array.from({ length: n }, (_, i) => ({
    startMs: history.startMs + Math.floor((i * length) / n), endMs: history.startMs + Math.floor(((i + 1) * length) / n),
  }));
}

async function evaluate({ params, window, history, data, state }: EvaluateInput<NewLogPatternParams>): Promise<EvaluateResult> {
  const stored = readState(state);
  const miner = new Miner(params.similarity, stored?.templates ?? []);
  if (!stored) {
    const perSlice = Math.max(100, Math.ceil(params.maxLines / 4));
    for (const slice of slices(history)) {
      for (const line of oldestFirst(await data.logLines(params.query, slice, perSlice, params.groupBy))) miner.learn(line, params.groupBy, false);
    }
  }
  const primed = stored?.primed_ms ?? window.startMs;
  for (const line of oldestFirst(await data.logLines(params.query, window, params.maxLines, params.groupBy))) miner.learn(line, params.groupBy, true);

  const newSince = Math.max(primed, window.endMs - params.newForMs);
  const observations = miner.entries.filter((e) => e.f >= newSince).map((e): Observation => {
    const groupValues = JSON.parse(e.g) as string[];
    const labels: Record<string, string> = Object.fromEntries(params.groupBy.map((f, k) => [f, groupValues[k] ?? '']));
    labels.pattern_id = e.i;
    const inWindow = miner.seenInWindow.get(e) ?? 0;
    return {
      labels, value: e.n, active: e.n >= params.minCount,
      summary: `new log pattern "${e.t}": ${e.n} times since ${new Date(e.f).toISOString()} (${inWindow} in the last ${durationText(window.endMs - window.startMs)})`,
    };
  });

  // Keep the oldest-seen templates when the state is full: the established baseline must never come back as new.
  const kept = [...miner.entries].sort((a, b) => a.f - b.f || (a.i < b.i ? -1 : 1));
  const dropped = Math.max(0, kept.length - params.maxTemplates);
  const next: PatternState = { v: 1, primed_ms: primed, templates: kept.slice(0, params.maxTemplates), dropped: (stored?.dropped ?? 0) + dropped };
  return { observations, state: next };
}

export const newLogPattern: DetectorKind<NewLogPatternParams> = {
  spec,
  parseParams,
  queries: (p) => ({ logsql: [p.query], promql: [] }),
  historyMs: (p) => p.baselineMs,
  requirements: (p) => ({ signal: 'logs', min_history_s: p.baselineMs / 1000 }),
  evaluate,
};
