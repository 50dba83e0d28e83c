// The guard of every /api/v1/tenants/<t>/… request (and the account API): app-plane credential rules,
// scope, tenant match (spec rules 7–9), then the tier's query rate (DESIGN §6 Query rate). A browser session
// (spec rule 10, DESIGN §7) is a credential here too — the cookie or `Authorization: Bearer sls_…` — and gets the
// same kind of grant, with scopes by role; it counts against the query rate like a key.
import type { RequestContext } from '../front-doors/context.js';
import { asServiceError, sendError } from '../front-doors/reply.js';
import { distinctHeaders, extractAppCredential } from '../auth/credentials.js';
import { authorize } from '../auth/authorize.js';
import type { KeyResolver } from '../auth/key-resolver.js';
import { extractSessionCredential } from '../auth/session-credential.js';
import type { AppGrant, SessionAuthority } from '../auth/sessions.js';
import type { KeyGrant, Scope } from '../stores/control/control-store.js';
import type { Clock } from '../clock.js';
import type { RefusalCounter } from '../observability/refusals.js';

export interface TenantGuardDeps {
  resolver: KeyResolver;
  /** Browser sessions: resolved fresh on every request, aged on service time. */
  sessionAuth: SessionAuthority;
  clock: Clock;
  refusals: RefusalCounter;
  /**
   * Rejects with a 429 when the tenant's query rate is spent; runs for every tenant API request. A promise, since with
   * split roles the window is shared through the control store (DESIGN §10).
   */
  checkQueryRate: (grant: KeyGrant) => Promise<void>;
  log: (msg: string) => void;
}

export interface GuardOptions {
  /**
   * The route changes dashboards, saved searches or detectors: a viewer's session is refused with 403
   * (DESIGN §7 "member → read and writes of dashboards, saved searches, detectors"). API keys are unaffected.
   */
  contentWrite?: boolean;
}

/** For the routes that change dashboards, saved searches or detectors. */
export const CONTENT_WRITE: Readonly<GuardOptions> = Object.freeze({ contentWrite: true });

export type GrantedHandler = (ctx: RequestContext, grant: AppGrant) => Promise<void>;

/**
 * Wraps a handler: `tenantInPath` for /api/v1/tenants/:tenant/…, false for account-level paths. `scope` `any`
 * takes every valid credential of the account.
 */
export function guarded(deps: TenantGuardDeps, scope: Scope | 'any', tenantInPath: boolean, fn: GrantedHandler, options: GuardOptions = {}) {
  return async (ctx: RequestContext): Promise<void> => {
    let tenantId = '';
    try {
      const headers = distinctHeaders(ctx.req.headers, ctx.req.headersDistinct);
      const inPath = tenantInPath ? { tenantId: ctx.params.tenant ?? '' } : {};
      const session = extractSessionCredential(headers, ctx.query);
      const grant: AppGrant = session
        ? await deps.sessionAuth.grant(session, ctx.method, headers, { scope, ...inPath, contentWrite: options.contentWrite ?? false })
        : await authorize(extractAppCredential(headers, ctx.query), deps.resolver, 'fresh', { scope, ...inPath }, deps.clock.now());
      tenantId = grant.tenant.id;
      await deps.checkQueryRate(grant);
      await fn(ctx, grant);
    } catch (e) {
      const err = asServiceError(e, deps.log);
      deps.refusals.count(tenantId, err.reason);
      sendError(ctx.res, err, 'logs');
    }
  };
}
