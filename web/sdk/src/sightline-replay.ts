// Sightline session replay for the browser: records the page with rrweb, cuts the events into numbered
// chunks and uploads them to POST /v1/rum/replay (interface-spec.md, App plane paths) with an API key.
// No framework and no bundler: a page loads rrweb (the global from its UMD build, or `record` passed in
// from its ES module) and imports this file as an ES module. See ../README.md.
import { Uploader, type UploadFailure } from './uploader.js';

export type { UploadFailure } from './uploader.js';

/** The part of an rrweb event (`eventWithTime`) the SDK reads; the rest is uploaded untouched. */
export interface ReplayEvent {
  type: number;
  timestamp: number;
}

/** rrweb's `record`, as far as the SDK calls it; returns the function that stops recording. */
export type RecordFn = (options: { emit: (event: ReplayEvent, isCheckout?: boolean) => void }) => (() => void) | undefined;

export interface ReplayOptions {
  /** Base URL of the app front door (the ingest front door forwards /v1/rum/replay too). */
  endpoint: string;
  /** A key with scope `ingest`; it is visible to every visitor, so use a separate revocable one. */
  apiKey: string;
  /** 1–128 of [A-Za-z0-9._:-]; by default one is made per browser tab and kept across its page loads. */
  sessionId?: string;
  /** Upload what has been recorded at least this often (default 5000 ms). */
  flushIntervalMs?: number;
  /** Cut a chunk early once it holds this many events (default 1000) … */
  maxEventsPerChunk?: number;
  /** … or this many characters of event JSON (default 1 MiB; the server takes up to 16 MiB). */
  maxBytesPerChunk?: number;
  /** Stored with each chunk; by default the page's URL when the chunk is cut. */
  page?: string;
  user?: string;
  /** rrweb's record function; by default `window.rrweb.record` (rrweb's UMD build). */
  record?: RecordFn;
  /** Passed to rrweb.record as they are (maskAllInputs, blockClass, sampling, …). */
  recordOptions?: Record<string, unknown>;
  /** gzip uploads where the browser has CompressionStream (default true). */
  compress?: boolean;
  /** Attempts per chunk on transient failures (429 rate limits, 5xx, network) before it is dropped (default 6). */
  maxAttempts?: number;
  /** Sees every event as it is recorded (debugging, tests). */
  onEvent?: (event: ReplayEvent) => void;
  /** Every failed upload attempt; by default drops and halts are logged with console.warn. */
  onError?: (failure: UploadFailure) => void;
}

export interface ReplayRecorder {
  readonly sessionId: string;
  /** False once stopped, or halted by a reply no retry can fix (refused key, plan gate, quota). */
  readonly recording: boolean;
  /** Cuts a chunk of what is buffered and resolves when every chunk so far is uploaded or given up. */
  flush(): Promise<void>;
  /** Stops recording, uploads what is left, and removes every listener and timer. */
  stop(): Promise<void>;
}

/** The server's rule for session ids (src/ingest/formats/replay.ts). */
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const STORAGE_KEY = 'sightline.replay';

