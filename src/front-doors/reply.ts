// Writing replies. One handler turns a ServiceError into the body of its plane (STYLE.md habit 4):
// logs/traces carry `detail` + `error`, metrics `detail` only; 429s add `retry_after` and `Retry-After`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServiceError, errorBody, errors } from '../errors.js';

export type ErrorShape = 'logs' | 'metrics';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, headers);
  res.end();
}

export function sendError(
  res: ServerResponse, e: ServiceError, shape: ErrorShape, headers: Record<string, string> = {},
  /** Fields a format's clients read beside the spec's (Splunk's `text`/`code`); the spec's keys win. */
  extraFields: Record<string, string | number> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const extra: Record<string, string> = { ...headers };
  if (e.status === 429 && e.retryAfter !== undefined) extra['Retry-After'] = String(e.retryAfter);
  sendJson(res, e.status, { ...extraFields, ...errorBody(e, shape) }, extra);
}

/** Any thrown value as a ServiceError: unknown failures become a logged 500. */
export function asServiceError(e: unknown, log: (msg: string) => void): ServiceError {
  if (e instanceof ServiceError) return e;
  log(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return errors.internal();
}

/**
 * A body over the cap as received is cut off by the HTTP layer with plain text (spec, Errors 413;
 * DESIGN §6): the rest of the upload is not read, and the connection closes once the reply is out.
 */
export function sendPlainTooLarge(req: IncomingMessage, res: ServerResponse, limitBytes: number): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = `413 Request Entity Too Large: body exceeds ${limitBytes} bytes\n`;
  res.shouldKeepAlive = false;
  res.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), Connection: 'close' });
  // A lingering close: the reply goes out now, but the response ends (and the socket closes) only once the
  // rest of the upload has been read and thrown away (memory stays flat) or LINGER_MS pass. Ending at once
  // would close the socket under a client still writing its body, which then never reads the 413.
  res.write(text);
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    res.end(() => res.socket?.destroy());
  };
  const timer = setTimeout(finish, LINGER_MS);
  timer.unref();
  if (req.complete) finish();
  else {
    req.once('end', finish);
    req.once('close', finish);
    req.resume();
  }
}

const LINGER_MS = 5_000;
