// The last 30 days of accepted bytes as bars stacked by signal (DESIGN §7 Settings → Usage). uPlot draws
// series over each other, so each series is drawn at its running total, tallest first; the legend below (in the
// signals' own order, as the cards above) shows each signal's own bytes for the day under the cursor, or the
// period's totals. Days are UTC days (metering counts per UTC day, DESIGN §6).
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { colorOf } from '../../components/TimeChart';
import { formatBytes } from '../../lib/time';
import { theme } from '../../lib/prefs';
import { useStore } from '../../lib/store';
import { SIGNALS, type UsageDay } from './settings-api';

export function UsageChart({ days, height = 220 }: { days: UsageDay[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  // Axis and grid colours come from the theme's CSS variables: a theme change redraws.
  const mode = useStore(theme);
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    // Read from the chart's own box, which carries the theme too: the root's attribute changes only after
    // this effect has run (parents' effects run after their children's).
    const css = getComputedStyle(el);
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
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        { ...axis, values: (_u, splits) => splits.map((s) => new Date(s * 1000).toISOString().slice(5, 10)) },
        { ...axis, size: 70, values: (_u, splits) => splits.map((s) => formatBytes(s)) },
      ],
      series: [
        {},
        ...order.map((i): uPlot.Series => ({
          label: SIGNALS[i] ?? '',
          stroke: colorOf(i),
          fill: `${colorOf(i)}cc`,
          width: 0,
          points: { show: false },
          ...(bars ? { paths: bars } : {}),
        })),
      ],
      hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
    };
    const data: uPlot.AlignedData = [times, ...order.map((i) => stacked[i] ?? [])];
    const plot = new uPlot(opts, data, el);
    const observer = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [days, height, mode]);
  const total = days.reduce((a, d) => a + d.bytes_accepted, 0);
  const day = hover === null ? undefined : days[hover];
  const bytesOf = (s: (typeof SIGNALS)[number]) => (day ? day.by_signal[s] ?? 0 : days.reduce((a, d) => a + (d.by_signal[s] ?? 0), 0));
  return (
    <>
      <div ref={box} data-theme={mode} class="chart usage-chart" role="img" aria-label={`Daily usage by signal, last ${days.length} days, ${formatBytes(total)} in all`} />
      <div class="usage-legend" aria-live="off">
        <span class="usage-legend-day">{day ? `${day.day} (UTC)` : `All ${days.length} days`}</span>
        {SIGNALS.map((s, i) => (
          <span key={s}><span class="swatch" style={{ background: colorOf(i) }} /> {s} <strong class="num">{formatBytes(bytesOf(s))}</strong></span>
        ))}
        <span>total <strong class="num">{formatBytes(day ? day.bytes_accepted : total)}</strong></span>
      </div>
    </>
  );
}
