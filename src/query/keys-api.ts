// Settings → API Keys (DESIGN §4): list, create, rotate, revoke, with the plan's API-key ceiling (§6).
import type { Router } from '../front-doors/router.js';
import { field, readJsonObject } from '../front-doors/json-body.js';
import { sendEmpty, sendJson } from '../front-doors/reply.js';
import type { ControlStore, KeyGrant } from '../stores/control/control-store.js';
import { issueKey, rotateKey } from '../admin/accounts.js';
import { parseScopes } from '../admin/admin-api.js';
import { renderKey } from '../admin/render.js';
import { errors } from '../errors.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import type { EffectivePlan } from '../limits/plans.js';
import { checkCeiling } from '../limits/gates.js';

export interface KeysApiDeps extends TenantGuardDeps {
  store: ControlStore;
  planOf: (grant: KeyGrant) => EffectivePlan;
}

export function registerKeysRoutes(router: Router, deps: KeysApiDeps): void {
  const base = '/api/v1/tenants/:tenant/keys';
  const ownKey = async (grant: KeyGrant, id: string) => {
    const key = await deps.store.getKey(id);
    if (!key || key.tenantId !== grant.tenant.id) throw errors.notFound(`${base}/${id}`);
    return key;
  };

  router.on('GET', base, guarded(deps, 'admin', true, async (ctx, grant) => {
    const keys = await deps.store.listKeys(grant.tenant.id);
    sendJson(ctx.res, 200, { keys: keys.map((k) => renderKey(k)) });
  }));

  router.on('POST', base, guarded(deps, 'admin', true, async (ctx, grant) => {
    const body = await readJsonObject(ctx);
    const scopes = parseScopes(body.scopes);
    // Ceilings bind where things are created; nothing existing is deleted when a ceiling drops (§6). The count
    // and the creation share one transaction with the account locked, so concurrent requests cannot overrun it.
    const issued = await deps.store.withAccountLock(grant.account.id, async (store) => {
      checkCeiling(deps.planOf(grant), 'apiKeys', await store.countLiveKeys(grant.account.id));
      return issueKey(store, grant.tenant.id, {
        scopes, expiresAt: field.time(body, 'expires_at') ?? null, name: field.string(body, 'name') ?? '',
      });
    });
    sendJson(ctx.res, 201, { api_key: renderKey(issued.key, issued.secret) });
  }));

  router.on('POST', `${base}/:id/rotate`, guarded(deps, 'admin', true, async (ctx, grant) => {
    const key = await ownKey(grant, ctx.params.id ?? '');
    const rotated = await rotateKey(deps.store, key.id);
    if (!rotated) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { api_key: renderKey(rotated.key, rotated.secret) });
  }));

  router.on('DELETE', `${base}/:id`, guarded(deps, 'admin', true, async (ctx, grant) => {
    const key = await ownKey(grant, ctx.params.id ?? '');
    await deps.store.revokeKey(key.id);
    sendEmpty(ctx.res, 204);
  }));
}
