// Reworded RCA summaries (issue 10 item 6): the model may make a hypothesis' one-line summary read better, but the
// grounded line stays the truth. A rewording is taken only when it is one short line that keeps every number and
// every quoted value of the original; otherwise the original stands.
import type { Hypothesis } from '../model.js';
import type { LlmClient } from './llm-client.js';

const MAX_SUMMARY = 240;

const SYSTEM = 'You reword root-cause findings of a log analysis for an on-call engineer. Keep every number and every ' +
  'field value exactly as given. Answer with a JSON array of strings, one per finding, in the same order, nothing else.';

/** The numbers and field values a faithful rewording must keep. */
function anchors(h: Hypothesis): string[] {
  const out = new Set<string>(h.summary.match(/\d+(?:\.\d+)?%?/g) ?? []);
  if (h.value !== undefined && h.value !== '') out.add(h.value);
  return [...out];
}

export function faithful(original: Hypothesis, reworded: unknown): reworded is string {
  if (typeof reworded !== 'string') return false;
  const line = reworded.trim();
  if (line === '' || line.length > MAX_SUMMARY || /[\r\n]/.test(line)) return false;
  return anchors(original).every((a) => line.includes(a));
}

/** Hypotheses with each summary the model reworded faithfully; the rest unchanged. Never throws. */
export async function rewordSummaries(hypotheses: Hypothesis[], llm: LlmClient): Promise<Hypothesis[]> {
  if (hypotheses.length === 0) return hypotheses;
  const list = hypotheses.map((h, i) => `${i + 1}. ${h.summary}`).join('\n');
  const reply = await llm.complete([{ role: 'system', content: SYSTEM }, { role: 'user', content: `Findings:\n${list}` }]);
  if (reply === null) return hypotheses;
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return hypotheses;
  }
  if (!Array.isArray(parsed)) return hypotheses;
  const lines: unknown[] = parsed;
  return hypotheses.map((h, i) => {
    const line = lines[i];
    return faithful(h, line) ? { ...h, summary: line.trim() } : h;
  });
}
