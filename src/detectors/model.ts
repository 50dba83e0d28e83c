// Detectors (DESIGN §8): the one interface every kind implements, and what a kind may read. A kind is a file in
// kinds/ that states its signal, parameters, minimum history and eligibility as data (the catalog is these specs
// and is the same on every tier, spec "Plans"), parses its parameters, and evaluates a window against its
// history into observations. The engine (engine/) turns observations into alerts; a kind knows nothing of
// alerts, tenants' plans, notifications or storage. The algorithms a kind uses live in algorithms/, as pure
// functions over numbers and strings, so each can be tested on generated data with a known answer.

/** The signal a kind reads; `metrics` needs the account's metrics feature (spec "Plan gates"). */
export type DetectorSignal = 'logs' | 'metrics' | 'traces' | 'rum';

/** Half-open `[startMs, endMs)` (issue 9 notes: half-open windows, with an evaluation delay for ingest lag). */
export interface Window {
  startMs: number;
  endMs: number;
}

export type ParamType = 'string' | 'number' | 'integer' | 'boolean' | 'duration' | 'logsql' | 'promql' | 'string[]';

/** One parameter of a kind, as the catalog states it (`GET /api/v1/detectors/catalog`). */
export interface ParamSpec {
  name: string;
  type: ParamType;
  description: string;
  required: boolean;
  /** The value used when the parameter is absent (only for optional ones). */
  default?: string | number | boolean | string[];
  /** Allowed values, when the parameter is an enumeration (`op`: `>`, `<`, …). */
  enum?: readonly string[];
  /** Bounds of a number; of a duration, in seconds; of a list, `max` is its length. */
  min?: number;
  max?: number;
}

/** A condition a detector must meet before it may be created (DESIGN §8: 422 naming the one that fails). */
export interface EligibilityRule {
  /** Stable id: `signal_enabled`, `min_history`, `query_valid`, `has_data`, … */
  id: string;
  description: string;
}

export interface KindSpec {
  kind: string;
  signal: DetectorSignal;
  description: string;
  params: readonly ParamSpec[];
  /** History the kind needs before its first evaluation means anything (0 for plain thresholds). */
  min_history_s: number;
  eligibility: readonly EligibilityRule[];
}

/** One series of a range read: its labels and `[unix ms, value]` points, ascending. */
export interface Series {
  labels: Record<string, string>;
  points: [number, number][];
}

/** One labelled value of an instant read. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** A log line for pattern mining: its time, `_msg`, and the fields asked for. */
export interface LogLine {
  timeMs: number;
  msg: string;
  fields: Record<string, string>;
}

/** Span durations of one (service, span name) over a window. */
export interface SpanDurations {
  service: string;
  name: string;
  /** Durations in ms; a sample when there are many (at most the `limit` asked for). */
  durationsMs: number[];
  /** How many spans there were in all (≥ durationsMs.length). */
  count: number;
  errorCount: number;
}

/**
 * What a kind may read of the tenant's data (the engine binds it to one tenant). Every call is one query that
 * counts against the tenant's query rate (spec: alert evaluation is a read bounded by the query rate); the engine
 * records each query's text as evidence.
 */
export interface DetectorData {
  /** A LogsQL query ending in a `stats` pipe over the window: one row per group. */
  logStats(query: string, window: Window): Promise<Record<string, unknown>[]>;
  /** Matching-entry counts per `stepMs` bucket, split by the `by` fields. */
  logCounts(query: string, window: Window, stepMs: number, by: readonly string[]): Promise<Series[]>;
  /** Up to `limit` matching entries, newest first, with the fields asked for. */
  logLines(query: string, window: Window, limit: number, fields: readonly string[]): Promise<LogLine[]>;
  /** PromQL at one instant. */
  promInstant(expr: string, atMs: number): Promise<Sample[]>;
  /** PromQL over a window at `stepMs`. */
  promRange(expr: string, window: Window, stepMs: number): Promise<Series[]>;
  /** Span durations per (service, name), optionally filtered. */
  spanDurations(window: Window, filter: { service?: string; name?: string }, limit: number): Promise<SpanDurations[]>;
  /** The time of the oldest stored data of the signal (matching `query` when given); null when there is none. */
  oldestDataMs(signal: DetectorSignal, query?: string): Promise<number | null>;
}

/** What one evaluation says about one group (one label set). */
export interface Observation {
  /** The group-by values (empty for an ungrouped detector). */
  labels: Record<string, string>;
  /** The value compared (count, ratio, burn rate, score, …); null when there was no data. */
  value: number | null;
  /** The alert condition holds for this group now. */
  active: boolean;
  /** No data for this group in the window (Grafana's NoData). */
  nodata?: boolean;
  /** A line for the alert's summary when the detector has no template (`p99 of checkout/GET 1.9 s vs 0.4 s`). */
  summary?: string;
}

/** Durable per-detector memory of a kind (first-seen templates, baselines); JSON, kept in the control store. */
export type KindState = Record<string, unknown>;

export interface EvaluateInput<P> {
  params: P;
  /** The window being judged. */
  window: Window;
  /** The history before it that baselines read (ends where `window` starts). */
  history: Window;
  data: DetectorData;
  /** What the last evaluation returned as `state`; `{}` the first time. */
  state: KindState;
}

export interface EvaluateResult {
  observations: Observation[];
  /** Kept and handed back next time (omit to keep the previous state as it was). */
  state?: KindState;
}

/** Thrown by parseParams: the 422 detail names the parameter and what is wrong. */
export class ParamError extends Error {
  constructor(readonly param: string, message: string) {
    super(`${param}: ${message}`);
    this.name = 'ParamError';
  }
}

export interface DetectorKind<P = unknown> {
  readonly spec: KindSpec;
  /** Validates and normalizes raw JSON parameters (defaults filled); throws ParamError. */
  parseParams(raw: Record<string, unknown>): P;
  /** The LogsQL/PromQL texts the detector will run, for the `query_valid` check and for evidence. */
  queries(params: P): { logsql: string[]; promql: string[] };
  /** How much history before the window `evaluate` reads (often the spec's min_history_s, or a multiple of the window). */
  historyMs(params: P, windowMs: number): number;
  /**
   * What this configuration needs, when it differs from the spec's `signal` and `min_history_s` (which state the
   * needs of the default parameters): `absence` and `error_ratio` read metrics when given PromQL (the metrics gate
   * applies), `trace_latency` against a fixed bound needs no history. Absent: the spec's values.
   */
  requirements?(params: P): { signal: DetectorSignal; min_history_s: number };
  evaluate(input: EvaluateInput<P>): Promise<EvaluateResult>;
}
