// What Settings asks of the service (DESIGN §7 Settings; §4 keys and usage; the account, users and session APIs).
// Shapes follow src/query/keys-api.ts (admin/render.ts renderKey), src/query/usage-api.ts (metering.ts
// usageToday) and the account/users/session routes. Null numbers mean unlimited (JSON has no Infinity).
import { getJson, sendJson, tenantPath } from '../../lib/api';
import type { Role, SessionInfo } from '../../lib/session';

export const SCOPES = ['ingest', 'read', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export interface ApiKey {
  id: string;
  /** The secret: present only in the reply that issued it (create, rotate), never again. */
  key?: string;
  name: string;
  scopes: Scope[];
  expires_at: string | null;
  created_at: string | null;
  tenant_id: string;
}

export const listKeys = async (tenant: string): Promise<ApiKey[]> =>
  (await getJson<{ keys: ApiKey[] }>(tenantPath(tenant, 'keys'))).keys;

export const createKey = async (tenant: string, body: { name: string; scopes: Scope[]; expires_at?: string }): Promise<ApiKey> =>
  (await sendJson<{ api_key: ApiKey }>('POST', tenantPath(tenant, 'keys'), body)).api_key;

export const rotateKey = async (tenant: string, id: string): Promise<ApiKey> =>
  (await sendJson<{ api_key: ApiKey }>('POST', tenantPath(tenant, `keys/${encodeURIComponent(id)}/rotate`))).api_key;

export const revokeKey = (tenant: string, id: string): Promise<void> =>
  sendJson<undefined>('DELETE', tenantPath(tenant, `keys/${encodeURIComponent(id)}`));

export const ROLES: readonly Role[] = ['admin', 'member', 'viewer'];

export interface AccountUser {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  /** False until an invited user sets a password. */
  has_password?: boolean;
  invite_expires_at?: string | null;
}

export interface Invite {
  token: string;
  url: string;
  expires_at: string;
}

const USERS = '/api/v1/account/users';

export const listUsers = async (): Promise<AccountUser[]> => (await getJson<{ users: AccountUser[] }>(USERS)).users;

/** With `password` the user can sign in at once; without, the reply carries an invite link to pass on. */
export const addUser = (body: { email: string; role: Role; password?: string }): Promise<{ user: AccountUser; invite?: Invite }> =>
  sendJson('POST', USERS, body);

export const changeRole = async (id: string, role: Role): Promise<AccountUser> =>
  (await sendJson<{ user: AccountUser }>('PATCH', `${USERS}/${encodeURIComponent(id)}`, { role })).user;

/** A fresh invite link (a lapsed invite, or a forgotten password); accepting it ends the user's sessions. */
export const reinvite = (id: string): Promise<{ user: AccountUser; invite: Invite }> =>
  sendJson('POST', `${USERS}/${encodeURIComponent(id)}/invite`);

export const removeUser = (id: string): Promise<void> => sendJson<undefined>('DELETE', `${USERS}/${encodeURIComponent(id)}`);

export const SIGNALS = ['logs', 'traces', 'metrics', 'rum', 'replay'] as const;
export type SignalName = (typeof SIGNALS)[number];
export type BySignal = Partial<Record<SignalName, number>>;

export interface UsageToday {
  day: string;
  bytes_accepted: number;
  included_bytes: number | null;
  ceiling_bytes: number | null;
  overage_bytes: number;
  overage_cost_usd: number;
  tier: string;
  by_signal: BySignal;
}

export interface UsageDay {
  day: string;
  bytes_accepted: number;
  overage_bytes: number;
  overage_cost_usd: number;
  by_signal: BySignal;
}

export interface UsageHistory {
  included_bytes: number | null;
  ceiling_bytes: number | null;
  /** Oldest first. */
  days: UsageDay[];
}

export const usageToday = (tenant: string): Promise<UsageToday> => getJson<UsageToday>(tenantPath(tenant, 'usage'));

export const usageHistory = (tenant: string, days: number): Promise<UsageHistory> =>
  getJson<UsageHistory>(tenantPath(tenant, 'usage/history'), { query: { days } });

export interface AccountReply {
  account: {
    id: string;
    name: string;
    tier: string;
    signup_at: string | null;
    trial_ends_at: string | null;
    features?: Record<string, boolean>;
  };
  plan: {
    ingest_rate?: number | null;
    daily_included_bytes?: number | null;
    overage_ceiling_multiplier?: number | null;
    query_rate_per_min?: number | null;
    retention_days?: number | null;
    ceilings?: Partial<Record<'users' | 'api_keys' | 'live_tail' | 'dashboards' | 'saved_searches' | 'projects', number | null>>;
    ai_daily_credits?: number | null;
  };
  ai?: { used_today?: number | null; remaining?: number | null };
  banner?: string | null;
}

export const getAccount = (): Promise<AccountReply> => getJson<AccountReply>('/api/v1/account');

/** Every session of the user ends, this one included; the reply is the fresh session that replaces it. */
export const changePassword = (current_password: string, new_password: string): Promise<SessionInfo> =>
  sendJson<SessionInfo>('POST', '/api/v1/session/password', { current_password, new_password });

/** `n` UTC days ending on the reply's last day, oldest first; days the reply left out count as zero. */
export function lastDays(days: UsageDay[], n: number): UsageDay[] {
  const last = days[days.length - 1];
  if (!last) return [];
  const byDay = new Map(days.map((d) => [d.day, d]));
  const end = Date.parse(`${last.day}T00:00:00Z`);
  const out: UsageDay[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const day = new Date(end - i * 86_400_000).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? { day, bytes_accepted: 0, overage_bytes: 0, overage_cost_usd: 0, by_signal: {} });
  }
  return out;
}
