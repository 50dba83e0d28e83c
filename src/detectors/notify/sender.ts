// Posts one request and classifies the answer for the retry logic, as Alertmanager's notify.Retrier does for
// webhooks (2xx delivered, 5xx recoverable, other 4xx not), plus 408 and 429 as recoverable
// (STYLE.md habit 6: opentelemetry-js retries 429/502/503/504) and Retry-After honoured as a lower bound.
import type { OutgoingRequest } from './request.js';

export type SendResult =
  | { ok: true; status: number }
  | { ok: false; retryable: boolean; error: string; status?: number; retryAfterMs?: number };

export type Sender = (req: OutgoingRequest, signal?: AbortSignal) => Promise<SendResult>;

const USER_AGENT = 'Sightline-Notifier/1';
/** The receiver's reply is read up to this much, for the error text. */
const MAX_ERROR_BODY = 512;

/** Retry-After as seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const s = header.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** A Sender over fetch with a per-request timeout; the caller's signal aborts it too (service stop). */
export function httpSender(timeoutMs: number): Sender {
  return async (req, signal) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(req.url, {
        method: 'POST',
        headers: { ...req.headers, 'Content-Type': 'application/json', 'User-Agent': USER_AGENT },
        body: JSON.stringify(req.body),
        signal: combined,
      });
    } catch (e) {
      const why = timeout.aborted ? `timed out after ${timeoutMs} ms` : signal?.aborted ? 'aborted (service stopping)'
        : e instanceof Error ? (e.cause instanceof Error ? `${e.message}: ${e.cause.message}` : e.message) : String(e);
      return { ok: false, retryable: true, error: why };
    }
    const text = await res.text().catch(() => '');
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    const after = retryAfterMs(res.headers.get('retry-after'), Date.now());
    const body = text.trim().slice(0, MAX_ERROR_BODY);
    return {
      ok: false, retryable: isRetryableStatus(res.status), status: res.status,
      error: `HTTP ${res.status}${body ? `: ${body}` : ''}`, ...(after === undefined ? {} : { retryAfterMs: after }),
    };
  };
}
