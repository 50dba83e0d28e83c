// One trace (DESIGN §7 Traces; URL `/app/traces?trace=<id>`, which Explore's `View trace` opens): a summary,
// the services in colour, the waterfall, and the selected span (`span=<id>` in the URL) in a side panel.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { hrefOf, setParams } from '../../lib/route';
import { formatDuration, formatTime } from '../../lib/time';
import { Waterfall } from './Waterfall';
import { SpanPanel } from './SpanPanel';
import { buildTree, getTrace, logsHref, nsToMs, serviceColour, type Span } from './traces-api';

export function TraceView({ tenant, traceId, spanId, backHref }: { tenant: string; traceId: string; spanId: string; backHref: string }) {
  const [spans, setSpans] = useState<Span[] | null>(null);
  const [error, setError] = useState<unknown>('');
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());

  useEffect(() => {
    const ctl = new AbortController();
    setSpans(null);
    setError('');
    setCollapsed(new Set());
    getTrace(tenant, traceId, ctl.signal).then((t) => setSpans(t.spans), (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    return () => ctl.abort();
  }, [tenant, traceId]);

  const tree = useMemo(() => buildTree(spans ?? [], collapsed), [spans, collapsed]);
  const full = useMemo(() => buildTree(spans ?? []), [spans]);
  const selected = spans?.find((s) => s.span_id === spanId);
  const root = full.rows[0]?.span;
  const errors = (spans ?? []).filter((s) => s.status.code === 2).length;
  const endNs = full.startNs + BigInt(full.totalNs);

  const toggle = (id: string) => {
    const next = new Set(collapsed);
    if (next.has(id)) next.delete(id); else next.add(id);
    setCollapsed(next);
  };

  return (
    <div class="page-body trace-view">
      <div class="toolbar">
        <a href={backHref}>← Traces</a>
        <h1 class="trace-title">{root ? `${root.service}: ${root.name}` : 'Trace'}</h1>
        <span class="mono muted">{traceId}</span>
        <span class="spacer" />
        {spans && <a href={logsHref(traceId, full.startNs, endNs)}>Logs for this trace</a>}
      </div>
      <ErrorNote error={error} />
      {!spans && error === '' && <div class="progress" role="progressbar" aria-label="Loading trace" />}
      {spans && (
        <>
          <div class="toolbar trace-facts" role="group" aria-label="Trace summary">
            <span><span class="muted">Start</span> <span class="mono">{formatTime(nsToMs(full.startNs))}</span></span>
            <span><span class="muted">Duration</span> <span class="mono">{formatDuration(full.totalNs)}</span></span>
            <span><span class="muted">Spans</span> <span class="mono">{spans.length}</span></span>
            <span class={errors > 0 ? 'span-status-error' : ''}><span class="muted">Errors</span> <span class="mono">{errors}</span></span>
            <span class="spacer" />
            <ul class="service-legend" aria-label="Services">
              {full.services.map((s) => (
                <li key={s.name}><span class="wf-swatch" style={{ background: serviceColour(s.name) }} aria-hidden="true" />{s.name || '(no service)'} <span class="muted">{s.spans}</span></li>
              ))}
            </ul>
          </div>
          <Waterfall tree={tree} selected={spanId} collapsed={collapsed} onToggle={toggle}
            onSelect={(id) => setParams({ span: id === spanId ? undefined : id })} />
        </>
      )}
      {selected && <SpanPanel span={selected} traceStartNs={full.startNs} onClose={() => setParams({ span: undefined })} />}
    </div>
  );
}

/** The search's URL without the trace: where `← Traces` goes. */
export function searchHref(params: URLSearchParams): string {
  const p = new URLSearchParams(params);
  p.delete('trace');
  p.delete('span');
  return hrefOf('traces', p);
}
