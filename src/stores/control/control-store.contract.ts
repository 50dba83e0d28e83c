// One contract suite for every control-store backend (STYLE.md habit 3; DESIGN §1 "the same test suite runs
// against every backend that is present"). pglite.test.ts and postgres.test.ts run it.
//
// `open()` must return a store over the SAME database every time it is called: the suite closes a store and opens
// again to prove the data and the migrations survive a restart. `cleanup()` closes the store and may drop the
// database; the suite calls it once, on the last store it opened.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ControlStoreUnavailableError, type ControlStore, type NewAccount } from './control-store.js';
import { webAppContract } from './control-store-app.contract.js';
import { detectorsContract } from './control-store-detectors.contract.js';
import { notifyContract } from './control-store-notify.contract.js';
import { playbooksContract } from './control-store-playbooks.contract.js';

export interface OpenedControlStore {
  store: ControlStore;
  cleanup(): Promise<void>;
}

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

/** A fresh sha256-shaped hex string: every test uses its own hashes so runs never collide. */
const hash = (): string => randomBytes(32).toString('hex');
const uid = (): string => randomBytes(4).toString('hex');

export function controlStoreContract(name: string, open: () => Promise<OpenedControlStore>): void {
  void describe(`control store contract: ${name}`, () => {
    let h: OpenedControlStore | undefined;
    const s = (): ControlStore => {
      if (!h) throw new Error('store not open');
      return h.store;
    };
    const trial = (over: Partial<NewAccount> = {}): NewAccount =>
      ({ name: `acct ${uid()}`, tier: 'trial', signupAt: T0, trialEndsAt: T0 + 14 * DAY, ...over });

    before(async () => { h = await open(); });
    after(async () => { await h?.cleanup(); });

    void it('transitionTier moves an account only from the tier it names, once', async () => {
      const a = await s().createAccount(trial());
      const results = await Promise.all([1, 2, 3, 4].map(() => s().transitionTier(a.id, 'trial', 'trial_expired')));
      assert.equal(results.filter((r) => r !== null).length, 1, 'exactly one of the concurrent moves wins');
      assert.equal((await s().getAccount(a.id))?.tier, 'trial_expired');
      assert.equal(await s().transitionTier(a.id, 'trial', 'trial_expired'), null);
    });

    void it('withAccountLock serialises check-then-create: concurrent creations cannot pass a ceiling', async () => {
      const a = await s().createAccount(trial());
      const created = await Promise.all(Array.from({ length: 8 }, (_, i) => s().withAccountLock(a.id, async (store) => {
        if ((await store.listTenants(a.id)).length >= 2) return null;
        return store.createTenant({ accountId: a.id, name: `t${i}` });
      })));
      assert.equal(created.filter((t) => t !== null).length, 2);
      assert.equal((await s().listTenants(a.id)).length, 2);
    });

    void it('withAccountLock rolls back what fn did when fn throws', async () => {
      const a = await s().createAccount(trial());
      await assert.rejects(s().withAccountLock(a.id, async (store) => {
        await store.createTenant({ accountId: a.id, name: 'doomed' });
        throw new Error('refused');
      }), /refused/);
      assert.equal((await s().listTenants(a.id)).length, 0);
    });

    // ── accounts ──────────────────────────────────────────────────────────────────────────────────────────

    void it('an account reads back exactly as created, under a generated acc_ id', async () => {
      const a = await s().createAccount(trial({ features: { multi_project: false }, limits: { ingest_rate: 250 } }));
      assert.match(a.id, /^acc_[0-9a-f]{24}$/);
      assert.deepEqual(a, {
        id: a.id, name: a.name, tier: 'trial', signupAt: T0, trialEndsAt: T0 + 14 * DAY, paymentMethod: false,
        features: { multi_project: false }, limits: { ingest_rate: 250 },
      });
      assert.deepEqual(await s().getAccount(a.id), a);
      assert.equal(await s().getAccount(`acc_missing_${uid()}`), null);
    });

    void it('a caller-chosen account id is kept, and a paid account may have no trial end', async () => {
      const id = `acc_given_${uid()}`;
      const a = await s().createAccount({ id, name: 'given', tier: 'custom', signupAt: T0, trialEndsAt: null });
      assert.equal(a.id, id);
      assert.equal(a.trialEndsAt, null);
      assert.deepEqual([a.features, a.limits], [{}, {}]);
    });

    void it('quotes and SQL in values travel as data, never as SQL', async () => {
      const nasty = `O'Brien"; DROP TABLE accounts; -- $1 \\ ${uid()}`;
      const a = await s().createAccount(trial({ name: nasty }));
      assert.equal((await s().getAccount(a.id))?.name, nasty);
      const t = await s().createTenant({ accountId: a.id, name: nasty });
      assert.equal((await s().getTenant(t.id))?.name, nasty);
    });

    void it('updateAccount merges features and limits key by key and sets tier, trial end and payment method', async () => {
      const a = await s().createAccount(trial({ features: { metrics: false }, limits: { ingest_rate: 100, retention_days: 7 } }));
      const u1 = await s().updateAccount(a.id, { features: { replay: false }, limits: { ingest_rate: 200, overage_ceiling_multiplier: 1.5 } });
      assert.ok(u1);
      assert.deepEqual(u1.features, { metrics: false, replay: false });
      assert.deepEqual(u1.limits, { ingest_rate: 200, retention_days: 7, overage_ceiling_multiplier: 1.5 });
      const u2 = await s().updateAccount(a.id, { tier: 'team', trialEndsAt: null, paymentMethod: true });
      assert.ok(u2);
      assert.equal(u2.tier, 'team');
      assert.equal(u2.trialEndsAt, null);
      assert.equal(u2.paymentMethod, true);
      assert.deepEqual(u2.features, { metrics: false, replay: false }, 'an update without features keeps them');
      assert.deepEqual(await s().getAccount(a.id), u2);
      assert.deepEqual(await s().updateAccount(a.id, {}), u2, 'an empty patch changes nothing');
    });

    void it('updateAccount of an unknown account is null', async () => {
      assert.equal(await s().updateAccount(`acc_missing_${uid()}`, { tier: 'team' }), null);
      assert.equal(await s().updateAccount(`acc_missing_${uid()}`, {}), null);
    });

    void it('listExpiredTrials lists trials that ended at or before the time, and nothing else', async () => {
      const at = T0 + 1000 * DAY + Math.floor(Math.random() * DAY);
      const ended = await s().createAccount(trial({ trialEndsAt: at - 1 }));
      const endsNow = await s().createAccount(trial({ trialEndsAt: at }));
      const later = await s().createAccount(trial({ trialEndsAt: at + 1 }));
      const paid = await s().createAccount(trial({ tier: 'team', trialEndsAt: at - 5 }));
      const expired = await s().createAccount(trial({ tier: 'trial_expired', trialEndsAt: at - 5 }));
      const mine = new Set([ended.id, endsNow.id, later.id, paid.id, expired.id]);
      const listed = (await s().listExpiredTrials(at)).filter((a) => mine.has(a.id));
      assert.deepEqual(listed.map((a) => a.id), [ended.id, endsNow.id]);
      assert.deepEqual(listed[0], ended);
    });

    void it('countAccounts and listAccounts include every account', async () => {
      const before = await s().countAccounts();
      const a = await s().createAccount(trial());
      const b = await s().createAccount(trial({ tier: 'growth', trialEndsAt: null }));
      assert.equal(await s().countAccounts(), before + 2);
      const all = await s().listAccounts();
      assert.equal(all.length, before + 2);
      assert.deepEqual(all.filter((x) => x.id === a.id || x.id === b.id).map((x) => x.id).sort(), [a.id, b.id].sort());
    });

    // ── tenants ───────────────────────────────────────────────────────────────────────────────────────────

    void it('the bootstrap can create account and tenant with the given id "default"', async () => {
      const a = await s().createAccount({ id: 'default', name: 'default', tier: 'custom', signupAt: T0, trialEndsAt: null });
      const t = await s().createTenant({ id: 'default', accountId: a.id, name: 'default' });
      assert.deepEqual({ ...t, createdAt: 0 }, { id: 'default', name: 'default', accountId: 'default', disabled: false, createdAt: 0 });
      assert.equal(typeof t.createdAt, 'number');
      assert.deepEqual(await s().getTenant('default'), t);
    });

    void it('tenants get generated ten_ ids and are listed per account', async () => {
      const a = await s().createAccount(trial());
      const other = await s().createAccount(trial());
      const t1 = await s().createTenant({ accountId: a.id, name: 'one' });
      const t2 = await s().createTenant({ accountId: a.id, name: 'two' });
      await s().createTenant({ accountId: other.id, name: 'elsewhere' });
      assert.match(t1.id, /^ten_[0-9a-f]{24}$/);
      const listed = await s().listTenants(a.id);
      assert.deepEqual(listed.map((t) => t.id).sort(), [t1.id, t2.id].sort());
      assert.deepEqual(listed.find((t) => t.id === t2.id), t2);
      assert.deepEqual(await s().listTenants(`acc_missing_${uid()}`), []);
      assert.equal(await s().getTenant(`ten_missing_${uid()}`), null);
    });

    void it('a tenant can be disabled and enabled again; an unknown tenant is null', async () => {
      const a = await s().createAccount(trial());
      const t = await s().createTenant({ accountId: a.id, name: 't' });
      assert.deepEqual(await s().setTenantDisabled(t.id, true), { ...t, disabled: true });
      assert.equal((await s().getTenant(t.id))?.disabled, true);
      assert.deepEqual(await s().setTenantDisabled(t.id, false), t);
      assert.equal(await s().setTenantDisabled(`ten_missing_${uid()}`, true), null);
    });

    void it('a tenant of an unknown account is refused with a plain error, not as an outage', async () => {
      await assert.rejects(s().createTenant({ accountId: `acc_missing_${uid()}`, name: 'orphan' }), (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.ok(!(e instanceof ControlStoreUnavailableError), 'a constraint violation is not an outage');
        return true;
      });
    });

    // ── API keys ──────────────────────────────────────────────────────────────────────────────────────────

    const tenantOf = async (): Promise<{ accountId: string; tenantId: string }> => {
      const a = await s().createAccount(trial());
      const t = await s().createTenant({ accountId: a.id, name: 't' });
      return { accountId: a.id, tenantId: t.id };
    };

    void it('a key reads back as created, under a generated key_ id', async () => {
      const { tenantId } = await tenantOf();
      const secretHash = hash();
      const k = await s().createKey({ tenantId, name: 'ci', scopes: ['ingest', 'read'], expiresAt: T0 + DAY, secretHash });
      assert.match(k.id, /^key_[0-9a-f]{24}$/);
      assert.deepEqual({ ...k, createdAt: 0 }, { id: k.id, tenantId, name: 'ci', scopes: ['ingest', 'read'], expiresAt: T0 + DAY, createdAt: 0, secretHash });
      assert.equal(typeof k.createdAt, 'number');
      assert.deepEqual(await s().getKey(k.id), k);
      assert.equal(await s().getKey(`key_missing_${uid()}`), null);
    });

    void it('findGrantByHash returns the key with its tenant and account, read together', async () => {
      const { accountId, tenantId } = await tenantOf();
      const secretHash = hash();
      const k = await s().createKey({ tenantId, name: 'k', scopes: ['ingest', 'read', 'admin'], expiresAt: null, secretHash });
      const grant = await s().findGrantByHash(secretHash);
      assert.deepEqual(grant, { key: k, tenant: await s().getTenant(tenantId), account: await s().getAccount(accountId) });
      assert.equal(await s().findGrantByHash(hash()), null, 'an unknown hash finds nothing');
    });

    void it('findGrantByHash still returns expired keys and disabled tenants: the caller judges them', async () => {
      const { accountId, tenantId } = await tenantOf();
      const secretHash = hash();
      await s().createKey({ tenantId, name: 'old', scopes: ['read'], expiresAt: 1, secretHash });
      await s().setTenantDisabled(tenantId, true);
      await s().updateAccount(accountId, { tier: 'trial_expired' });
      const grant = await s().findGrantByHash(secretHash);
      assert.ok(grant);
      assert.equal(grant.key.expiresAt, 1);
      assert.equal(grant.tenant.disabled, true);
      assert.equal(grant.account.tier, 'trial_expired');
    });

    void it('rotation keeps id, scopes and expiry, and the old secret stops matching at once', async () => {
      const { tenantId } = await tenantOf();
      const oldHash = hash();
      const newHash = hash();
      const k = await s().createKey({ tenantId, name: 'rot', scopes: ['ingest'], expiresAt: T0 + 3 * DAY, secretHash: oldHash });
      const rotated = await s().replaceKeySecret(k.id, newHash);
      assert.deepEqual(rotated, { ...k, secretHash: newHash });
      assert.equal(await s().findGrantByHash(oldHash), null);
      assert.equal((await s().findGrantByHash(newHash))?.key.id, k.id);
      assert.equal(await s().replaceKeySecret(`key_missing_${uid()}`, hash()), null);
    });

    void it('a revoked key is gone for lookup, reads, listing and rotation; revoking twice is false', async () => {
      const { tenantId } = await tenantOf();
      const secretHash = hash();
      const keep = await s().createKey({ tenantId, name: 'keep', scopes: ['read'], expiresAt: null, secretHash: hash() });
      const k = await s().createKey({ tenantId, name: 'gone', scopes: ['ingest'], expiresAt: null, secretHash });
      assert.equal(await s().revokeKey(k.id), true);
      assert.equal(await s().findGrantByHash(secretHash), null);
      assert.equal(await s().getKey(k.id), null);
      assert.deepEqual(await s().listKeys(tenantId), [keep]);
      assert.equal(await s().replaceKeySecret(k.id, hash()), null);
      assert.equal(await s().revokeKey(k.id), false);
      assert.equal(await s().revokeKey(`key_missing_${uid()}`), false);
    });

    void it('listKeys lists one tenant\'s live keys only', async () => {
      const { accountId, tenantId } = await tenantOf();
      const second = await s().createTenant({ accountId, name: 'second' });
      const k1 = await s().createKey({ tenantId, name: 'a', scopes: ['ingest'], expiresAt: null, secretHash: hash() });
      const k2 = await s().createKey({ tenantId, name: 'b', scopes: ['read', 'admin'], expiresAt: T0, secretHash: hash() });
      await s().createKey({ tenantId: second.id, name: 'c', scopes: ['read'], expiresAt: null, secretHash: hash() });
      const listed = await s().listKeys(tenantId);
      assert.deepEqual(listed.map((k) => k.id).sort(), [k1.id, k2.id].sort());
      assert.deepEqual(listed.find((k) => k.id === k2.id), k2);
      assert.deepEqual(await s().listKeys(`ten_missing_${uid()}`), []);
    });

    void it('countLiveKeys counts over all of the account\'s tenants and leaves out revoked keys', async () => {
      const { accountId, tenantId } = await tenantOf();
      const second = await s().createTenant({ accountId, name: 'second' });
      const other = await tenantOf();
      await s().createKey({ tenantId, name: 'a', scopes: ['ingest'], expiresAt: null, secretHash: hash() });
      await s().createKey({ tenantId: second.id, name: 'b', scopes: ['read'], expiresAt: 1, secretHash: hash() });
      const gone = await s().createKey({ tenantId: second.id, name: 'c', scopes: ['read'], expiresAt: null, secretHash: hash() });
      await s().createKey({ tenantId: other.tenantId, name: 'x', scopes: ['read'], expiresAt: null, secretHash: hash() });
      assert.equal(await s().countLiveKeys(accountId), 3);
      await s().revokeKey(gone.id);
      assert.equal(await s().countLiveKeys(accountId), 2);
      assert.equal(await s().countLiveKeys(`acc_missing_${uid()}`), 0);
    });

    // ── saved searches, dashboards, users ───────────────────────────────────────────────────────────────────

    void it('saved searches: create, get, list per tenant, count per account, delete once', async () => {
      const { accountId, tenantId } = await tenantOf();
      const second = await s().createTenant({ accountId, name: 'second' });
      const other = await tenantOf();
      const a = await s().createSavedSearch({ tenantId, accountId, name: 'errors', query: 'level:error' });
      assert.match(a.id, /^srch_[0-9a-f]{24}$/);
      assert.deepEqual({ ...a, createdAt: 0 }, { id: a.id, tenantId, accountId, name: 'errors', query: 'level:error', createdAt: 0 });
      assert.equal(typeof a.createdAt, 'number');
      const b = await s().createSavedSearch({ tenantId: second.id, accountId, name: `it's "quoted"`, query: '_msg:"a b"' });
      await s().createSavedSearch({ tenantId: other.tenantId, accountId: other.accountId, name: 'x', query: '*' });
      assert.deepEqual(await s().getSavedSearch(a.id), a);
      assert.deepEqual(await s().listSavedSearches(tenantId), [a]);
      assert.deepEqual(await s().listSavedSearches(second.id), [b]);
      assert.equal(await s().countSavedSearches(accountId), 2);
      assert.equal(await s().deleteSavedSearch(a.id), true);
      assert.equal(await s().deleteSavedSearch(a.id), false);
      assert.equal(await s().getSavedSearch(a.id), null);
      assert.equal(await s().countSavedSearches(accountId), 1);
      assert.equal(await s().countSavedSearches(`acc_missing_${uid()}`), 0);
    });

    void it('dashboards: panels round-trip as JSON, update replaces fields and stamps updatedAt, delete once', async () => {
      const { accountId, tenantId } = await tenantOf();
      const other = await tenantOf();
      const panels = [{ type: 'logs', query: 'level:error', pos: { x: 0, y: 1 }, tags: ['a', null, 2.5, true] }];
      const d = await s().createDashboard({ tenantId, accountId, title: 'Ops', panels });
      assert.match(d.id, /^dash_[0-9a-f]{24}$/);
      assert.deepEqual(d.panels, panels);
      assert.equal(d.createdAt, d.updatedAt);
      assert.deepEqual(await s().getDashboard(d.id), d);
      await s().createDashboard({ tenantId: other.tenantId, accountId: other.accountId, title: 'elsewhere', panels: [] });
      assert.deepEqual(await s().listDashboards(tenantId), [d]);
      assert.equal(await s().countDashboards(accountId), 1);
      const renamed = await s().updateDashboard(d.id, { title: 'Ops 2' });
      assert.deepEqual({ ...renamed, updatedAt: 0 }, { ...d, title: 'Ops 2', updatedAt: 0 });
      const repanelled = await s().updateDashboard(d.id, { panels: [] });
      assert.ok(repanelled);
      assert.equal(repanelled.title, 'Ops 2');
      assert.deepEqual(repanelled.panels, []);
      assert.deepEqual(await s().getDashboard(d.id), repanelled);
      assert.equal(await s().updateDashboard(`dash_missing_${uid()}`, { title: 'x' }), null);
      assert.equal(await s().deleteDashboard(d.id), true);
      assert.equal(await s().deleteDashboard(d.id), false);
      assert.equal(await s().getDashboard(d.id), null);
      assert.equal(await s().countDashboards(accountId), 0);
    });

    void it('users: unique email per account (a duplicate is null), listed and counted per account, delete once', async () => {
      const { accountId } = await tenantOf();
      const other = await tenantOf();
      const u = await s().createUser({ accountId, email: 'ann@example.com', role: 'admin' });
      assert.ok(u);
      assert.match(u.id, /^usr_[0-9a-f]{24}$/);
      assert.deepEqual({ ...u, createdAt: 0 }, {
        id: u.id, accountId, email: 'ann@example.com', role: 'admin', createdAt: 0, passwordHash: null, inviteTokenHash: null, inviteExpiresAt: null,
      });
      assert.equal(await s().createUser({ accountId, email: 'ann@example.com', role: 'viewer' }), null);
      const v = await s().createUser({ accountId, email: 'bob@example.com', role: 'viewer' });
      assert.ok(v);
      assert.ok(await s().createUser({ accountId: other.accountId, email: 'ann@example.com', role: 'member' }), 'another account may reuse it');
      assert.deepEqual(await s().getUser(u.id), u);
      assert.deepEqual((await s().listUsers(accountId)).map((x) => x.id).sort(), [u.id, v.id].sort());
      assert.equal(await s().countUsers(accountId), 2);
      assert.equal(await s().deleteUser(u.id), true);
      assert.equal(await s().deleteUser(u.id), false);
      assert.equal(await s().getUser(u.id), null);
      assert.equal(await s().countUsers(accountId), 1);
      assert.ok(await s().createUser({ accountId, email: 'ann@example.com', role: 'member' }), 'a deleted user\'s email is free again');
    });

    void it('withAccountLock serialises counted creations: concurrent saved searches cannot pass a ceiling', async () => {
      const { accountId, tenantId } = await tenantOf();
      const made = await Promise.all(Array.from({ length: 6 }, (_, i) => s().withAccountLock(accountId, async (store) => {
        if (await store.countSavedSearches(accountId) >= 3) return null;
        return store.createSavedSearch({ tenantId, accountId, name: `s${i}`, query: '*' });
      })));
      assert.equal(made.filter((x) => x !== null).length, 3);
      assert.equal(await s().countSavedSearches(accountId), 3);
    });

    webAppContract(s, tenantOf);
    detectorsContract(s, tenantOf);
    notifyContract(s, tenantOf);
    playbooksContract(s, tenantOf);

    // ── counters ──────────────────────────────────────────────────────────────────────────────────────────

    void it('concurrent addCounters calls add up exactly (no lost update, no deadlock)', async () => {
      const a = (await s().createAccount(trial())).id;
      const b = (await s().createAccount(trial())).id;
      const day = '2026-01-02';
      const calls = Array.from({ length: 40 }, (_, i) => {
        // Opposite orders in alternate calls, plus a duplicate row in one call: both must be handled.
        const rows = [
          { accountId: a, day, name: 'bytes:logs', delta: i + 1 },
          { accountId: b, day, name: 'bytes:logs', delta: 2 },
          { accountId: a, day, name: 'ai:total', delta: 1 },
          { accountId: a, day, name: 'ai:total', delta: 1 },
        ];
        return s().addCounters(i % 2 === 0 ? rows : rows.reverse());
      });
      await Promise.all(calls);
      assert.deepEqual(await s().getCounters(a, day), { 'ai:total': 80, 'bytes:logs': (40 * 41) / 2 });
      assert.deepEqual(await s().getCounters(b, day), { 'bytes:logs': 80 });
    });

    void it('getCounters returns one account\'s one day, and keeps values past 32 bits', async () => {
      const a = (await s().createAccount(trial())).id;
      const big = 5 * 2 ** 40;
      await s().addCounters([
        { accountId: a, day: '2026-01-03', name: 'bytes:logs', delta: big },
        { accountId: a, day: '2026-01-04', name: 'bytes:logs', delta: 7 },
        { accountId: a, day: '2026-01-03', name: 'bytes:traces', delta: 3 },
      ]);
      await s().addCounters([{ accountId: a, day: '2026-01-03', name: 'bytes:logs', delta: 1 }]);
      assert.deepEqual(await s().getCounters(a, '2026-01-03'), { 'bytes:logs': big + 1, 'bytes:traces': 3 });
      assert.deepEqual(await s().getCounters(a, '2026-01-04'), { 'bytes:logs': 7 });
      assert.deepEqual(await s().getCounters(a, '2026-01-05'), {});
      await s().addCounters([]);
    });

    void it('addCounters refuses a malformed day or a fractional delta and writes nothing of that batch', async () => {
      const a = (await s().createAccount(trial())).id;
      const good = { accountId: a, day: '2026-01-06', name: 'bytes:logs', delta: 5 };
      await assert.rejects(s().addCounters([good, { ...good, day: '6 Jan 2026' }]), RangeError);
      await assert.rejects(s().addCounters([good, { ...good, delta: 0.5 }]), RangeError);
      assert.deepEqual(await s().getCounters(a, '2026-01-06'), {});
    });

    // ── lifecycle ─────────────────────────────────────────────────────────────────────────────────────────

    void it('ping answers', async () => {
      await s().ping();
    });

    void it('reopening the same database keeps every record (migrations run again as a no-op)', async () => {
      const a = await s().createAccount(trial({ limits: { retention_days: 30 } }));
      const t = await s().createTenant({ accountId: a.id, name: 'persist' });
      const secretHash = hash();
      const k = await s().createKey({ tenantId: t.id, name: 'persist', scopes: ['ingest'], expiresAt: null, secretHash });
      await s().addCounters([{ accountId: a.id, day: '2026-02-01', name: 'bytes:logs', delta: 1234 }]);
      const count = await s().countAccounts();
      await s().close();
      h = await open();
      assert.deepEqual(await s().getAccount(a.id), a);
      assert.deepEqual(await s().findGrantByHash(secretHash), { key: k, tenant: t, account: a });
      assert.deepEqual(await s().getCounters(a.id, '2026-02-01'), { 'bytes:logs': 1234 });
      assert.equal(await s().countAccounts(), count);
    });

    void it('a closed store rejects calls as an outage, and closing twice is harmless', async () => {
      await s().close();
      await s().close();
      await assert.rejects(s().getAccount('x'), ControlStoreUnavailableError);
      await assert.rejects(s().findGrantByHash(hash()), ControlStoreUnavailableError);
      await assert.rejects(s().addCounters([{ accountId: 'x', day: '2026-01-01', name: 'n', delta: 1 }]), ControlStoreUnavailableError);
    });
  });
}
