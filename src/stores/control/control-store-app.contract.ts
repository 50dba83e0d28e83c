// The part of the control-store contract that the web app needs (DESIGN §7): users with passwords and invites,
// browser sessions, and the daily counters of a range of days (Settings → Usage). Registered by
// control-store.contract.ts inside its suite, so it runs on every backend (STYLE.md habit 3).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { ControlStore } from './control-store.js';

const hash = (): string => randomBytes(32).toString('hex');
const uid = (): string => randomBytes(4).toString('hex');
const T0 = Date.UTC(2026, 0, 1);

export function webAppContract(s: () => ControlStore, tenantOf: () => Promise<{ accountId: string; tenantId: string }>): void {
  void it('users: a password or an invite is stored with the user; setting a password spends the invite', async () => {
    const { accountId } = await tenantOf();
    const withPassword = await s().createUser({ accountId, email: `pw-${uid()}@example.com`, role: 'member', passwordHash: 'scrypt$x' });
    assert.ok(withPassword);
    assert.equal(withPassword.passwordHash, 'scrypt$x');
    assert.equal(withPassword.inviteTokenHash, null);
    const inviteHash = hash();
    const invited = await s().createUser({ accountId, email: `inv-${uid()}@example.com`, role: 'viewer', invite: { tokenHash: inviteHash, expiresAt: T0 } });
    assert.ok(invited);
    assert.deepEqual([invited.passwordHash, invited.inviteTokenHash, invited.inviteExpiresAt], [null, inviteHash, T0]);
    assert.deepEqual(await s().findUserByInviteHash(inviteHash), invited);
    assert.equal(await s().findUserByInviteHash(hash()), null);

    const set = await s().setUserPassword(invited.id, 'scrypt$y');
    assert.deepEqual(set, { ...invited, passwordHash: 'scrypt$y', inviteTokenHash: null, inviteExpiresAt: null });
    assert.equal(await s().findUserByInviteHash(inviteHash), null, 'the invite works once');
    assert.equal(await s().setUserPassword(`usr_missing_${uid()}`, 'x'), null);

    const again = hash();
    assert.equal((await s().setUserInvite(invited.id, { tokenHash: again, expiresAt: T0 + 1 }))?.inviteTokenHash, again);
    assert.equal((await s().findUserByInviteHash(again))?.id, invited.id);
  });

  void it('users: email lookup ignores case and spans accounts, oldest first', async () => {
    const a = await tenantOf();
    const b = await tenantOf();
    const email = `Mixed.${uid()}@Example.com`;
    const first = await s().createUser({ accountId: a.accountId, email: email.toLowerCase(), role: 'admin' });
    // created_at has millisecond resolution: two users made in the same millisecond have no "oldest".
    await new Promise((resolve) => setTimeout(resolve, 3));
    const second = await s().createUser({ accountId: b.accountId, email: email.toLowerCase(), role: 'viewer' });
    assert.ok(first && second);
    assert.deepEqual((await s().findUsersByEmail(email)).map((u) => u.id), [first.id, second.id]);
    assert.deepEqual((await s().findUsersByEmail(email.toUpperCase())).map((u) => u.id), [first.id, second.id]);
    assert.deepEqual(await s().findUsersByEmail(`nobody-${uid()}@example.com`), []);
  });

  void it('users: the role can be changed; an unknown user is null', async () => {
    const { accountId } = await tenantOf();
    const u = await s().createUser({ accountId, email: `r-${uid()}@example.com`, role: 'viewer' });
    assert.ok(u);
    assert.deepEqual(await s().setUserRole(u.id, 'admin'), { ...u, role: 'admin' });
    assert.equal((await s().getUser(u.id))?.role, 'admin');
    assert.equal(await s().setUserRole(`usr_missing_${uid()}`, 'member'), null);
  });

  void it('sessions: created, found by token hash with user and account, touched forward only, ended once', async () => {
    const { accountId } = await tenantOf();
    const u = await s().createUser({ accountId, email: `s-${uid()}@example.com`, role: 'member' });
    assert.ok(u);
    const tokenHash = hash();
    const ses = await s().createSession({ tokenHash, userId: u.id, accountId, atMs: T0 });
    assert.match(ses.id, /^ses_[0-9a-f]{24}$/);
    assert.deepEqual(ses, { id: ses.id, tokenHash, userId: u.id, accountId, createdAt: T0, lastUsedAt: T0, endedAt: null });
    assert.deepEqual(await s().findSessionByHash(tokenHash), { session: ses, user: u, account: await s().getAccount(accountId) });
    assert.equal(await s().findSessionByHash(hash()), null);

    await s().touchSession(ses.id, T0 + 5000);
    await s().touchSession(ses.id, T0 + 1000);
    assert.equal((await s().findSessionByHash(tokenHash))?.session.lastUsedAt, T0 + 5000, 'last use never moves back');

    assert.equal(await s().endSession(ses.id, T0 + 6000), true);
    assert.equal(await s().endSession(ses.id, T0 + 7000), false);
    await s().touchSession(ses.id, T0 + 9000);
    const ended = await s().findSessionByHash(tokenHash);
    assert.equal(ended?.session.endedAt, T0 + 6000, 'an ended session is still found, with when it ended');
    assert.equal(ended.session.lastUsedAt, T0 + 5000, 'an ended session is not touched');
  });

  void it('sessions: ending a user\'s sessions ends only the live ones of that user', async () => {
    const { accountId } = await tenantOf();
    const u = await s().createUser({ accountId, email: `m-${uid()}@example.com`, role: 'admin' });
    const other = await s().createUser({ accountId, email: `o-${uid()}@example.com`, role: 'admin' });
    assert.ok(u && other);
    const [h1, h2, h3, h4] = [hash(), hash(), hash(), hash()];
    const s1 = await s().createSession({ tokenHash: h1, userId: u.id, accountId, atMs: T0 });
    await s().createSession({ tokenHash: h2, userId: u.id, accountId, atMs: T0 });
    await s().createSession({ tokenHash: h3, userId: u.id, accountId, atMs: T0 });
    await s().createSession({ tokenHash: h4, userId: other.id, accountId, atMs: T0 });
    await s().endSession(s1.id, T0 + 1);
    assert.equal(await s().endUserSessions(u.id, T0 + 2), 2);
    assert.equal((await s().findSessionByHash(h1))?.session.endedAt, T0 + 1, 'an already ended session keeps its end');
    assert.equal((await s().findSessionByHash(h2))?.session.endedAt, T0 + 2);
    assert.equal((await s().findSessionByHash(h4))?.session.endedAt, null);
    assert.equal(await s().endUserSessions(u.id, T0 + 3), 0);
  });

  void it('sessions: deleting a user ends its sessions at once; the session stays findable, without a user', async () => {
    const { accountId } = await tenantOf();
    const u = await s().createUser({ accountId, email: `d-${uid()}@example.com`, role: 'viewer' });
    assert.ok(u);
    const tokenHash = hash();
    await s().createSession({ tokenHash, userId: u.id, accountId, atMs: T0 });
    assert.equal(await s().deleteUser(u.id, T0 + 10), true);
    const found = await s().findSessionByHash(tokenHash);
    assert.ok(found);
    assert.equal(found.user, null);
    assert.equal(found.session.endedAt, T0 + 10);
  });

  void it('sessions: old sessions are deleted by creation time', async () => {
    const { accountId } = await tenantOf();
    const u = await s().createUser({ accountId, email: `p-${uid()}@example.com`, role: 'viewer' });
    assert.ok(u);
    const base = T0 - 1000 * 86_400_000 - Math.floor(Math.random() * 1e6);
    const [oldHash, newHash] = [hash(), hash()];
    await s().createSession({ tokenHash: oldHash, userId: u.id, accountId, atMs: base });
    await s().createSession({ tokenHash: newHash, userId: u.id, accountId, atMs: base + 10 });
    assert.ok(await s().deleteSessionsCreatedBefore(base + 5) >= 1);
    assert.equal(await s().findSessionByHash(oldHash), null);
    assert.ok(await s().findSessionByHash(newHash));
  });

  void it('getCountersRange returns the days of the range inclusive, by day and name, for one account', async () => {
    const { accountId } = await tenantOf();
    const other = await tenantOf();
    await s().addCounters([
      { accountId, day: '2026-03-01', name: 'bytes:logs', delta: 10 },
      { accountId, day: '2026-03-02', name: 'bytes:logs', delta: 20 },
      { accountId, day: '2026-03-02', name: 'bytes:rum', delta: 2 },
      { accountId, day: '2026-03-04', name: 'bytes:traces', delta: 40 },
      { accountId, day: '2026-03-05', name: 'bytes:logs', delta: 50 },
      { accountId: other.accountId, day: '2026-03-02', name: 'bytes:logs', delta: 99 },
    ]);
    assert.deepEqual(await s().getCountersRange(accountId, '2026-03-02', '2026-03-04'), {
      '2026-03-02': { 'bytes:logs': 20, 'bytes:rum': 2 },
      '2026-03-04': { 'bytes:traces': 40 },
    });
    assert.deepEqual(await s().getCountersRange(accountId, '2026-04-01', '2026-04-30'), {});
  });
}
