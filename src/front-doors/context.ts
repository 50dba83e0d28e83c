// What every handler receives: the raw request and response plus the parsed path and query.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The path without the query string, percent-encoding left as sent. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Path parameters of the matched route (`tenant`, `id`, …). */
  params: Record<string, string | undefined>;
}

export type Handler = (ctx: RequestContext) => Promise<void>;

export function contextOf(req: IncomingMessage, res: ServerResponse): RequestContext {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return {
    req,
    res,
    method: req.method ?? 'GET',
    path: q >= 0 ? url.slice(0, q) : url,
    query: new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''),
    params: {},
  };
}
