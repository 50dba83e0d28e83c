// The waterfall of one trace (DESIGN §7 Traces): spans nested parent → child as a tree grid, each with a bar on
// the trace's shared time axis, coloured by service; error spans are marked in red. A row opens its span panel;
// ▸/▾ (or ←/→ on a focused row) folds a subtree. Rows are plain DOM: traces run to hundreds of spans, not 10k.
import { formatDuration } from '../../lib/time';
import { isError, serviceColour, type SpanRow, type TraceTree } from './traces-api';

const TICKS = [0, 0.25, 0.5, 0.75, 1];

export interface WaterfallProps {
  tree: TraceTree;
  selected: string;
  collapsed: ReadonlySet<string>;
  onSelect: (spanId: string) => void;
  onToggle: (spanId: string) => void;
}

export function Waterfall({ tree, selected, collapsed, onSelect, onToggle }: WaterfallProps) {
  const pct = (v: number) => `${Math.min(100, Math.max(0, (v / tree.totalNs) * 100)).toFixed(3)}%`;
  const onKey = (e: KeyboardEvent, row: SpanRow) => {
    const id = row.span.span_id;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onSelect(id);
    } else if (row.childCount > 0 && ((e.key === 'ArrowLeft' && !collapsed.has(id)) || (e.key === 'ArrowRight' && collapsed.has(id)))) {
      e.preventDefault();
      onToggle(id);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const el = e.currentTarget as HTMLElement;
      const next = (e.key === 'ArrowDown' ? el.nextElementSibling : el.previousElementSibling) as HTMLElement | null;
      next?.focus();
    }
  };
  return (
    <div class="waterfall" role="treegrid" aria-label="Waterfall" aria-rowcount={tree.rows.length}>
      <div class="wf-row wf-head" role="row">
        <span role="columnheader" class="wf-name">Span</span>
        <span role="columnheader" class="wf-timeline">
          {TICKS.map((t) => (
            <span key={t} class="wf-tick" style={{ left: `${t * 100}%` }}>{t === 0 ? '0' : formatDuration(t * tree.totalNs)}</span>
          ))}
        </span>
      </div>
      {tree.rows.map((row, i) => {
        const s = row.span;
        const err = isError(s);
        const open = !collapsed.has(s.span_id);
        const colour = serviceColour(s.service);
        const place = labelPlace(row.offsetNs / tree.totalNs, (row.offsetNs + row.durationNs) / tree.totalNs);
        return (
          <div key={s.span_id} role="row" tabIndex={0} aria-level={row.depth + 1} aria-rowindex={i + 1}
            aria-selected={selected === s.span_id} aria-expanded={row.childCount > 0 ? open : undefined}
            aria-label={`${s.service} ${s.name} ${formatDuration(row.durationNs)}${err ? ' error' : ''}`}
            class={`wf-row${selected === s.span_id ? ' selected' : ''}${err ? ' wf-error' : ''}`}
            onClick={() => onSelect(s.span_id)} onKeyDown={(e) => onKey(e, row)}>
            <span role="gridcell" class="wf-name" style={{ paddingLeft: `${row.depth * 14 + 4}px` }}>
              {row.childCount > 0 ? (
                <button type="button" class="ghost small wf-fold" tabIndex={-1} aria-label={open ? `Collapse ${s.name}` : `Expand ${s.name}`}
                  onClick={(e) => { e.stopPropagation(); onToggle(s.span_id); }}>{open ? '▾' : '▸'}</button>
              ) : <span class="wf-fold" />}
              <span class="wf-swatch" style={{ background: colour }} aria-hidden="true" />
              <span class="wf-service">{s.service || '(no service)'}</span>
              <span class="wf-op" title={s.name}>{s.name}</span>
              {err && <span class="wf-err-mark" title={s.status.message || 'error'}>error</span>}
              {!open && <span class="muted small-text">+{row.childCount}</span>}
            </span>
            <span role="gridcell" class="wf-timeline">
              {TICKS.slice(1, -1).map((t) => <span key={t} class="wf-grid" style={{ left: `${t * 100}%` }} />)}
              <span class="wf-bar" style={{ left: pct(row.offsetNs), width: `max(2px, ${pct(row.durationNs)})`, background: err ? 'var(--error)' : colour }} />
              <span class={`wf-dur${place.inside ? ' wf-dur-in' : ''}`} style={place.style}>{formatDuration(row.durationNs)}</span>
            </span>
          </div>
        );
      })}
    </div>
  );
}

/** The duration label sits after the bar, else before it, else inside its right end (a bar spanning the axis). */
function labelPlace(start: number, end: number): { inside: boolean; style: Record<string, string> } {
  const at = (v: number) => `${(Math.min(1, Math.max(0, v)) * 100).toFixed(3)}%`;
  if (end <= 0.85) return { inside: false, style: { left: `calc(${at(end)} + 4px)` } };
  if (start >= 0.15) return { inside: false, style: { right: `calc(${at(1 - start)} + 4px)` } };
  return { inside: true, style: { right: `calc(${at(1 - end)} + 4px)` } };
}
