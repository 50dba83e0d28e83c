// What a dashboard panel draws (DESIGN §7 Dashboards): LogsQL hits as bars over the shared range (`hits`),
// LogsQL `| stats` rows as a table or as bars (`select/logsql/query`), PromQL as lines (`query_range`, the
// graph and legend of the Metrics page). Each asks again when the range, the query or the refresh changes.
import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { TimeChart } from '../../components/TimeChart';
import { SeriesGraph } from '../metrics/SeriesGraph';
import { queryRange, toChart } from '../metrics/prom-api';
import { useReply } from '../metrics/use-reply';
import { hitsStep, logHits, logRows, type Range } from './dashboards-api';
import type { Panel } from './panels';

export interface BodyProps {
  tenant: string;
  panel: Panel;
  range: Range;
  runId: number;
  /** Pixels the body may fill. */
  height: number;
  onZoom: (startMs: number, endMs: number) => void;
}

const STATS_LIMIT = 1000;

function HitsBody({ tenant, panel, range, runId, height, onZoom }: BodyProps) {
  const reply = useReply(async (signal) => {
    const startMs = Date.parse(range.start);
    const endMs = Date.parse(range.end);
    const { step, ms } = hitsStep(endMs - startMs);
    const r = await logHits(tenant, panel.query, range, step, signal);
    // Every bucket of the range is drawn, empty ones at zero, so quiet stretches read as such.
    const times: number[] = [];
    for (let t = Math.floor(startMs / ms) * ms; t < endMs; t += ms) times.push(t / 1000);
    const counts = new Map<number, number>();
    let total = 0;
    for (const s of r.hits) {
      total += s.total;
      s.timestamps.forEach((ts, i) => {
        const at = (Math.floor(Date.parse(ts) / ms) * ms) / 1000;
        counts.set(at, (counts.get(at) ?? 0) + (s.values[i] ?? 0));
      });
    }
    return { times, series: [{ label: 'hits', values: times.map((t) => counts.get(t) ?? 0) }], total, step };
  }, [tenant, panel.query, range.start, range.end, runId]);
  const d = reply.data;
  const chart = useMemo(() => d && (
    <TimeChart times={d.times} series={d.series} kind="bars" height={Math.max(60, height - 18)} label={`${panel.title} hits over time`} onZoom={onZoom} legend={false} />
  ), [d, height, panel.title, onZoom]);
  return (
    <Frame reply={reply} status={d ? `${d.total.toLocaleString()} hits · ${d.step} buckets` : ''}>{chart}</Frame>
  );
}

/** The last column whose every value reads as a number: what bars show. */
function valueColumn(columns: string[], rows: Record<string, unknown>[]): string | undefined {
  const numeric = columns.filter((c) => rows.every((r) => r[c] !== undefined && r[c] !== '' && Number.isFinite(Number(r[c]))));
  return numeric[numeric.length - 1];
}

const cell = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

function StatsBody({ tenant, panel, range, runId, height }: BodyProps) {
  const reply = useReply((signal) => logRows(tenant, panel.query, range, STATS_LIMIT, signal), [tenant, panel.query, range.start, range.end, runId]);
  const rows = reply.data ?? [];
  const columns = useMemo(() => {
    const seen = new Set<string>();
    for (const r of rows) for (const k of Object.keys(r)) seen.add(k);
    return [...seen];
  }, [rows]);
  const value = valueColumn(columns, rows);
  const asBars = panel.display === 'bars' && value !== undefined && rows.length > 0;
  const max = asBars ? Math.max(...rows.map((r) => Number(r[value]))) : 0;
  const labels = columns.filter((c) => c !== value);
  const status = reply.data ? `${rows.length.toLocaleString()} rows${rows.length >= STATS_LIMIT ? ` (first ${STATS_LIMIT})` : ''}` : '';
  return (
    <Frame reply={reply} status={status}>
      {reply.data && rows.length === 0 && <p class="muted">No rows in this range.</p>}
      {rows.length > 0 && (
        <div class="panel-scroll" style={{ maxHeight: `${height - 18}px` }}>
          {asBars ? (
            <table class="stat-bars" aria-label={`${panel.title} bars`}>
              <tbody>
                {rows.map((r, i) => (
                  <tr key={i}>
                    <td class="mono stat-label" title={labels.map((c) => `${c}=${cell(r[c])}`).join(' ')}>{labels.map((c) => cell(r[c])).join(' · ') || value}</td>
                    <td class="stat-bar-cell"><span class="stat-bar" style={{ width: `${max > 0 ? (Number(r[value]) / max) * 100 : 0}%` }} /></td>
                    <td class="num mono">{cell(r[value])}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <table aria-label={`${panel.title} rows`}>
              <thead><tr>{columns.map((c) => <th key={c} class={c === value ? 'num' : ''}>{c}</th>)}</tr></thead>
              <tbody>
                {rows.map((r, i) => (
                  <tr key={i}>{columns.map((c) => <td key={c} class={`mono${c === value ? ' num' : ''}`}>{cell(r[c])}</td>)}</tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </Frame>
  );
}

function PromBody({ tenant, panel, range, runId, height, onZoom }: BodyProps) {
  const reply = useReply(async (signal) => {
    const { series, grid } = await queryRange(tenant, panel.query, range, signal);
    return toChart(series, grid);
  },
    [tenant, panel.query, range.start, range.end, runId]);
  const d = reply.data;
  const legend = d && d.series.length > 0 ? Math.min(44, 16 * Math.ceil(d.series.length / 3)) : 0;
  return (
    <Frame reply={reply} status="">
      {d && d.series.length === 0 && <p class="muted">No series in this range.</p>}
      {d && d.series.length > 0 && (
        <SeriesGraph times={d.times} series={d.series} height={Math.max(60, height - legend - 8)} label={panel.title} onZoom={onZoom} compact />
      )}
    </Frame>
  );
}

function Frame({ reply, status, children }: { reply: { busy: boolean; error: unknown }; status: string; children: ComponentChildren }) {
  return (
    <>
      {reply.busy && <div class="progress panel-progress" role="progressbar" aria-label="Loading panel" />}
      <ErrorNote error={reply.error} />
      {status !== '' && <div class="muted panel-status">{status}</div>}
      {children}
    </>
  );
}

export function PanelBody(props: BodyProps) {
  if (props.panel.type === 'logs_hits') return <HitsBody {...props} />;
  if (props.panel.type === 'logs_stats') return <StatsBody {...props} />;
  return <PromBody {...props} />;
}
