// Sign-in and the browser session (DESIGN §7; spec rule 10), app front door only:
//   POST   /api/v1/session           {email, password} → 200 SessionReply + Set-Cookie sightline_session
//   GET    /api/v1/session           the current session (401 when none: the app shows sign-in)
//   DELETE /api/v1/session           sign out: 204, the session ends, the cookie is cleared
//   POST   /api/v1/session/password  {current_password, new_password}: every session of the user ends; a fresh one
//   POST   /api/v1/session/invite    {token, password}: an invited user sets a password and is signed in
// Cookie-authenticated writes here pass the same cross-site check as everywhere (session-credential.ts).
import type { RequestContext } from '../front-doors/context.js';
import type { Router } from '../front-doors/router.js';
import { field, readJsonObject } from '../front-doors/json-body.js';
import { asServiceError, sendEmpty, sendError, sendJson } from '../front-doors/reply.js';
import { distinctHeaders } from '../auth/credentials.js';
import { hashSecret } from '../auth/api-keys.js';
import { checkNewPassword, hashPassword, verifyNothing, verifyPassword, MAX_PASSWORD_LENGTH } from '../auth/passwords.js';
import {
  clearedSessionCookie, extractSessionCredential, isCrossSiteWrite, sessionCookie, type SessionCredential,
} from '../auth/session-credential.js';
import type { LiveSession, SessionAuthority } from '../auth/sessions.js';
import { SignInThrottle } from '../auth/sign-in-throttle.js';
import { ControlStoreUnavailableError, type AccountUser, type ControlStore } from '../stores/control/control-store.js';
import type { Clock } from '../clock.js';
import type { RefusalCounter } from '../observability/refusals.js';
import { errors } from '../errors.js';

