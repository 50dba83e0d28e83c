// Replays (DESIGN §7): the recorded browser sessions in a time range (`GET …/replays`, src/query/replay-api.ts),
// each with its RUM error count, and one session in the rrweb player (`?session=<id>`) beside its errors.
// The range and the open session live in the URL. rrweb itself loads only when a session opens (Player.tsx).
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { PageProps } from '../../pages';
import { TimePicker } from '../../components/TimePicker';
import { ErrorNote } from '../../components/ErrorNote';
import { hrefOf, setParams } from '../../lib/route';
import { apiRange, formatTime, utcDisplay, type TimeRange } from '../../lib/time';
import { useStore } from '../../lib/store';
import { SessionView } from './SessionView';
import { clock, errorCounts, listSessions, type SessionSummary } from './replays-api';
import './replays.css';

/** Sessions are fewer and longer-lived than log lines: the list opens on the last day. */
const DEFAULT_START = 'now-24h';

export default function ReplaysPage({ tenant, params }: PageProps) {
  useStore(utcDisplay);
  const sessionId = params.get('session') ?? '';
  if (sessionId !== '') {
    const back = new URLSearchParams(params);
    back.delete('session');
    back.delete('t');
    back.delete('at');
    return <SessionView tenant={tenant} sessionId={sessionId} offset={params.get('t') ?? ''} at={params.get('at') ?? ''} backHref={hrefOf('replays', back)} />;
  }
  return <SessionList tenant={tenant} params={params} />;
}

function SessionList({ tenant, params }: { tenant: string; params: URLSearchParams }) {
  const range: TimeRange = { start: params.get('start') ?? DEFAULT_START, end: params.get('end') ?? 'now' };
  const [runId, setRunId] = useState(0);
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [counts, setCounts] = useState<Map<string, number> | null>(null);
  const [error, setError] = useState<unknown>('');
  const [busy, setBusy] = useState(false);
  const resolved = useMemo(() => apiRange(range), [range.start, range.end, runId]);

  useEffect(() => {
    const ctl = new AbortController();
    setBusy(true);
    setError('');
    listSessions(tenant, resolved, ctl.signal).then((s) => {
      setSessions(s);
      setBusy(false);
    }, (e: unknown) => {
      if (ctl.signal.aborted) return;
      setSessions([]);
      setError(e);
      setBusy(false);
    });
    // Error counts are a second, independent read: the list shows without them when it fails.
    setCounts(null);
    errorCounts(tenant, resolved, ctl.signal).then(setCounts, () => setCounts(new Map()));
    return () => ctl.abort();
  }, [tenant, resolved]);

  const setRange = (r: TimeRange) => {
    setParams({ start: r.start, end: r.end }, { push: true });
    setRunId((n) => n + 1);
  };

  return (
    <div class="page-body replays">
      <div class="toolbar">
        <h1 class="replays-title">Session replays</h1>
        <span class="spacer" />
        <span class="muted" role="status" aria-live="polite">{busy ? 'Loading…' : sessions ? `${sessions.length} sessions` : ''}</span>
        <TimePicker range={range} onChange={setRange} />
        <button type="button" onClick={() => setRunId((n) => n + 1)}>Refresh</button>
      </div>
      {busy && <div class="progress" role="progressbar" aria-label="Loading sessions" />}
      <ErrorNote error={error} onClose={() => setError('')} />
      {sessions && sessions.length === 0 && !busy && error === '' && (
        <div class="card muted empty">
          No sessions recorded in this range. Pages record with the browser SDK (web/sdk), which uploads rrweb events
          to <span class="mono">POST /v1/rum/replay</span>.
        </div>
      )}
      {sessions && sessions.length > 0 && (
        <div class="session-results">
          <table aria-label="Sessions">
            <thead>
              <tr>
                <th scope="col">Session</th><th scope="col">Start</th><th scope="col" class="num">Length</th><th scope="col">User</th>
                <th scope="col">Page</th><th scope="col" class="num">Events</th><th scope="col" class="num">Errors</th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => {
                const errors = counts?.get(s.session_id) ?? 0;
                return (
                  <tr key={s.session_id} class={errors > 0 ? 'lvl-row-error' : ''}>
                    <td class="mono"><a href={hrefOf('replays', new URLSearchParams([...params, ['session', s.session_id]]))}>{s.session_id}</a></td>
                    <td class="mono nowrap">{formatTime(Date.parse(s.start))}</td>
                    <td class="num mono">{clock(Date.parse(s.end) - Date.parse(s.start))}</td>
                    <td>{s.user || <span class="muted">—</span>}</td>
                    <td class="mono session-page-cell" title={s.page}>{s.page || <span class="muted">—</span>}</td>
                    <td class="num">{s.events.toLocaleString()}</td>
                    <td class={`num${errors > 0 ? ' error-count' : ''}`}>{counts ? errors : '…'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
