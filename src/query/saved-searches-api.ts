// Saved searches (DESIGN §6 ceilings): a tenant's named LogsQL queries, counted per account against the plan's
// saved-search ceiling. Scope `read`: the people who search are the ones who save searches — except a viewer's
// session, which may not change them (DESIGN §7 roles).
import type { Router } from '../front-doors/router.js';
import { field, readJsonObject } from '../front-doors/json-body.js';
import { sendEmpty, sendJson } from '../front-doors/reply.js';
import type { ControlStore, KeyGrant, SavedSearch } from '../stores/control/control-store.js';
import { errors } from '../errors.js';
import { CONTENT_WRITE, guarded, type TenantGuardDeps } from './tenant-route.js';
import { compileLogsql } from './logsql-request.js';
import type { EffectivePlan } from '../limits/plans.js';
import { checkCeiling } from '../limits/gates.js';

export interface ResourceApiDeps extends TenantGuardDeps {
  store: ControlStore;
  planOf: (grant: KeyGrant) => EffectivePlan;
}

const MAX_NAME = 256;
const MAX_QUERY = 64 * 1024;

/** A required, non-blank string field of at most `max` characters (400 naming the field otherwise). */
export function requiredText(body: Record<string, unknown>, name: string, max: number): string {
  const v = field.string(body, name)?.trim();
  if (!v) throw errors.badRequest(`${name} is required`);
  if (v.length > max) throw errors.badRequest(`${name} must be at most ${max} characters`);
  return v;
}


function render(s: SavedSearch): Record<string, unknown> {
  return { id: s.id, name: s.name, query: s.query, tenant_id: s.tenantId, created_at: new Date(s.createdAt).toISOString() };
}

export function registerSavedSearchRoutes(router: Router, deps: ResourceApiDeps): void {
  const base = '/api/v1/tenants/:tenant/saved-searches';

  router.on('GET', base, guarded(deps, 'read', true, async (ctx, grant) => {
    const list = await deps.store.listSavedSearches(grant.tenant.id);
    sendJson(ctx.res, 200, { saved_searches: list.map(render) });
  }));

  router.on('POST', base, guarded(deps, 'read', true, async (ctx, grant) => {
    const body = await readJsonObject(ctx);
    const name = requiredText(body, 'name', MAX_NAME);
    const query = requiredText(body, 'query', MAX_QUERY);
    compileLogsql(query, deps.clock.now()); // 400 with the position when it is not LogsQL
    // Count and create in one transaction with the account locked: concurrent requests cannot overrun (DESIGN §6).
    const created = await deps.store.withAccountLock(grant.account.id, async (store) => {
      checkCeiling(deps.planOf(grant), 'savedSearches', await store.countSavedSearches(grant.account.id));
      return store.createSavedSearch({ tenantId: grant.tenant.id, accountId: grant.account.id, name, query });
    });
    sendJson(ctx.res, 201, { saved_search: render(created) });
  }, CONTENT_WRITE));

  router.on('DELETE', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    const found = await deps.store.getSavedSearch(ctx.params.id ?? '');
    if (!found || found.tenantId !== grant.tenant.id || !(await deps.store.deleteSavedSearch(found.id))) {
      throw errors.notFound(ctx.path);
    }
    sendEmpty(ctx.res, 204);
  }, CONTENT_WRITE));
}
