// Key lookups (key-resolver.ts) on the embedded control store: an answer is reused while the store cannot have
// changed — on the app plane too, which must see a rotation, a revocation or a disabled tenant at once (DESIGN §3) —
// and read again after any statement that may write; a store that does not count its changes is read every time.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ControlStore } from '../stores/control/control-store.js';
import { openControlStore } from '../stores/control/open-control-store.js';
import { hashSecret, newSecret } from './api-keys.js';
import { KeyResolver } from './key-resolver.js';

const dataDir = mkdtempSync(join(tmpdir(), 'sightline-keys-'));
let store: ControlStore;
let reads = 0;
/** The store, its grant reads counted. */
let counted: ControlStore;

before(async () => {
  store = await openControlStore({ dataDir });
  counted = Object.create(store) as ControlStore;
  counted.findGrantByHash = (hash: string) => {
    reads++;
    return store.findGrantByHash(hash);
  };
});
after(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function newKey(): Promise<{ secret: string; keyId: string; tenantId: string }> {
  const account = await store.createAccount({ name: 'a', tier: 'team', signupAt: 0, trialEndsAt: null });
  const tenant = await store.createTenant({ accountId: account.id, name: 't' });
  const secret = newSecret();
  const key = await store.createKey({ tenantId: tenant.id, name: 'k', scopes: ['ingest', 'read'], expiresAt: null, secretHash: hashSecret(secret) });
  return { secret, keyId: key.id, tenantId: tenant.id };
}

test('the embedded store counts the statements that may write, and only those', async () => {
  const before = store.changes?.();
  assert.equal(typeof before, 'number');
  await store.findGrantByHash(hashSecret('nothing'));
  await store.listAccounts();
  assert.equal(store.changes?.(), before, 'reads change nothing');
  await store.addCounters([{ accountId: 'x', day: '2026-11-25', name: 'bytes:logs', delta: 1 }]);
  assert.ok((store.changes?.() ?? 0) > (before ?? 0), 'a write (in a transaction) is counted');
});

test('a fresh lookup reads only when the store may have changed: a rotation, a revocation, a disabled tenant are seen at once', async () => {
  const resolver = new KeyResolver(counted, 60_000);
  const { secret, keyId, tenantId } = await newKey();
  reads = 0;
  assert.equal((await resolver.resolve(secret, 'fresh'))?.key.id, keyId);
  assert.equal((await resolver.resolve(secret, 'fresh'))?.key.id, keyId);
  assert.equal((await resolver.resolve(secret, 'fresh'))?.key.id, keyId);
  assert.equal(reads, 1, 'nothing was written between them');

  await store.setTenantDisabled(tenantId, true);
  assert.equal((await resolver.resolve(secret, 'fresh'))?.tenant.disabled, true);
  await store.setTenantDisabled(tenantId, false);

  const rotated = newSecret();
  await store.replaceKeySecret(keyId, hashSecret(rotated));
  assert.equal(await resolver.resolve(secret, 'fresh'), null, 'the old secret is refused at once');
  assert.equal((await resolver.resolve(rotated, 'fresh'))?.key.id, keyId);
  await store.revokeKey(keyId);
  assert.equal(await resolver.resolve(rotated, 'fresh'), null, 'a revoked key is refused at once');
  reads = 0;
  assert.equal(await resolver.resolve(rotated, 'fresh'), null);
  assert.equal(reads, 0, 'an unknown key is remembered as unknown until the store changes');
});

test('the ingest plane keeps its TTL, and past it reads only when the store may have changed', async () => {
  const resolver = new KeyResolver(counted, 0);
  const { secret, keyId } = await newKey();
  reads = 0;
  await resolver.resolve(secret, 'cached');
  await resolver.resolve(secret, 'cached');
  assert.equal(reads, 1);
  await store.addCounters([{ accountId: 'x', day: '2026-11-25', name: 'bytes:logs', delta: 1 }]);
  assert.equal((await resolver.resolve(secret, 'cached'))?.key.id, keyId);
  assert.equal(reads, 2, 'any write, even one that leaves keys alone, means a read');
});

test('a store that does not count its changes (a shared PostgreSQL) is read for every fresh lookup', async () => {
  const uncounted = Object.create(counted) as ControlStore;
  Object.defineProperty(uncounted, 'changes', { value: undefined });
  const resolver = new KeyResolver(uncounted, 60_000);
  const { secret } = await newKey();
  reads = 0;
  await resolver.resolve(secret, 'fresh');
  await resolver.resolve(secret, 'fresh');
  await resolver.resolve(secret, 'cached');
  assert.equal(reads, 2, 'two fresh reads; the ingest plane\'s cache answered the third');
});
