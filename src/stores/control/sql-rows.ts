// Control-store rows → records. Rows arrive either from a table (bigint as string on `pg`, number on PGlite) or
// through to_jsonb (numbers); these functions make one shape of them, and refuse values the schema cannot hold.
import { randomBytes } from 'node:crypto';
import {
  SCOPES, TIERS, USER_ROLES,
  type Account, type AccountUser, type ApiKey, type Dashboard, type FeatureOverrides, type LimitOverrides,
  type SavedSearch, type Scope, type Session, type Tenant, type Tier,
} from './control-store.js';

/** `acc_…`, `ten_…`, `key_…`, …: 96 random bits, enough that ids never collide and cannot be guessed. */
export function newId(prefix: 'acc' | 'ten' | 'key' | 'srch' | 'dash' | 'usr' | 'ses' | 'det'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

export interface AccountRow {
  id: string; name: string; tier: string; signup_at: unknown; trial_ends_at: unknown;
  payment_method: boolean; features: unknown; limits: unknown;
}
export interface TenantRow { id: string; account_id: string; name: string; disabled: boolean; created_at: unknown }
export interface KeyRow {
  id: string; tenant_id: string; name: string; scopes: unknown; expires_at: unknown; created_at: unknown; secret_hash: string;
}

export interface SavedSearchRow { id: string; tenant_id: string; account_id: string; name: string; query: string; created_at: unknown }
export interface DashboardRow {
  id: string; tenant_id: string; account_id: string; title: string; panels: unknown; created_at: unknown; updated_at: unknown;
}
export interface UserRow {
  id: string; account_id: string; email: string; role: string; created_at: unknown;
  password_hash: string | null; invite_token_hash: string | null; invite_expires_at: unknown;
}
export interface SessionRow {
  id: string; token_hash: string; user_id: string; account_id: string; created_at: unknown; last_used_at: unknown; ended_at: unknown;
}

export function toSession(r: SessionRow): Session {
  return {
    id: r.id, tokenHash: r.token_hash, userId: r.user_id, accountId: r.account_id,
    createdAt: num(r.created_at), lastUsedAt: num(r.last_used_at), endedAt: numOrNull(r.ended_at),
  };
}

export function toSavedSearch(r: SavedSearchRow): SavedSearch {
  return { id: r.id, tenantId: r.tenant_id, accountId: r.account_id, name: r.name, query: r.query, createdAt: num(r.created_at) };
}

export function toDashboard(r: DashboardRow): Dashboard {
  const panels: unknown = typeof r.panels === 'string' ? JSON.parse(r.panels) : r.panels;
  return {
    id: r.id, tenantId: r.tenant_id, accountId: r.account_id, title: r.title,
    panels: Array.isArray(panels) ? panels : [], createdAt: num(r.created_at), updatedAt: num(r.updated_at),
  };
}

export function toUser(r: UserRow): AccountUser {
  const role = USER_ROLES.find((x) => x === r.role);
  if (!role) throw new Error(`control store holds an unknown role ${JSON.stringify(r.role)}`);
  return {
    id: r.id, accountId: r.account_id, email: r.email, role, createdAt: num(r.created_at),
    passwordHash: r.password_hash ?? null, inviteTokenHash: r.invite_token_hash ?? null, inviteExpiresAt: numOrNull(r.invite_expires_at),
  };
}

export function toAccount(r: AccountRow): Account {
  return {
    id: r.id,
    name: r.name,
    tier: toTier(r.tier),
    signupAt: num(r.signup_at),
    trialEndsAt: numOrNull(r.trial_ends_at),
    paymentMethod: r.payment_method,
    features: pick<FeatureOverrides>(r.features, FEATURE_KEYS, 'boolean'),
    limits: pick<LimitOverrides>(r.limits, LIMIT_KEYS, 'number'),
  };
}

export function toTenant(r: TenantRow): Tenant {
  return { id: r.id, name: r.name, accountId: r.account_id, disabled: r.disabled, createdAt: num(r.created_at) };
}

export function toKey(r: KeyRow): ApiKey {
  const raw: unknown = typeof r.scopes === 'string' ? parseTextArray(r.scopes) : r.scopes;
  const scopes = Array.isArray(raw) ? raw.filter((s): s is Scope => SCOPES.includes(s as Scope)) : [];
  return {
    id: r.id,
    tenantId: r.tenant_id,
    name: r.name,
    scopes,
    expiresAt: numOrNull(r.expires_at),
    createdAt: num(r.created_at),
    secretHash: r.secret_hash,
  };
}

export function toTier(v: string): Tier {
  const tier = TIERS.find((t) => t === v);
  if (!tier) throw new Error(`control store holds an unknown tier ${JSON.stringify(v)}`);
  return tier;
}

export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' || typeof v === 'string') return Number(v);
  throw new TypeError(`expected a number from the control store, got ${typeof v}`);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

const FEATURE_KEYS = ['metrics', 'replay', 'multi_project'] as const satisfies readonly (keyof FeatureOverrides)[];
const LIMIT_KEYS = [
  'ingest_rate', 'daily_included_bytes', 'overage_ceiling_multiplier', 'query_rate_per_min',
  'retention_days', 'project_limit', 'ai_daily_credits',
] as const satisfies readonly (keyof LimitOverrides)[];

/** The known override keys of a jsonb column with the right value type; anything else stored there is ignored. */
export function pick<T extends object>(v: unknown, keys: readonly (keyof T & string)[], type: 'boolean' | 'number'): T {
  const parsed: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  const out: Partial<Record<keyof T, unknown>> = {};
  if (typeof parsed !== 'object' || parsed === null) return out as T;
  for (const [k, x] of Object.entries(parsed as Record<string, unknown>)) {
    const key = keys.find((known) => known === k);
    if (key !== undefined && typeof x === type) out[key] = x;
  }
  return out as T;
}

/** `{a,b}` → ['a','b'] for a driver that hands text[] back unparsed; scope names never need quoting. */
export function parseTextArray(s: string): string[] {
  const inner = s.replace(/^\{|\}$/g, '');
  return inner === '' ? [] : inner.split(',').map((x) => x.replace(/^"|"$/g, ''));
}

export function one<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('control store: statement returned no row');
  return row;
}
