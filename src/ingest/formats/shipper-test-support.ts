// Test support for the shipper format tests: fixtures from test/fixtures/, a FormatRequest, and a
// RequestContext whose response records what a format's reply() wrote.
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FormatRequest } from '../format.js';
import type { RequestContext } from '../../front-doors/context.js';

/** 2024-06-01T00:00:00Z: the service clock of every format test. */
export const NOW_NS = BigInt(Date.UTC(2024, 5, 1)) * 1_000_000n;

/** A file under test/fixtures/ (the compiled file sits four levels below the repo root). */
export function fixture(path: string): Buffer {
  return readFileSync(new URL(`../../../../test/fixtures/${path}`, import.meta.url));
}

export function formatRequest(over: { path?: string; query?: string; headers?: IncomingHttpHeaders; nowNs?: bigint } = {}): FormatRequest {
  return { path: over.path ?? '/', query: new URLSearchParams(over.query ?? ''), headers: over.headers ?? {}, nowNs: over.nowNs ?? NOW_NS };
}

export interface Captured {
  status: number;
  headers: Record<string, string>;
  body: string;
  json(): unknown;
}

/** A context for handlers and reply(): `body` is the request body; the reply lands in the returned capture. */
export function fakeContext(method = 'POST', path = '/', body: Buffer | string = ''): { ctx: RequestContext; out: Captured } {
  const out: Captured = { status: 0, headers: {}, body: '', json: () => JSON.parse(out.body) as unknown };
  const res = {
    headersSent: false,
    setHeader(k: string, v: string) { out.headers[k.toLowerCase()] = v; },
    writeHead(status: number, headers: Record<string, string | number> = {}) {
      out.status = status;
      for (const [k, v] of Object.entries(headers)) out.headers[k.toLowerCase()] = String(v);
      return res;
    },
    end(text?: string) { out.body = text ?? ''; },
  };
  const req = Object.assign(Readable.from([Buffer.from(body)]), { headers: {}, method, url: path });
  const ctx: RequestContext = {
    req: req as unknown as IncomingMessage,
    res: res as unknown as ServerResponse,
    method,
    path,
    query: new URLSearchParams(),
    params: {},
  };
  return { ctx, out };
}
