// The control store's interface: accounts, tenants, API keys, daily counters and settings.
// Implemented once in the PostgreSQL dialect (sql-control-store.ts) over PGlite or PostgreSQL;
// main.ts picks the driver (STYLE.md habit 2). Times are unix milliseconds. Detectors and alerts (DESIGN §8) are
// declared in detector-records.ts.
import type { DetectorStore } from './detector-records.js';
import type { NotificationStore } from './notification-records.js';
import type { PlaybookStore } from './playbook-records.js';
import type { ClusterStore } from './cluster-records.js';

export const TIERS = ['trial', 'team', 'growth', 'custom', 'trial_expired'] as const;
export type Tier = (typeof TIERS)[number];

export const SCOPES = ['ingest', 'read', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Per-account switches; absent keys fall back to the tier's defaults (DESIGN §3). */
export interface FeatureOverrides {
  metrics?: boolean;
  replay?: boolean;
  multi_project?: boolean;
}

/** Per-account contract values; absent keys fall back to the tier's plan (DESIGN §3, §6). */
export interface LimitOverrides {
  ingest_rate?: number;
  daily_included_bytes?: number;
  overage_ceiling_multiplier?: number;
  query_rate_per_min?: number;
  retention_days?: number;
  project_limit?: number;
  ai_daily_credits?: number;
}

export interface Account {
  id: string;
  name: string;
  tier: Tier;
  signupAt: number;
  /** Null for accounts that never were on trial. */
  trialEndsAt: number | null;
  paymentMethod: boolean;
  features: FeatureOverrides;
  limits: LimitOverrides;
}

export interface Tenant {
  id: string;
  name: string;
  accountId: string;
  disabled: boolean;
  createdAt: number;
}

export interface ApiKey {
  id: string;
  tenantId: string;
  name: string;
  scopes: Scope[];
  expiresAt: number | null;
  createdAt: number;
  /** sha256 hex of the secret; the secret itself is never stored. */
  secretHash: string;
}

/** A stored LogsQL query of a tenant (DESIGN §6 saved-search ceiling counts per account). */
export interface SavedSearch {
  id: string;
  tenantId: string;
  accountId: string;
  name: string;
  query: string;
  createdAt: number;
}

/** A tenant's dashboard; `panels` is the client's JSON, stored as jsonb and returned untouched. */
export interface Dashboard {
  id: string;
  tenantId: string;
  accountId: string;
  title: string;
  panels: unknown[];
  createdAt: number;
  updatedAt: number;
}

export const USER_ROLES = ['admin', 'member', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A person on an account (DESIGN §6 user ceiling); the email is unique per account. */
export interface AccountUser {
  id: string;
  accountId: string;
  email: string;
  role: UserRole;
  createdAt: number;
  /** The scrypt hash string (auth/passwords.ts); null for an invited user who has not set one yet (DESIGN §7). */
  passwordHash: string | null;
  /** sha256 hex of the pending invite's token, and when it lapses; both null once a password is set. */
  inviteTokenHash: string | null;
  inviteExpiresAt: number | null;
}

export interface NewUser {
  accountId: string;
  email: string;
  role: UserRole;
  passwordHash?: string | null;
  invite?: { tokenHash: string; expiresAt: number } | null;
}

/** A browser session (spec rule 10, DESIGN §7); the token itself is never stored, only its sha256. */
export interface Session {
  id: string;
  tokenHash: string;
  userId: string;
  accountId: string;
  createdAt: number;
  lastUsedAt: number;
  /** Set by sign-out, a password change or removing the user; an ended session answers 401 Token expired. */
  endedAt: number | null;
}

/** What a session lookup resolves to, read in one statement. `user` is null when the user row is gone. */
export interface SessionGrant {
  session: Session;
  user: AccountUser | null;
  account: Account;
}

/** What a key lookup resolves to: the key, its tenant and the tenant's account, read together. */
export interface KeyGrant {
  key: ApiKey;
  tenant: Tenant;
  account: Account;
}

export interface NewAccount {
  id?: string;
  name: string;
  tier: Tier;
  signupAt: number;
  trialEndsAt: number | null;
  features?: FeatureOverrides;
  limits?: LimitOverrides;
}

export interface AccountPatch {
  tier?: Tier;
  trialEndsAt?: number | null;
  paymentMethod?: boolean;
  /** Merged into the stored overrides, key by key. */
  features?: FeatureOverrides;
  limits?: LimitOverrides;
}

/** One increment of a daily counter (`bytes:logs`, `ai:total`, …) for an account's UTC day. */
export interface CounterDelta {
  accountId: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  name: string;
  delta: number;
}

/** Thrown when the database cannot be reached; auth turns it into 503 auth_unavailable (spec rule 11). */
export class ControlStoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`control store unreachable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'ControlStoreUnavailableError';
  }
}

export interface ControlStore extends DetectorStore, NotificationStore, PlaybookStore, ClusterStore {
  createAccount(input: NewAccount): Promise<Account>;
  getAccount(id: string): Promise<Account | null>;
  updateAccount(id: string, patch: AccountPatch): Promise<Account | null>;
  /**
   * Moves the account from `from` to `to` only if it is still in `from` (one statement), so that
   * concurrent sweeps report each transition once. Null when the account was not in `from`.
   */
  transitionTier(id: string, from: Tier, to: Tier): Promise<Account | null>;
  /**
   * Runs `fn` in one transaction with the account's row locked, on a store bound to that transaction:
   * a check against a ceiling and the creation it allows cannot interleave with another's (DESIGN §6).
   */
  withAccountLock<T>(accountId: string, fn: (store: ControlStore) => Promise<T>): Promise<T>;
  countAccounts(): Promise<number>;
  /** Accounts in `trial` whose trial ended at or before `atMs` (the sweep's work list). */
  listExpiredTrials(atMs: number): Promise<Account[]>;
  listAccounts(): Promise<Account[]>;

  createTenant(input: { id?: string; accountId: string; name: string }): Promise<Tenant>;
  getTenant(id: string): Promise<Tenant | null>;
  setTenantDisabled(id: string, disabled: boolean): Promise<Tenant | null>;
  listTenants(accountId: string): Promise<Tenant[]>;

  createKey(input: { tenantId: string; name: string; scopes: Scope[]; expiresAt: number | null; secretHash: string }): Promise<ApiKey>;
  getKey(id: string): Promise<ApiKey | null>;
  /** The live (not revoked) key with this secret hash, with its tenant and account. */
  findGrantByHash(secretHash: string): Promise<KeyGrant | null>;
  /**
   * For a store only this process can write (the embedded PGlite): a count that grows with every statement that may
   * have changed it. While it stands still, every read answers as it did (auth/key-resolver.ts). Absent for a store
   * other processes share (PostgreSQL).
   */
  changes?(): number;
  /** Rotation: the key keeps its id, scopes and expiry; the old secret stops matching at once. */
  replaceKeySecret(id: string, secretHash: string): Promise<ApiKey | null>;
  revokeKey(id: string): Promise<boolean>;
  listKeys(tenantId: string): Promise<ApiKey[]>;
  /** Live keys over all tenants of the account (the API-key ceiling counts per account). */
  countLiveKeys(accountId: string): Promise<number>;

  createSavedSearch(input: { tenantId: string; accountId: string; name: string; query: string }): Promise<SavedSearch>;
  getSavedSearch(id: string): Promise<SavedSearch | null>;
  listSavedSearches(tenantId: string): Promise<SavedSearch[]>;
  /** True when it existed and is gone now. */
  deleteSavedSearch(id: string): Promise<boolean>;
  /** Over all tenants of the account (the ceiling counts per account). */
  countSavedSearches(accountId: string): Promise<number>;

  createDashboard(input: { tenantId: string; accountId: string; title: string; panels: unknown[] }): Promise<Dashboard>;
  getDashboard(id: string): Promise<Dashboard | null>;
  listDashboards(tenantId: string): Promise<Dashboard[]>;
  /** Replaces the given fields and stamps updatedAt; null for an unknown id. */
  updateDashboard(id: string, patch: { title?: string; panels?: unknown[] }): Promise<Dashboard | null>;
  deleteDashboard(id: string): Promise<boolean>;
  /** Over all tenants of the account. */
  countDashboards(accountId: string): Promise<number>;

  /** Null when the account already has a user with this email (unique per account). */
  createUser(input: NewUser): Promise<AccountUser | null>;
  getUser(id: string): Promise<AccountUser | null>;
  listUsers(accountId: string): Promise<AccountUser[]>;
  /** Deletes the user and ends its sessions at `atMs`, in one transaction (DESIGN §7). */
  deleteUser(id: string, atMs?: number): Promise<boolean>;
  countUsers(accountId: string): Promise<number>;
  /** Users with this email over every account, ignoring case, oldest first (sign-in, DESIGN §7). */
  findUsersByEmail(email: string): Promise<AccountUser[]>;
  /** The user with this pending invite (expired or not: the caller judges). */
  findUserByInviteHash(tokenHash: string): Promise<AccountUser | null>;
  /** Sets the password hash and clears any invite; null for an unknown user. */
  setUserPassword(id: string, passwordHash: string): Promise<AccountUser | null>;
  /** Replaces the pending invite (a new link); null for an unknown user. */
  setUserInvite(id: string, invite: { tokenHash: string; expiresAt: number }): Promise<AccountUser | null>;
  setUserRole(id: string, role: UserRole): Promise<AccountUser | null>;

  createSession(input: { tokenHash: string; userId: string; accountId: string; atMs: number }): Promise<Session>;
  /** The session with this token hash (ended or not), with its user and account. */
  findSessionByHash(tokenHash: string): Promise<SessionGrant | null>;
  /** Moves last_used_at forward to `atMs` (never back) on a live session. */
  touchSession(id: string, atMs: number): Promise<void>;
  /** True when a live session was ended now. */
  endSession(id: string, atMs: number): Promise<boolean>;
  /** Ends every live session of the user; returns how many. */
  endUserSessions(userId: string, atMs: number): Promise<number>;
  /** Deletes sessions created before `cutoffMs` (long past any maximum age); returns how many. */
  deleteSessionsCreatedBefore(cutoffMs: number): Promise<number>;

  /** Adds every delta in one transaction (durable metering). */
  addCounters(deltas: CounterDelta[]): Promise<void>;
  /** All counters of one account's day, by name. */
  getCounters(accountId: string, day: string): Promise<Record<string, number>>;
  /** Counters of the days `fromDay`…`toDay` (inclusive, `YYYY-MM-DD`), by day then name; days without any are absent. */
  getCountersRange(accountId: string, fromDay: string, toDay: string): Promise<Record<string, Record<string, number>>>;

  /** Cheap reachability probe. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
