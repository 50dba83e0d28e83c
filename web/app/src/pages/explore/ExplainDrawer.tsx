// Explain (DESIGN §9 ai/rca and ai/deep-rca): what sets the entries of the current query apart from the same
// length of time before, and, across logs, traces and metrics, which services are suspects and what happened when.
// Every finding shows its numbers and a query that shows it; the queries the analysis ran are listed for checking.
import { useEffect, useState } from 'preact/hooks';
import { Drawer } from '../../components/Drawer';
import { ErrorNote } from '../../components/ErrorNote';
import { formatTime } from '../../lib/time';
import { creditsText, deepAnalysis, explain, percent, type DeepRcaReply, type EvidenceQuery, type Hypothesis, type RcaReply } from './ai-api';

function Evidence({ queries }: { queries: EvidenceQuery[] }) {
  if (queries.length === 0) return null;
  return (
    <details class="evidence">
      <summary>Queries this analysis ran ({queries.length})</summary>
      <ol>
        {queries.map((q, i) => <li key={i}><span class="muted">{q.signal} · {q.purpose}</span><br /><code>{q.query}</code></li>)}
      </ol>
    </details>
  );
}

function Hypotheses({ list, onShow }: { list: Hypothesis[]; onShow: (q: string) => void }) {
  if (list.length === 0) return <p class="muted">Nothing sets these entries apart from the baseline with confidence.</p>;
  return (
    <ol class="hypotheses" aria-label="Hypotheses">
      {list.map((h, i) => (
        <li key={i}>
          <div><span class={`badge kind-${h.kind}`}>{h.kind.replace('_', ' ')}</span> {h.summary}</div>
          <div class="muted small">
            {percent(h.incident_share)} of the window vs {percent(h.baseline_share)} before · {h.count.toLocaleString()} entries · score {h.score.toFixed(1)}
          </div>
          <button type="button" class="small" onClick={() => onShow(h.query)} aria-label={`Show entries: ${h.summary}`}>Show entries</button>
        </li>
      ))}
    </ol>
  );
}

export function ExplainDrawer({ tenant, query, range, deep, onClose, onShow }: {
  tenant: string;
  query: string;
  range: { start: string; end: string };
  /** Deep analysis across signals instead of the current query's hypotheses. */
  deep: boolean;
  onClose: () => void;
  onShow: (query: string) => void;
}) {
  const [rca, setRca] = useState<RcaReply | null>(null);
  const [deepReply, setDeep] = useState<DeepRcaReply | null>(null);
  const [error, setError] = useState<unknown>('');
  useEffect(() => {
    setRca(null);
    setDeep(null);
    setError('');
    if (deep) deepAnalysis(tenant, range).then(setDeep, setError);
    else explain(tenant, query, range).then(setRca, setError);
  }, [tenant, query, range.start, range.end, deep]);
  const busy = error === '' && rca === null && deepReply === null;
  return (
    <Drawer title={deep ? 'Deep analysis' : 'Root-cause hypotheses'} onClose={onClose}>
      <p class="muted small">{formatTime(Date.parse(range.start))} – {formatTime(Date.parse(range.end))}</p>
      {busy && <p role="status">Analyzing…</p>}
      <ErrorNote error={error} />
      {rca && (
        <>
          <p class="muted" role="status">
            {rca.incident_count.toLocaleString()} entries in the window vs {rca.baseline_count.toLocaleString()} in the baseline · {creditsText(rca.credits)}
          </p>
          <Hypotheses list={rca.hypotheses} onShow={onShow} />
          <Evidence queries={rca.evidence.queries} />
        </>
      )}
      {deepReply && (
        <>
          <p role="status">{deepReply.summary} <span class="muted">· {creditsText(deepReply.credits)}</span></p>
          <h3>Suspects</h3>
          {deepReply.suspects.length === 0 ? <p class="muted">No service stands out.</p> : (
            <ol class="suspects" aria-label="Suspects">
              {deepReply.suspects.map((s) => (
                <li key={s.service}>
                  <strong>{s.service}</strong> <span class="muted small">score {s.score.toFixed(1)}</span>
                  <ul>{s.evidence.map((e, i) => (
                    <li key={i}>{e.text}{e.query && e.signal === 'logs' && <> <button type="button" class="small" onClick={() => onShow(e.query ?? '')}>Show</button></>}</li>
                  ))}</ul>
                </li>
              ))}
            </ol>
          )}
          <h3>Timeline</h3>
          <ol class="timeline" aria-label="Timeline">
            {deepReply.timeline.map((t, i) => <li key={i}><span class="mono muted">{formatTime(Date.parse(t.time))}</span> {t.service && <strong>{t.service}</strong>} {t.text}</li>)}
          </ol>
          {deepReply.hypotheses.length > 0 && <><h3>Hypotheses</h3><Hypotheses list={deepReply.hypotheses} onShow={onShow} /></>}
          <Evidence queries={deepReply.evidence.queries} />
        </>
      )}
    </Drawer>
  );
}
