// A time-series chart on uPlot (the VictoriaMetrics vmui choice: small and fast). Bars for hit counts, lines for
// metric series; dragging across it selects a range, handed to `onZoom` (DESIGN §7: the histogram zooms by
// dragging).
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatTime, utcDisplay } from '../lib/time';
import { useStore } from '../lib/store';
import { theme } from '../lib/prefs';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

export interface TimeChartProps {
  /** Unix seconds, ascending, one per value. */
  times: number[];
  series: ChartSeries[];
  kind: 'bars' | 'lines';
  height?: number;
  label: string;
  onZoom?: (startMs: number, endMs: number) => void;
  legend?: boolean;
}

const PALETTE = ['#5aa9ff', '#4cc38a', '#f2c14e', '#ff6b6b', '#b48cff', '#3fd0d4', '#ff9f5a', '#e86bc2', '#9bd14c', '#8a93a3'];
export const colorOf = (i: number): string => PALETTE[i % PALETTE.length] ?? '#5aa9ff';

export function TimeChart({ times, series, kind, height = 160, label, onZoom, legend = kind === 'lines' }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const mode = useStore(theme); // axis and grid colours come from the theme: redraw when it changes
  const utc = useStore(utcDisplay);
  const zoom = useRef(onZoom);
  zoom.current = onZoom;
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const css = getComputedStyle(document.documentElement);
    const axisColor = css.getPropertyValue('--muted').trim() || '#8a93a3';
    const gridColor = css.getPropertyValue('--border').trim() || '#2a303b';
    const axis: uPlot.Axis = {
      stroke: axisColor, grid: { stroke: gridColor, width: 1 }, ticks: { stroke: gridColor, width: 1 },
    };
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height,
      legend: { show: legend },
      cursor: { drag: { x: true, y: false, setScale: false } },
      tzDate: utc ? (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') : (ts) => new Date(ts * 1000),
      scales: { x: { time: true } },
      axes: [{ ...axis }, { ...axis, size: 50 }],
      series: [
        { value: (_u, v) => formatTime(v * 1000) },
        ...series.map((s, i): uPlot.Series => ({
          label: s.label,
          stroke: colorOf(i),
          width: kind === 'bars' ? 0 : 1.5,
          fill: kind === 'bars' ? `${colorOf(i)}aa` : undefined,
          points: { show: false },
          spanGaps: false,
          ...(kind === 'bars' ? { paths: uPlot.paths.bars?.({ size: [0.85, 40] }) } : {}),
        })),
      ],
      hooks: {
        setSelect: [(u) => {
          if (u.select.width < 3 || zoom.current === undefined) return;
          const a = u.posToVal(u.select.left, 'x');
          const b = u.posToVal(u.select.left + u.select.width, 'x');
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          zoom.current(Math.round(a * 1000), Math.round(b * 1000));
        }],
      },
    };
    const data: uPlot.AlignedData = [times, ...series.map((s) => s.values)];
    const plot = new uPlot(opts, data, el);
    const observer = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [times, series, kind, height, legend, mode, utc]);
  return <div ref={box} class="chart" role="img" aria-label={label} />;
}
