// Browser sessions (spec rule 10; DESIGN §7): issued at sign-in, stored as the token's sha256, aged on service time
// (the test clock ages them too), and turned into the same kind of grant an API key gives, with scopes by role.
// A session never carries `ingest`: the ingest plane never reads a session credential at all.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import {
  ControlStoreUnavailableError,
  type Account, type AccountUser, type ControlStore, type KeyGrant, type Scope, type Session, type Tenant, type UserRole,
} from '../stores/control/control-store.js';
import { hashSecret } from './api-keys.js';
import { isCrossSiteWrite, newSessionToken, type SessionCredential } from './session-credential.js';
import type { DistinctHeaders } from './credentials.js';

export interface SessionPolicy {
  /** SIGHTLINE_SESSION_IDLE_MS: a session lives this long past its last use. */
  idleMs: number;
  /** SIGHTLINE_SESSION_MAX_MS: and at most this long after sign-in. */
  maxMs: number;
}

/** last_used_at is written at most this often per session: reads stay reads (a session ages a minute early at worst). */
export const TOUCH_EVERY_MS = 60_000;

/** DESIGN §7 "Roles map to scopes": admin → read, admin; member and viewer → read. Never ingest. */
export const ROLE_SCOPES: Readonly<Record<UserRole, readonly Scope[]>> = Object.freeze({
  admin: Object.freeze(['read', 'admin'] as const),
  member: Object.freeze(['read'] as const),
  viewer: Object.freeze(['read'] as const),
});

/** A grant of the app plane: what an API key resolves to, plus who is signed in when a session made it. */
export interface AppGrant extends KeyGrant {
  session?: {
    id: string;
    user: AccountUser;
    /** Throws as `resolve` does once the session has ended or aged out: long-lived replies (live tail) ask again. */
    recheck: () => Promise<void>;
  };
}

/** A session that is live now, with its user and account as read with it. */
export interface LiveSession {
  session: Session;
  user: AccountUser;
  account: Account;
}

export interface SessionRequirement {
  /** `any`: every valid credential of the account will do (GET /api/v1/account). */
  scope: Scope | 'any';
  /** The tenant named in the path; absent on account-level paths. */
  tenantId?: string;
  /** The route changes dashboards, saved searches or detectors: a viewer may not (DESIGN §7). */
  contentWrite?: boolean;
}

export class SessionAuthority {
  constructor(
    private readonly store: ControlStore,
    private readonly clock: Clock,
    readonly policy: SessionPolicy,
  ) {}

  async issue(user: AccountUser): Promise<{ token: string; session: Session }> {
    const token = newSessionToken();
    const session = await this.store.createSession({
      tokenHash: hashSecret(token), userId: user.id, accountId: user.accountId, atMs: this.clock.now(),
    });
    return { token, session };
  }

  /** When the session ages out if it is not used again (idle), capped by its maximum age. */
  expiresAt(session: Session): number {
    return Math.min(session.lastUsedAt + this.policy.idleMs, session.createdAt + this.policy.maxMs);
  }

  /**
   * The live session of a token: 403 for a token never issued (rule 9), 401 `Token expired` for one that aged out
   * or was ended (sign-out, password change, user removed; rule 10), 503 when the store is out (rule 11).
   * A use moves last_used_at forward, at most once a minute.
   */
  async resolve(token: string): Promise<LiveSession> {
    const found = await this.lookup(token);
    if (!found) throw errors.invalidSession();
    const { session, user, account } = found;
    const now = this.clock.now();
    if (session.endedAt !== null || user === null || now >= this.expiresAt(session)) throw errors.tokenExpired();
    if (now - session.lastUsedAt >= TOUCH_EVERY_MS) {
      await this.guard(this.store.touchSession(session.id, now));
      session.lastUsedAt = now;
    }
    return { session, user, account };
  }

  /** Ends the session of a token (sign-out). False when it was never issued; an ended or aged one is fine. */
  async end(token: string): Promise<boolean> {
    const found = await this.lookup(token);
    if (!found) return false;
    if (found.session.endedAt === null) await this.guard(this.store.endSession(found.session.id, this.clock.now()));
    return true;
  }

  async endAllOf(userId: string): Promise<void> {
    await this.guard(this.store.endUserSessions(userId, this.clock.now()));
  }

  /**
   * A session as an app-plane grant, in the order of DESIGN §6: the cross-site check (cookie writes only), the
   * credential (401/403/503), then tenant and scope (403).
   */
  async grant(credential: SessionCredential, method: string, headers: DistinctHeaders, req: SessionRequirement): Promise<AppGrant> {
    if (credential.via === 'cookie' && isCrossSiteWrite(method, headers)) throw errors.crossSite();
    const { session, user, account } = await this.resolve(credential.token);
    const tenant = await this.tenantFor(account, req.tenantId);
    const scopes = ROLE_SCOPES[user.role];
    if (req.scope !== 'any' && !scopes.includes(req.scope)) throw errors.roleNotAdmin(user.role);
    if (req.contentWrite === true && user.role === 'viewer') throw errors.roleCannotChange(user.role);
    return {
      // The grant's `key` stands for the session, so handlers written for keys need not tell the two apart.
      key: {
        id: session.id, tenantId: tenant.id, name: `session of ${user.email}`, scopes: [...scopes], expiresAt: this.expiresAt(session),
        createdAt: session.createdAt, secretHash: '',
      },
      tenant, account,
      session: { id: session.id, user, recheck: async () => { await this.resolve(credential.token); } },
    };
  }

  /** The account's non-disabled tenants, in creation order (the sign-in reply's `tenants`). */
  async tenantsOf(account: Account): Promise<Tenant[]> {
    return (await this.guard(this.store.listTenants(account.id))).filter((t) => !t.disabled);
  }

  /** The tenant in the path, which must be the account's (rule 8); on account paths the account's first live one. */
  private async tenantFor(account: Account, tenantId: string | undefined): Promise<Tenant> {
    if (tenantId === undefined) {
      const first = (await this.tenantsOf(account))[0];
      if (!first) throw errors.tenantDisabled();
      return first;
    }
    const tenant = await this.guard(this.store.getTenant(tenantId));
    if (tenant?.accountId !== account.id) throw errors.sessionTenantMismatch();
    if (tenant.disabled) throw errors.tenantDisabled();
    return tenant;
  }

  private lookup(token: string): ReturnType<ControlStore['findSessionByHash']> {
    return this.guard(this.store.findSessionByHash(hashSecret(token)));
  }

  /** An unreachable store is 503 `auth_unavailable` (rule 11); there is no cached answer for sessions. */
  private async guard<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } catch (e) {
      if (e instanceof ControlStoreUnavailableError) throw errors.authUnavailable();
      throw e;
    }
  }
}
