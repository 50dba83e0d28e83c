// A plane served from a Router table: 405 for a known path with another method.
import type { Plane } from '../front-doors/doors.js';
import type { RequestContext } from '../front-doors/context.js';
import type { Router } from '../front-doors/router.js';
import { sendJson } from '../front-doors/reply.js';
import { errorBody, errors } from '../errors.js';

export class RouterPlane implements Plane {
  constructor(private readonly router: Router) {}

  owns(path: string): boolean {
    return this.router.owns(path);
  }

  async handle(ctx: RequestContext): Promise<void> {
    const m = this.router.match(ctx.method, ctx.path);
    if (m.kind === 'none') {
      sendJson(ctx.res, 404, errorBody(errors.notFound(ctx.path), 'logs'));
      return;
    }
    if (m.kind === 'method-not-allowed') {
      sendJson(ctx.res, 405, errorBody(errors.methodNotAllowed(ctx.method, ctx.path), 'logs'), { Allow: m.allowed.join(', ') });
      return;
    }
    ctx.params = m.params;
    await m.handler(ctx);
  }
}
