// Explore (DESIGN §7): LogsQL editor with completion, time picker, hits histogram that zooms by dragging,
// facets, a virtualized results table, a row's JSON and context, live tail, saved searches, copy as curl.
// The query, range and limit live in the URL, so a reload or a shared link shows the same view.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { EditorView } from '@codemirror/view';
import type { PageProps } from '../../pages';
import { CodeEditor } from '../../components/CodeEditor';
import { TimePicker } from '../../components/TimePicker';
import { ErrorNote } from '../../components/ErrorNote';
import { logsqlLanguage } from '../../lib/logsql-lang';
import { apiUrl, tenantPath } from '../../lib/api';
import { setParams } from '../../lib/route';
import { apiRange, rangeFromParams, type TimeRange } from '../../lib/time';
import { canWrite } from '../../lib/session';
import { useStore } from '../../lib/store';
import { utcDisplay } from '../../lib/time';
import { fieldNames, fieldValues, searchLogs, type LogRow } from './explore-api';
import { Histogram } from './Histogram';
import { Facets } from './Facets';
import { ResultsTable } from './ResultsTable';
import { RowDrawer } from './RowDrawer';
import { LiveTail, MAX_TAIL_ROWS } from './LiveTail';
import { SaveSearch } from './SaveSearch';
import { AskBar } from './AskBar';
import { ExplainDrawer } from './ExplainDrawer';
import { useSlashFocus } from '../../lib/keys';
import './explore.css';

const LIMITS = ['100', '1000', '10000'];

