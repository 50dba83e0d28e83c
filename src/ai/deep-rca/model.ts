// The shapes of a deep root-cause analysis reply (DESIGN §9 `ai/deep-rca`, issue 10 item 3): ranked suspect services
// with the evidence behind each, a timeline across the three signals, and the log RCA hypotheses of the top suspects.
import type { EvidenceSignal } from '../evidence.js';
import type { Hypothesis } from '../model.js';

/** One finding behind a suspect, with the query (LogsQL, PromQL, or a trace search / trace id) that shows it. */
export interface DeepEvidence {
  /** `error_origin`, `error_propagation`, `critical_path`, `metric_change`, `error_jump`, `log_errors`. */
  kind: string;
  text: string;
  query?: string;
  signal: EvidenceSignal;
}

export interface Suspect {
  service: string;
  /** 0..1; at or above CONFIDENT_SCORE (ranking.ts) the analysis names the service as a likely cause. */
  score: number;
  evidence: DeepEvidence[];
}

export interface TimelineEvent {
  /** RFC 3339. */
  time: string;
  signal: EvidenceSignal;
  service?: string;
  text: string;
}

export interface DeepRcaRequest {
  startMs: number;
  endMs: number;
  /** Narrows the analysis to this service and the services it calls. */
  service?: string;
}

export interface DeepRcaResult {
  summary: string;
  /** Best first. */
  suspects: Suspect[];
  /** Ascending by time. */
  timeline: TimelineEvent[];
  /** Log RCA hypotheses of the top suspects' error logs, best first per suspect. */
  hypotheses: Hypothesis[];
}

/** The two windows every part compares: the incident and the same length just before it (DESIGN §9). */
export interface Windows {
  startMs: number;
  endMs: number;
  baselineStartMs: number;
  baselineEndMs: number;
}

export function windowsOf(req: DeepRcaRequest): Windows {
  const len = req.endMs - req.startMs;
  return { startMs: req.startMs, endMs: req.endMs, baselineStartMs: req.startMs - len, baselineEndMs: req.startMs };
}
