// Every call the app makes to the service. Same origin, so the session cookie rides along; every request
// carries `X-Requested-With: sightline`, which the service asks of cookie-authenticated writes (DESIGN §7, no
// cross-site writes). A 401 anywhere means the session is gone (aged out, signed out elsewhere): the app shows
// sign-in in place, keeping the URL, and carries on from there once signed in again.

export class ApiError extends Error {
  constructor(readonly status: number, readonly detail: string, readonly slug: string) {
    super(detail);
    this.name = 'ApiError';
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called on any 401 from the API (the session aged out or ended). */
export function onSignedOut(fn: Listener): () => void {
  signedOutListeners.add(fn);
  return () => signedOutListeners.delete(fn);
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  /** Leave a 401 to the caller (the sign-in form itself). */
  quiet401?: boolean;
}

export function apiUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

export async function request(path: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { 'X-Requested-With': 'sightline' };
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const init: RequestInit = { method: opts.method ?? 'GET', headers, credentials: 'same-origin' };
  if (body !== undefined) init.body = body;
  if (opts.signal) init.signal = opts.signal;
  const res = await fetch(apiUrl(path, opts.query), init);
  if (res.ok) return res;
  const problem = await errorOf(res);
  if (res.status === 401 && opts.quiet401 !== true) for (const fn of signedOutListeners) fn();
  throw problem;
}

/** The service's error bodies carry `detail` (and `error` on the logs plane); show the detail as sent. */
async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { detail?: unknown; error?: unknown };
    if (typeof body.detail === 'string') return new ApiError(res.status, body.detail, typeof body.error === 'string' ? body.error : '');
  } catch {
    // not JSON: fall through to the text
  }
  return new ApiError(res.status, text.trim() || `${res.status} ${res.statusText}`, '');
}

export async function getJson<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  return (await request(path, opts)).json() as Promise<T>;
}

export async function sendJson<T = unknown>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  const res = await request(path, { ...opts, method, body });
  if (res.status === 204) return undefined as T;
  return res.json() as Promise<T>;
}

/** NDJSON rows, read whole (search results). */
export async function getNdjson<T>(path: string, opts: RequestOptions = {}): Promise<T[]> {
  const text = await (await request(path, opts)).text();
  const rows: T[] = [];
  for (const line of text.split('\n')) if (line !== '') rows.push(JSON.parse(line) as T);
  return rows;
}

/** NDJSON kept open (live tail): calls `onRow` per line until the stream ends or `signal` aborts. */
export async function streamNdjson(path: string, onRow: (row: Record<string, unknown>) => void, opts: RequestOptions = {}): Promise<void> {
  const res = await request(path, opts);
  const reader = res.body?.getReader();
  if (!reader) return;
  const decoder = new TextDecoder();
  let pending = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    let nl = pending.indexOf('\n');
    while (nl >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim() !== '') onRow(JSON.parse(line) as Record<string, unknown>);
      nl = pending.indexOf('\n');
    }
  }
}

/** The tenant API prefix (DESIGN §4). */
export const tenantPath = (tenant: string, rest: string): string => `/api/v1/tenants/${encodeURIComponent(tenant)}/${rest}`;

export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));
