// The tenant's dashboards (DESIGN §7 Dashboards): a table of them, a new one by title, and import from pasted or
// uploaded JSON, checked against the panel schema (panels.ts) with every problem listed before anything is sent.
// Plan ceilings come back as the API words them (403 `Dashboard limit reached (n)`). A viewer only reads.
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { Drawer } from '../../components/Drawer';
import { hrefOf, navigate } from '../../lib/route';
import { formatTime, type TimeRange } from '../../lib/time';
import { createDashboard, listDashboards, type DashboardRecord } from './dashboards-api';
import { parseDashboardJson } from './panels';

export interface DashboardListProps {
  tenant: string;
  range: TimeRange;
  writable: boolean;
}

const open = (id: string, range: TimeRange) => hrefOf('dashboards', { id, start: range.start, end: range.end });
const panelCount = (d: DashboardRecord): number => (Array.isArray(d.panels) ? d.panels.length : 0);

export function DashboardList({ tenant, range, writable }: DashboardListProps) {
  const [list, setList] = useState<DashboardRecord[] | null>(null);
  const [error, setError] = useState<unknown>('');
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [title, setTitle] = useState('');
  const [filter, setFilter] = useState('');

  useEffect(() => {
    const ctl = new AbortController();
    listDashboards(tenant, ctl.signal).then(setList, (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    return () => ctl.abort();
  }, [tenant]);

  const create = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const d = await createDashboard(tenant, { title: title.trim(), panels: [] });
      navigate(open(d.id, range));
    } catch (err) {
      setError(err);
    }
  };

  const shown = (list ?? []).filter((d) => d.title.toLowerCase().includes(filter.toLowerCase()));
  return (
    <div class="page-body dashboards">
      <div class="toolbar">
        <h1 class="dash-title">Dashboards</h1>
        <span class="spacer" />
        <input type="search" aria-label="Filter dashboards" placeholder="Filter by title…" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        {writable && (
          <div style={{ position: 'relative' }}>
            <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>New dashboard</button>
            {creating && (
              <form class="popover dash-create" aria-label="New dashboard" onSubmit={(e) => void create(e)}>
                <label>Dashboard title<input required maxLength={256} value={title} onInput={(e) => setTitle(e.currentTarget.value)} autoFocus /></label>
                <div class="toolbar">
                  <button type="submit" class="primary" disabled={title.trim() === ''}>Create</button>
                  <button type="button" class="ghost" onClick={() => setCreating(false)}>Cancel</button>
                </div>
              </form>
            )}
          </div>
        )}
        {writable && <button type="button" onClick={() => setImporting(true)}>Import dashboard</button>}
      </div>
      <ErrorNote error={error} onClose={() => setError('')} />
      {list === null && error === '' && <div class="progress" role="progressbar" aria-label="Loading dashboards" />}
      {list !== null && list.length === 0 && (
        <div class="card dash-empty">
          <p>No dashboards in this project yet.</p>
          <p class="muted">A dashboard puts LogsQL hits and stats beside PromQL series over one time range.{writable ? ' Create one, or import the JSON of one exported elsewhere.' : ''}</p>
        </div>
      )}
      {list !== null && list.length > 0 && (
        <div class="card dash-list">
          <table aria-label="Dashboards">
            <thead><tr><th>Title</th><th class="num">Panels</th><th>Updated</th></tr></thead>
            <tbody>
              {shown.map((d) => (
                <tr key={d.id}>
                  <td><a href={open(d.id, range)}>{d.title}</a></td>
                  <td class="num">{panelCount(d)}</td>
                  <td class="muted">{formatTime(Date.parse(d.updated_at)).slice(0, 19)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {shown.length === 0 && <p class="muted">No dashboard title holds “{filter}”.</p>}
        </div>
      )}
      {importing && <ImportDrawer tenant={tenant} onDone={(id) => navigate(open(id, range))} onClose={() => setImporting(false)} />}
    </div>
  );
}

function ImportDrawer({ tenant, onDone, onClose }: { tenant: string; onDone: (id: string) => void; onClose: () => void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>('');
  const [busy, setBusy] = useState(false);
  const parsed = text.trim() === '' ? null : parseDashboardJson(text);

  const upload = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0];
    if (file) setText(await file.text());
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!parsed?.doc) return;
    setBusy(true);
    setError('');
    try {
      const d = await createDashboard(tenant, { title: parsed.doc.title, panels: parsed.doc.panels });
      onDone(d.id);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <Drawer title="Import dashboard" onClose={onClose}>
      <form class="dash-import" onSubmit={(e) => void submit(e)}>
        <label>JSON file<input type="file" accept="application/json,.json" onChange={(e) => void upload(e)} /></label>
        <label>Dashboard JSON
          <textarea class="mono" rows={18} spellcheck={false} value={text} placeholder='{"version": 1, "title": "…", "panels": [{"version": 1, "id": "a", "title": "Errors", "type": "logs_hits", "query": "level:error", "x": 0, "y": 0, "w": 6, "h": 4}]}'
            onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        {parsed && parsed.problems.length > 0 && (
          <div class="error dash-problems" role="alert">
            <div>
              <strong>This JSON cannot be imported:</strong>
              <ul>{parsed.problems.slice(0, 20).map((p) => <li key={p}>{p}</li>)}</ul>
              {parsed.problems.length > 20 && <span>and {parsed.problems.length - 20} more.</span>}
            </div>
          </div>
        )}
        {parsed?.doc && <p class="muted" role="status">Ready: “{parsed.doc.title}” with {parsed.doc.panels.length} panels.</p>}
        <ErrorNote error={error} />
        <div class="toolbar">
          <button type="submit" class="primary" disabled={busy || !parsed?.doc}>Import</button>
          <button type="button" class="ghost" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Drawer>
  );
}
