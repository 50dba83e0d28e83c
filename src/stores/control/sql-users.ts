// Users and browser sessions of the control store (DESIGN §6 user ceiling, §7 sign-in and session tokens), in the
// same PostgreSQL dialect as the rest (sql-control-store.ts extends this class; its own file only to keep each
// under ~400 lines). Session times are passed in by the caller, who reads service time (DESIGN §3 test clock).
import type { Clock } from '../../clock.js';
import type { AccountUser, NewUser, Session, SessionGrant, UserRole } from './control-store.js';
import {
  newId, num, one, toAccount, toSession, toUser,
  type AccountRow, type SessionRow, type UserRow,
} from './sql-rows.js';
import type { SqlDriver } from './sql-control-store.js';

export abstract class SqlUsersAndSessions {
  protected abstract readonly clock: Clock;
  protected abstract q<T>(sql: string, params: unknown[]): Promise<T[]>;
  protected abstract tx<T>(fn: (tx: SqlDriver) => Promise<T>): Promise<T>;

  // ── users ───────────────────────────────────────────────────────────────────────────────────────────────

  async createUser(input: NewUser): Promise<AccountUser | null> {
    // ON CONFLICT … DO NOTHING: a duplicate email is an answer (null → 409), not an aborted transaction.
    const rows = await this.q<UserRow>(
      `INSERT INTO users (id, account_id, email, role, created_at, password_hash, invite_token_hash, invite_expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (account_id, email) DO NOTHING RETURNING *`,
      [newId('usr'), input.accountId, input.email, input.role, this.clock.now(), input.passwordHash ?? null,
        input.invite?.tokenHash ?? null, input.invite?.expiresAt ?? null],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  async getUser(id: string): Promise<AccountUser | null> {
    return this.oneUser('SELECT * FROM users WHERE id = $1', [id]);
  }

  async listUsers(accountId: string): Promise<AccountUser[]> {
    const rows = await this.q<UserRow>('SELECT * FROM users WHERE account_id = $1 ORDER BY created_at, id', [accountId]);
    return rows.map(toUser);
  }

  async deleteUser(id: string, atMs: number = this.clock.now()): Promise<boolean> {
    // Its sessions end in the same transaction: removing a user signs it out at once (DESIGN §7).
    return this.tx(async (tx) => {
      await tx.query('UPDATE sessions SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL', [id, atMs]);
      return (await tx.query<{ id: string }>('DELETE FROM users WHERE id = $1 RETURNING id', [id])).length > 0;
    });
  }

  async countUsers(accountId: string): Promise<number> {
    const rows = await this.q<{ n: unknown }>('SELECT count(*) AS n FROM users WHERE account_id = $1', [accountId]);
    return num(one(rows).n);
  }

  async findUsersByEmail(email: string): Promise<AccountUser[]> {
    const rows = await this.q<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1) ORDER BY created_at, id', [email]);
    return rows.map(toUser);
  }

  async findUserByInviteHash(tokenHash: string): Promise<AccountUser | null> {
    return this.oneUser('SELECT * FROM users WHERE invite_token_hash = $1', [tokenHash]);
  }

  async setUserPassword(id: string, passwordHash: string): Promise<AccountUser | null> {
    // A password set by any path spends the invite: the link works once.
    return this.oneUser(
      `UPDATE users SET password_hash = $2, invite_token_hash = NULL, invite_expires_at = NULL WHERE id = $1 RETURNING *`,
      [id, passwordHash],
    );
  }

  async setUserInvite(id: string, invite: { tokenHash: string; expiresAt: number }): Promise<AccountUser | null> {
    return this.oneUser(
      'UPDATE users SET invite_token_hash = $2, invite_expires_at = $3 WHERE id = $1 RETURNING *',
      [id, invite.tokenHash, invite.expiresAt],
    );
  }

  async setUserRole(id: string, role: UserRole): Promise<AccountUser | null> {
    return this.oneUser('UPDATE users SET role = $2 WHERE id = $1 RETURNING *', [id, role]);
  }

  // ── sessions ────────────────────────────────────────────────────────────────────────────────────────────

  async createSession(input: { tokenHash: string; userId: string; accountId: string; atMs: number }): Promise<Session> {
    const rows = await this.q<SessionRow>(
      `INSERT INTO sessions (id, token_hash, user_id, account_id, created_at, last_used_at, ended_at)
       VALUES ($1, $2, $3, $4, $5, $5, NULL) RETURNING *`,
      [newId('ses'), input.tokenHash, input.userId, input.accountId, input.atMs],
    );
    return toSession(one(rows));
  }

  async findSessionByHash(tokenHash: string): Promise<SessionGrant | null> {
    // One statement, one snapshot. Ended sessions are returned, not filtered: the caller answers 401 Token expired
    // for them and 403 only for tokens never issued (spec rules 9, 10).
    const rows = await this.q<{ s: SessionRow; u: UserRow | null; a: AccountRow }>(
      `SELECT to_jsonb(s) AS s, to_jsonb(u) AS u, to_jsonb(a) AS a
         FROM sessions s JOIN accounts a ON a.id = s.account_id LEFT JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1`,
      [tokenHash],
    );
    const row = rows[0];
    return row ? { session: toSession(row.s), user: row.u ? toUser(row.u) : null, account: toAccount(row.a) } : null;
  }

  async touchSession(id: string, atMs: number): Promise<void> {
    await this.q('UPDATE sessions SET last_used_at = GREATEST(last_used_at, $2) WHERE id = $1 AND ended_at IS NULL', [id, atMs]);
  }

  async endSession(id: string, atMs: number): Promise<boolean> {
    const rows = await this.q<{ id: string }>('UPDATE sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL RETURNING id', [id, atMs]);
    return rows.length > 0;
  }

  async endUserSessions(userId: string, atMs: number): Promise<number> {
    const rows = await this.q<{ id: string }>(
      'UPDATE sessions SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL RETURNING id',
      [userId, atMs],
    );
    return rows.length;
  }

  async deleteSessionsCreatedBefore(cutoffMs: number): Promise<number> {
    return (await this.q<{ id: string }>('DELETE FROM sessions WHERE created_at < $1 RETURNING id', [cutoffMs])).length;
  }

  private async oneUser(sql: string, params: unknown[]): Promise<AccountUser | null> {
    const rows = await this.q<UserRow>(sql, params);
    return rows[0] ? toUser(rows[0]) : null;
  }
}
