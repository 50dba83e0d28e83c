// The operator admin API (DESIGN §3): app front door only, `Authorization: Bearer <admin token>`.
// Every conformance test sets itself up through it, so its shapes are a contract.
import type { RequestContext } from '../front-doors/context.js';
import type { Router } from '../front-doors/router.js';
import { field, readJsonObject } from '../front-doors/json-body.js';
import { asServiceError, sendEmpty, sendError, sendJson } from '../front-doors/reply.js';
import { TIERS, SCOPES, type ControlStore, type Scope, type Tier, type AccountPatch } from '../stores/control/control-store.js';
import { hashesEqual, hashSecret } from '../auth/api-keys.js';
import { errors } from '../errors.js';
import type { ServiceClock } from '../clock.js';
import { renderAccount, renderKey, renderTenant } from './render.js';
import { createAccountWithKey, issueKey, rotateKey } from './accounts.js';
import { parseFeatures, parseLimits } from './overrides.js';
import type { UsageReader } from '../metering/metering.js';

export interface AdminDeps {
  store: ControlStore;
  adminToken: string;
  clock: ServiceClock;
  /** Only with SIGHTLINE_TEST_CLOCK: PUT /admin/v1/clock exists. */
  testClock: boolean;
  sweep: () => Promise<{ account_id: string; from: Tier; to: Tier }[]>;
  usage: UsageReader;
  log: (msg: string) => void;
}

