// Metrics (DESIGN §7; issue 8 item 5): a PromQL editor with completion of metric names and labels from the
// tenant's own series, a time picker, and two views of the expression: Graph (lines of `query_range` with a
// legend that isolates a series on click, drag to zoom) and Table (the instant `query`, labels and value).
// The URL holds the expression (`expr`), the range (`start`/`end`) and the view (`tab`), so a reload or a shared
// link shows the same thing.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { EditorView } from '@codemirror/view';
import type { PageProps } from '../../pages';
import { CodeEditor } from '../../components/CodeEditor';
import { TimePicker } from '../../components/TimePicker';
import { setParams } from '../../lib/route';
import { apiRange, rangeFromParams, utcDisplay, type TimeRange } from '../../lib/time';
import { useStore } from '../../lib/store';
import { useSlashFocus } from '../../lib/keys';
import { promqlLanguage } from './promql-editor';
import { GraphView, MetricPicker, TableView } from './ResultViews';
import './metrics.css';

type Tab = 'graph' | 'table';
const TABS: readonly { id: Tab; label: string }[] = [{ id: 'graph', label: 'Graph' }, { id: 'table', label: 'Table' }];

export default function MetricsPage({ tenant, params }: PageProps) {
  useStore(utcDisplay);
  const expr = params.get('expr') ?? '';
  const range: TimeRange = rangeFromParams(params);
  const tab: Tab = params.get('tab') === 'table' ? 'table' : 'graph';
  const [draft, setDraft] = useState(expr);
  const [runId, setRunId] = useState(0);
  const editor = useRef<EditorView | null>(null);
  useSlashFocus(useCallback(() => editor.current?.focus(), []));

  // The range fixed when the query runs: a relative range moves on with the clock, a shown result must not.
  const resolved = useMemo(() => apiRange(range), [range.start, range.end, runId]);
  useEffect(() => setDraft(expr), [expr]);

  const language = useMemo(() => promqlLanguage(tenant), [tenant]);
  useEffect(() => () => language.destroy(), [language]);

  const run = (text: string) => {
    const next = text.trim();
    if (next === expr) setRunId((n) => n + 1);
    else setParams({ expr: next }, { push: true });
  };
  const setRange = (r: TimeRange) => setParams({ start: r.start, end: r.end }, { push: true });
  const zoom = useCallback((s: number, e: number) => setParams({ start: new Date(s).toISOString(), end: new Date(e).toISOString() }, { push: true }), []);
  const pickTab = (t: Tab) => setParams({ tab: t === 'graph' ? undefined : t });

  const onTabKey = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    const next = tab === 'graph' ? 'table' : 'graph';
    pickTab(next);
    document.getElementById(`metrics-tab-${next}`)?.focus();
  };

  return (
    <div class="page-body metrics">
      <div class="toolbar">
        <CodeEditor value={draft} onChange={setDraft} onRun={run} label="Query" language={language.extension}
          placeholder="PromQL: rate(http_requests_total[5m])  ·  Enter runs, Shift+Enter breaks the line" onView={(v) => { editor.current = v; }} />
        <TimePicker range={range} onChange={setRange} />
        <button type="button" class="primary" onClick={() => run(draft)} disabled={draft.trim() === ''}>Run query</button>
      </div>
      <div class="tabs" role="tablist" aria-label="Result view" onKeyDown={onTabKey}>
        {TABS.map((t) => (
          <button key={t.id} id={`metrics-tab-${t.id}`} type="button" role="tab" aria-selected={tab === t.id}
            aria-controls="metrics-tabpanel" tabIndex={tab === t.id ? 0 : -1} onClick={() => pickTab(t.id)}>{t.label}</button>
        ))}
      </div>
      <div id="metrics-tabpanel" role="tabpanel" aria-labelledby={`metrics-tab-${tab}`} class="metrics-tabpanel">
        {expr === ''
          ? <MetricPicker tenant={tenant} onPick={(name) => run(name)} />
          : tab === 'graph'
            ? <GraphView tenant={tenant} expr={expr} range={resolved} runId={runId} onZoom={zoom} />
            : <TableView tenant={tenant} expr={expr} range={resolved} runId={runId} />}
      </div>
    </div>
  );
}
