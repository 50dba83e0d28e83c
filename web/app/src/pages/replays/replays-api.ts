// What the Replays page asks of the service (DESIGN §7 Replays: session list, rrweb player, jump from a RUM error).
//
// Sessions and their rrweb events come from the replay API (src/query/replay-api.ts), fed by web/sdk through
// `POST /v1/rum/replay`. RUM errors do not travel in replay chunks: a browser's OpenTelemetry SDK sends them as
// OTLP logs (src/ingest/formats/otlp-logs.ts: resource `telemetry.sdk.language` = webjs is the `rum` signal), and
// they are stored as log entries whose attributes stay flat fields. The session ties them to a recording: the
// OTel semantic convention `session.id` attribute (or a plain `session_id` field from other loggers) holds the
// replay SDK's session id. So a session's errors are a LogsQL query over the logs. Errors the recording carries
// itself (rrweb's console plugin, `rrweb/console@1` at level error) are read from the events.
import { getJson, getNdjson, tenantPath } from '../../lib/api';

export interface SessionSummary {
  session_id: string;
  start: string;
  end: string;
  chunks: number;
  events: number;
  page: string;
  user: string;
}

/** rrweb's eventWithTime, as far as this page reads it. */
export interface RrwebEvent {
  type: number;
  timestamp: number;
  data?: unknown;
}

export interface SessionReplay {
  session_id: string;
  chunks: number;
  page: string;
  user: string;
  events: RrwebEvent[];
}

export interface SessionError {
  /** Unix ms. */
  atMs: number;
  message: string;
  /** `exception.type`, the severity, or `console.error`. */
  kind: string;
  source: 'log' | 'recording';
  traceId: string;
  service: string;
}

export interface Range {
  start: string;
  end: string;
}

export const listSessions = async (tenant: string, range: Range, signal?: AbortSignal): Promise<SessionSummary[]> =>
  (await getJson<{ sessions: SessionSummary[] }>(tenantPath(tenant, 'replays'), { query: { ...range, limit: 500 }, ...(signal ? { signal } : {}) })).sessions;

export const getSession = (tenant: string, sessionId: string, signal?: AbortSignal): Promise<SessionReplay> =>
  getJson<SessionReplay>(tenantPath(tenant, `replays/${encodeURIComponent(sessionId)}`), signal ? { signal } : {});

const quote = (v: string): string => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** An entry that is an error: error or fatal severity, or an exception (OTel `exception.*`, `event.name`). */
const ERROR_FILTER = '(level:error OR level:fatal OR exception.type:* OR event.name:=exception)';

/** The LogsQL for one session's RUM errors, oldest first. */
export const sessionErrorsQuery = (sessionId: string): string =>
  `(session.id:=${quote(sessionId)} OR session_id:=${quote(sessionId)}) ${ERROR_FILTER} | sort by (_time)`;

/** The LogsQL for every log entry of a session (for Explore). */
export const sessionLogsQuery = (sessionId: string): string => `session.id:=${quote(sessionId)} OR session_id:=${quote(sessionId)}`;

const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

export async function sessionErrorLogs(tenant: string, sessionId: string, range: Range, signal?: AbortSignal): Promise<SessionError[]> {
  const rows = await getNdjson<Record<string, unknown>>(tenantPath(tenant, 'select/logsql/query'), {
    query: { query: sessionErrorsQuery(sessionId), ...range, limit: 500 }, ...(signal ? { signal } : {}),
  });
  return rows.map((r) => {
    const message = text(r['exception.message']) || text(r._msg);
    return {
      atMs: typeof r._time === 'string' ? Date.parse(r._time) : NaN,
      message: message === '' ? '(no message)' : message,
      kind: text(r['exception.type']) || text(r.severity) || 'error',
      source: 'log' as const,
      traceId: text(r.trace_id),
      service: text(r.service),
    };
  }).filter((e) => !Number.isNaN(e.atMs));
}

/** Per session id, how many RUM errors it logged in the range (one stats query for the whole list). */
export async function errorCounts(tenant: string, range: Range, signal?: AbortSignal): Promise<Map<string, number>> {
  const rows = await getNdjson<Record<string, unknown>>(tenantPath(tenant, 'select/logsql/query'), {
    query: { query: `(session.id:* OR session_id:*) ${ERROR_FILTER} | stats by (session.id, session_id) count() as errors`, ...range, limit: 10_000 },
    ...(signal ? { signal } : {}),
  });
  const counts = new Map<string, number>();
  for (const r of rows) {
    const id = text(r['session.id']) || text(r.session_id);
    if (id !== '') counts.set(id, (counts.get(id) ?? 0) + Number(r.errors ?? 0));
  }
  return counts;
}

/** rrweb's console plugin events at level error (EventType.Plugin = 6), when the page recorded with it. */
export function recordedErrors(events: readonly RrwebEvent[]): SessionError[] {
  const out: SessionError[] = [];
  for (const e of events) {
    if (e.type !== 6 || typeof e.data !== 'object' || e.data === null) continue;
    const d = e.data as { plugin?: unknown; payload?: { level?: unknown; payload?: unknown } };
    if (d.plugin !== 'rrweb/console@1' || d.payload?.level !== 'error') continue;
    const parts = Array.isArray(d.payload.payload) ? d.payload.payload.map((p) => text(p).replace(/^"|"$/g, '')) : [];
    out.push({ atMs: e.timestamp, message: parts.join(' ') || '(console.error)', kind: 'console.error', source: 'recording', traceId: '', service: '' });
  }
  return out;
}

/** `m:ss` (or `h:mm:ss`) of an offset in ms; `m:ss.t` with tenths when `tenths`. */
export function clock(ms: number, tenths = false): string {
  const t = Math.max(0, Math.floor(ms / 100));
  const s = Math.floor(t / 10);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = `${String(s % 60).padStart(2, '0')}${tenths ? `.${t % 10}` : ''}`;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}
