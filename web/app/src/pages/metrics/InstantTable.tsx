// The instant `query` result as a table (DESIGN §7 Metrics): one row per series, a column per label and the
// value as the API sent it (so NaN, +Inf and full precision read exactly). A range-vector expression
// (`x[5m]`) lists its samples; a scalar or string is one row.
import { formatTime } from '../../lib/time';
import type { InstantResult, Labels } from './prom-api';

function labelColumns(metrics: Labels[]): string[] {
  const names = new Set<string>();
  for (const m of metrics) for (const k of Object.keys(m)) names.add(k);
  const sorted = [...names].filter((k) => k !== '__name__').sort();
  return names.has('__name__') ? ['__name__', ...sorted] : sorted;
}

export function InstantTable({ result }: { result: InstantResult }) {
  if (result.resultType === 'scalar' || result.resultType === 'string') {
    return (
      <table aria-label="Instant values">
        <thead><tr><th>Type</th><th class="num">Value</th></tr></thead>
        <tbody><tr><td>{result.resultType}</td><td class="num mono">{result.result[1]}</td></tr></tbody>
      </table>
    );
  }
  const rows: { metric: Labels; values: [number, string][] }[] = result.resultType === 'vector'
    ? result.result.map((r) => ({ metric: r.metric, values: [r.value] }))
    : result.result;
  const metrics = rows.map((r) => r.metric);
  if (metrics.length === 0) return <p class="muted">No series match at this time.</p>;
  const columns = labelColumns(metrics);
  return (
    <table aria-label="Instant values" class="instant-table">
      <thead>
        <tr>
          {columns.map((c) => <th key={c}>{c}</th>)}
          <th class="num">Value</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={i}>
            {columns.map((c) => <td key={c} class="mono">{r.metric[c] ?? ''}</td>)}
            <td class="num mono">
              {result.resultType === 'vector'
                ? r.values[0]?.[1]
                : r.values.map(([t, v]) => <div key={t}>{v} <span class="muted">@ {formatTime(t * 1000)}</span></div>)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
