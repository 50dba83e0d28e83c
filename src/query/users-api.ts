// Account users (DESIGN §6 ceilings): the people on an account, counted against the plan's user ceiling.
// Account-level paths, scope `admin`. Emails are kept lower-cased, so uniqueness per account ignores case.
import type { Router } from '../front-doors/router.js';
import { field, readJsonObject } from '../front-doors/json-body.js';
import { sendEmpty, sendJson } from '../front-doors/reply.js';
import { USER_ROLES, type AccountUser, type UserRole } from '../stores/control/control-store.js';
import { errors } from '../errors.js';
import { guarded } from './tenant-route.js';
import { checkCeiling } from '../limits/gates.js';
import type { ResourceApiDeps } from './saved-searches-api.js';

/** One @, no spaces, a dotted domain; at most 254 characters (RFC 5321 path limit). */
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function render(u: AccountUser): Record<string, unknown> {
  return { id: u.id, email: u.email, role: u.role, created_at: new Date(u.createdAt).toISOString() };
}

export function registerUsersRoutes(router: Router, deps: ResourceApiDeps): void {
  const base = '/api/v1/account/users';

  router.on('GET', base, guarded(deps, 'admin', false, async (ctx, grant) => {
    sendJson(ctx.res, 200, { users: (await deps.store.listUsers(grant.account.id)).map(render) });
  }));

  router.on('POST', base, guarded(deps, 'admin', false, async (ctx, grant) => {
    const body = await readJsonObject(ctx);
    const email = field.string(body, 'email')?.trim().toLowerCase() ?? '';
    if (email === '') throw errors.badRequest('email is required');
    if (email.length > 254 || !EMAIL_RE.test(email)) throw errors.badRequest('email is not a valid email address');
    const roleText = field.string(body, 'role') ?? 'member';
    const role = USER_ROLES.find((r): r is UserRole => r === roleText);
    if (!role) throw errors.badRequest(`role must be one of ${USER_ROLES.join(', ')}`);
    const created = await deps.store.withAccountLock(grant.account.id, async (store) => {
      checkCeiling(deps.planOf(grant), 'users', await store.countUsers(grant.account.id));
      return store.createUser({ accountId: grant.account.id, email, role });
    });
    if (!created) throw errors.conflict(`A user with email ${email} already exists`);
    sendJson(ctx.res, 201, { user: render(created) });
  }));

  router.on('DELETE', `${base}/:id`, guarded(deps, 'admin', false, async (ctx, grant) => {
    const u = await deps.store.getUser(ctx.params.id ?? '');
    if (!u || u.accountId !== grant.account.id || !(await deps.store.deleteUser(u.id))) throw errors.notFound(ctx.path);
    sendEmpty(ctx.res, 204);
  }));
}
