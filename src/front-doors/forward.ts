// The other plane over HTTP, for split roles (DESIGN §1: `--role ingest` forwards the six paths to
// --app-upstream; `--role app` hands log/trace paths to --ingest-upstream). In one process the doors
// call the plane object directly instead; both sides of the seam implement Plane.
import http from 'node:http';
import https from 'node:https';
import type { Plane } from './doors.js';
import type { RequestContext } from './context.js';
import { sendJson } from './reply.js';

/** Hop-by-hop headers are not forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

export class HttpForwarder implements Plane {
  private readonly base: URL;
  private readonly agent: http.Agent;

  constructor(upstream: string, private readonly ownsPath: (path: string) => boolean) {
    this.base = new URL(upstream);
    this.agent = this.base.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  owns(path: string): boolean {
    return this.ownsPath(path);
  }

  handle(ctx: RequestContext): Promise<void> {
    return new Promise((resolve) => {
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(ctx.req.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      }
      headers['x-forwarded-for'] = ctx.req.socket.remoteAddress ?? '';
      const client = this.base.protocol === 'https:' ? https : http;
      const upstream = client.request({
        protocol: this.base.protocol, hostname: this.base.hostname, port: this.base.port,
        method: ctx.method, path: ctx.req.url ?? '/', headers, agent: this.agent,
      }, (reply) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(reply.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
        }
        ctx.res.writeHead(reply.statusCode ?? 502, out);
        reply.pipe(ctx.res);
        reply.on('end', resolve);
        reply.on('error', () => { ctx.res.destroy(); resolve(); });
      });
      upstream.on('error', () => {
        if (!ctx.res.headersSent) sendJson(ctx.res, 502, { detail: 'Upstream plane unreachable', error: 'bad_gateway' });
        else ctx.res.destroy();
        resolve();
      });
      ctx.req.pipe(upstream);
    });
  }
}
