// Lines of a PromQL range result with a legend of the series' labels (DESIGN §7 Metrics: graph of
// `query_range`). Clicking a legend entry shows that series alone, clicking it again shows them all; dragging
// across the chart hands the selected range to `onZoom`. Used by the Metrics page and the PromQL dashboard
// panels. Isolating keeps every series in the chart with the others' values blanked, so each keeps its colour.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { TimeChart, colorOf, type ChartSeries } from '../../components/TimeChart';
import './metrics.css';

export interface SeriesGraphProps {
  times: number[];
  series: ChartSeries[];
  height: number;
  label: string;
  onZoom?: (startMs: number, endMs: number) => void;
  /** Smaller legend for dashboard panels. */
  compact?: boolean;
}

/** The last drawable value of a series, for the legend. */
function lastValue(values: (number | null)[]): string {
  for (let i = values.length - 1; i >= 0; i--) {
    const v = values[i];
    if (v !== null && v !== undefined) return Number.isInteger(v) ? String(v) : v.toPrecision(6).replace(/\.?0+$/, '');
  }
  return '';
}

export function SeriesGraph({ times, series, height, label, onZoom, compact = false }: SeriesGraphProps) {
  const [isolated, setIsolated] = useState<number | null>(null);
  useEffect(() => setIsolated(null), [series]);
  const shown = useMemo(() => (isolated === null ? series : series.map((s, i) => (
    i === isolated ? s : { label: s.label, values: s.values.map(() => null) }
  ))), [series, isolated]);
  return (
    <div class={`series-graph${compact ? ' compact' : ''}`}>
      <TimeChart times={times} series={shown} kind="lines" height={height} label={label} legend={false} {...(onZoom ? { onZoom } : {})} />
      <ul class="series-legend" aria-label={`${label} legend`}>
        {series.map((s, i) => (
          <li key={s.label} class={isolated !== null && isolated !== i ? 'dim' : ''}>
            <button type="button" class="legend-entry" aria-pressed={isolated === i} title={isolated === i ? 'Show every series' : 'Show only this series'}
              onClick={() => setIsolated(isolated === i ? null : i)}>
              <span class="swatch" style={{ background: colorOf(i) }} aria-hidden="true" />
              <span class="legend-label">{s.label}</span>
            </button>
            {!compact && <span class="muted num mono">{lastValue(s.values)}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
