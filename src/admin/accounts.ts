// Creating accounts and keys: shared by the admin API, the tenant key API and the first-start bootstrap.
import { newSecret, hashSecret } from '../auth/api-keys.js';
import type { Account, ApiKey, ControlStore, FeatureOverrides, LimitOverrides, Scope, Tenant, Tier } from '../stores/control/control-store.js';

/** DESIGN §3: a trial ends 14 days after signup. */
export const TRIAL_MS = 14 * 86_400_000;

export interface IssuedKey {
  key: ApiKey;
  /** Shown once, never stored. */
  secret: string;
}

export async function createAccountWithKey(
  store: ControlStore,
  input: { name: string; tier: Tier; signupAt: number; features?: FeatureOverrides; limits?: LimitOverrides; accountId?: string; tenantId?: string },
): Promise<{ account: Account; tenant: Tenant } & IssuedKey> {
  const account = await store.createAccount({
    id: input.accountId,
    name: input.name,
    tier: input.tier,
    signupAt: input.signupAt,
    trialEndsAt: input.tier === 'trial' || input.tier === 'trial_expired' ? input.signupAt + TRIAL_MS : null,
    features: input.features ?? {},
    limits: input.limits ?? {},
  });
  const tenant = await store.createTenant({ id: input.tenantId, accountId: account.id, name: input.name });
  const issued = await issueKey(store, tenant.id, { scopes: ['ingest', 'read', 'admin'], expiresAt: null, name: 'first key' });
  return { account, tenant, ...issued };
}

export async function issueKey(
  store: ControlStore,
  tenantId: string,
  input: { scopes: Scope[]; expiresAt: number | null; name: string },
): Promise<IssuedKey> {
  const secret = newSecret();
  const key = await store.createKey({ tenantId, name: input.name, scopes: input.scopes, expiresAt: input.expiresAt, secretHash: hashSecret(secret) });
  return { key, secret };
}

/** The old secret stops matching at once in the store; the ingest cache sees it within its TTL (DESIGN §3). */
export async function rotateKey(store: ControlStore, keyId: string): Promise<IssuedKey | null> {
  const secret = newSecret();
  const key = await store.replaceKeySecret(keyId, hashSecret(secret));
  return key ? { key, secret } : null;
}
