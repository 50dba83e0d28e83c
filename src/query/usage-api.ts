// GET /api/v1/tenants/<t>/usage (DESIGN §4): the tenant's account, current UTC day of service time.
import type { Router } from '../front-doors/router.js';
import { sendJson } from '../front-doors/reply.js';
import type { UsageReader } from '../metering/metering.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';

export function registerUsageRoutes(router: Router, deps: TenantGuardDeps & { usage: UsageReader }): void {
  router.on('GET', '/api/v1/tenants/:tenant/usage', guarded(deps, 'read', true, async (ctx, grant) => {
    sendJson(ctx.res, 200, await deps.usage.usageToday(grant.account));
  }));
}
