// The web app's static files (DESIGN §7): served by the app front door under /app/, built by `npm run build`
// into dist/web/app. Hashed assets are immutable for a year; the HTML is `no-cache`, so a new build is picked up
// on the next load. Any other path under /app/ is a deep link into the app and gets its index.html (the app
// reads the view from the URL). Only GET and HEAD; nothing outside the build directory is ever read.
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Plane } from '../front-doors/doors.js';
import type { RequestContext } from '../front-doors/context.js';
import { sendJson } from '../front-doors/reply.js';
import { errorBody, errors } from '../errors.js';

export const APP_PREFIX = '/app/';

/** Where `npm run build` puts the app: dist/web/app, beside the compiled service in dist/src. */
export const BUILT_APP_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'app');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.map']);

interface StaticFile {
  type: string;
  body: Buffer;
  gzipped: Buffer | null;
  immutable: boolean;
}

export class WebAppPlane implements Plane {
  /** Files read once and kept (the build is small and does not change under a running service). */
  private readonly cache = new Map<string, Promise<StaticFile | null>>();

  constructor(private readonly root: string) {}

  owns(path: string): boolean {
    return path === '/app' || path.startsWith(APP_PREFIX);
  }

  async handle(ctx: RequestContext): Promise<void> {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      sendJson(ctx.res, 405, errorBody(errors.methodNotAllowed(ctx.method, ctx.path), 'logs'), { Allow: 'GET, HEAD' });
      return;
    }
    if (ctx.path === '/app') {
      ctx.res.writeHead(301, { Location: APP_PREFIX, 'Content-Length': 0 });
      ctx.res.end();
      return;
    }
    const rel = decodeURIComponent(ctx.path.slice(APP_PREFIX.length));
    const asset = rel.startsWith('assets/') ? await this.file(rel) : null;
    if (rel.startsWith('assets/') && !asset) {
      sendJson(ctx.res, 404, errorBody(errors.notFound(ctx.path), 'logs'));
      return;
    }
    const file = asset ?? await this.file('index.html');
    if (!file) {
      const text = 'The web app is not built: run `npm run build`.\n';
      ctx.res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
      ctx.res.end(ctx.method === 'HEAD' ? undefined : text);
      return;
    }
    const gzip = file.gzipped !== null && /\bgzip\b/.test(ctx.req.headers['accept-encoding'] ?? '');
    const body = gzip && file.gzipped ? file.gzipped : file.body;
    ctx.res.writeHead(200, {
      'Content-Type': file.type,
      'Content-Length': body.length,
      'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      ...(file.type.startsWith('text/html') ? { 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'same-origin' } : {}),
    });
    ctx.res.end(ctx.method === 'HEAD' ? undefined : body);
  }

  private file(rel: string): Promise<StaticFile | null> {
    let cached = this.cache.get(rel);
    if (!cached) {
      cached = this.load(rel);
      this.cache.set(rel, cached);
      // A miss is not kept: a build that lands later is served without a restart.
      void cached.then((f) => { if (!f) this.cache.delete(rel); });
    }
    return cached;
  }

  private async load(rel: string): Promise<StaticFile | null> {
    const full = normalize(join(this.root, rel));
    if (!full.startsWith(this.root + sep)) return null; // `..` never leaves the build directory
    try {
      if (!(await stat(full)).isFile()) return null;
      const body = await readFile(full);
      const ext = extname(full);
      return {
        type: TYPES[ext] ?? 'application/octet-stream',
        body,
        gzipped: COMPRESSIBLE.has(ext) && body.length > 1024 ? gzipSync(body, { level: 9 }) : null,
        immutable: rel.startsWith('assets/'),
      };
    } catch {
      return null;
    }
  }
}

/** `GET /` from a browser goes to the app; every other `GET /` keeps the Elasticsearch probe (DESIGN §7). */
export function isBrowserRoot(ctx: RequestContext): boolean {
  if (ctx.path !== '/' || ctx.method !== 'GET') return false;
  const accept = ctx.req.headers.accept;
  return typeof accept === 'string' && /\btext\/html\b/i.test(accept);
}