export interface SessionApiDeps {
  store: ControlStore;
  sessionAuth: SessionAuthority;
  clock: Clock;
  refusals: RefusalCounter;
  log: (msg: string) => void;
  /** Wrong-password throttle; one per process unless a test brings its own. */
  throttle?: SignInThrottle;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function registerSessionRoutes(router: Router, deps: SessionApiDeps): void {
  const throttle = deps.throttle ?? new SignInThrottle(deps.clock);
  const { sessionAuth, store } = deps;
  const handle = (fn: (ctx: RequestContext) => Promise<void>) => async (ctx: RequestContext): Promise<void> => {
    try {
      await fn(ctx);
    } catch (e) {
      // The store out is 503 auth_unavailable here as on every credential path (spec rule 11).
      const err = e instanceof ControlStoreUnavailableError ? errors.authUnavailable() : asServiceError(e, deps.log);
      deps.refusals.count('', err.reason);
      sendError(ctx.res, err, 'logs');
    }
  };

  /** 200 with the session's reply and its cookie (sign-in, password change, invite). */
  const signedIn = async (ctx: RequestContext, user: AccountUser): Promise<void> => {
    const { token, session } = await sessionAuth.issue(user);
    const account = await store.getAccount(user.accountId);
    if (!account) throw errors.badSignIn();
    sendJson(ctx.res, 200, await replyOf({ session, user, account }), { 'Set-Cookie': sessionCookie(token), 'Cache-Control': 'no-store' });
  };

  const replyOf = async (live: LiveSession): Promise<Record<string, unknown>> => ({
    user: { id: live.user.id, email: live.user.email, role: live.user.role },
    account: { id: live.account.id, name: live.account.name, tier: live.account.tier, trial_ends_at: iso(live.account.trialEndsAt) },
    tenants: (await sessionAuth.tenantsOf(live.account)).map((t) => ({ id: t.id, name: t.name })),
    expires_at: iso(sessionAuth.expiresAt(live.session)),
  });

  router.on('POST', '/api/v1/session', handle(async (ctx) => {
    const body = await readJsonObject(ctx);
    const email = (field.string(body, 'email') ?? '').trim().toLowerCase();
    const password = field.string(body, 'password') ?? '';
    if (email === '' || password === '') throw errors.badRequest('email and password are required');
    const address = ctx.req.socket.remoteAddress ?? '';
    throttle.check(email, address);
    const user = await matchingUser(store, email, password);
    if (!user) {
      throttle.failed(email, address);
      throw errors.badSignIn();
    }
    throttle.succeeded(email);
    await signedIn(ctx, user);
  }));

  router.on('GET', '/api/v1/session', handle(async (ctx) => {
    const live = await sessionAuth.resolve(requireCredential(ctx).token);
    sendJson(ctx.res, 200, await replyOf(live), { 'Cache-Control': 'no-store' });
  }));

  router.on('DELETE', '/api/v1/session', handle(async (ctx) => {
    // Signing out a session that already aged out or ended is still a success: the browser drops its cookie.
    if (!(await sessionAuth.end(requireCredential(ctx).token))) throw errors.invalidSession();
    sendEmpty(ctx.res, 204, { 'Set-Cookie': clearedSessionCookie() });
  }));

  router.on('POST', '/api/v1/session/password', handle(async (ctx) => {
    const live = await sessionAuth.resolve(requireCredential(ctx).token);
    const body = await readJsonObject(ctx);
    const current = field.string(body, 'current_password') ?? '';
    const next = checkNewPassword(field.string(body, 'new_password'), 'new_password');
    // Wrong current passwords count like wrong sign-ins: a session left open must not become a guessing oracle.
    // 403, not 401: the session itself is fine, and a 401 sends the app back to sign-in.
    const address = ctx.req.socket.remoteAddress ?? '';
    throttle.check(live.user.email, address);
    if (current === '' || live.user.passwordHash === null || !(await verifyPassword(current, live.user.passwordHash))) {
      throttle.failed(live.user.email, address);
      throw errors.wrongCurrentPassword();
    }
    const user = await store.setUserPassword(live.user.id, await hashPassword(next));
    if (!user) throw errors.tokenExpired();
    // DESIGN §7: a password change ends every session of the user at once, this one included; a fresh one follows.
    await sessionAuth.endAllOf(user.id);
    await signedIn(ctx, user);
  }));

  router.on('POST', '/api/v1/session/invite', handle(async (ctx) => {
    const body = await readJsonObject(ctx);
    const token = (field.string(body, 'token') ?? '').trim();
    if (token === '') throw errors.badRequest('token is required');
    const password = checkNewPassword(field.string(body, 'password'), 'password');
    const invited = await store.findUserByInviteHash(hashSecret(token));
    if (!invited) throw errors.invalidInvite();
    if (invited.inviteExpiresAt !== null && invited.inviteExpiresAt <= deps.clock.now()) throw errors.inviteExpired();
    const user = await store.setUserPassword(invited.id, await hashPassword(password));
    if (!user) throw errors.invalidInvite();
    // An invite may also reset a forgotten password (a new link from an admin): sessions from before end.
    await sessionAuth.endAllOf(user.id);
    await signedIn(ctx, user);
  }));

  /** The session credential of a session route: 401 without one, 403 for a cross-site cookie write. */
  function requireCredential(ctx: RequestContext): SessionCredential {
    const headers = distinctHeaders(ctx.req.headers, ctx.req.headersDistinct);
    const credential = extractSessionCredential(headers, ctx.query);
    if (!credential) throw errors.noSession();
    if (credential.via === 'cookie' && isCrossSiteWrite(ctx.method, headers)) throw errors.crossSite();
    return credential;
  }
}

/**
 * The user this email and password sign in as. An email may exist in several accounts: the first (oldest) whose
 * password matches wins, so each account's user signs in with its own password. Users without a password (invited)
 * never match. Unknown emails spend a hash too, so the reply time does not tell which emails exist.
 */
async function matchingUser(store: ControlStore, email: string, password: string): Promise<AccountUser | null> {
  if (password.length > MAX_PASSWORD_LENGTH) return null;
  const candidates = (await store.findUsersByEmail(email)).filter((u) => u.passwordHash !== null);
  if (candidates.length === 0) return verifyNothing(password).then(() => null);
  for (const u of candidates) if (u.passwordHash !== null && (await verifyPassword(password, u.passwordHash))) return u;
  return null;
}
