// The error catalogue: every reply of the spec's Errors section defined once (STYLE.md habit 4).
// One handler (front-doors/reply.ts) turns a ServiceError into the body shape of its plane:
// logs/traces carry `detail` + `error`; metrics carry `detail` only (spec, Errors).

/** Why a request was refused; counted per tenant on /metrics (STYLE.md habit 5). */
export type RefusalReason =
  | 'not_found' | 'method_not_allowed' | 'no_credential' | 'invalid_key' | 'expired_key' | 'tenant_disabled'
  | 'missing_scope' | 'tenant_mismatch' | 'auth_unavailable' | 'bad_request' | 'unsupported_encoding'
  | 'corrupt_body' | 'payload_too_large' | 'rate_limited' | 'platform_rate_limited' | 'daily_volume'
  | 'trial_expired' | 'wal_full' | 'backpressure' | 'feature_disabled' | 'ceiling' | 'ai_quota'
  | 'query_rate' | 'internal'
  // Sign-in and browser sessions (DESIGN §7).
  | 'session_expired' | 'sign_in_failed' | 'sign_in_throttled' | 'role' | 'cross_site'
  // Detectors (DESIGN §8): a detector its signal, history, query or parameters do not allow.
  | 'ineligible';

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    /** The `error` slug of logs/traces bodies; metrics bodies leave it out. */
    readonly slug: string,
    readonly detail: string,
    readonly reason: RefusalReason,
    /** Whole seconds, on 429 only (spec: `retry_after` and the `Retry-After` header). */
    readonly retryAfter?: number,
  ) {
    super(detail);
    this.name = 'ServiceError';
  }
}

const err = (status: number, slug: string, detail: string, reason: RefusalReason, retryAfter?: number) =>
  new ServiceError(status, slug, detail, reason, retryAfter);

