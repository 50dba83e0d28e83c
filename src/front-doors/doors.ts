// The two front doors: thin listeners that route by path (spec, Routing rules 1–5; DESIGN §1).
// A plane is anything that can serve a request it owns: in one process the plane object itself
// (an in-process dispatch), in split roles an HTTP forwarder to the other process (forward.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contextOf, type RequestContext } from './context.js';
import { sendJson } from './reply.js';
import { FORWARDED_TO_APP, normalizePath } from './routing-table.js';
import { errorBody, errors } from '../errors.js';

export interface Plane {
  /** Whether this plane serves the path (any method). */
  owns(path: string): boolean;
  handle(ctx: RequestContext): Promise<void>;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Ingest door: log/trace paths to the ingest plane; only the six exact paths on to the app plane (rule 3). */
export function ingestDoor(ingest: Plane, app: Plane, onError: (e: unknown) => void): RequestListener {
  return (req, res) => {
    const ctx = contextOf(req, res);
    const path = normalizePath(ctx.path);
    const plane = FORWARDED_TO_APP.has(path) ? app : ingest.owns(ctx.path) ? ingest : null;
    dispatch(ctx, plane, onError);
  };
}

/**
 * App door: app-plane paths to the app plane; log/trace paths handed to the ingest plane (rule 5); the web app
 * under /app/, and `GET /` from a browser redirected there (DESIGN §7).
 */
export function appDoor(app: Plane, ingest: Plane, onError: (e: unknown) => void, web?: WebDoor): RequestListener {
  return (req, res) => {
    const ctx = contextOf(req, res);
    if (web?.isBrowserRoot(ctx)) {
      res.writeHead(302, { Location: '/app/', 'Content-Length': 0 });
      res.end();
      return;
    }
    const plane = web?.plane.owns(ctx.path) ? web.plane : app.owns(ctx.path) ? app : ingest.owns(ctx.path) ? ingest : null;
    dispatch(ctx, plane, onError);
  };
}

/** The web app's part of the app door. */
export interface WebDoor {
  plane: Plane;
  isBrowserRoot(ctx: RequestContext): boolean;
}

/**
 * Browsers send RUM events (OTLP from webjs) and replay chunks cross-origin with an X-API-Key header, which
 * needs CORS: every reply allows any origin (keys, not cookies, authenticate; nothing is sent with
 * credentials) and exposes Retry-After so the SDK can honour it; a preflight on a served path answers 204.
 */
const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Retry-After, Content-Type',
};
const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...CORS_HEADERS,
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE',
  'Access-Control-Allow-Headers': 'Content-Type, Content-Encoding, X-API-Key, Authorization',
  'Access-Control-Max-Age': '600',
};

function dispatch(ctx: RequestContext, plane: Plane | null, onError: (e: unknown) => void): void {
  if (ctx.req.headers.origin !== undefined) {
    for (const [k, v] of Object.entries(CORS_HEADERS)) ctx.res.setHeader(k, v);
    if (plane && ctx.method === 'OPTIONS' && ctx.req.headers['access-control-request-method'] !== undefined) {
      ctx.res.writeHead(204, PREFLIGHT_HEADERS);
      ctx.res.end();
      return;
    }
  }
  if (!plane) {
    // Rule 4: query paths on the ingest door are a plain 404, decided before any authentication.
    sendJson(ctx.res, 404, errorBody(errors.notFound(ctx.path), 'logs'));
    return;
  }
  plane.handle(ctx).catch((e: unknown) => {
    onError(e);
    if (!ctx.res.headersSent) sendJson(ctx.res, 500, errorBody(errors.internal(), 'logs'));
    else ctx.res.destroy();
  });
}
