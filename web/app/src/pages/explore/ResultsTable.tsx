// The matching entries (DESIGN §7: region `Results`, one `row` per entry): `_time`, `service`, level
// colouring and `_msg` for log rows; any other rows (stats pipes) as a plain table of their fields.
import { VirtualList } from '../../components/VirtualList';
import { formatTime, timeOfRow } from '../../lib/time';
import { levelClass, levelOf, textOf, type LogRow } from './explore-api';

const ROW_HEIGHT = 22;

export function ResultsTable({ rows, onOpen, selected, emptyText }: { rows: LogRow[]; onOpen: (row: LogRow, index: number) => void; selected: number; emptyText: string }) {
  const isLogRows = rows.length === 0 || rows.every((r) => '_msg' in r || '_time' in r);
  if (!isLogRows) return <StatsTable rows={rows} />;
  const header = (
    <div class="vrow vhead" aria-hidden="true">
      <span class="c-time">_time</span><span class="c-service">service</span><span class="c-level">level</span><span class="c-msg">_msg</span>
    </div>
  );
  return (
    <section class="results" aria-label="Results">
      <VirtualList items={rows} rowHeight={ROW_HEIGHT} label="Log entries" header={header} renderRow={(row, i) => {
        const level = levelOf(row);
        const cls = levelClass(level);
        return (
          <div key={i} role="row" aria-rowindex={i + 1} tabIndex={0} aria-selected={i === selected}
            class={`vrow${cls === '' ? '' : ` lvl-row-${cls}`}${i === selected ? ' selected' : ''}`}
            onClick={() => onOpen(row, i)} onKeyDown={(e) => { if (e.key === 'Enter') onOpen(row, i); }}>
            <span role="cell" class="c-time mono">{formatTime(timeOfRow(row._time))}</span>
            <span role="cell" class="c-service">{textOf(row.service)}</span>
            <span role="cell" class={`c-level lvl-${level}`}>{level}</span>
            <span role="cell" class="c-msg mono">{textOf(row._msg)}</span>
          </div>
        );
      }} />
      {rows.length === 0 && emptyText !== '' && <p class="muted empty-note">{emptyText}</p>}
    </section>
  );
}

function StatsTable({ rows }: { rows: LogRow[] }) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return (
    <section class="results results-table" aria-label="Results">
      <table aria-label="Stats">
        <thead><tr>{columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr></thead>
        <tbody>
          {rows.map((r, i) => <tr key={i}>{columns.map((c) => <td key={c} class="mono">{textOf(r[c])}</td>)}</tr>)}
        </tbody>
      </table>
    </section>
  );
}
