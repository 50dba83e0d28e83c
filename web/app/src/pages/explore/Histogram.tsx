// Hits over time for the current query (the `hits` API); dragging across the bars zooms the time range.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { TimeChart, type ChartSeries } from '../../components/TimeChart';
import { ErrorNote } from '../../components/ErrorNote';
import { isQueryError } from './explore-api';
import { logHits, stepFor, stepMs, type Range } from './explore-api';

export function Histogram({ tenant, query, range, runId, onZoom }: { tenant: string; query: string; range: Range; runId: number; onZoom: (s: number, e: number) => void }) {
  const [data, setData] = useState<{ times: number[]; series: ChartSeries[]; total: number } | null>(null);
  const [error, setError] = useState<unknown>('');
  useEffect(() => {
    const ctl = new AbortController();
    const startMs = Date.parse(range.start);
    const endMs = Date.parse(range.end);
    const step = stepFor(endMs - startMs);
    const width = stepMs(step);
    setError('');
    logHits(tenant, query, range, step, ctl.signal).then((reply) => {
      // Every bucket of the range is drawn, empty ones at zero, so gaps read as gaps.
      const first = Math.floor(startMs / width) * width;
      const times: number[] = [];
      for (let t = first; t < endMs; t += width) times.push(t / 1000);
      const counts = new Map<number, number>();
      let total = 0;
      for (const s of reply.hits) {
        total += s.total;
        s.timestamps.forEach((ts, i) => {
          const at = Math.floor(Date.parse(ts) / width) * width / 1000;
          counts.set(at, (counts.get(at) ?? 0) + (s.values[i] ?? 0));
        });
      }
      setData({ times, series: [{ label: 'hits', values: times.map((t) => counts.get(t) ?? 0) }], total });
    }, (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    return () => ctl.abort();
  }, [tenant, query, range.start, range.end, runId]);
  const chart = useMemo(() => data && (
    <TimeChart times={data.times} series={data.series} kind="bars" height={110} label="Hits over time" onZoom={onZoom} legend={false} />
  ), [data, onZoom]);
  // A bad query is already shown above the results, with its position; say it once.
  if (isQueryError(error)) return null;
  if (error !== '') return <ErrorNote error={error} />;
  return (
    <div class="histogram card" style={{ padding: '4px 8px' }}>
      <div class="muted" style={{ fontSize: '11px' }}>{data ? `${data.total.toLocaleString()} hits` : 'Counting…'} · drag to zoom</div>
      {chart}
    </div>
  );
}
