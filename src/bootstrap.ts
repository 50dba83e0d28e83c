// First start (DESIGN §2): with an empty control store, account `default` (tier custom) with tenant
// `default` and a key with scopes ingest,read,admin, printed once with a curl that sends a first entry.
// The admin token, when not set, is generated once and kept in <data>/admin-token with mode 0600.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ControlStore } from './stores/control/control-store.js';
import { createAccountWithKey } from './admin/accounts.js';

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
  print('first start: created account "default" (tier custom) with tenant "default"');
  print(`API key (shown once; scopes ingest,read,admin): ${created.secret}`);
  print('send a first entry:');
  print(`  curl -s -H 'X-API-Key: ${created.secret}' -H 'Content-Type: application/json' \\`);
  print(`    -d '[{"_msg":"hello from curl","service":"demo"}]' ${ingestUrl}/api/v1/ingest`);
}
