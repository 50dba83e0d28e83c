// `ai/query` (DESIGN §9, issue 10 item 2): a question in English → LogsQL, PromQL or a trace search, with its range
// and an explanation of how each part was read. Grounded in the tenant's own schema (schema.ts); every word must be
// placed, and a question with words it cannot place is refused naming them (NlUnplaceable → 422). The optional
// model is asked only then, and its answer is kept only if it parses (and, for logs, runs).
import type { AiReadContext } from '../model.js';
import { msToRfc3339 } from '../evidence.js';
import { compileLogsqlAt } from '../../query/logsql-request.js';
import { parsePromql } from '../../query/promql/parse.js';
import { msToNs } from '../../model/time.js';
import { askModel } from './llm-fallback.js';
import { readLogs } from './logs-reader.js';
import { renderLogsql } from './logsql-render.js';
import { readMetrics, soundsLikeMetrics } from './metrics-reader.js';
import { renderPromql } from './promql-render.js';
import { LogSchema, MetricSchema, SpanSchema, type Window } from './schema.js';
import { readTime, type TimeRead } from './time-expr.js';
import { Ledger, tokenize, type Token } from './tokenizer.js';
import { parseTraceSearch, readTraces, renderTraceSearch } from './traces-reader.js';
import { TRACE_WORDS } from './vocabulary.js';

export interface NlAnswer {
  signal: 'logs' | 'metrics' | 'traces';
  query: string;
  /** RFC 3339. */
  start: string;
  end: string;
  explanation: string;
}

/** The question has words the translator cannot place: a 422 that names them (issue 10 item 2). */
export class NlUnplaceable extends Error {
  constructor(readonly words: string[]) {
    super(words.length === 0 ? 'the question is empty' : `could not place: ${words.map((w) => `'${w}'`).join(', ')}`);
    this.name = 'NlUnplaceable';
  }
}

type Signal = NlAnswer['signal'];

const HOUR = 3_600_000;
/** No time in the question and none in the request: the last hour, as Explore opens. */
const DEFAULT_RANGE_MS = HOUR;
/** Schema linking reads the week before the range's end (or before now, whichever is later). */
const SCHEMA_WINDOW_MS = 7 * 24 * HOUR;

/** The tenant's schemas, each read once and only when a reading needs it. */
class Schemas {
  private logs?: Promise<LogSchema>;
  private metrics?: Promise<MetricSchema>;
  private spans?: Promise<SpanSchema>;

  constructor(private readonly ctx: AiReadContext, private readonly window: Window) {}

  logSchema(): Promise<LogSchema> {
    return (this.logs ??= new LogSchema(this.ctx, this.window).load());
  }

  metricSchema(): Promise<MetricSchema> {
    return (this.metrics ??= new MetricSchema(this.ctx, this.window).load());
  }

  spanSchema(): Promise<SpanSchema> {
    return (this.spans ??= new SpanSchema(this.ctx, this.window).load());
  }

  async loaded(): Promise<{ logs?: LogSchema; metrics?: MetricSchema }> {
    return { ...(this.logs ? { logs: await this.logs } : {}), ...(this.metrics ? { metrics: await this.metrics } : {}) };
  }
}

interface Attempt {
  signal: Signal;
  query?: string;
  unplaced: string[];
  notes: string[];
}

export async function answerQuestion(
  input: { question: string; startMs?: number; endMs?: number }, ctx: AiReadContext,
): Promise<NlAnswer> {
  const tokens = tokenize(input.question);
  if (tokens.length === 0) throw new NlUnplaceable([]);
  const time = readTime(new Ledger(tokens), ctx.nowMs);
  const range = time ?? defaultRange(input, ctx.nowMs);
  const window = { startMs: Math.min(range.startMs, ctx.nowMs - SCHEMA_WINDOW_MS), endMs: Math.max(range.endMs, ctx.nowMs) };
  const schemas = new Schemas(ctx, window);

  const primary = await primarySignal(tokens, schemas);
  const order: Signal[] = [primary, ...(['logs', 'metrics', 'traces'] as const).filter((s) => s !== primary)];
  let first: Attempt | undefined;
  for (const signal of order) {
    const a = await attempt(signal, tokens, time, range, ctx, schemas);
    if (a.query !== undefined && a.unplaced.length === 0) {
      validate(a.signal, a.query, ctx.nowMs);
      const rangeNote = time ? [] : [input.startMs !== undefined || input.endMs !== undefined ? 'no time in the question → the requested range' : 'no time in the question → the last hour'];
      return answer(a.signal, a.query, range, [...a.notes, ...rangeNote]);
    }
    // The refusal names the words of the reading that placed the most (the first signal tried on a tie).
    if (!first || a.unplaced.length < first.unplaced.length) first = a;
  }
  if (ctx.llm) {
    const viaModel = await modelAnswer(input.question, range, ctx, schemas);
    if (viaModel) return viaModel;
  }
  throw new NlUnplaceable(first?.unplaced ?? []);
}

