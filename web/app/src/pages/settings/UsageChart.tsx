// The last 30 days of accepted bytes as bars stacked by signal (DESIGN §7 Settings → Usage). uPlot draws
// series over each other, so each series is drawn at its running total, tallest first; the legend and the
// cursor still show each signal's own bytes. Days are UTC days (metering counts per UTC day, DESIGN §6).
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { colorOf } from '../../components/TimeChart';
import { formatBytes } from '../../lib/time';
import { SIGNALS, type UsageDay } from './settings-api';

export function UsageChart({ days, height = 220 }: { days: UsageDay[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const css = getComputedStyle(document.documentElement);
    const axisColor = css.getPropertyValue('--muted').trim() || '#8a93a3';
    const gridColor = css.getPropertyValue('--border').trim() || '#2a303b';
    const times = days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000);
    const own = SIGNALS.map((s) => days.map((d) => d.by_signal[s] ?? 0));
    // Running totals: stacked[i] = signals 0..i summed; drawn last-to-first so every band stays visible.
    const stacked = own.map((_, i) => days.map((_d, j) => own.slice(0, i + 1).reduce((a, row) => a + (row[j] ?? 0), 0)));
    const order = SIGNALS.map((_, i) => SIGNALS.length - 1 - i);
    const axis: uPlot.Axis = { stroke: axisColor, grid: { stroke: gridColor, width: 1 }, ticks: { stroke: gridColor, width: 1 } };
    const bars = uPlot.paths.bars?.({ size: [0.8, 36], align: 0 });
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        { ...axis, values: (_u, splits) => splits.map((s) => new Date(s * 1000).toISOString().slice(5, 10)) },
        { ...axis, size: 70, values: (_u, splits) => splits.map((s) => formatBytes(s)) },
      ],
      series: [
        { label: 'Day (UTC)', value: (_u, v) => new Date(v * 1000).toISOString().slice(0, 10) },
        ...order.map((i): uPlot.Series => ({
          label: SIGNALS[i] ?? '',
          stroke: colorOf(i),
          fill: `${colorOf(i)}cc`,
          width: 0,
          points: { show: false },
          ...(bars ? { paths: bars } : {}),
          // The legend shows the signal's own bytes, not the running total it is drawn at.
          value: (_u, _v, _si, idx) => (idx === null ? '—' : formatBytes(own[i]?.[idx] ?? 0)),
        })),
      ],
    };
    const data: uPlot.AlignedData = [times, ...order.map((i) => stacked[i] ?? [])];
    const plot = new uPlot(opts, data, el);
    const observer = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [days, height]);
  const total = days.reduce((a, d) => a + d.bytes_accepted, 0);
  return <div ref={box} class="chart usage-chart" role="img" aria-label={`Daily usage by signal, last ${days.length} days, ${formatBytes(total)} in all`} />;
}
