// Session tokens as a credential of the app plane only (spec rule 10; DESIGN §7): pure functions of the headers,
// beside credentials.ts, which the ingest plane keeps using alone — it never reads a cookie, so a session can never
// ingest. The cookie and its attributes, the token format, and the cross-site check of cookie-authenticated writes.
import { randomBytes } from 'node:crypto';
import { extractAppCredential, type DistinctHeaders } from './credentials.js';

export const SESSION_COOKIE = 'sightline_session';
/** Tokens start `sls_`, so they never look like an API key (`sl_`) to a person or a secret scanner. */
export const SESSION_TOKEN_PREFIX = 'sls_';

export interface SessionCredential {
  token: string;
  /** A cookie rides along on any request the browser makes, so only cookie-authenticated writes need the CSRF check. */
  via: 'bearer' | 'cookie';
}

/** `sls_` + 32 random bytes, base64url: 256 bits, so a plain sha256 (api-keys.ts hashSecret) is a sound verifier. */
export function newSessionToken(): string {
  return SESSION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The session credential of an app-plane request, or null when the request is for the API-key rules. Order:
 * `Authorization: Bearer|Token sls_…` (the app plane reads Authorization first, DESIGN §5); then any API-key form
 * of the credential table wins over the cookie (a key sent on purpose beats one the browser adds by itself); then
 * the `sightline_session` cookie. An sls_ token in X-API-Key or ?api_key= is not a session: it goes the API-key way
 * and is an unknown key (403, rule 9).
 */
export function extractSessionCredential(headers: DistinctHeaders, query: URLSearchParams): SessionCredential | null {
  for (const value of headers.authorization ?? []) {
    const m = /^\s*(?:bearer|token) +(\S+)\s*$/i.exec(value);
    const token = m?.[1];
    if (token?.startsWith(SESSION_TOKEN_PREFIX)) return { token, via: 'bearer' };
  }
  if (extractAppCredential(headers, query).kind !== 'none') return null;
  const token = cookieValue(headers.cookie, SESSION_COOKIE);
  return token === undefined ? null : { token, via: 'cookie' };
}

/** The first non-empty value of cookie `name` over every Cookie header (RFC 6265 §5.4: `a=b; c=d`). */
export function cookieValue(values: string[] | undefined, name: string): string | undefined {
  for (const header of values ?? []) {
    for (const pair of header.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
      const value = pair.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (value !== '') return value;
    }
  }
  return undefined;
}

const ATTRIBUTES = 'HttpOnly; SameSite=Strict; Path=/';

/** Set-Cookie of a new session (DESIGN §7): not readable by script, never sent cross-site, for every path. */
export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${token}; ${ATTRIBUTES}`;
}

/** Set-Cookie that makes the browser drop the cookie (sign-out). */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`;
}

/**
 * DESIGN §7 "no cross-site writes": a cookie-authenticated request that is not GET/HEAD must carry
 * `X-Requested-With: sightline` (a custom header, which a cross-site form cannot send and a cross-site script
 * cannot send without a preflight), or an `Origin` whose host is the request's own Host.
 */
export function isCrossSiteWrite(method: string, headers: DistinctHeaders): boolean {
  if (method === 'GET' || method === 'HEAD') return false;
  if ((headers['x-requested-with'] ?? []).some((v) => v.trim().toLowerCase() === 'sightline')) return false;
  const host = headers.host?.[0]?.trim().toLowerCase();
  const origin = headers.origin?.[0]?.trim();
  if (host === undefined || host === '' || origin === undefined) return true;
  try {
    return new URL(origin).host.toLowerCase() !== host;
  } catch {
    return true; // `Origin: null` (sandboxed frames, file: pages) and junk are cross-site
  }
}