function defaultRange(input: { startMs?: number; endMs?: number }, nowMs: number): { startMs: number; endMs: number } {
  const endMs = input.endMs ?? nowMs;
  return { startMs: input.startMs ?? endMs - DEFAULT_RANGE_MS, endMs };
}

/** Traces when it says traces or spans; metrics when it names a metric, a percentile or a rate; else logs. */
async function primarySignal(tokens: readonly Token[], schemas: Schemas): Promise<Signal> {
  if (tokens.some((t) => t.kind === 'word' && TRACE_WORDS.has(t.lower))) return 'traces';
  const metrics = await schemas.metricSchema();
  return soundsLikeMetrics(new Ledger(tokens), metrics.names) ? 'metrics' : 'logs';
}

/** One reading of the question as `signal`, on a fresh ledger. */
async function attempt(
  signal: Signal, tokens: readonly Token[], time: TimeRead | undefined, range: { startMs: number; endMs: number },
  ctx: AiReadContext, schemas: Schemas,
): Promise<Attempt> {
  const l = new Ledger(tokens);
  readTime(l, ctx.nowMs);
  let query: string | undefined;
  if (signal === 'logs') {
    const intent = await readLogs(l, await schemas.logSchema());
    query = renderLogsql(time?.logsql, intent);
  } else if (signal === 'metrics') {
    const intent = await readMetrics(l, await schemas.metricSchema(), range.endMs - range.startMs);
    query = intent && renderPromql(intent);
  } else {
    const search = readTraces(l, await schemas.spanSchema());
    query = renderTraceSearch(search);
  }
  return { signal, query, unplaced: l.unplaced(), notes: l.notes };
}

/** A query the grammar wrote that does not parse is a bug in the grammar: fail loudly rather than answer it. */
function validate(signal: Signal, query: string, nowMs: number): void {
  if (signal === 'logs') compileLogsqlAt(query, msToNs(nowMs));
  else if (signal === 'metrics') parsePromql(query);
  else parseTraceSearch(query);
}

function answer(signal: Signal, query: string, range: { startMs: number; endMs: number }, notes: string[]): NlAnswer {
  const what = signal === 'logs' ? 'LogsQL over logs' : signal === 'metrics' ? 'PromQL over metrics' : 'a trace search';
  return {
    signal, query, start: msToRfc3339(range.startMs), end: msToRfc3339(range.endMs),
    explanation: `Read as ${what}: ${notes.join('; ')}.`,
  };
}

/** The model's answer, kept only when its query parses and, for logs, runs on a few entries. */
async function modelAnswer(question: string, range: { startMs: number; endMs: number }, ctx: AiReadContext, schemas: Schemas): Promise<NlAnswer | undefined> {
  const { llm } = ctx;
  if (!llm) return undefined;
  const loaded = await schemas.loaded();
  const a = await askModel(llm, question, loaded.logs ?? await schemas.logSchema(), loaded.metrics);
  if (!a) return undefined;
  try {
    validate(a.signal, a.query, ctx.nowMs);
    if (a.signal === 'logs') {
      const q = compileLogsqlAt(a.query, msToNs(ctx.nowMs));
      await ctx.telemetry.searchLogs(ctx.tenantId, q, { startNs: msToNs(range.startMs), endNs: msToNs(range.endMs) }, 5);
      ctx.evidence.add('logs', a.query, range.startMs, range.endMs, 'the model\'s query, run on a few entries to check it');
    }
  } catch {
    return undefined;
  }
  return answer(a.signal, a.query, range, [`the grammar could not place every word, so the model wrote it (checked to parse${a.signal === 'logs' ? ' and run' : ''})`, a.explanation.replace(/\.$/, '')].filter((s) => s !== ''));
}
