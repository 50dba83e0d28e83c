// The panel editor drawer of a dashboard (DESIGN §7 Dashboards: edit in place): a panel's title, type, query
// (LogsQL or PromQL, with the completion of Explore and Metrics), and for stats panels table or bars, with a
// preview over the dashboard's range. Apply hands the panel back to the dashboard's draft; Esc or Cancel drops
// the changes. Nothing is saved until the dashboard is.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Drawer } from '../../components/Drawer';
import { CodeEditor } from '../../components/CodeEditor';
import { logsqlLanguage } from '../../lib/logsql-lang';
import { promqlLanguage } from '../metrics/promql-editor';
import { fieldNames, fieldValues, type Range } from './dashboards-api';
import { PANEL_TYPES, type Panel, type PanelType, type StatsDisplay } from './panels';
import { PanelBody } from './PanelBody';

export interface PanelEditorProps {
  tenant: string;
  panel: Panel;
  isNew: boolean;
  range: Range;
  onApply: (p: Panel) => void;
  onClose: () => void;
}

const PREVIEW_HEIGHT = 200;

export function PanelEditor({ tenant, panel, isNew, range, onApply, onClose }: PanelEditorProps) {
  const [title, setTitle] = useState(panel.title);
  const [type, setType] = useState<PanelType>(panel.type);
  const [query, setQuery] = useState(panel.query);
  const [display, setDisplay] = useState<StatsDisplay>(panel.display ?? 'table');
  const [preview, setPreview] = useState<Panel | null>(panel.query.trim() === '' ? null : panel);
  const [runId, setRunId] = useState(0);
  const [problem, setProblem] = useState('');

  const promql = useMemo(() => promqlLanguage(tenant), [tenant]);
  useEffect(() => () => promql.destroy(), [promql]);
  const logsql = useMemo(() => logsqlLanguage({
    fieldNames: () => fieldNames(tenant, range),
    fieldValues: (f) => fieldValues(tenant, f, range),
  }), [tenant, range.start, range.end]);

  const current = (q = query): Panel => {
    const p: Panel = { ...panel, title: title.trim(), type, query: q.trim() };
    if (type === 'logs_stats') p.display = display;
    else delete p.display;
    return p;
  };
  const showPreview = (q = query) => {
    if (q.trim() === '') return;
    setPreview(current(q));
    setRunId((n) => n + 1);
  };
  const apply = (e: Event) => {
    e.preventDefault();
    if (title.trim() === '') return setProblem('Give the panel a title.');
    if (query.trim() === '') return setProblem('Write the panel’s query.');
    onApply(current());
  };
  const example = PANEL_TYPES.find((t) => t.type === type)?.example ?? '';

  return (
    <Drawer title={isNew ? 'Add panel' : `Edit panel ${panel.title}`} onClose={onClose}>
      <form class="panel-editor" onSubmit={apply} aria-label="Panel settings">
        <label>Panel title
          <input value={title} required maxLength={256} onInput={(e) => setTitle(e.currentTarget.value)} autoFocus />
        </label>
        <label>Panel type
          <select value={type} onChange={(e) => { setType(e.currentTarget.value as PanelType); setPreview(null); }}>
            {PANEL_TYPES.map((t) => <option key={t.type} value={t.type}>{t.label}</option>)}
          </select>
        </label>
        <div class="panel-editor-query">
          <span class="muted">{type === 'promql' ? 'PromQL' : 'LogsQL'} query · Enter previews</span>
          <CodeEditor value={query} onChange={setQuery} onRun={showPreview} label="Panel query"
            language={type === 'promql' ? promql.extension : logsql} placeholder={example} />
          {type === 'logs_stats' && <span class="muted">A <code>| stats by (…)</code> query: one row per group, e.g. <code>{example}</code></span>}
        </div>
        {type === 'logs_stats' && (
          <label>Display
            <select value={display} onChange={(e) => setDisplay(e.currentTarget.value as StatsDisplay)}>
              <option value="table">Table</option>
              <option value="bars">Bars</option>
            </select>
          </label>
        )}
        {problem !== '' && <div class="error" role="alert">{problem}</div>}
        <div class="toolbar">
          <button type="submit" class="primary">{isNew ? 'Add to dashboard' : 'Apply'}</button>
          <button type="button" onClick={() => showPreview()} disabled={query.trim() === ''}>Preview</button>
          <button type="button" class="ghost" onClick={onClose}>Cancel</button>
        </div>
      </form>
      <section class="card panel-preview" aria-label="Preview">
        <h3>Preview</h3>
        {preview
          ? <PanelBody tenant={tenant} panel={{ ...preview, display }} range={range} runId={runId} height={PREVIEW_HEIGHT} onZoom={() => undefined} />
          : <p class="muted">Write a query and press Enter to see the panel here.</p>}
      </section>
    </Drawer>
  );
}
