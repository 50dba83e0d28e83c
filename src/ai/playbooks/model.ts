// The shapes of an imported playbook (DESIGN §9 `ai/playbooks`, issue 10 item 4). A parser (markdown.ts, yaml.ts)
// turns a runbook into a ParsedPlaybook: steps, each with at most one query (LogsQL or PromQL, validated by the real
// parsers), at most one manual command (shell / kubectl: shown, never executed) and the bound sentences it states.
// The import (import.ts) adds what it created, and the stored step is the PlaybookStep below.
import type { CompareOp } from '../../detectors/algorithms/threshold.js';

export type QuerySignal = 'logs' | 'metrics';

/** A command a person runs by hand (issue 10: "shell and kubectl blocks become manual steps and are never executed"). */
export interface ManualCommand {
  /** The fence's language as written (`bash`, `sh`, `kubectl`, …; `shell` when none). */
  language: string;
  command: string;
}

/**
 * What a stated bound means, mapped onto a detector kind of the catalog (src/detectors/kinds). Times in seconds.
 * `subject` keeps the words the bound is about, for the detector's description.
 */
export type BoundTarget =
  | { kind: 'log_threshold'; query: string }
  | { kind: 'metric_threshold'; expr: string }
  | { kind: 'error_ratio'; errorsQuery: string; totalQuery: string }
  | { kind: 'trace_latency'; quantile: number; service?: string }
  | { kind: 'absence'; query: string };

export interface Bound {
  target: BoundTarget;
  op: CompareOp;
  /** In the kind's unit: a count, a ratio 0..1 (error_ratio), ms (trace_latency), the metric's own unit. */
  threshold: number;
  /** The judged window, when the sentence states one ("in 5 minutes", "per minute"). */
  window_s?: number;
  /** Prometheus `for`, when the sentence states one ("for 5 minutes"). */
  for_s?: number;
}

/** A sentence that states a bound, and what became of it. */
export interface StepAlert {
  sentence: string;
  /** Absent when the sentence could not be mapped onto a detector; `note` says why. */
  bound?: Bound;
  note?: string;
  /** Set by the import when the detector was created. */
  detector_id?: string;
}

export interface ParsedStep {
  title: string;
  text: string;
  /** The heading a numbered item sits under, when it is not the step itself. */
  section?: string;
  query?: string;
  signal?: QuerySignal;
  manual?: ManualCommand;
  alerts: StepAlert[];
  /** Why something in the step was left as text (a code block neither parser takes, …). */
  notes: string[];
}

export interface ParsedPlaybook {
  title: string;
  format: 'markdown' | 'yaml';
  steps: ParsedStep[];
}

/** A step as stored and returned (DESIGN §9: `{title, text, query?, signal?}` and what the import added). */
export interface PlaybookStep extends Omit<ParsedStep, 'alerts' | 'notes'> {
  alerts?: StepAlert[];
  notes?: string[];
  saved_search_id?: string;
}

/** The reply's `playbook` (DESIGN §9). */
export interface PlaybookJson {
  id: string;
  title: string;
  format: 'markdown' | 'yaml';
  steps: PlaybookStep[];
  saved_search_ids: string[];
  detector_ids: string[];
  created_at: string;
}
