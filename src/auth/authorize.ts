// Turning a credential into an authorised principal (spec rules 7–9, 11; DESIGN §6 order of checks:
// credential (401/403/503) → scope and tenant (403)).
import type { Credential } from './credentials.js';
import type { Freshness, KeyResolver } from './key-resolver.js';
import type { KeyGrant, Scope } from '../stores/control/control-store.js';
import { errors } from '../errors.js';

export interface Requirement {
  /** `any`: every valid key of the tenant will do (GET /api/v1/account). */
  scope: Scope | 'any';
  /** The tenant named in the path, when there is one (rule 8). */
  tenantId?: string;
}

export async function authorize(
  credential: Credential,
  resolver: KeyResolver,
  freshness: Freshness,
  requirement: Requirement,
  nowMs: number,
): Promise<KeyGrant> {
  if (credential.kind === 'none') throw errors.noCredential();
  if (credential.kind === 'conflicting') throw errors.invalidKey();
  const grant = await resolver.resolve(credential.key, freshness);
  if (!grant) throw errors.invalidKey();
  if (grant.key.expiresAt !== null && grant.key.expiresAt <= nowMs) throw errors.expiredKey();
  if (grant.tenant.disabled) throw errors.tenantDisabled();
  if (requirement.scope !== 'any' && !grant.key.scopes.includes(requirement.scope)) throw errors.missingScope(requirement.scope);
  if (requirement.tenantId !== undefined && requirement.tenantId !== grant.tenant.id) throw errors.tenantMismatch();
  return grant;
}