export const errors = {
  notFound: (path: string) => err(404, 'not_found', `No route for ${path}`, 'not_found'),
  methodNotAllowed: (method: string, path: string) =>
    err(405, 'method_not_allowed', `${method} is not allowed on ${path}`, 'method_not_allowed'),

  // Authentication, spec rules 9 and 11.
  noCredential: () => err(401, 'unauthorized', 'API key required: send Authorization: Bearer <key> or X-API-Key', 'no_credential'),
  invalidKey: () => err(403, 'forbidden', 'Invalid API key', 'invalid_key'),
  expiredKey: () => err(403, 'forbidden', 'Invalid API key: the key has expired', 'expired_key'),
  tenantDisabled: () => err(403, 'forbidden', 'Tenant is disabled', 'tenant_disabled'),
  missingScope: (scope: string) => err(403, 'forbidden', `API key does not have required scope: ${scope}`, 'missing_scope'),
  tenantMismatch: () => err(403, 'forbidden', 'API key does not belong to this tenant', 'tenant_mismatch'),
  authUnavailable: () => err(503, 'auth_unavailable', 'Authentication service unavailable', 'auth_unavailable'),
  invalidSignature: (detail: string) => err(403, 'forbidden', detail, 'invalid_key'),
  adminTokenRequired: () => err(401, 'unauthorized', 'Admin token required', 'no_credential'),

  // Sign-in and browser sessions (DESIGN §7; spec rule 10: an aged-out session token is 401 `Token expired`).
  tokenExpired: () => err(401, 'token_expired', 'Token expired', 'session_expired'),
  noSession: () => err(401, 'unauthorized', 'Not signed in: send the sightline_session cookie or Authorization: Bearer <session token>', 'no_credential'),
  invalidSession: () => err(403, 'forbidden', 'Invalid session token', 'invalid_key'),
  badSignIn: () => err(401, 'unauthorized', 'Invalid email or password', 'sign_in_failed'),
  signInThrottled: (retryAfter: number) =>
    err(429, 'rate_limited', 'Too many failed sign-in attempts; try again later', 'sign_in_throttled', retryAfter),
  wrongCurrentPassword: () => err(403, 'forbidden', 'Current password is incorrect', 'sign_in_failed'),
  invalidInvite: () => err(403, 'forbidden', 'Invalid or already used invite', 'invalid_key'),
  inviteExpired: () => err(403, 'forbidden', 'The invite has expired: ask an admin for a new one', 'expired_key'),
  roleCannotChange: (role: string) => err(403, 'forbidden', `Your role (${role}) cannot change this`, 'role'),
  roleNotAdmin: (role: string) => err(403, 'forbidden', `Your role (${role}) cannot do this: admins only`, 'role'),
  crossSite: () => err(403, 'forbidden', 'Cross-site request refused: send X-Requested-With: sightline', 'cross_site'),
  sessionTenantMismatch: () => err(403, 'forbidden', 'This tenant does not belong to your account', 'tenant_mismatch'),

  // Bodies (DESIGN §6, order of checks).
  badRequest: (detail: string) => err(400, 'bad_request', detail, 'bad_request'),
  conflict: (detail: string) => err(409, 'conflict', detail, 'bad_request'),
  unsupportedEncoding: (encoding: string) =>
    err(400, 'unsupported_encoding', `Unsupported Content-Encoding: ${encoding} (accepted: gzip, zstd, snappy)`, 'unsupported_encoding'),
  corruptBody: (encoding: string, why: string) =>
    err(400, 'corrupt_body', `Corrupt ${encoding} stream: ${why}`, 'corrupt_body'),
  payloadTooLarge: (decodedBytes: string, limitBytes: number) =>
    err(413, 'payload_too_large', `Decompressed body is ${decodedBytes} bytes, over the limit of ${limitBytes} bytes`, 'payload_too_large'),
  metricsTooLarge: () => err(413, 'payload_too_large', 'metrics payload too large (8MB cap)', 'payload_too_large'),

  // 429s (spec, 429 details 1–4).
  rateLimited: (retryAfter: number) => err(429, 'rate_limited', 'Rate limit exceeded', 'rate_limited', retryAfter),
  platformRateLimited: (retryAfter: number) =>
    err(429, 'rate_limited', 'Rate limit exceeded', 'platform_rate_limited', retryAfter),
  dailyVolume: (usedBytes: number, capBytes: number) =>
    err(429, 'rate_limited', `Daily volume limit exceeded (${usedBytes} of ${capBytes} bytes)`, 'daily_volume', 60),
  trialExpired: () =>
    err(429, 'rate_limited', 'daily ingest quota is 0 for this tier (trial expired) — add a payment method to resume ingest', 'trial_expired', 3600),
  walFull: () => err(429, 'wal_full', 'Write-ahead log is full; back off 10 seconds', 'wal_full', 10),
  backpressure: () => err(429, 'backpressure', 'Storage is behind; back off 5 seconds', 'backpressure', 5),
  queryRate: (retryAfter: number) => err(429, 'rate_limited', 'Rate limit exceeded', 'query_rate', retryAfter),
  aiQuota: (retryAfter: number) =>
    err(429, 'rate_limited', 'AI credit quota exhausted for today', 'ai_quota', retryAfter),

  // Plan gates (spec, "Plan gates"): deterministic, not outages.
  metricsDisabled: () => err(503, 'feature_disabled', 'Metrics ingest not enabled', 'feature_disabled'),
  replayDisabled: () => err(503, 'feature_disabled', 'Session replay not enabled', 'feature_disabled'),
  multiProjectDisabled: () => err(403, 'forbidden', 'Multi-project is not enabled', 'feature_disabled'),
  projectLimit: () => err(403, 'forbidden', 'Project limit reached', 'ceiling'),
  ceilingReached: (thing: string, limit: number) => err(403, 'forbidden', `${thing} limit reached (${limit})`, 'ceiling'),
  aiNotAvailable: () => err(403, 'forbidden', 'AI features are not available on your plan', 'feature_disabled'),

  // Detectors (DESIGN §8): 422 with a detail that names the failing condition (and, for history, when it is met).
  unprocessable: (detail: string) => err(422, 'unprocessable', detail, 'ineligible'),

  internal: () => err(500, 'internal', 'Internal error', 'internal'),
} as const;

/** Body of an error reply. `shape` is the plane's: metrics bodies carry `detail` only. */
export function errorBody(e: ServiceError, shape: 'logs' | 'metrics'): Record<string, string | number> {
  const body: Record<string, string | number> = { detail: e.detail };
  if (shape === 'logs') body.error = e.slug;
  if (e.status === 429 && e.retryAfter !== undefined) body.retry_after = e.retryAfter;
  return body;
}
