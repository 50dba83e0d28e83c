// The admin API's record shapes (DESIGN §3): `account`, `tenant`, `api_key`. Ids are strings, times RFC 3339.
import type { Account, ApiKey, Tenant } from '../stores/control/control-store.js';
import { effectivePlan, featuresView, limitsView } from '../limits/plans.js';
import type { UsageReader } from '../metering/metering.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export async function renderAccount(account: Account, usage: UsageReader): Promise<Record<string, unknown>> {
  const plan = effectivePlan(account);
  return {
    id: account.id,
    name: account.name,
    tier: account.tier,
    signup_at: iso(account.signupAt),
    trial_ends_at: iso(account.trialEndsAt),
    payment_method: account.paymentMethod,
    features: featuresView(plan),
    limits: limitsView(plan),
    usage_today: await usage.usageToday(account),
  };
}

export function renderTenant(tenant: Tenant): Record<string, unknown> {
  return { id: tenant.id, name: tenant.name, account_id: tenant.accountId, disabled: tenant.disabled };
}

/** `key` (the secret) only when just issued: it is shown once and never stored. */
export function renderKey(key: ApiKey, secret?: string): Record<string, unknown> {
  return {
    id: key.id,
    ...(secret === undefined ? {} : { key: secret }),
    name: key.name,
    scopes: key.scopes,
    expires_at: iso(key.expiresAt),
    created_at: iso(key.createdAt),
    tenant_id: key.tenantId,
  };
}