export default function ExplorePage({ session, tenant, params }: PageProps) {
  useStore(utcDisplay);
  const urlQuery = params.get('query') ?? '*';
  const range: TimeRange = rangeFromParams(params);
  const limit = LIMITS.includes(params.get('limit') ?? '') ? Number(params.get('limit')) : 1000;
  const [draft, setDraft] = useState(urlQuery);
  const [rows, setRows] = useState<LogRow[]>([]);
  const [error, setError] = useState<unknown>('');
  const [busy, setBusy] = useState(false);
  const [runId, setRunId] = useState(0);
  const [open, setOpen] = useState<{ row: LogRow; index: number } | null>(null);
  const [tail, setTail] = useState<LiveTail | null>(null);
  const [paused, setPaused] = useState(false);
  const [copied, setCopied] = useState('');
  const [explaining, setExplaining] = useState<'rca' | 'deep' | null>(null);
  const editor = useRef<EditorView | null>(null);
  useSlashFocus(() => editor.current?.focus());

  // The range fixed when the query ran (relative ranges move on with the clock; results must not).
  const resolved = useMemo(() => apiRange(range), [range.start, range.end, runId]);

  useEffect(() => setDraft(urlQuery), [urlQuery]);

  useEffect(() => {
    if (tail) return undefined;
    const ctl = new AbortController();
    setBusy(true);
    setError('');
    searchLogs(tenant, urlQuery, resolved, limit, ctl.signal).then((r) => {
      setRows(r);
      setBusy(false);
    }, (e: unknown) => {
      if (ctl.signal.aborted) return;
      setRows([]);
      setError(e);
      setBusy(false);
    });
    return () => ctl.abort();
  }, [tenant, urlQuery, resolved, limit, tail]);

  const run = (q: string) => {
    const query = q.trim() === '' ? '*' : q.trim();
    if (query === urlQuery) setRunId((n) => n + 1);
    else setParams({ query }, { push: true });
  };
  const setRange = (r: TimeRange) => setParams({ start: r.start, end: r.end }, { push: true });
  const zoom = useCallback((s: number, e: number) => setRange({ start: new Date(s).toISOString(), end: new Date(e).toISOString() }), []);
  const addFilter = (f: string) => run(urlQuery === '*' ? f : `${urlQuery} ${f}`);

  const language = useMemo(() => logsqlLanguage({
    fieldNames: () => fieldNames(tenant, apiRange(rangeFromParams(new URLSearchParams(location.search)))),
    fieldValues: (f) => fieldValues(tenant, f, apiRange(rangeFromParams(new URLSearchParams(location.search)))),
  }), [tenant]);

  const toggleTail = () => {
    if (tail) {
      tail.stop();
      setTail(null);
      setPaused(false);
      return;
    }
    setRows([]);
    setError('');
    const t = new LiveTail(tenant, urlQuery, (incoming) => {
      // Newest first, like the search results.
      setRows((prev) => [...[...incoming].reverse(), ...prev].slice(0, MAX_TAIL_ROWS));
    }, (e) => {
      if (e !== '') setError(e);
      setTail((cur) => (cur === t ? null : cur));
    });
    setTail(t);
  };
  useEffect(() => () => tail?.stop(), [tail]);

  const copyCurl = async () => {
    const url = new URL(apiUrl(tenantPath(tenant, 'select/logsql/query'), { query: urlQuery, ...resolved, limit }), location.origin).toString();
    const text = `curl -s -H 'Authorization: Bearer <your API key>' '${url.replace(/'/g, "'\\''")}'`;
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied curl command');
    } catch {
      setCopied(text);
    }
  };

  return (
    <div class="page-body explore">
      <div class="toolbar">
        <CodeEditor value={draft} onChange={setDraft} onRun={run} label="Query" language={language}
          placeholder="LogsQL: error service:checkout | stats by (level) count()" onView={(v) => { editor.current = v; }} />
        <TimePicker range={range} onChange={setRange} />
        <button type="button" class="primary" onClick={() => run(draft)} disabled={tail !== null}>Run query</button>
        <button type="button" aria-pressed={tail !== null} onClick={toggleTail}>Live tail</button>
        {tail && (
          <button type="button" onClick={() => {
            if (paused) tail.resume(); else tail.pause();
            setPaused(!paused);
          }}>{paused ? 'Resume' : 'Pause'}</button>
        )}
      </div>
      <AskBar tenant={tenant} range={resolved} onLogs={(a) => setParams({ query: a.query, start: a.start, end: a.end }, { push: true })} />
      <div class="toolbar">
        <SaveSearch tenant={tenant} query={urlQuery} canWrite={canWrite(session)} onLoad={run} />
        <label class="field-inline">Limit
          <select aria-label="Limit" value={String(limit)} onChange={(e) => setParams({ limit: e.currentTarget.value })}>
            {LIMITS.map((l) => <option key={l} value={l}>{l}</option>)}
          </select>
        </label>
        <button type="button" onClick={() => void copyCurl()}>Copy as curl</button>
        <button type="button" onClick={() => setExplaining('rca')} disabled={tail !== null}
          title="What sets these entries apart from the same length of time before">Explain</button>
        <button type="button" onClick={() => setExplaining('deep')} disabled={tail !== null}
          title="Suspect services across logs, traces and metrics in this range">Deep analysis</button>
        {copied !== '' && <span class="muted mono" role="status" style={{ maxWidth: '40vw', overflow: 'hidden', textOverflow: 'ellipsis' }}>{copied}</span>}
        <span class="spacer" />
        <span class="muted" role="status" aria-live="polite">
          {tail ? `${paused ? 'Paused' : 'Tailing'} · ${rows.length.toLocaleString()} entries` : busy ? 'Searching…' : `${rows.length.toLocaleString()} entries${rows.length >= limit ? ` (limit ${limit})` : ''}`}
        </span>
      </div>
      {busy && <div class="progress" role="progressbar" aria-label="Searching" />}
      <ErrorNote error={error} onClose={() => setError('')} />
      {!tail && <Histogram tenant={tenant} query={urlQuery} range={resolved} runId={runId} onZoom={zoom} />}
      <div class="explore-main">
        <Facets tenant={tenant} query={urlQuery} range={resolved} runId={runId} onPick={addFilter} />
        <ResultsTable rows={rows} selected={open?.index ?? -1} onOpen={(row, index) => setOpen({ row, index })}
          emptyText={busy || error !== '' ? '' : tail ? 'Waiting for new entries…' : 'No entries match this query in this time range.'} />
      </div>
      {explaining && (
        <ExplainDrawer tenant={tenant} query={urlQuery} range={resolved} deep={explaining === 'deep'} onClose={() => setExplaining(null)}
          onShow={(q) => { setExplaining(null); setParams({ query: q, start: resolved.start, end: resolved.end }, { push: true }); }} />
      )}
      {open && <RowDrawer tenant={tenant} row={open.row} onClose={() => setOpen(null)} onFilter={(f) => { setOpen(null); addFilter(f); }} />}
    </div>
  );
}
