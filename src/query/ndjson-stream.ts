// A streamed read written as NDJSON (issue 12 item 5, DESIGN §4 `select/logsql/query`), the way VictoriaLogs answers
// /select/logsql/query: chunked, one entry per line, never the whole answer in memory. Backpressure runs end to end —
// the store reads its next chunk only once this one is handed to the socket and the socket's buffer has drained
// (`write()` returned false → wait for 'drain') — and a client that goes away aborts the read, which stops the
// engine's query.
//
// The status line waits for the first chunk, so an error the engine finds before any row (a bad regexp, say) still
// gets its proper status and body. After the first bytes the status cannot change: an error then destroys the socket,
// as VictoriaLogs does, so the client sees a cut-off chunked body instead of an answer that merely looks short.
import type { ServerResponse } from 'node:http';
import type { ChunkSink } from '../stores/telemetry/sql/dialect.js';
import { toJson } from './request-params.js';

const HEADERS = { 'Content-Type': 'application/stream+json; charset=utf-8', 'X-Accel-Buffering': 'no' };

/** A read that hands its rows to `onChunk` and stops when `signal` aborts (TelemetryStore.streamLogs). */
export type StreamedRead<T> = (onChunk: ChunkSink<T>, signal: AbortSignal) => Promise<void>;

export interface StreamOutcome {
  rows: number;
  /** The client closed the connection before the end; the read was stopped. */
  abandoned: boolean;
}

/**
 * Runs `read` and writes its rows to `res`. Throws what the read throws as long as nothing was written (the caller's
 * error reply applies); later errors are logged and end the response by destroying the socket.
 */
export async function sendNdjsonStream<T>(res: ServerResponse, read: StreamedRead<T>, log: (msg: string) => void): Promise<StreamOutcome> {
  const gone = new AbortController();
  const onClose = (): void => gone.abort();
  // 'close' before the response finished: the client went away (or the socket failed).
  res.once('close', onClose);
  let rows = 0;
  try {
    await read(async (chunk) => {
      if (gone.signal.aborted) return false;
      if (!res.headersSent) res.writeHead(200, HEADERS);
      rows += chunk.length;
      if (!res.write(chunk.map((r) => toJson(r) + '\n').join(''))) await drained(res, gone.signal);
      return !gone.signal.aborted;
    }, gone.signal);
  } catch (e) {
    if (!res.headersSent) throw e;
    log(`select/logsql/query: the stream failed after ${rows} rows and was cut off: ${e instanceof Error ? e.message : String(e)}`);
    res.destroy();
    return { rows, abandoned: false };
  } finally {
    res.off('close', onClose);
  }
  if (gone.signal.aborted) return { rows, abandoned: true };
  if (!res.headersSent) res.writeHead(200, HEADERS);
  res.end();
  return { rows, abandoned: false };
}

/** Resolves once the socket's buffer drained, or at once when the client is gone. */
function drained(res: ServerResponse, gone: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      gone.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    gone.addEventListener('abort', done, { once: true });
  });
}
