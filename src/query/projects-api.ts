// POST /api/v1/account/projects (spec, App plane paths; DESIGN §4): a project is a new tenant under
// the key's account, gated by multi_project and the plan's project count. The first tenant counts.
import type { Router } from '../front-doors/router.js';
import { field, readJsonObject } from '../front-doors/json-body.js';
import { sendJson } from '../front-doors/reply.js';
import type { ControlStore, KeyGrant } from '../stores/control/control-store.js';
import { errors } from '../errors.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import type { EffectivePlan } from '../limits/plans.js';
import { checkProjectCreation } from '../limits/gates.js';

export function registerProjectsRoutes(
  router: Router,
  deps: TenantGuardDeps & { store: ControlStore; planOf: (grant: KeyGrant) => EffectivePlan },
): void {
  router.on('POST', '/api/v1/account/projects', guarded(deps, 'admin', false, async (ctx, grant) => {
    const plan = deps.planOf(grant);
    checkProjectCreation(plan, (await deps.store.listTenants(grant.account.id)).length);
    const body = await readJsonObject(ctx);
    const name = field.string(body, 'name');
    if (!name) throw errors.badRequest('name is required');
    // Checked again with the account locked, in the transaction that creates it: concurrent requests
    // cannot pass the project limit together.
    const tenant = await deps.store.withAccountLock(grant.account.id, async (store) => {
      checkProjectCreation(plan, (await store.listTenants(grant.account.id)).length);
      return store.createTenant({ accountId: grant.account.id, name });
    });
    sendJson(ctx.res, 201, { project: { id: tenant.id, name: tenant.name, tenant_id: tenant.id } });
  }));
}
