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
    const existing = (await deps.store.listTenants(grant.account.id)).length;
    checkProjectCreation(deps.planOf(grant), existing);
    const body = await readJsonObject(ctx);
    const name = field.string(body, 'name');
    if (!name) throw errors.badRequest('name is required');
    const tenant = await deps.store.createTenant({ accountId: grant.account.id, name });
    sendJson(ctx.res, 201, { project: { id: tenant.id, name: tenant.name, tenant_id: tenant.id } });
  }));
}
