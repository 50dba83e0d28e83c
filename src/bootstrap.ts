// First start (DESIGN §2): with an empty control store, account `default` (tier custom) with tenant
// `default` and a key with scopes ingest,read,admin, printed once with a curl that sends a first entry; and the
// app's first user, `admin@localhost` (role admin), whose generated password is printed once beside the key (§7).
// The admin token, when not set, is generated once and kept in <data>/admin-token with mode 0600.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ControlStore } from './stores/control/control-store.js';
import { createAccountWithKey } from './admin/accounts.js';
import { generatePassword, hashPassword } from './auth/passwords.js';

export const FIRST_USER_EMAIL = 'admin@localhost';

export async function ensureAdminToken(dataDir: string, configured: string | undefined, print: (line: string) => void): Promise<string> {
  if (configured !== undefined) return configured;
  const path = join(dataDir, 'admin-token');
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const token = 'sla_' + randomBytes(32).toString('base64url');
  await writeFile(path, token + '\n', { mode: 0o600, flag: 'wx' });
  print(`admin token (stored in ${path}, mode 0600): ${token}`);
  return token;
}

export async function bootstrapFirstAccount(store: ControlStore, nowMs: number, ingestUrl: string, print: (line: string) => void): Promise<void> {
  if ((await store.countAccounts()) > 0) return;
  const created = await createAccountWithKey(store, {
    name: 'default', tier: 'custom', signupAt: nowMs, accountId: 'default', tenantId: 'default',
  });
  const password = generatePassword();
  await store.createUser({ accountId: created.account.id, email: FIRST_USER_EMAIL, role: 'admin', passwordHash: await hashPassword(password) });
  print('first start: created account "default" (tier custom) with tenant "default"');
  // Tests and the conformance suite read the key from the first line that holds "API key": keep that line as is,
  // and keep the sign-in line free of that phrase.
  print(`API key (shown once; scopes ingest,read,admin): ${created.secret}`);
  print(`app sign-in: ${FIRST_USER_EMAIL} / ${password}`);
  print('send a first entry:');
  print(`  curl -s -H 'X-API-Key: ${created.secret}' -H 'Content-Type: application/json' \\`);
  print(`    -d '[{"_msg":"hello from curl","service":"demo"}]' ${ingestUrl}/api/v1/ingest`);
}
