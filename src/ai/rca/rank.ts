// From tested candidates to the ranked hypotheses of DESIGN §9 `ai/rca` (issue 10 item 1 and its notes): every
// test of one analysis is one Benjamini–Hochberg family; what survives q ≤ 0.01 with a visible effect is scored by
// excess share × −log10 p (capped); and, following Datadog Watchdog, a change (a value new since the baseline, such
// as a version) that covers the incident's excess is put before the symptoms it explains.
import type { Hypothesis } from '../model.js';
import { benjaminiHochbergLog10, evidenceWeight } from './stats.js';
import { VERSION_LIKE } from './candidates.js';

/** A candidate with its test, before correction. */
export interface Tested {
  hypothesis: Omit<Hypothesis, 'score'>;
  log10p: number;
  /** incident_share − baseline_share (> 0: only what grew is a hypothesis). */
  excess: number;
  /** The baseline's exact count behind baseline_share. */
  baselineCount: number;
}

/** The false discovery rate RCA accepts: a quiet window must yield no confident hypothesis (issue 10 item 7). */
export const MAX_Q = 0.01;
/** Below one point of share a difference is real only on huge counts and explains nothing worth reading. */
export const MIN_EXCESS = 0.01;
/**
 * A change "covers" the incident when it has at least this share as many events as the largest symptom has excess
 * events (its count beyond what the baseline share predicts): enough to have produced it. Counts, not shares, so
 * that a service's error share and a value's share of the query's events compare.
 */
const COVER = 0.8;
export const MAX_HYPOTHESES = 20;

export function rank(tested: readonly Tested[]): Hypothesis[] {
  const q = benjaminiHochbergLog10(tested.map((t) => t.log10p));
  const kept = tested
    .map((t, i) => ({ t, q: q[i] ?? 0 }))
    .filter(({ t, q: lq }) => lq <= Math.log10(MAX_Q) && t.excess >= MIN_EXCESS)
    .map(({ t }) => ({ ...t.hypothesis, score: round(t.excess * evidenceWeight(t.log10p)), excess: t.excess }));
  kept.sort((a, b) => b.score - a.score || b.count - a.count || a.summary.localeCompare(b.summary));
  const topSymptom = Math.max(0, ...kept.filter((h) => h.kind !== 'change').map(excessEvents));
  const covers = (h: (typeof kept)[number]) => h.kind === 'change' && h.count >= COVER * topSymptom;
  // Among changes that cover it, a new version or deployment comes before a new pod or host: a deploy is what
  // usually brings the new instances with it, so it is the change a person acts on (roll back). Stable otherwise.
  const deployFirst = (h: (typeof kept)[number]): number => (VERSION_LIKE.test(h.field ?? '') ? 0 : 1);
  const changes = kept.filter(covers).sort((a, b) => deployFirst(a) - deployFirst(b));
  const ordered = [...changes, ...kept.filter((h) => !covers(h))];
  return ordered.slice(0, MAX_HYPOTHESES).map(({ excess: _excess, ...h }) => h);
}

/** Events beyond what the baseline share predicts: count × (1 − baseline_share / incident_share). */
function excessEvents(h: Omit<Hypothesis, 'score'>): number {
  return h.incident_share > 0 ? h.count * (1 - h.baseline_share / h.incident_share) : 0;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** A share as a person reads it: 83%, 0.4%, 0%. */
export function pct(share: number): string {
  if (share === 0) return '0%';
  const p = share * 100;
  return p >= 10 ? `${Math.round(p)}%` : p >= 1 ? `${p.toFixed(1).replace(/\.0$/, '')}%` : `${p.toPrecision(1)}%`;
}

export function countText(n: number): string {
  return n.toLocaleString('en-US');
}
