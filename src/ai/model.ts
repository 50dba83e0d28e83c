// The AI features' shared shapes (DESIGN §9). Each feature lives in its own folder (rca/, nl-query/, deep-rca/,
// playbooks/) and is a plain async function over the tenant's data; ai-api.ts gates, charges and renders them.
import type { TelemetryStore } from '../stores/telemetry/telemetry-store.js';
import type { Evidence } from './evidence.js';
import type { LlmClient } from './llm/llm-client.js';

/** What every analysis reads through: the tenant's telemetry, service time, and where its queries are recorded. */
export interface AiReadContext {
  telemetry: TelemetryStore;
  tenantId: string;
  /** Service time, unix ms. */
  nowMs: number;
  evidence: Evidence;
  /** Present only when SIGHTLINE_LLM_URL is set; an analysis must give the same grounded result without it. */
  llm?: LlmClient;
}

/** One RCA hypothesis (DESIGN §9 `ai/rca`), best first in a reply. */
export interface Hypothesis {
  kind: 'field_value' | 'pattern' | 'service' | 'change';
  /** A single value's field; for a pair, both names joined by ", " (exactly as `fields` lists them). */
  field?: string;
  value?: string;
  /** A pair of values (field_value): the two fields and their values, in the same order; a value may hold a comma. */
  fields?: string[];
  values?: string[];
  pattern?: string;
  /** Higher is stronger; comparable within one reply. */
  score: number;
  /** Share of the incident's events that carry it, 0..1. */
  incident_share: number;
  baseline_share: number;
  /** Incident events that carry it. */
  count: number;
  summary: string;
  /** LogsQL that shows exactly the events behind it, over the incident window. */
  query: string;
}

export interface RcaRequest {
  /** LogsQL selecting the events of interest (its pipes are ignored). */
  query: string;
  startMs: number;
  endMs: number;
  /** Default: the same length just before startMs. */
  baselineStartMs?: number;
  baselineEndMs?: number;
}

export interface RcaResult {
  hypotheses: Hypothesis[];
  /** Events the query selected in each window. */
  incident_count: number;
  baseline_count: number;
  baseline: { start: string; end: string };
}

/** An analysis that cannot run on what it was given: 422 with this detail (and `extra` beside it). */
export class AiUnprocessable extends Error {
  constructor(readonly detail: string, readonly extra: Record<string, unknown> = {}) {
    super(detail);
  }
}
