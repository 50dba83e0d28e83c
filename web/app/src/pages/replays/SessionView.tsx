// One recorded session (DESIGN §7 Replays; URL `/app/replays?session=<id>`): the player, and beside it the
// session's errors, each with a `Jump to` that seeks the replay to the error's moment. The moment shown is kept
// as `t=<ms into the recording>`; a link from elsewhere (a RUM error log in Explore) can name the moment as
// `at=<RFC 3339 or unix ms>` instead. Where errors come from: replays-api.ts.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { hrefOf, setParams } from '../../lib/route';
import { formatTime } from '../../lib/time';
import { Player, type Marker } from './Player';
import {
  clock, getSession, recordedErrors, sessionErrorLogs, sessionLogsQuery, type SessionError, type SessionReplay,
} from './replays-api';

/**
 * `Jump to` shows the page just after the error: the DOM changes of the task that threw are recorded a few ms
 * after the error's own time (rrweb emits mutations from a MutationObserver), and a replay seeked to an instant
 * shows only the events before it.
 */
const JUMP_SETTLE_MS = 100;

/** Errors are looked for this long either side of the recording (a page logs before rrweb starts, or on leaving). */
const MARGIN_MS = 60_000;

export interface SessionViewProps {
  tenant: string;
  sessionId: string;
  /** `t`: ms into the recording. */
  offset: string;
  /** `at`: a wall-clock moment, RFC 3339 or unix ms. */
  at: string;
  backHref: string;
}

export function SessionView({ tenant, sessionId, offset, at, backHref }: SessionViewProps) {
  const [replay, setReplay] = useState<SessionReplay | null>(null);
  const [error, setError] = useState<unknown>('');
  const [logErrors, setLogErrors] = useState<SessionError[] | null>(null);
  const [logError, setLogError] = useState<unknown>('');
  const [jump, setJump] = useState<{ offsetMs: number; seq: number } | null>(null);

  useEffect(() => {
    const ctl = new AbortController();
    setReplay(null);
    setError('');
    getSession(tenant, sessionId, ctl.signal).then(setReplay, (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    return () => ctl.abort();
  }, [tenant, sessionId]);

  const span = useMemo(() => {
    const times = (replay?.events ?? []).map((e) => e.timestamp);
    return times.length === 0 ? null : { startMs: Math.min(...times), endMs: Math.max(...times) };
  }, [replay]);

  const initialMs = useMemo(() => {
    if (offset !== '' && Number.isFinite(Number(offset))) return Number(offset);
    const when = /^\d+$/.test(at) ? Number(at) : Date.parse(at);
    return span && Number.isFinite(when) ? when - span.startMs : 0;
    // Read once per loaded session: later `t` changes come from the player itself.
  }, [span]);

  useEffect(() => {
    if (!span) return undefined;
    const ctl = new AbortController();
    setLogErrors(null);
    setLogError('');
    const range = { start: new Date(span.startMs - MARGIN_MS).toISOString(), end: new Date(span.endMs + MARGIN_MS).toISOString() };
    sessionErrorLogs(tenant, sessionId, range, ctl.signal).then(setLogErrors, (e: unknown) => {
      if (ctl.signal.aborted) return;
      setLogErrors([]);
      setLogError(e);
    });
    return () => ctl.abort();
  }, [tenant, sessionId, span]);

  const errors = useMemo(() => [...(logErrors ?? []), ...recordedErrors(replay?.events ?? [])].sort((a, b) => a.atMs - b.atMs), [logErrors, replay]);
  const offsetOf = (e: SessionError) => (span ? e.atMs - span.startMs : 0);
  const markers: Marker[] = useMemo(() => errors.map((e) => ({ offsetMs: offsetOf(e), label: e.message })), [errors, span]);
  const jumpTo = (e: SessionError) => {
    const offsetMs = Math.max(0, offsetOf(e) + JUMP_SETTLE_MS);
    setJump((j) => ({ offsetMs, seq: (j?.seq ?? 0) + 1 }));
  };
  const logsHref = span ? hrefOf('explore', {
    query: sessionLogsQuery(sessionId),
    start: new Date(span.startMs - MARGIN_MS).toISOString(), end: new Date(span.endMs + MARGIN_MS).toISOString(),
  }) : '';

  return (
    <div class="page-body session-view">
      <div class="toolbar">
        <a href={backHref}>← Replays</a>
        <h1 class="session-title">Session <span class="mono">{sessionId}</span></h1>
        <span class="spacer" />
        {logsHref !== '' && <a href={logsHref}>Logs for this session</a>}
      </div>
      <ErrorNote error={error} />
      {!replay && error === '' && <div class="progress" role="progressbar" aria-label="Loading session" />}
      {replay && !span && <div class="card muted">This session holds no rrweb events yet (its chunks arrived empty).</div>}
      {replay && span && (
        <>
          <div class="toolbar session-facts" role="group" aria-label="Session summary">
            <span><span class="muted">Start</span> <span class="mono">{formatTime(span.startMs)}</span></span>
            <span><span class="muted">Length</span> <span class="mono">{clock(span.endMs - span.startMs)}</span></span>
            {replay.user !== '' && <span><span class="muted">User</span> {replay.user}</span>}
            <span><span class="muted">Events</span> <span class="mono">{replay.events.length}</span></span>
            {replay.page !== '' && <span class="session-page" title={replay.page}><span class="muted">Page</span> <span class="mono">{replay.page}</span></span>}
          </div>
          <div class="session-main">
            <Player events={replay.events} markers={markers} jump={jump} initialMs={initialMs}
              onMoment={(ms) => setParams({ t: String(Math.round(ms)) })} />
            <aside class="session-errors" aria-label="Errors">
              <h3>Errors {logErrors && <span class="muted">({errors.length})</span>}</h3>
              <ErrorNote error={logError} />
              {!logErrors && <div class="progress" role="progressbar" aria-label="Loading errors" />}
              {logErrors && errors.length === 0 && (
                <p class="muted">
                  No errors. RUM errors are the browser's error logs (OTLP, <span class="mono">session.id</span> = this
                  session); console errors show when the page recorded with rrweb's console plugin.
                </p>
              )}
              <ol class="error-list">
                {errors.map((e, i) => {
                  const off = offsetOf(e);
                  const outside = e.atMs < span.startMs || e.atMs > span.endMs;
                  return (
                    <li key={i} class="error-item">
                      <div class="error-head">
                        <span class="mono muted" title={formatTime(e.atMs)}>{off < 0 ? '−' : '+'}{clock(Math.abs(off), true)}</span>
                        <span class="error-kind">{e.kind}</span>
                        <span class="spacer" />
                        <button type="button" class="small" aria-label={`Jump to ${clock(Math.max(0, off), true)}: ${e.message}`} onClick={() => jumpTo(e)}>Jump to</button>
                      </div>
                      <div class="error-msg mono" title={e.message}>{e.message}</div>
                      <div class="error-meta muted">
                        {e.source === 'recording' ? 'console, in the recording' : e.service || 'log'}
                        {outside && ' · outside the recording'}
                        {e.traceId !== '' && <> · <a href={hrefOf('traces', { trace: e.traceId })}>View trace</a></>}
                      </div>
                    </li>
                  );
                })}
              </ol>
            </aside>
          </div>
        </>
      )}
    </div>
  );
}
