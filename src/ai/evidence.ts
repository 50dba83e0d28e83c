// What an AI reply shows so a person can check it (DESIGN §9): every query the analysis ran, on which signal,
// over which range, and why. The queries are the exact texts a user can paste into Explore, Metrics or Traces.
import { nsToRfc3339 } from '../model/time.js';

export type EvidenceSignal = 'logs' | 'metrics' | 'traces';

export interface EvidenceQuery {
  signal: EvidenceSignal;
  /** LogsQL (logs), PromQL (metrics), or a trace search / trace id (traces), as run. */
  query: string;
  /** RFC 3339. */
  start: string;
  end: string;
  /** One line: what the analysis asked this query for. */
  purpose: string;
}

/** Collects the queries one analysis runs, in the order it ran them. */
export class Evidence {
  readonly queries: EvidenceQuery[] = [];

  add(signal: EvidenceSignal, query: string, startMs: number, endMs: number, purpose: string): void {
    this.queries.push({ signal, query, start: msToRfc3339(startMs), end: msToRfc3339(endMs), purpose });
  }
}

export function msToRfc3339(ms: number): string {
  return nsToRfc3339(BigInt(Math.trunc(ms)) * 1_000_000n);
}
