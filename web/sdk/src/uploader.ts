// Uploads replay chunks one at a time, in seq order, following the spec's client retry rules
// (interface-spec.md, Errors: "Client retry rules"): never retry 400/401/403/413; on 429 read `detail`
// first and stop on quota cases, else wait `retry_after`; back off exponentially on other 5xx; a 503
// whose detail names a feature is a plan gate, not an outage.

/** A chunk ready to send: its seq and the JSON body, encoded once. */
export interface PendingChunk {
  seq: number;
  body: Uint8Array<ArrayBuffer>;
  eventCount: number;
  /** Sent with `keepalive` so it survives the page going away (page hide / tab close). */
  urgent: boolean;
}

/** What the SDK reports when an upload does not succeed on the first try. */
export interface UploadFailure {
  seq: number;
  /** HTTP status, or 0 when the request never got an answer (network error, CORS refusal). */
  status: number;
  /** The reply's `detail`, the reply text, or the network error's message. */
  detail: string;
  /** What happens next: retried after `retryInMs`, this chunk dropped, or the whole recorder halted. */
  action: 'retry' | 'drop' | 'halt';
  retryInMs?: number;
}

export type Verdict = { action: 'ok' } | { action: 'retry'; delayMs: number } | { action: 'drop' } | { action: 'halt' };

/** Longest wait the SDK honours before a retry; a page rarely lives longer anyway. */
const MAX_RETRY_DELAY_MS = 5 * 60_000;

/**
 * The spec's retry table as a pure function of one reply. `attempt` counts from 1. `retryAfterS` is the
 * `Retry-After` header (readable cross-origin only when the server exposes it) or the body's
 * `retry_after`. `random` is the jitter source (0 ≤ r < 1).
 */
export function verdict(status: number, detail: string, retryAfterS: number | undefined, attempt: number, random: number): Verdict {
  if (status >= 200 && status < 300) return { action: 'ok' };
  const backoffMs = (retryAfterS !== undefined ? retryAfterS * 1000 : 2 ** attempt * 1000) + Math.floor(random * 250);
  const retry: Verdict = { action: 'retry', delayMs: Math.min(backoffMs, MAX_RETRY_DELAY_MS) };
  // 401/403: no key or a refused key; every later chunk would meet the same answer.
  if (status === 401 || status === 403) return { action: 'halt' };
  if (status === 429) {
    // Daily quota, overage ceiling or an expired trial: nothing clears before 00:00 UTC (429 details 2–3).
    return /quota|daily volume/i.test(detail) ? { action: 'halt' } : retry;
  }
  if (status === 503 && /not enabled/i.test(detail) && !/authentication/i.test(detail)) return { action: 'halt' }; // a plan gate
  if (status === 0 || status >= 500) return retry; // network errors and outages are transient
  return { action: 'drop' }; // 400, 413 and anything else this chunk cannot fix by waiting
}

export interface UploaderOptions {
  url: string;
  apiKey: string;
  /** Attempts per chunk before it is dropped (transient failures only). */
  maxAttempts: number;
  onFailure: (failure: UploadFailure) => void;
  /** Called once when a reply says no later upload can succeed (refused key, plan gate, quota). */
  onHalt: () => void;
  /** gzip bodies with CompressionStream where the browser has it (not for urgent sends). */
  compress: boolean;
}

/** Browsers cap the bodies of all in-flight `keepalive` requests together at 64 KiB. */
const KEEPALIVE_MAX_BYTES = 60 * 1024;

export class Uploader {
  private readonly queue: PendingChunk[] = [];
  private running: Promise<void> | null = null;
  /** Urgent chunks sent beside the queue because it was busy when the page went away. */
  private readonly beside = new Set<Promise<void>>();
  private halted = false;

  constructor(private readonly opts: UploaderOptions) {}

  get isHalted(): boolean {
    return this.halted;
  }

  enqueue(chunk: PendingChunk): void {
    if (this.halted) return;
    if (chunk.urgent && this.running !== null) {
      // The page may be gone before the queue gets to this chunk, so its request starts now; order does not
      // matter to the server, which keeps chunks by seq.
      const p = this.send(chunk).then(() => { this.beside.delete(p); });
      this.beside.add(p);
      return;
    }
    this.queue.push(chunk);
    void this.pump();
  }

  /** Resolves when every chunk so far has been sent, dropped or abandoned by a halt. */
  async drain(): Promise<void> {
    await Promise.all([this.pump(), ...this.beside]);
  }

  private pump(): Promise<void> {
    this.running ??= (async () => {
      try {
        for (let next = this.queue[0]; next !== undefined && !this.isHalted; next = this.queue[0]) {
          await this.send(next);
          this.queue.shift();
        }
        if (this.isHalted) this.queue.length = 0;
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Sends one chunk, retrying as the verdict says. */
  private async send(chunk: PendingChunk): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const reply = await this.post(chunk);
      const v = verdict(reply.status, reply.detail, reply.retryAfterS, attempt, Math.random());
      if (v.action === 'ok') return;
      if (v.action === 'retry' && attempt < this.opts.maxAttempts) {
        this.opts.onFailure({ seq: chunk.seq, status: reply.status, detail: reply.detail, action: 'retry', retryInMs: v.delayMs });
        await new Promise((resolve) => setTimeout(resolve, v.delayMs));
        continue;
      }
      const action = v.action === 'halt' ? 'halt' : 'drop';
      this.opts.onFailure({ seq: chunk.seq, status: reply.status, detail: reply.detail, action });
      if (action === 'halt' && !this.halted) {
        this.halted = true;
        this.opts.onHalt();
      }
      return;
    }
  }

  private async post(chunk: PendingChunk): Promise<{ status: number; detail: string; retryAfterS?: number }> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': this.opts.apiKey };
    let body: BodyInit = chunk.body;
    const keepalive = chunk.urgent && chunk.body.byteLength <= KEEPALIVE_MAX_BYTES;
    // An urgent send must start before the page is frozen, so it skips the asynchronous compression.
    if (this.opts.compress && !chunk.urgent && typeof CompressionStream === 'function') {
      body = await new Response(new Blob([chunk.body]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
      headers['Content-Encoding'] = 'gzip';
    }
    try {
      // credentials 'omit': the key authenticates, so the server may answer CORS with a plain `*`.
      const res = await fetch(this.opts.url, { method: 'POST', headers, body, keepalive, credentials: 'omit', mode: 'cors' });
      const text = await res.text().catch(() => '');
      const parsed = parseReply(text);
      const retryAfterS = parseRetryAfter(res.headers.get('Retry-After')) ?? parsed.retryAfter;
      return { status: res.status, detail: parsed.detail ?? text.slice(0, 200), ...(retryAfterS === undefined ? {} : { retryAfterS }) };
    } catch (e) {
      return { status: 0, detail: e instanceof Error ? e.message : String(e) };
    }
  }
}

/** `detail` and `retry_after` of an error reply; a proxy's non-JSON reply yields neither (spec 429 detail 5). */
function parseReply(text: string): { detail?: string; retryAfter?: number } {
  try {
    const j: unknown = JSON.parse(text);
    if (typeof j !== 'object' || j === null) return {};
    const { detail, retry_after: retryAfter } = j as { detail?: unknown; retry_after?: unknown };
    return {
      ...(typeof detail === 'string' ? { detail } : {}),
      ...(typeof retryAfter === 'number' && retryAfter >= 0 ? { retryAfter } : {}),
    };
  } catch {
    return {};
  }
}

/** `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in seconds from now. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