export function registerAdminRoutes(router: Router, deps: AdminDeps): void {
  const guarded = (fn: (ctx: RequestContext) => Promise<void>) => async (ctx: RequestContext) => {
    try {
      requireAdminToken(ctx, deps.adminToken);
      await fn(ctx);
    } catch (e) {
      sendError(ctx.res, asServiceError(e, deps.log), 'logs');
    }
  };
  const { store } = deps;

  router.on('POST', '/admin/v1/accounts', guarded(async (ctx) => {
    const body = await readJsonObject(ctx);
    const name = field.string(body, 'name');
    if (!name) throw errors.badRequest('name is required');
    const tier = parseTier(field.string(body, 'tier'));
    const created = await createAccountWithKey(store, {
      name,
      tier,
      signupAt: field.time(body, 'signup_at') ?? deps.clock.now(),
      features: parseFeatures(field.object(body, 'features')),
      limits: parseLimits(field.object(body, 'limits')),
    });
    sendJson(ctx.res, 201, {
      account: await renderAccount(created.account, deps.usage),
      tenant: renderTenant(created.tenant),
      api_key: renderKey(created.key, created.secret),
    });
  }));

  router.on('GET', '/admin/v1/accounts/:id', guarded(async (ctx) => {
    const account = await store.getAccount(ctx.params.id ?? '');
    if (!account) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { account: await renderAccount(account, deps.usage) });
  }));

  router.on('PATCH', '/admin/v1/accounts/:id', guarded(async (ctx) => {
    const id = ctx.params.id ?? '';
    const current = await store.getAccount(id);
    if (!current) throw errors.notFound(ctx.path);
    const body = await readJsonObject(ctx);
    const patch: AccountPatch = {};
    const tierText = field.string(body, 'tier');
    if (tierText !== undefined) patch.tier = parseTier(tierText);
    const trialEndsAt = field.time(body, 'trial_ends_at');
    if (trialEndsAt !== undefined) patch.trialEndsAt = trialEndsAt;
    const features = parseFeatures(field.object(body, 'features'));
    if (features) patch.features = features;
    const limits = parseLimits(field.object(body, 'limits'));
    if (limits) patch.limits = limits;
    if (field.boolean(body, 'payment_method') === true) {
      patch.paymentMethod = true;
      // States and transitions: adding a payment method moves trial_expired to a paid tier.
      if (current.tier === 'trial_expired' && patch.tier === undefined) patch.tier = 'team';
    }
    const updated = await store.updateAccount(id, patch);
    if (!updated) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { account: await renderAccount(updated, deps.usage) });
  }));

  router.on('POST', '/admin/v1/accounts/:id/tenants', guarded(async (ctx) => {
    const account = await store.getAccount(ctx.params.id ?? '');
    if (!account) throw errors.notFound(ctx.path);
    const body = await readJsonObject(ctx);
    const name = field.string(body, 'name');
    if (!name) throw errors.badRequest('name is required');
    const tenant = await store.createTenant({ accountId: account.id, name });
    sendJson(ctx.res, 201, { tenant: renderTenant(tenant) });
  }));

  router.on('PATCH', '/admin/v1/tenants/:id', guarded(async (ctx) => {
    const body = await readJsonObject(ctx);
    const disabled = field.boolean(body, 'disabled');
    if (disabled === undefined) throw errors.badRequest('disabled (true or false) is required');
    const tenant = await store.setTenantDisabled(ctx.params.id ?? '', disabled);
    if (!tenant) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { tenant: renderTenant(tenant) });
  }));

  router.on('POST', '/admin/v1/tenants/:id/keys', guarded(async (ctx) => {
    const tenant = await store.getTenant(ctx.params.id ?? '');
    if (!tenant) throw errors.notFound(ctx.path);
    const body = await readJsonObject(ctx);
    const issued = await issueKey(store, tenant.id, {
      scopes: parseScopes(body.scopes),
      expiresAt: field.time(body, 'expires_at') ?? null,
      name: field.string(body, 'name') ?? '',
    });
    sendJson(ctx.res, 201, { api_key: renderKey(issued.key, issued.secret) });
  }));

  router.on('POST', '/admin/v1/keys/:id/rotate', guarded(async (ctx) => {
    const rotated = await rotateKey(store, ctx.params.id ?? '');
    if (!rotated) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { api_key: renderKey(rotated.key, rotated.secret) });
  }));

  router.on('DELETE', '/admin/v1/keys/:id', guarded(async (ctx) => {
    if (!(await store.revokeKey(ctx.params.id ?? ''))) throw errors.notFound(ctx.path);
    sendEmpty(ctx.res, 204);
  }));

  router.on('POST', '/admin/v1/sweep', guarded(async (ctx) => {
    sendJson(ctx.res, 200, { transitions: await deps.sweep() });
  }));

  router.on('PUT', '/admin/v1/clock', guarded(async (ctx) => {
    if (!deps.testClock) throw errors.notFound(ctx.path);
    const body = await readJsonObject(ctx);
    const now = field.time(body, 'now');
    if (now === undefined || now === null) throw errors.badRequest('now (RFC 3339) is required');
    deps.clock.set(now);
    sendJson(ctx.res, 200, { now: new Date(deps.clock.now()).toISOString() });
  }));
}

/** DESIGN §3: `Authorization: Bearer <SIGHTLINE_ADMIN_TOKEN>`; anything else → 401. */
export function requireAdminToken(ctx: RequestContext, adminToken: string): void {
  const header = ctx.req.headers.authorization ?? '';
  if (!header.startsWith('Bearer ')) throw errors.adminTokenRequired();
  if (!hashesEqual(hashSecret(header.slice(7).trim()), hashSecret(adminToken))) throw errors.adminTokenRequired();
}

function parseTier(text: string | undefined): Tier {
  if (text === undefined) return 'trial';
  const tier = TIERS.find((t) => t === text);
  if (!tier) throw errors.badRequest(`tier must be one of ${TIERS.join(', ')}`);
  return tier;
}

export function parseScopes(value: unknown): Scope[] {
  if (!Array.isArray(value) || value.length === 0) throw errors.badRequest(`scopes must be a non-empty array of ${SCOPES.join(', ')}`);
  const scopes: Scope[] = [];
  for (const v of value) {
    const scope = SCOPES.find((s) => s === v);
    if (!scope) throw errors.badRequest(`unknown scope ${JSON.stringify(v)}; scopes are ${SCOPES.join(', ')}`);
    if (!scopes.includes(scope)) scopes.push(scope);
  }
  return scopes;
}
