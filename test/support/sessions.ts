// Helpers of the sign-in and session e2e tests (DESIGN §7; spec rule 10): users made through the users API, sign-in
// over HTTP, the headers a browser (cookie) or a script (Bearer) sends, and service time moved by the test clock.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { admin, call, type Reply, type RunningService } from './service.js';

export type Role = 'admin' | 'member' | 'viewer';

export interface User {
  id: string;
  email: string;
  password: string;
  role: Role;
}

export const email = (prefix = 'u'): string => `${prefix}-${randomBytes(5).toString('hex')}@example.com`;

/** Adds a user with a password through POST /api/v1/account/users, with an admin-scoped key of the account. */
export async function addUser(svc: RunningService, adminKey: string, role: Role, password = `pw-${randomBytes(6).toString('hex')}`): Promise<User> {
  const r = await call(`${svc.app}/api/v1/account/users`, {
    method: 'POST', headers: { 'X-API-Key': adminKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: email(role), role, password }),
  });
  if (r.status !== 201) throw new Error(`user creation failed: ${r.status} ${r.text}`);
  const u = (r.json as { user: { id: string; email: string } }).user;
  return { id: u.id, email: u.email, password, role };
}

export interface SignIn {
  reply: Reply;
  /** The sls_ token of the Set-Cookie, '' when none was set. */
  token: string;
  setCookie: string;
}

export function cookieToken(setCookie: string): string {
  return /sightline_session=([^;]*)/.exec(setCookie)?.[1] ?? '';
}

export async function signIn(svc: RunningService, mail: string, password: string): Promise<SignIn> {
  const reply = await call(`${svc.app}/api/v1/session`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: mail, password }),
  });
  const setCookie = String(reply.headers['set-cookie'] ?? '');
  return { reply, token: cookieToken(setCookie), setCookie };
}

/** Signs in and returns the token, or throws with the reply. */
export async function sessionOf(svc: RunningService, user: { email: string; password: string }): Promise<string> {
  const s = await signIn(svc, user.email, user.password);
  if (s.reply.status !== 200 || s.token === '') throw new Error(`sign-in of ${user.email} failed: ${s.reply.status} ${s.reply.text}`);
  return s.token;
}

/** What the web app sends: the cookie and X-Requested-With (lib/api.ts). */
export const browser = (token: string): Record<string, string> => ({ Cookie: `sightline_session=${token}`, 'X-Requested-With': 'sightline' });
/** The cookie alone, as a cross-site form post would carry it. */
export const cookieOnly = (token: string): Record<string, string> => ({ Cookie: `sightline_session=${token}` });
export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

/** A JSON request to the app door with these headers. */
export function send(svc: RunningService, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  return call(svc.app + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Service time, moved only forward from wall time by these tests (DESIGN §3 PUT /admin/v1/clock). */
export class TestClock {
  private offsetMs = 0;

  constructor(private readonly svc: RunningService) {}

  now(): number {
    return Date.now() + this.offsetMs;
  }

  async advance(ms: number): Promise<void> {
    const target = this.now() + ms;
    const r = await admin(this.svc, 'PUT', '/admin/v1/clock', { now: new Date(target).toISOString() });
    if (r.status !== 200) throw new Error(`clock: ${r.status} ${r.text}`);
    this.offsetMs += ms;
  }

  /** Back to wall time (tests that share a service with others put the clock back). */
  async reset(): Promise<void> {
    await admin(this.svc, 'PUT', '/admin/v1/clock', { now: new Date().toISOString() });
    this.offsetMs = 0;
  }
}

/** POST /api/v1/session from a chosen local address (127.0.0.x), for the per-address throttle. */
export function signInFrom(svc: RunningService, localAddress: string, mail: string, password: string): Promise<{ status: number; body: string }> {
  const u = new URL(`${svc.app}/api/v1/session`);
  const payload = JSON.stringify({ email: mail, password });
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress, agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
