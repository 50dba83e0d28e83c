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

/** App door: app-plane paths to the app plane; log/trace paths handed to the ingest plane (rule 5). */
export function appDoor(app: Plane, ingest: Plane, onError: (e: unknown) => void): RequestListener {
  return (req, res) => {
    const ctx = contextOf(req, res);
    const plane = app.owns(ctx.path) ? app : ingest.owns(ctx.path) ? ingest : null;
    dispatch(ctx, plane, onError);
  };
}

function dispatch(ctx: RequestContext, plane: Plane | null, onError: (e: unknown) => void): void {
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
