// Dashboards (DESIGN §6 ceilings): a tenant's dashboards, counted per account against the plan's dashboard
// ceiling. `panels` is the client's JSON array, stored as jsonb and handed back as sent. Scope `read`; writes are
// refused to a viewer's session (DESIGN §7 roles).
import type { Router } from '../front-doors/router.js';
import { readJsonObject } from '../front-doors/json-body.js';
import { sendEmpty, sendJson } from '../front-doors/reply.js';
import type { Dashboard, KeyGrant } from '../stores/control/control-store.js';
import { errors } from '../errors.js';
import { CONTENT_WRITE, guarded } from './tenant-route.js';
import { checkCeiling } from '../limits/gates.js';
import { requiredText, type ResourceApiDeps } from './saved-searches-api.js';

const MAX_TITLE = 256;

function panelsOf(body: Record<string, unknown>, required: boolean): unknown[] | undefined {
  const v = body.panels;
  if (v === undefined || v === null) {
    if (required) return [];
    return undefined;
  }
  if (!Array.isArray(v)) throw errors.badRequest('panels must be an array');
  return v as unknown[];
}

function render(d: Dashboard): Record<string, unknown> {
  return {
    id: d.id, title: d.title, panels: d.panels, tenant_id: d.tenantId,
    created_at: new Date(d.createdAt).toISOString(), updated_at: new Date(d.updatedAt).toISOString(),
  };
}

export function registerDashboardRoutes(router: Router, deps: ResourceApiDeps): void {
  const base = '/api/v1/tenants/:tenant/dashboards';
  const own = async (grant: KeyGrant, id: string, path: string): Promise<Dashboard> => {
    const d = await deps.store.getDashboard(id);
    if (!d || d.tenantId !== grant.tenant.id) throw errors.notFound(path);
    return d;
  };

  router.on('GET', base, guarded(deps, 'read', true, async (ctx, grant) => {
    sendJson(ctx.res, 200, { dashboards: (await deps.store.listDashboards(grant.tenant.id)).map(render) });
  }));

  router.on('POST', base, guarded(deps, 'read', true, async (ctx, grant) => {
    const body = await readJsonObject(ctx);
    const title = requiredText(body, 'title', MAX_TITLE);
    const panels = panelsOf(body, true) ?? [];
    const created = await deps.store.withAccountLock(grant.account.id, async (store) => {
      checkCeiling(deps.planOf(grant), 'dashboards', await store.countDashboards(grant.account.id));
      return store.createDashboard({ tenantId: grant.tenant.id, accountId: grant.account.id, title, panels });
    });
    sendJson(ctx.res, 201, { dashboard: render(created) });
  }, CONTENT_WRITE));

  router.on('GET', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    sendJson(ctx.res, 200, { dashboard: render(await own(grant, ctx.params.id ?? '', ctx.path)) });
  }));

  router.on('PUT', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    const d = await own(grant, ctx.params.id ?? '', ctx.path);
    const body = await readJsonObject(ctx);
    const patch: { title?: string; panels?: unknown[] } = {};
    if (body.title !== undefined) patch.title = requiredText(body, 'title', MAX_TITLE);
    const panels = panelsOf(body, false);
    if (panels !== undefined) patch.panels = panels;
    const updated = await deps.store.updateDashboard(d.id, patch);
    if (!updated) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { dashboard: render(updated) });
  }, CONTENT_WRITE));

  router.on('DELETE', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    const d = await own(grant, ctx.params.id ?? '', ctx.path);
    if (!(await deps.store.deleteDashboard(d.id))) throw errors.notFound(ctx.path);
    sendEmpty(ctx.res, 204);
  }, CONTENT_WRITE));
}
