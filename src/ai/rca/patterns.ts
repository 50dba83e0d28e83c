// Message templates that appear or grow in the incident (issue 10 item 1): Drain (src/detectors/algorithms/drain.ts)
// mines templates from bounded samples of both windows' messages, the templates that gained share in the sample
// are short-listed, and each becomes an anchored RE2 pattern whose exact counts the store then gives. Masking
// (log-masking.ts) replaces variables with a token of their own (`<NUM>`, `<IP>`, …), not Drain's `<*>`, so that
// templates do not drift as lines repeat (issue 10 notes).
import { Drain, templateText, WILDCARD, type Template } from '../../detectors/algorithms/drain.js';
import { escapeRegexp } from './logsql-text.js';
import { gTest } from './stats.js';

export interface PatternCandidate {
  /** The template text, masks and wildcards included. */
  pattern: string;
  /** RE2, anchored: the messages of this template and shape. */
  regexp: string;
  /** Sampled messages of each window that joined it. */
  sampleIncident: number;
  sampleBaseline: number;
}

/** A sampled template must be seen this often in the incident sample to be worth an exact count. */
const MIN_SAMPLE_HITS = 3;

const VARIABLE = /(<\*>|<TIME>|<UUID>|<IP>|<HEX>|<NUM>)/;

/**
 * The template as RE2 over the raw message: literal parts escaped, a masked or wildcarded part as a run of
 * non-space characters (a time may hold a space), tokens separated by whitespace as Drain split them.
 */
export function templateRegexp(tokens: readonly string[]): string {
  const parts = tokens.map((token) => token.split(VARIABLE).map((piece, i) => {
    if (i % 2 === 0) return escapeRegexp(piece);
    return piece === '<TIME>' ? '.+?' : piece === WILDCARD ? '\\S*' : '\\S+?';
  }).join(''));
  return `^\\s*${parts.join('\\s+')}\\s*$`;
}

/**
 * The `limit` templates whose share grew most from the baseline sample to the incident sample (excess share ×
 * −log10 p of a G-test on the sample counts), each seen at least MIN_SAMPLE_HITS times in the incident sample.
 */
export function patternCandidates(incident: readonly string[], baseline: readonly string[], limit: number): PatternCandidate[] {
  const drain = new Drain();
  const inc = new Map<Template, number>();
  const base = new Map<Template, number>();
  // Baseline first, as the store saw them: the incident's lines then join the templates the baseline already had.
  for (const m of baseline) count(base, drain.add(m).template);
  for (const m of incident) count(inc, drain.add(m).template);
  const scored: { t: Template; score: number; a: number; b: number }[] = [];
  for (const [t, a] of inc) {
    const b = base.get(t) ?? 0;
    const excess = a / incident.length - (baseline.length > 0 ? b / baseline.length : 0);
    if (a < MIN_SAMPLE_HITS || excess <= 0) continue;
    const { log10p } = gTest({ a, nA: incident.length, b, nB: baseline.length });
    scored.push({ t, a, b, score: excess * Math.max(-log10p, 1e-6) });
  }
  scored.sort((x, y) => y.score - x.score || templateText(x.t).localeCompare(templateText(y.t)));
  return scored.slice(0, limit).map(({ t, a, b }) => ({
    pattern: templateText(t), regexp: templateRegexp(t.tokens), sampleIncident: a, sampleBaseline: b,
  }));
}

function count(m: Map<Template, number>, t: Template): void {
  m.set(t, (m.get(t) ?? 0) + 1);
}
