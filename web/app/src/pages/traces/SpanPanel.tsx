// One span in a side panel (DESIGN §7 Traces: waterfall of one trace with span attributes): its status,
// timing and ids, its attributes, resource, events and links, and a way back to its logs in Explore.
import { Drawer } from '../../components/Drawer';
import { hrefOf } from '../../lib/route';
import { formatDuration, formatTime } from '../../lib/time';
import { KIND_NAMES, STATUS_NAMES, isError, logsHref, ns, nsToMs, serviceColour, valueText, type Attrs, type Span } from './traces-api';

export function SpanPanel({ span, traceStartNs, onClose }: { span: Span; traceStartNs: bigint; onClose: () => void }) {
  const start = ns(span.start_time_unix_nano);
  const end = ns(span.end_time_unix_nano);
  const err = isError(span);
  const actions = (
    <a href={logsHref(span.trace_id, start, end, span.span_id)} class="small-link">Logs for this span</a>
  );
  return (
    <Drawer title={span.name || '(unnamed span)'} onClose={onClose} actions={actions}>
      <dl class="span-facts">
        <dt>Service</dt>
        <dd><span class="wf-swatch" style={{ background: serviceColour(span.service) }} aria-hidden="true" /> {span.service || '(no service)'}</dd>
        <dt>Status</dt>
        <dd class={err ? 'span-status-error' : ''}>
          {STATUS_NAMES[span.status.code] ?? String(span.status.code)}
          {span.status.message !== '' && <span class="mono"> · {span.status.message}</span>}
        </dd>
        <dt>Kind</dt><dd>{KIND_NAMES[span.kind] ?? String(span.kind)}</dd>
        <dt>Duration</dt><dd class="mono">{formatDuration(Number(ns(span.duration_ns)))}</dd>
        <dt>Start</dt>
        <dd class="mono">{formatTime(nsToMs(start))} <span class="muted">(+{formatDuration(Number(start - traceStartNs))})</span></dd>
        <dt>Span ID</dt><dd class="mono">{span.span_id}</dd>
        <dt>Parent</dt><dd class="mono">{span.parent_span_id || <span class="muted">none (root)</span>}</dd>
        <dt>Trace ID</dt><dd class="mono">{span.trace_id}</dd>
      </dl>
      <h3>Attributes</h3>
      <AttrTable label="Attributes" attrs={span.attributes} />
      <h3>Resource</h3>
      <AttrTable label="Resource" attrs={span.resource} />
      <h3>Events</h3>
      {span.events.length === 0 ? <p class="muted">No events.</p> : (
        <table class="span-table" aria-label="Events">
          <thead><tr><th scope="col">At</th><th scope="col">Name</th><th scope="col">Attributes</th></tr></thead>
          <tbody>
            {span.events.map((e, i) => (
              <tr key={i}>
                <td class="mono nowrap">+{formatDuration(Number(ns(e.time_unix_nano) - start))}</td>
                <td class={e.name === 'exception' ? 'span-status-error' : ''}>{e.name}</td>
                <td class="mono">{Object.entries(e.attributes).map(([k, v]) => <div key={k}><span class="muted">{k}</span> {valueText(v)}</div>)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {span.links.length > 0 && (
        <>
          <h3>Links</h3>
          <ul class="span-links" aria-label="Links">
            {span.links.map((l, i) => (
              <li key={i} class="mono">
                <a href={hrefOf('traces', { trace: l.trace_id, span: l.span_id })}>{l.trace_id} / {l.span_id}</a>
                {Object.keys(l.attributes).length > 0 && <span class="muted"> {valueText(l.attributes)}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </Drawer>
  );
}

function AttrTable({ label, attrs }: { label: string; attrs: Attrs }) {
  const entries = Object.entries(attrs).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <p class="muted">None.</p>;
  return (
    <table class="span-table" aria-label={label}>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}><th scope="row" class="mono">{k}</th><td class="mono">{valueText(v)}</td></tr>
        ))}
      </tbody>
    </table>
  );
}
