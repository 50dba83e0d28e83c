// The Playbooks tab of the Alerts page (DESIGN §9 `ai/playbooks`, issue 10 item 4: imported playbooks are listed
// and shown beside alerts). `/app/alerts/playbooks` lists the tenant's playbooks; `/app/alerts/playbooks/<id>` shows
// one: its steps in order, each query as a link to Explore (LogsQL) or Metrics (PromQL), manual commands as text to
// copy (the service never runs them), and each stated bound with a link to the detector it became or the note why
// not. Read-only: importing is the AI endpoint's (it costs credits).
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { hrefOf } from '../../lib/route';
import { formatTime } from '../../lib/time';
import { getPlaybook, listPlaybooks, type Playbook, type PlaybookAlert, type PlaybookStep, type PlaybookSummary } from './alerts-api';

export const playbookHref = (id: string): string => hrefOf(`alerts/playbooks/${encodeURIComponent(id)}`);
const detectorHref = (id: string): string => hrefOf('alerts/detectors', { detector: id });

export function PlaybooksTab({ tenant, id }: { tenant: string; id: string | undefined }) {
  return id === undefined ? <PlaybookList tenant={tenant} /> : <PlaybookView tenant={tenant} id={id} />;
}

function PlaybookList({ tenant }: { tenant: string }) {
  const [list, setList] = useState<PlaybookSummary[] | null | undefined>(undefined);
  const [error, setError] = useState<unknown>('');
  useEffect(() => {
    const ctl = new AbortController();
    listPlaybooks(tenant, ctl.signal).then(setList, (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    return () => ctl.abort();
  }, [tenant]);
  return (
    <section aria-label="Playbooks">
      <h2>Playbooks</h2>
      <ErrorNote error={error} />
      {list === undefined && error === '' && <div class="progress" role="progressbar" aria-label="Loading playbooks" />}
      {(list === null || list?.length === 0) && (
        <div class="empty-state" role="status">
          <strong>No playbooks yet</strong>
          <span class="muted">Import a runbook (Markdown or YAML) with POST …/ai/playbooks: its queries become saved searches and its stated bounds detectors.</span>
        </div>
      )}
      {list && list.length > 0 && (
        <table class="alerts-table" aria-label="Playbook list">
          <thead><tr><th>Title</th><th>Format</th><th class="num">Steps</th><th class="num">Saved searches</th><th class="num">Detectors</th><th>Imported</th></tr></thead>
          <tbody>
            {list.map((p) => (
              <tr key={p.id}>
                <td><a href={playbookHref(p.id)}>{p.title}</a></td>
                <td>{p.format}</td>
                <td class="num">{p.step_count ?? '—'}</td>
                <td class="num">{p.saved_search_ids.length}</td>
                <td class="num">{p.detector_ids.length}</td>
                <td class="nowrap">{formatTime(Date.parse(p.created_at))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function PlaybookView({ tenant, id }: { tenant: string; id: string }) {
  const [p, setP] = useState<Playbook | null | undefined>(undefined);
  const [error, setError] = useState<unknown>('');
  useEffect(() => {
    const ctl = new AbortController();
    setP(undefined);
    getPlaybook(tenant, id, ctl.signal).then(setP, (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    return () => ctl.abort();
  }, [tenant, id]);
  return (
    <article class="playbook" aria-labelledby="playbook-title">
      <p><a href={hrefOf('alerts/playbooks')}>← All playbooks</a></p>
      <ErrorNote error={error} />
      {p === undefined && error === '' && <div class="progress" role="progressbar" aria-label="Loading playbook" />}
      {p === null && <div class="empty-state" role="status"><strong>No playbook {id} on this tenant</strong></div>}
      {p && (
        <>
          <h2 id="playbook-title">{p.title}</h2>
          <p class="muted">
            Imported {formatTime(Date.parse(p.created_at))} from {p.format} · {p.steps.length} step{p.steps.length === 1 ? '' : 's'} ·{' '}
            {p.saved_search_ids.length} saved search{p.saved_search_ids.length === 1 ? '' : 'es'} · {p.detector_ids.length} detector{p.detector_ids.length === 1 ? '' : 's'}
          </p>
          <ol class="playbook-steps" aria-label="Steps">
            {p.steps.map((s, i) => <Step key={i} index={i} step={s} section={s.section !== undefined && s.section !== p.steps[i - 1]?.section ? s.section : undefined} />)}
          </ol>
        </>
      )}
    </article>
  );
}

function Step({ step, index, section }: { step: PlaybookStep; index: number; section: string | undefined }) {
  const headingId = `playbook-step-${index}`;
  // The service puts a manual command in the step's text too (for API clients); here it has its own block.
  const command = step.manual?.command;
  const text = command !== undefined && step.text.endsWith(command) ? step.text.slice(0, -command.length).trim() : step.text;
  return (
    <li class="card playbook-step" aria-labelledby={headingId}>
      {section !== undefined && <div class="muted small-text">{section}</div>}
      <h3 id={headingId}>{step.title}</h3>
      {text !== '' && text !== step.title && <p class="pre">{text}</p>}
      {step.query !== undefined && (
        <p>
          <span class="tag">{step.signal === 'metrics' ? 'PromQL' : 'LogsQL'}</span>{' '}
          <a class="mono" href={step.signal === 'metrics' ? hrefOf('metrics', { expr: step.query }) : hrefOf('explore', { query: step.query })}
            aria-label={`Open in ${step.signal === 'metrics' ? 'Metrics' : 'Explore'}: ${step.query}`}>{step.query}</a>
          {step.saved_search_id !== undefined && <span class="muted"> · saved search</span>}
        </p>
      )}
      {step.manual && (
        <figure class="manual">
          <figcaption class="muted small-text">Run by hand ({step.manual.language}) — never run by Sightline</figcaption>
          <pre class="mono" aria-label="Manual command">{step.manual.command}</pre>
        </figure>
      )}
      {(step.alerts ?? []).map((a, i) => <AlertLine key={i} alert={a} />)}
      {(step.notes ?? []).map((n, i) => <p key={i} class="muted small-text">{n}</p>)}
    </li>
  );
}

const spanText = (s: number): string => (s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);

/** `log_threshold > 2 · window 1 h · for 5 min`: what the detector judges, in the kind's own terms. */
function boundText(b: NonNullable<PlaybookAlert['bound']>): string {
  const parts = [`${b.target.kind} ${b.op} ${b.threshold}`];
  if (b.window_s !== undefined) parts.push(`window ${spanText(b.window_s)}`);
  if (b.for_s !== undefined) parts.push(`for ${spanText(b.for_s)}`);
  return parts.join(' · ');
}

/** A stated bound: what it became (the step's text already holds the sentence), or the sentence and why not. */
function AlertLine({ alert }: { alert: PlaybookAlert }) {
  return (
    <p class="playbook-alert">
      <span class="tag">bound</span> {alert.bound ? <span class="mono">{boundText(alert.bound)}</span> : alert.sentence}{' '}
      {alert.detector_id !== undefined
        ? <a href={detectorHref(alert.detector_id)} aria-label={`Detector for: ${alert.sentence}`}>Open detector</a>
        : <span class="muted">— {alert.note ?? 'no detector'}</span>}
    </p>
  );
}
