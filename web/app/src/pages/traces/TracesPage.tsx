// Traces (DESIGN §7): search by service, span name, minimum duration and time range over
// `GET …/traces` (src/query/traces-api.ts), a results table, and one trace as a waterfall (`?trace=<id>`, the
// link Explore's `View trace` follows). The search lives in the URL (service, name, min_ms, start, end, limit),
// so a reload or a shared link shows the same results, and `← Traces` from a trace comes back to them.
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { PageProps } from '../../pages';
import { TimePicker } from '../../components/TimePicker';
import { ErrorNote } from '../../components/ErrorNote';
import { getJson, tenantPath } from '../../lib/api';
import { hrefOf, setParams } from '../../lib/route';
import { apiRange, formatDuration, formatTime, rangeFromParams, utcDisplay, type TimeRange } from '../../lib/time';
import { useStore } from '../../lib/store';
import { TraceView, searchHref } from './TraceView';
import { ns, nsToMs, searchTraces, serviceColour, type TraceSummary } from './traces-api';
import './traces.css';

const LIMITS = ['20', '100', '500'];

export default function TracesPage({ tenant, params }: PageProps) {
  useStore(utcDisplay);
  const traceId = params.get('trace') ?? '';
  if (traceId !== '') return <TraceView tenant={tenant} traceId={traceId} spanId={params.get('span') ?? ''} backHref={searchHref(params)} />;
  return <TraceSearchView tenant={tenant} params={params} />;
}

