// Account users (DESIGN §6 ceilings, §7 sign-in): the people on an account, counted against the plan's user ceiling.
// Account-level paths, scope `admin` (an admin's session, or an admin-scoped key). Emails are kept lower-cased, so
// uniqueness per account ignores case. A user is added with a password (signs in at once) or with an invite link
// that sets one; removing a user, or changing its role, takes effect on its sessions at once. An account always
// keeps one admin: the last one can be neither demoted nor removed (409).
import { randomBytes } from 'node:crypto';
import type { Router } from '../front-doors/router.js';
import { field, readJsonObject } from '../front-doors/json-body.js';
import { sendEmpty, sendJson } from '../front-doors/reply.js';
import { USER_ROLES, type AccountUser, type ControlStore, type UserRole } from '../stores/control/control-store.js';
import { errors } from '../errors.js';
import { guarded } from './tenant-route.js';
import { checkCeiling } from '../limits/gates.js';
import { hashSecret } from '../auth/api-keys.js';
import { checkNewPassword, hashPassword } from '../auth/passwords.js';
import type { AppGrant } from '../auth/sessions.js';
import type { ResourceApiDeps } from './saved-searches-api.js';

/** One @, no spaces, a dotted domain; at most 254 characters (RFC 5321 path limit). */
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** An invite link is good for 7 days (DESIGN §7 "an invite link that sets one"). */
export const INVITE_TTL_MS = 7 * 86_400_000;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function render(u: AccountUser): Record<string, unknown> {
  return {
    id: u.id, email: u.email, role: u.role, created_at: new Date(u.createdAt).toISOString(),
    has_password: u.passwordHash !== null, invite_expires_at: iso(u.inviteExpiresAt),
  };
}

interface Invite {
  token: string;
  tokenHash: string;
  expiresAt: number;
}

/** `sli_` + 32 random bytes; stored only as its sha256, shown once in the reply that made it. */
function newInvite(nowMs: number): Invite {
  const token = 'sli_' + randomBytes(32).toString('base64url');
  return { token, tokenHash: hashSecret(token), expiresAt: nowMs + INVITE_TTL_MS };
}

function renderInvite(invite: Invite): Record<string, unknown> {
  return { token: invite.token, url: `/app/invite?token=${encodeURIComponent(invite.token)}`, expires_at: iso(invite.expiresAt) };
}

function parseRole(text: string | undefined, fallback?: UserRole): UserRole {
  const role = USER_ROLES.find((r): r is UserRole => r === (text ?? fallback));
  if (!role) throw errors.badRequest(`role must be one of ${USER_ROLES.join(', ')}`);
  return role;
}

export function registerUsersRoutes(router: Router, deps: ResourceApiDeps): void {
  const base = '/api/v1/account/users';

  /** The account's user named in the path, read inside the account lock; 404 for another account's. */
  const own = async (store: ControlStore, grant: AppGrant, id: string, path: string): Promise<AccountUser> => {
    const u = await store.getUser(id);
    if (u?.accountId !== grant.account.id) throw errors.notFound(path);
    return u;
  };
  const isLastAdmin = async (store: ControlStore, u: AccountUser): Promise<boolean> =>
    u.role === 'admin' && (await store.listUsers(u.accountId)).filter((x) => x.role === 'admin').length <= 1;

  router.on('GET', base, guarded(deps, 'admin', false, async (ctx, grant) => {
    sendJson(ctx.res, 200, { users: (await deps.store.listUsers(grant.account.id)).map(render) });
  }));

  router.on('POST', base, guarded(deps, 'admin', false, async (ctx, grant) => {
    const body = await readJsonObject(ctx);
    const email = field.string(body, 'email')?.trim().toLowerCase() ?? '';
    if (email === '') throw errors.badRequest('email is required');
    if (email.length > 254 || !EMAIL_RE.test(email)) throw errors.badRequest('email is not a valid email address');
    const role = parseRole(field.string(body, 'role'), 'member');
    const password = field.string(body, 'password');
    // With a password the user signs in at once; without one it gets an invite link to set one.
    const passwordHash = password === undefined ? null : await hashPassword(checkNewPassword(password, 'password'));
    const invite = passwordHash === null ? newInvite(deps.clock.now()) : null;
    const created = await deps.store.withAccountLock(grant.account.id, async (store) => {
      checkCeiling(deps.planOf(grant), 'users', await store.countUsers(grant.account.id));
      return store.createUser({ accountId: grant.account.id, email, role, passwordHash, invite });
    });
    if (!created) throw errors.conflict(`A user with email ${email} already exists`);
    sendJson(ctx.res, 201, { user: render(created), ...(invite ? { invite: renderInvite(invite) } : {}) });
  }));

  router.on('PATCH', `${base}/:id`, guarded(deps, 'admin', false, async (ctx, grant) => {
    const body = await readJsonObject(ctx);
    const role = parseRole(field.string(body, 'role'));
    // Under the account lock: two admins demoting each other at once cannot leave the account without one.
    const updated = await deps.store.withAccountLock(grant.account.id, async (store) => {
      const u = await own(store, grant, ctx.params.id ?? '', ctx.path);
      if (role !== 'admin' && (await isLastAdmin(store, u))) throw errors.conflict('The last admin of the account cannot be demoted');
      return store.setUserRole(u.id, role);
    });
    if (!updated) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { user: render(updated) });
  }));

  router.on('DELETE', `${base}/:id`, guarded(deps, 'admin', false, async (ctx, grant) => {
    await deps.store.withAccountLock(grant.account.id, async (store) => {
      const u = await own(store, grant, ctx.params.id ?? '', ctx.path);
      if (await isLastAdmin(store, u)) throw errors.conflict('The last admin of the account cannot be removed');
      // Its sessions end in the same transaction (DESIGN §7 "removing the user ends its sessions at once").
      if (!(await store.deleteUser(u.id, deps.clock.now()))) throw errors.notFound(ctx.path);
    });
    sendEmpty(ctx.res, 204);
  }));

  router.on('POST', `${base}/:id/invite`, guarded(deps, 'admin', false, async (ctx, grant) => {
    // A fresh link for a user whose invite lapsed, or who forgot a password; accepting it ends the user's sessions.
    const invite = newInvite(deps.clock.now());
    const user = await deps.store.withAccountLock(grant.account.id, async (store) => {
      const u = await own(store, grant, ctx.params.id ?? '', ctx.path);
      return store.setUserInvite(u.id, invite);
    });
    if (!user) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { user: render(user), invite: renderInvite(invite) });
  }));
}
