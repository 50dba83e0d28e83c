// One dashboard (`/app/dashboards?id=<id>`, DESIGN §7 Dashboards): its panels on a 12-column grid sharing one
// time range (the TimePicker; `start`/`end` in the URL), refreshed together. A member or admin edits in place:
// rename, add, edit in the drawer, move, resize, remove; the draft is saved with one PUT (or dropped). Export
// downloads the dashboard's JSON (panels.ts); delete asks first. A viewer sees the panels and Export only.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { TimePicker } from '../../components/TimePicker';
import { hrefOf, navigate, setParams } from '../../lib/route';
import { apiRange, type TimeRange } from '../../lib/time';
import { deleteDashboard, getDashboard, updateDashboard, type DashboardRecord } from './dashboards-api';
import { exportJson, newPanel, readPanels, type Panel } from './panels';
import { GAP_PX, PanelFrame, ROW_PX } from './PanelFrame';
import { PanelEditor } from './PanelEditor';

interface Draft { title: string; panels: Panel[] }

export interface DashboardViewProps {
  tenant: string;
  id: string;
  range: TimeRange;
  writable: boolean;
}

/** Saves a file the browser offers to download. */
function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const fileName = (title: string): string => `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'dashboard'}.json`;

export function DashboardView({ tenant, id, range, writable }: DashboardViewProps) {
  const [record, setRecord] = useState<DashboardRecord | null>(null);
  const [saved, setSaved] = useState<Draft>({ title: '', panels: [] });
  const [unreadable, setUnreadable] = useState<string[]>([]);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [editor, setEditor] = useState<{ panel: Panel; isNew: boolean } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [error, setError] = useState<unknown>('');
  const [busy, setBusy] = useState(false);
  const [runId, setRunId] = useState(0);

  useEffect(() => {
    const ctl = new AbortController();
    setError('');
    getDashboard(tenant, id, ctl.signal).then((d) => {
      const read = readPanels(d.panels);
      setRecord(d);
      setSaved({ title: d.title, panels: read.panels });
      setUnreadable(read.problems);
    }, (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    return () => ctl.abort();
  }, [tenant, id]);

  const resolved = useMemo(() => apiRange(range), [range.start, range.end, runId]);
  const zoom = useCallback((s: number, e: number) => setParams({ start: new Date(s).toISOString(), end: new Date(e).toISOString() }, { push: true }), []);
  const editing = draft !== null;
  const shown = draft ?? saved;
  const dirty = draft !== null && JSON.stringify(draft) !== JSON.stringify(saved);

  // Leaving with unsaved changes asks first.
  useEffect(() => {
    if (!dirty) return undefined;
    const onLeave = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', onLeave);
    return () => window.removeEventListener('beforeunload', onLeave);
  }, [dirty]);

  const change = (fn: (d: Draft) => Draft) => setDraft((d) => fn(d ?? saved));
  const save = async () => {
    if (!draft) return;
    setBusy(true);
    setError('');
    try {
      const d = await updateDashboard(tenant, id, { title: draft.title.trim(), panels: draft.panels });
      const read = readPanels(d.panels);
      setRecord(d);
      setSaved({ title: d.title, panels: read.panels });
      setUnreadable(read.problems);
      setDraft(null);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    setBusy(true);
    try {
      await deleteDashboard(tenant, id);
      navigate(hrefOf('dashboards'));
    } catch (e) {
      setError(e);
      setBusy(false);
      setConfirmDelete(false);
    }
  };
  const applyPanel = (p: Panel) => {
    change((d) => ({ ...d, panels: d.panels.some((q) => q.id === p.id) ? d.panels.map((q) => (q.id === p.id ? p : q)) : [...d.panels, p] }));
    setEditor(null);
  };
  const addPanel = () => setEditor({ panel: newPanel(shown.panels), isNew: true });
  const rows = shown.panels.reduce((m, p) => Math.max(m, p.y + p.h), 0);

  if (!record) {
    return (
      <div class="page-body">
        <a href={hrefOf('dashboards')}>← Dashboards</a>
        {error !== '' ? <ErrorNote error={error} /> : <div class="progress" role="progressbar" aria-label="Loading dashboard" />}
      </div>
    );
  }

  return (
    <div class="page-body dashboard">
      <div class="toolbar">
        <a href={hrefOf('dashboards', { start: range.start, end: range.end })}>← Dashboards</a>
        {editing
          ? <input class="dash-title-input" aria-label="Dashboard title" value={draft.title} maxLength={256} onInput={(e) => { const title = e.currentTarget.value; change((d) => ({ ...d, title })); }} />
          : <h1 class="dash-title">{saved.title}</h1>}
        <span class="spacer" />
        <TimePicker range={range} onChange={(r) => setParams({ start: r.start, end: r.end }, { push: true })} />
        <button type="button" onClick={() => setRunId((n) => n + 1)}>Refresh</button>
        {editing ? (
          <>
            <button type="button" onClick={addPanel}>Add panel</button>
            <button type="button" class="primary" disabled={busy || draft.title.trim() === ''} onClick={() => void save()}>Save dashboard</button>
            <button type="button" class="ghost" onClick={() => { setDraft(null); setError(''); }}>{dirty ? 'Discard changes' : 'Done'}</button>
          </>
        ) : (
          <>
            {writable && <button type="button" onClick={() => setDraft(saved)}>Edit dashboard</button>}
            <button type="button" onClick={() => download(fileName(saved.title), exportJson(saved))}>Export</button>
            {writable && (
              <div style={{ position: 'relative' }}>
                <button type="button" class="danger" aria-expanded={confirmDelete} onClick={() => setConfirmDelete(!confirmDelete)}>Delete dashboard</button>
                {confirmDelete && (
                  <div class="popover dash-confirm" role="dialog" aria-label="Confirm delete">
                    <p>Delete “{saved.title}” and its {saved.panels.length} panels? This cannot be undone.</p>
                    <div class="toolbar">
                      <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>Delete</button>
                      <button type="button" class="ghost" onClick={() => setConfirmDelete(false)}>Keep it</button>
                    </div>
                  </div>
                )}
              </div>
            )}
          </>
        )}
      </div>
      {editing && <div class="muted dash-hint" role="status">{dirty ? 'Unsaved changes.' : 'Editing.'} Arrange panels with the arrows on each panel; Save dashboard keeps the changes.</div>}
      <ErrorNote error={error} onClose={() => setError('')} />
      {unreadable.length > 0 && (
        <div class="error" role="alert">
          <span>{unreadable.length} stored panel problems (those panels are not shown{writable ? ' and saving drops them' : ''}): {unreadable.slice(0, 3).join('; ')}{unreadable.length > 3 ? '; …' : ''}</span>
        </div>
      )}
      {shown.panels.length === 0 ? (
        <div class="card dash-empty">
          <p>This dashboard has no panels yet.</p>
          {writable && <button type="button" class="primary" onClick={() => { if (!editing) setDraft(saved); addPanel(); }}>Add panel</button>}
        </div>
      ) : (
        <div class="dash-grid" style={{ gridTemplateRows: `repeat(${rows}, ${ROW_PX}px)`, gap: `${GAP_PX}px` }}>
          {shown.panels.map((p) => (
            <PanelFrame key={p.id} tenant={tenant} panel={p} panels={shown.panels} range={resolved} urlRange={range} runId={runId}
              editing={editing} onZoom={zoom} onLayout={(panels) => change((d) => ({ ...d, panels }))}
              onEdit={() => setEditor({ panel: p, isNew: false })}
              onRemove={() => change((d) => ({ ...d, panels: d.panels.filter((q) => q.id !== p.id) }))} />
          ))}
        </div>
      )}
      {editor && (
        <PanelEditor tenant={tenant} panel={editor.panel} isNew={editor.isNew} range={resolved}
          onApply={applyPanel} onClose={() => setEditor(null)} />
      )}
    </div>
  );
}
