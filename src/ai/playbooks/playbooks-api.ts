// The read and delete routes of imported playbooks (DESIGN §9 `ai/playbooks`): `GET …/ai/playbooks` (the tenant's
// playbooks, newest first, each with its step count and what it created), `GET …/ai/playbooks/:id` (one, with its
// steps) with scope `read`, and `DELETE …/ai/playbooks/:id` for writers (scope `admin` for a key, a member's
// session: as detectors, which a playbook creates). Reading costs no AI credits; the import (POST, which does) is in
// ai-api.ts and calls import.ts. Deleting a playbook leaves its saved searches and detectors: they are the tenant's
// own now, and an alert firing on one must not lose its detector because the runbook went.
import type { Router } from '../../front-doors/router.js';
import type { RequestContext } from '../../front-doors/context.js';
import { sendEmpty, sendJson } from '../../front-doors/reply.js';
import { errors } from '../../errors.js';
import type { AppGrant } from '../../auth/sessions.js';
import type { ControlStore } from '../../stores/control/control-store.js';
import type { StoredPlaybook } from '../../stores/control/playbook-records.js';
import { CONTENT_WRITE, guarded, type TenantGuardDeps } from '../../query/tenant-route.js';
import { renderPlaybook } from './import.js';

export interface PlaybookApiDeps extends TenantGuardDeps {
  store: ControlStore;
}

/** Writes: scope `admin` for an API key; a session's role is checked by the guard (a viewer is refused). */
function requireWriter(grant: AppGrant): void {
  if (!grant.session && !grant.key.scopes.includes('admin')) throw errors.missingScope('admin');
}

/** A list entry: everything but the steps themselves. */
function summary(p: StoredPlaybook): Record<string, unknown> {
  const { steps, ...rest } = renderPlaybook(p);
  return { ...rest, step_count: steps.length };
}

export function registerPlaybookRoutes(router: Router, deps: PlaybookApiDeps): void {
  const base = '/api/v1/tenants/:tenant/ai/playbooks';
  const own = async (grant: AppGrant, ctx: RequestContext): Promise<StoredPlaybook> => {
    const p = await deps.store.getPlaybook(ctx.params.id ?? '');
    if (!p || p.tenantId !== grant.tenant.id) throw errors.notFound(ctx.path);
    return p;
  };

  router.on('GET', base, guarded(deps, 'read', true, async (ctx, grant) => {
    sendJson(ctx.res, 200, { playbooks: (await deps.store.listPlaybooks(grant.tenant.id)).map(summary) });
  }));

  router.on('GET', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    sendJson(ctx.res, 200, { playbook: renderPlaybook(await own(grant, ctx)) });
  }));

  router.on('DELETE', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    requireWriter(grant);
    const p = await own(grant, ctx);
    if (!(await deps.store.deletePlaybook(p.id))) throw errors.notFound(ctx.path);
    sendEmpty(ctx.res, 204);
  }, CONTENT_WRITE));
}
