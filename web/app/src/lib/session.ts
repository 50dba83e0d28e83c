// Who is signed in (DESIGN §7): `GET /api/v1/session` says, `POST` signs in, `DELETE` signs out. The role
// decides what the UI offers: a viewer sees no write controls, only an admin manages keys and users.
import { getJson, onSignedOut, sendJson } from './api';
import { Store, persisted } from './store';

export type Role = 'admin' | 'member' | 'viewer';

export interface SessionInfo {
  user: { id: string; email: string; role: Role };
  account: { id: string; name: string; tier: string; trial_ends_at?: string | null };
  tenants: { id: string; name: string }[];
  expires_at: string;
}

/** `undefined` while the first check runs; `null` when signed out. */
export const session = new Store<SessionInfo | null | undefined>(undefined);
/** The tenant the pages read from; one of the session's tenants. */
export const tenantChoice = persisted<string>('sightline.tenant', '');

onSignedOut(() => session.set(null));

export async function loadSession(): Promise<void> {
  try {
    session.set(await getJson<SessionInfo>('/api/v1/session', { quiet401: true }));
  } catch {
    session.set(null);
  }
}

export async function signIn(email: string, password: string): Promise<void> {
  session.set(await sendJson<SessionInfo>('POST', '/api/v1/session', { email, password }, { quiet401: true }));
}

export async function signOut(): Promise<void> {
  try {
    await sendJson('DELETE', '/api/v1/session', undefined, { quiet401: true });
  } finally {
    session.set(null);
  }
}

/** The tenant to use: the stored choice when the session has it, else the session's first. */
export function currentTenant(info: SessionInfo): string {
  const chosen = tenantChoice.get();
  if (info.tenants.some((t) => t.id === chosen)) return chosen;
  return info.tenants[0]?.id ?? '';
}

export const canWrite = (info: SessionInfo): boolean => info.user.role !== 'viewer';
export const isAdmin = (info: SessionInfo): boolean => info.user.role === 'admin';
