// One entry opened: its JSON, the lines around it in its stream, and its trace when it has a `trace_id`.
import { useEffect, useState } from 'preact/hooks';
import { Drawer } from '../../components/Drawer';
import { JsonView } from '../../components/JsonView';
import { ErrorNote } from '../../components/ErrorNote';
import { hrefOf } from '../../lib/route';
import { formatTime, timeOfRow } from '../../lib/time';
import { levelClass, levelOf, searchLogs, textOf, type LogRow } from './explore-api';

const AROUND = 10;

export function RowDrawer({ tenant, row, onClose, onFilter }: { tenant: string; row: LogRow; onClose: () => void; onFilter: (f: string) => void }) {
  const [tab, setTab] = useState<'json' | 'context'>('json');
  const traceId = textOf(row.trace_id ?? row.traceId ?? row['trace.id']);
  const stream = textOf(row._stream);
  // A browser RUM entry names its session (OpenTelemetry `session.id`): its replay opens at this moment.
  const sessionId = textOf(row['session.id'] ?? row.session_id);
  const actions = (
    <>
      {sessionId !== '' && <a href={hrefOf('replays', { session: sessionId, at: textOf(row._time) })}>View replay</a>}
      {traceId !== '' && <a href={hrefOf('traces', { trace: traceId })}>View trace</a>}
    </>
  );
  return (
    <Drawer title="Log entry" onClose={onClose} actions={actions}>
      <div class="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === 'json'} onClick={() => setTab('json')}>JSON</button>
        <button type="button" role="tab" aria-selected={tab === 'context'} onClick={() => setTab('context')}>Context</button>
      </div>
      <div role="tabpanel" style={{ paddingTop: '8px' }}>
        {tab === 'json' && (
          <>
            <JsonView value={row} />
            {stream !== '' && stream !== '{}' && (
              <p><button type="button" class="small" onClick={() => onFilter(`_stream:${stream}`)}>Filter to this stream</button></p>
            )}
          </>
        )}
        {tab === 'context' && <Context tenant={tenant} row={row} stream={stream} />}
      </div>
    </Drawer>
  );
}

/** The entries just before and after the row in the same stream (VictoriaLogs `stream_context`, by two reads). */
function Context({ tenant, row, stream }: { tenant: string; row: LogRow; stream: string }) {
  const [lines, setLines] = useState<LogRow[] | null>(null);
  const [error, setError] = useState<unknown>('');
  const at = textOf(row._time);
  useEffect(() => {
    const ctl = new AbortController();
    const filter = stream !== '' && stream !== '{}' ? `_stream:${stream}` : '*';
    const t = timeOfRow(at);
    const wide = 86_400_000;
    // Before: newest first up to the row (inclusive, so the row itself is there); after: oldest first past it.
    const before = searchLogs(tenant, filter, { start: new Date(t - wide).toISOString(), end: new Date(t + 1).toISOString() }, AROUND + 1, ctl.signal);
    const after = searchLogs(tenant, `${filter} | sort by (_time) | limit ${AROUND}`, { start: new Date(t + 1).toISOString(), end: new Date(t + wide).toISOString() }, AROUND, ctl.signal);
    Promise.all([before, after]).then(([b, a]) => setLines([...[...a].reverse(), ...b]), (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    return () => ctl.abort();
  }, [tenant, stream, at]);
  if (error !== '') return <ErrorNote error={error} />;
  if (!lines) return <div class="progress" role="progressbar" aria-label="Loading context" />;
  return (
    <table aria-label="Context" class="context">
      <tbody>
        {lines.map((l, i) => {
          const same = textOf(l._time) === at && textOf(l._msg) === textOf(row._msg);
          const cls = levelClass(levelOf(l));
          return (
            <tr key={i} class={`${same ? 'current' : ''}${cls === '' ? '' : ` lvl-row-${cls}`}`} aria-current={same ? 'true' : undefined}>
              <td class="mono muted" style={{ whiteSpace: 'nowrap' }}>{formatTime(timeOfRow(l._time))}</td>
              <td class="mono">{textOf(l._msg)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
