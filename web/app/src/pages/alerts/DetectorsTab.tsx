// The Detectors tab of the Alerts page (DESIGN §8): the tenant's detectors and the catalog of detector kinds
// with their signal, minimum history and eligibility (the catalog is not gated by plan). Read-only here; both
// lists turn a 404 (no detectors API on this service yet) into the page's "not set up" state.
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { formatTime } from '../../lib/time';
import { detectorCatalog, listDetectors, type Detector, type DetectorKind } from './alerts-api';
import { NotSetUp } from './NotSetUp';

/** `highlight`: a detector id from the URL (`?detector=`, a playbook's link): its row is marked and scrolled to. */
export function DetectorsTab({ tenant, highlight }: { tenant: string; highlight?: string | undefined }) {
  const [detectors, setDetectors] = useState<Detector[] | null | undefined>(undefined);
  const [catalog, setCatalog] = useState<DetectorKind[] | null | undefined>(undefined);
  const [error, setError] = useState<unknown>('');
  useEffect(() => {
    const ctl = new AbortController();
    const fail = (e: unknown) => { if (!ctl.signal.aborted) setError(e); };
    listDetectors(tenant, ctl.signal).then(setDetectors, fail);
    detectorCatalog(ctl.signal).then(setCatalog, fail);
    return () => ctl.abort();
  }, [tenant]);

  useEffect(() => {
    if (highlight !== undefined && detectors) document.getElementById(`detector-${highlight}`)?.scrollIntoView({ block: 'center' });
  }, [highlight, detectors]);

  if (detectors === null || catalog === null) return <NotSetUp />;
  const loading = (detectors === undefined || catalog === undefined) && error === '';
  return (
    <>
      <ErrorNote error={error} />
      {loading && <div class="progress" role="progressbar" aria-label="Loading detectors" />}
      {detectors && (
        <section aria-label="Tenant detectors">
          <h2>Detectors</h2>
          {detectors.length === 0
            ? <p class="muted">No detectors on this tenant yet; the catalog below lists the kinds there are.</p>
            : (
              <table class="alerts-table" aria-label="Detectors">
                <thead><tr><th>Name</th><th>Kind</th><th>Signal</th><th>For</th><th>Enabled</th><th>Created</th><th>ID</th></tr></thead>
                <tbody>
                  {detectors.map((d) => (
                    <tr key={d.id} id={`detector-${d.id}`} class={d.id === highlight ? 'highlight' : undefined} aria-current={d.id === highlight ? 'true' : undefined}>
                      <td>{d.name ?? <span class="muted">(unnamed)</span>}</td>
                      <td class="mono">{d.kind}</td>
                      <td>{d.signal ?? '—'}</td>
                      <td class="mono">{d.for ?? '—'}</td>
                      <td>{d.enabled === false ? <span class="muted">paused</span> : 'yes'}</td>
                      <td class="nowrap">{d.created_at ? formatTime(Date.parse(d.created_at)) : '—'}</td>
                      <td class="mono muted">{d.id}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
        </section>
      )}
      {catalog && (
        <section aria-label="Catalog">
          <h2>Catalog</h2>
          <table class="alerts-table" aria-label="Detector catalog">
            <thead><tr><th>Kind</th><th>Signal</th><th>What it does</th><th>Parameters</th><th>Minimum history</th><th>Eligibility</th></tr></thead>
            <tbody>
              {catalog.map((k) => (
                <tr key={k.kind}>
                  <td class="mono">{k.kind}</td>
                  <td>{k.signal}</td>
                  <td>{k.description}</td>
                  <td class="mono small-text">{paramNames(k.params)}</td>
                  <td class="nowrap">{historyText(k.min_history_s)}</td>
                  <td class="small-text">
                    <ul class="eligibility">{(k.eligibility ?? []).map((c) => <li key={c.id} title={c.id}>{c.description}</li>)}</ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}

/** `params` may be a list of names, a list of `{name}` or an object keyed by name. */
function paramNames(params: unknown): string {
  if (Array.isArray(params)) return params.map((p) => (typeof p === 'string' ? p : typeof p === 'object' && p !== null && 'name' in p ? String((p as { name: unknown }).name) : JSON.stringify(p))).join(', ');
  if (typeof params === 'object' && params !== null) return Object.keys(params).join(', ');
  return '—';
}

function historyText(s: number | undefined): string {
  if (s === undefined || s <= 0) return 'none';
  if (s % 86_400 === 0) return `${s / 86_400} d`;
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}