export function init(options: ReplayOptions): ReplayRecorder {
  const record = options.record ?? (globalThis as unknown as { rrweb?: { record?: RecordFn } }).rrweb?.record;
  if (typeof record !== 'function') {
    throw new Error('sightline replay: rrweb is not loaded; include rrweb before calling init(), or pass { record }');
  }
  if (options.sessionId !== undefined && !SESSION_ID.test(options.sessionId)) {
    throw new Error('sightline replay: sessionId must be 1-128 characters of [A-Za-z0-9._:-]');
  }
  const maxEvents = positive(options.maxEventsPerChunk, 1000);
  const maxChars = positive(options.maxBytesPerChunk, 1024 * 1024);
  const session = loadSession(options.sessionId);
  const onError = options.onError ?? ((f: UploadFailure) => {
    if (f.action !== 'retry') console.warn(`sightline replay: chunk ${f.seq} ${f.action === 'halt' ? 'refused, recording stopped' : 'dropped'}: ${f.status} ${f.detail}`);
  });

  // Events are serialized once, when recorded; a chunk body is spliced from those strings.
  let parts: string[] = [];
  let chars = 0;
  let stopped = false;
  let stopRecording: (() => void) | undefined;

  const uploader = new Uploader({
    url: options.endpoint.replace(/\/+$/, '') + '/v1/rum/replay',
    apiKey: options.apiKey,
    maxAttempts: positive(options.maxAttempts, 6),
    compress: options.compress ?? true,
    onFailure: onError,
    onHalt: () => shutDown(),
  });

  const cut = (urgent: boolean): void => {
    if (parts.length === 0 || uploader.isHalted) return;
    const seq = session.nextSeq++;
    saveSession(session);
    const page = options.page ?? location.href;
    const head = JSON.stringify({ session_id: session.id, seq, page, user: options.user ?? '' });
    const body = `${head.slice(0, -1)},"events":[${parts.join(',')}]}`;
    const eventCount = parts.length;
    parts = [];
    chars = 0;
    uploader.enqueue({ seq, body: new TextEncoder().encode(body), eventCount, urgent });
  };

  const emit = (event: ReplayEvent): void => {
    if (stopped) return;
    options.onEvent?.(event);
    const json = JSON.stringify(event);
    parts.push(json);
    chars += json.length;
    if (parts.length >= maxEvents || chars >= maxChars) cut(false);
  };

  // The page may be closed or frozen right after it is hidden: send what is buffered with keepalive.
  const onVisibility = (): void => {
    if (document.visibilityState === 'hidden') cut(true);
  };
  const onPageHide = (): void => cut(true);
  document.addEventListener('visibilitychange', onVisibility);
  window.addEventListener('pagehide', onPageHide);
  const timer = setInterval(() => cut(false), positive(options.flushIntervalMs, 5000));

  function shutDown(): void {
    if (stopped) return;
    stopped = true;
    stopRecording?.();
    clearInterval(timer);
    document.removeEventListener('visibilitychange', onVisibility);
    window.removeEventListener('pagehide', onPageHide);
    if (uploader.isHalted) parts = [];
  }

  try {
    stopRecording = record({ ...options.recordOptions, emit });
  } catch (e) {
    shutDown();
    throw e;
  }
  if (stopRecording === undefined) {
    shutDown();
    throw new Error('sightline replay: rrweb.record did not start (no DOM?)');
  }

  return {
    sessionId: session.id,
    get recording() {
      return !stopped;
    },
    flush() {
      cut(false);
      return uploader.drain();
    },
    stop() {
      shutDown();
      cut(false);
      return uploader.drain();
    },
  };
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

interface SessionState {
  id: string;
  nextSeq: number;
}

/**
 * The session and its next seq live in sessionStorage, so that a reload or a same-origin navigation in the
 * tab continues the session without reusing a seq (the server keeps one chunk per seq). Storage may be
 * unavailable (sandboxed frames, some private modes); the session then lasts as long as the page.
 */
function loadSession(explicit: string | undefined): SessionState {
  let saved: SessionState | undefined;
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    const j: unknown = raw === null ? undefined : JSON.parse(raw);
    if (isSessionState(j)) saved = j;
  } catch { /* no storage: a fresh session */ }
  if (explicit !== undefined) return { id: explicit, nextSeq: saved?.id === explicit ? saved.nextSeq : 0 };
  return saved ?? { id: newSessionId(), nextSeq: 0 };
}

function saveSession(s: SessionState): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
  } catch { /* see loadSession */ }
}

function isSessionState(v: unknown): v is SessionState {
  if (typeof v !== 'object' || v === null) return false;
  const { id, nextSeq } = v as { id?: unknown; nextSeq?: unknown };
  return typeof id === 'string' && SESSION_ID.test(id) && typeof nextSeq === 'number' && Number.isSafeInteger(nextSeq) && nextSeq >= 0;
}

/** 128 random bits in hex; getRandomValues works on plain-http pages where randomUUID does not exist. */
function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