function TraceSearchView({ tenant, params }: { tenant: string; params: URLSearchParams }) {
  const service = params.get('service') ?? '';
  const name = params.get('name') ?? '';
  const minMs = params.get('min_ms') ?? '';
  const failed = params.get('status') === 'error';
  const limit = LIMITS.includes(params.get('limit') ?? '') ? Number(params.get('limit')) : 20;
  const range: TimeRange = rangeFromParams(params);
  const [draft, setDraft] = useState({ service, name, minMs });
  const [runId, setRunId] = useState(0);
  const [traces, setTraces] = useState<TraceSummary[] | null>(null);
  const [error, setError] = useState<unknown>('');
  const [busy, setBusy] = useState(false);
  const [knownServices, setKnownServices] = useState<string[]>([]);
  const resolved = useMemo(() => apiRange(range), [range.start, range.end, runId]);

  useEffect(() => setDraft({ service, name, minMs }), [service, name, minMs]);

  useEffect(() => {
    const ctl = new AbortController();
    setBusy(true);
    setError('');
    searchTraces(tenant, { service, name, minMs, failed, ...resolved, limit }, ctl.signal).then((t) => {
      setTraces(t);
      setBusy(false);
    }, (e: unknown) => {
      if (ctl.signal.aborted) return;
      setTraces([]);
      setError(e);
      setBusy(false);
    });
    return () => ctl.abort();
  }, [tenant, service, name, minMs, failed, resolved, limit]);

  // Services for completion: those that logged in the range (field_values on logs) and those in the results.
  useEffect(() => {
    const ctl = new AbortController();
    getJson<{ values: { value: string }[] }>(tenantPath(tenant, 'select/logsql/field_values'), {
      query: { query: '*', field: 'service', ...resolved, limit: 200 }, signal: ctl.signal,
    }).then((r) => setKnownServices(r.values.map((v) => v.value).filter((v) => v !== '')), () => setKnownServices([]));
    return () => ctl.abort();
  }, [tenant, resolved]);

  const serviceOptions = [...new Set([...(traces ?? []).map((t) => t.root_service), ...knownServices])].filter((s) => s !== '').sort();
  const nameOptions = [...new Set((traces ?? []).map((t) => t.root_name))].filter((s) => s !== '').sort();

  const search = (e: Event) => {
    e.preventDefault();
    const min = draft.minMs.trim();
    setParams({ service: draft.service.trim(), name: draft.name.trim(), min_ms: min }, { push: true });
    setRunId((n) => n + 1);
  };
  const setRange = (r: TimeRange) => {
    setParams({ start: r.start, end: r.end }, { push: true });
    setRunId((n) => n + 1);
  };
  const maxDuration = Math.max(1, ...(traces ?? []).map((t) => Number(ns(t.duration_ns))));

  return (
    <div class="page-body traces">
      <form class="toolbar" role="search" aria-label="Trace search" onSubmit={search}>
        <label class="field-inline">Service
          <input list="trace-services" value={draft.service} placeholder="any" aria-label="Service" autoComplete="off"
            onInput={(e) => setDraft({ ...draft, service: e.currentTarget.value })} />
        </label>
        <datalist id="trace-services">{serviceOptions.map((s) => <option key={s} value={s} />)}</datalist>
        <label class="field-inline">Span name
          <input list="trace-names" value={draft.name} placeholder="any" aria-label="Span name" autoComplete="off"
            onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })} />
        </label>
        <datalist id="trace-names">{nameOptions.map((s) => <option key={s} value={s} />)}</datalist>
        <label class="field-inline">Min duration
          <input type="number" min="0" step="any" class="min-ms" value={draft.minMs} placeholder="ms" aria-label="Min duration (ms)"
            onInput={(e) => setDraft({ ...draft, minMs: e.currentTarget.value })} />
          <span class="muted">ms</span>
        </label>
        <label class="field-inline">
          <input type="checkbox" checked={failed} onChange={(e) => setParams({ status: e.currentTarget.checked ? 'error' : undefined }, { push: true })} />
          Failed only
        </label>
        <TimePicker range={range} onChange={setRange} />
        <button type="submit" class="primary">Search</button>
        <span class="spacer" />
        <label class="field-inline">Limit
          <select aria-label="Limit" value={String(limit)} onChange={(e) => setParams({ limit: e.currentTarget.value })}>
            {LIMITS.map((l) => <option key={l} value={l}>{l}</option>)}
          </select>
        </label>
        <span class="muted" role="status" aria-live="polite">
          {busy ? 'Searching…' : traces ? `${traces.length} traces${traces.length >= limit ? ` (limit ${limit})` : ''}` : ''}
        </span>
      </form>
      {busy && <div class="progress" role="progressbar" aria-label="Searching" />}
      <ErrorNote error={error} onClose={() => setError('')} />
      {traces && traces.length === 0 && !busy && error === '' && (
        <div class="card muted empty">
          No traces match in this range. Spans arrive over OTLP (<span class="mono">POST /v1/traces</span>); a filter
          holds when one span of the trace has that service, that name and at least that duration.
        </div>
      )}
      {traces && traces.length > 0 && (
        <div class="trace-results">
          <table aria-label="Traces">
            <thead>
              <tr>
                <th scope="col">Start</th><th scope="col">Root service</th><th scope="col">Root name</th>
                <th scope="col" class="num">Duration</th><th scope="col" class="num">Spans</th><th scope="col" class="num">Errors</th>
              </tr>
            </thead>
            <tbody>
              {traces.map((t) => {
                const dur = Number(ns(t.duration_ns));
                const href = hrefOf('traces', new URLSearchParams([...params, ['trace', t.trace_id]]));
                return (
                  <tr key={t.trace_id} class={t.error_count > 0 ? 'lvl-row-error' : ''}>
                    <td class="mono nowrap">{formatTime(nsToMs(ns(t.start_ns)))}</td>
                    <td><span class="wf-swatch" style={{ background: serviceColour(t.root_service) }} aria-hidden="true" />{t.root_service || '(no service)'}</td>
                    <td><a href={href} title={t.trace_id}>{t.root_name || '(unnamed)'}</a></td>
                    <td class="num nowrap">
                      <span class="dur-bar" style={{ width: `${Math.max(2, (dur / maxDuration) * 80).toFixed(1)}px` }} aria-hidden="true" />
                      {formatDuration(dur)}
                    </td>
                    <td class="num">{t.span_count}</td>
                    <td class={`num${t.error_count > 0 ? ' span-status-error' : ''}`}>{t.error_count}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
