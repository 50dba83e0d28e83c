// Ask in English (DESIGN §9 ai/query): the question becomes LogsQL (or PromQL / a trace search, opened on its own
// page) with its range, and the explanation stays beside it so a person sees how each word was read.
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { hrefOf, navigate } from '../../lib/route';
import { ask, creditsText, type NlAnswer } from './ai-api';

/**
 * A trace search as ai/query writes it — the traces API's own parameters (`service=checkout&min_duration_ms=500`) —
 * as the Traces page's URL parameters.
 */
export function traceParams(query: string): Record<string, string> {
  const given = new URLSearchParams(query);
  const out: Record<string, string> = {};
  for (const key of ['service', 'name', 'limit'] as const) {
    const v = given.get(key);
    if (v !== null && v !== '') out[key] = v;
  }
  if (given.get('status') === 'error') out.status = 'error';
  const min = given.get('min_duration_ms');
  if (min !== null && min !== '') out.min_ms = min;
  return out;
}

export function AskBar({ tenant, range, onLogs }: {
  tenant: string;
  range: { start: string; end: string };
  /** A logs answer: run its query over its range here. */
  onLogs: (answer: NlAnswer) => void;
}) {
  const [question, setQuestion] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>('');
  const [answer, setAnswer] = useState<NlAnswer | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (question.trim() === '') return;
    setBusy(true);
    setError('');
    try {
      const a = await ask(tenant, question, range);
      setAnswer(a);
      if (a.signal === 'logs') onLogs(a);
      else if (a.signal === 'metrics') navigate(hrefOf('metrics', { expr: a.query, start: a.start, end: a.end }));
      else navigate(hrefOf('traces', { ...traceParams(a.query), start: a.start, end: a.end }));
    } catch (err) {
      setAnswer(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="ask" onSubmit={(e) => void submit(e)} aria-label="Ask in English">
      <input type="search" aria-label="Question" placeholder="Ask in English: errors from checkout in the last hour"
        value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
      <button type="submit" disabled={busy}>{busy ? 'Asking…' : 'Ask'}</button>
      {answer && (
        <p class="ask-answer muted" role="status">
          {answer.explanation} <span class="mono">({creditsText(answer.credits)})</span>
        </p>
      )}
      <ErrorNote error={error} onClose={() => setError('')} />
    </form>
  );
}
