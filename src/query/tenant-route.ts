// The guard of every /api/v1/tenants/<t>/… request (and the account API): app-plane credential rules,
// scope, tenant match (spec rules 7–9), then the tier's query rate (DESIGN §6 Query rate).
import type { RequestContext } from '../front-doors/context.js';
import { asServiceError, sendError } from '../front-doors/reply.js';
import { distinctHeaders, extractAppCredential } from '../auth/credentials.js';
import { authorize } from '../auth/authorize.js';
import type { KeyResolver } from '../auth/key-resolver.js';
import type { KeyGrant, Scope } from '../stores/control/control-store.js';
import type { Clock } from '../clock.js';
import type { RefusalCounter } from '../observability/refusals.js';

export interface TenantGuardDeps {
  resolver: KeyResolver;
  clock: Clock;
  refusals: RefusalCounter;
  /** Throws a 429 when the tenant's query rate is spent; runs for every tenant API request. */
  checkQueryRate: (grant: KeyGrant) => void;
  log: (msg: string) => void;
}

export type GrantedHandler = (ctx: RequestContext, grant: KeyGrant) => Promise<void>;

/** Wraps a handler: `tenantInPath` for /api/v1/tenants/:tenant/…, false for account-level paths. */
export function guarded(deps: TenantGuardDeps, scope: Scope, tenantInPath: boolean, fn: GrantedHandler) {
  return async (ctx: RequestContext): Promise<void> => {
    let tenantId = '';
    try {
      const headers = distinctHeaders(ctx.req.headers, ctx.req.headersDistinct);
      const credential = extractAppCredential(headers, ctx.query);
      const grant = await authorize(credential, deps.resolver, 'fresh', {
        scope,
        ...(tenantInPath ? { tenantId: ctx.params.tenant ?? '' } : {}),
      }, deps.clock.now());
      tenantId = grant.tenant.id;
      deps.checkQueryRate(grant);
      await fn(ctx, grant);
    } catch (e) {
      const err = asServiceError(e, deps.log);
      deps.refusals.count(tenantId, err.reason);
      sendError(ctx.res, err, 'logs');
    }
  };
}
