// One panel on the dashboard grid (DESIGN §7 Dashboards): its title, what it draws, and while the dashboard is
// being edited the controls to move it (swap with a neighbour), resize it, edit it in the drawer or remove it.
// Every control is a button named after the panel ("Move Errors left"), so the grid is arranged by keyboard as
// well as by mouse; a move that would change nothing is disabled.
import { hrefOf } from '../../lib/route';
import { PanelBody } from './PanelBody';
import { movePanel, resizePanel, sameLayout, typeLabel, type Move, type Panel, type Resize } from './panels';
import type { Range } from './dashboards-api';
import type { TimeRange } from '../../lib/time';

export const ROW_PX = 56;
export const GAP_PX = 8;
const CHROME_PX = 44;

export interface PanelFrameProps {
  tenant: string;
  panel: Panel;
  panels: Panel[];
  range: Range;
  /** The dashboard's range as the URL holds it, for the links into Explore and Metrics. */
  urlRange: TimeRange;
  runId: number;
  editing: boolean;
  onZoom: (startMs: number, endMs: number) => void;
  onLayout: (panels: Panel[]) => void;
  onEdit: () => void;
  onRemove: () => void;
}

const MOVES: readonly { dir: Move; glyph: string }[] = [
  { dir: 'left', glyph: '←' }, { dir: 'up', glyph: '↑' }, { dir: 'down', glyph: '↓' }, { dir: 'right', glyph: '→' },
];
const SIZES: readonly { how: Resize; glyph: string }[] = [
  { how: 'narrower', glyph: 'W−' }, { how: 'wider', glyph: 'W+' }, { how: 'shorter', glyph: 'H−' }, { how: 'taller', glyph: 'H+' },
];

/** Where the panel's query opens on its own: Metrics for PromQL, Explore for LogsQL. */
function openHref(p: Panel, r: TimeRange): string {
  return p.type === 'promql'
    ? hrefOf('metrics', { expr: p.query, start: r.start, end: r.end })
    : hrefOf('explore', { query: p.query, start: r.start, end: r.end });
}

export function PanelFrame({ tenant, panel, panels, range, urlRange, runId, editing, onZoom, onLayout, onEdit, onRemove }: PanelFrameProps) {
  const height = panel.h * ROW_PX + (panel.h - 1) * GAP_PX - CHROME_PX;
  const arrange = (next: Panel[]) => {
    if (!sameLayout(next, panels)) onLayout(next);
  };
  const name = panel.title === '' ? 'panel' : panel.title;
  return (
    <section class={`dash-panel${editing ? ' editing' : ''}`} aria-label={name}
      style={{ gridColumn: `${panel.x + 1} / span ${panel.w}`, gridRow: `${panel.y + 1} / span ${panel.h}` }}>
      <header class="dash-panel-head">
        <strong class="dash-panel-title" title={panel.query}>{panel.title}</strong>
        <span class="tag">{typeLabel(panel.type)}</span>
        <span class="spacer" />
        {editing ? (
          <div class="panel-tools" role="group" aria-label={`Arrange ${name}`}>
            {MOVES.map((m) => (
              <button key={m.dir} type="button" class="ghost small" aria-label={`Move ${name} ${m.dir}`} title={`Move ${m.dir}`}
                disabled={sameLayout(movePanel(panels, panel.id, m.dir), panels)} onClick={() => arrange(movePanel(panels, panel.id, m.dir))}>{m.glyph}</button>
            ))}
            <span class="tool-sep" aria-hidden="true" />
            {SIZES.map((s) => (
              <button key={s.how} type="button" class="ghost small" aria-label={`Make ${name} ${s.how}`} title={`Make ${s.how}`}
                disabled={sameLayout(resizePanel(panels, panel.id, s.how), panels)} onClick={() => arrange(resizePanel(panels, panel.id, s.how))}>{s.glyph}</button>
            ))}
            <span class="tool-sep" aria-hidden="true" />
            <button type="button" class="small" aria-label={`Edit ${name}`} onClick={onEdit}>Edit</button>
            <button type="button" class="small danger" aria-label={`Remove ${name}`} onClick={onRemove}>Remove</button>
          </div>
        ) : (
          <a class="small muted" href={openHref(panel, urlRange)} aria-label={`Open ${name} in ${panel.type === 'promql' ? 'Metrics' : 'Explore'}`}>Open ↗</a>
        )}
      </header>
      <div class="dash-panel-body">
        <PanelBody tenant={tenant} panel={panel} range={range} runId={runId} height={height} onZoom={onZoom} />
      </div>
    </section>
  );
}
