// The two views of a PromQL expression on the Metrics page (DESIGN §7): Graph (`query_range`, a step that
// gives about 250 points over the range) and Table (the instant `query` at the range's end). Each view asks
// only when shown, and again when the expression, the range or the run changes. Errors show the API's words.
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import type { ChartSeries } from '../../components/TimeChart';
import { formatTime } from '../../lib/time';
import { formatStep, metricNames, queryInstant, queryRange, toChart, type InstantResult, type Range } from './prom-api';
import { SeriesGraph } from './SeriesGraph';
import { InstantTable } from './InstantTable';
import { useReply } from './use-reply';

interface ViewProps {
  tenant: string;
  expr: string;
  range: Range;
  /** Bumped when the same query is run again. */
  runId: number;
}

export function GraphView({ tenant, expr, range, runId, onZoom }: ViewProps & { onZoom: (s: number, e: number) => void }) {
  const reply = useReply(async (signal) => {
    const { series, step, grid } = await queryRange(tenant, expr, range, signal);
    return { ...toChart(series, grid), step };
  }, [tenant, expr, range.start, range.end, runId]);
  const data: { times: number[]; series: ChartSeries[]; step: number } | null = reply.data;
  return (
    <>
      {reply.busy && <div class="progress" role="progressbar" aria-label="Querying" />}
      <ErrorNote error={reply.error} />
      {data && (
        <div class="card metrics-result">
          <div class="muted metrics-status" role="status">
            {data.series.length.toLocaleString()} series · step {formatStep(data.step)} · drag to zoom
          </div>
          {data.series.length === 0
            ? <p class="muted">No series in this range. Try a wider time range, or check the metric name.</p>
            : <SeriesGraph times={data.times} series={data.series} height={320} label="Graph" onZoom={onZoom} />}
        </div>
      )}
    </>
  );
}

export function TableView({ tenant, expr, range, runId }: ViewProps) {
  const reply = useReply((signal) => queryInstant(tenant, expr, range.end, signal), [tenant, expr, range.end, runId]);
  const data: InstantResult | null = reply.data;
  const rows = data === null ? 0 : data.resultType === 'vector' || data.resultType === 'matrix' ? data.result.length : 1;
  return (
    <>
      {reply.busy && <div class="progress" role="progressbar" aria-label="Querying" />}
      <ErrorNote error={reply.error} />
      {data && (
        <div class="card metrics-result">
          <div class="muted metrics-status" role="status">
            {rows.toLocaleString()} {data.resultType === 'vector' || data.resultType === 'matrix' ? 'series' : data.resultType} at {formatTime(Date.parse(range.end))}
          </div>
          <div class="metrics-table"><InstantTable result={data} /></div>
        </div>
      )}
    </>
  );
}

/** With no expression yet: the tenant's metric names, each a click away from a graph. */
export function MetricPicker({ tenant, onPick }: { tenant: string; onPick: (name: string) => void }) {
  const [filter, setFilter] = useState('');
  const reply = useReply((signal) => metricNames(tenant, signal), [tenant]);
  const names = (reply.data ?? []).filter((n) => n.toLowerCase().includes(filter.toLowerCase()));
  return (
    <div class="card metrics-picker">
      <div class="toolbar">
        <strong>Metrics in this tenant</strong>
        <span class="muted">{reply.data ? `${reply.data.length.toLocaleString()} names` : ''}</span>
        <span class="spacer" />
        <input type="search" aria-label="Filter metric names" placeholder="Filter…" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </div>
      <ErrorNote error={reply.error} />
      {reply.data?.length === 0 && (
        <p class="muted">No metrics stored yet. Send some with Prometheus remote write, OTLP or the InfluxDB line protocol.</p>
      )}
      <ul class="metric-names" aria-label="Metric names">
        {names.slice(0, 300).map((n) => (
          <li key={n}><button type="button" class="ghost small mono" onClick={() => onPick(n)}>{n}</button></li>
        ))}
      </ul>
      {names.length > 300 && <p class="muted">{(names.length - 300).toLocaleString()} more; filter to narrow.</p>}
    </div>
  );
}
