// The control store, written once in the PostgreSQL dialect over a tiny driver seam, so PGlite (embedded) and
// PostgreSQL (scale-out) run the very same SQL (DESIGN §1 "Two stores"; STYLE.md habit 2). Every value travels as
// a $n parameter, never pasted into the text. Times are unix ms in bigint columns.
import type { Clock } from '../../clock.js';
import {
  ControlStoreUnavailableError,
  type Account, type AccountPatch, type ApiKey, type ControlStore, type CounterDelta, type Dashboard,
  type KeyGrant, type NewAccount, type SavedSearch, type Scope, type Tenant, type Tier,
} from './control-store.js';
import {
  newId, num, one, toAccount, toDashboard, toKey, toSavedSearch, toTenant,
  type AccountRow, type DashboardRow, type KeyRow, type SavedSearchRow, type TenantRow,
} from './sql-rows.js';
import { toDetector } from './sql-detectors.js';
import { SqlCluster } from './sql-cluster.js';
import type { Detector } from './detector-records.js';

export { newId };

/**
 * What a backend must offer. Drivers turn "database unreachable" failures into ControlStoreUnavailableError
 * (spec Authentication rule 11) and let SQL errors (those with a SQLSTATE) through unchanged.
 */
export interface SqlDriver {
  query<T>(sql: string, params: unknown[]): Promise<T[]>;
  /** Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. Nested calls join it. */
  transaction<T>(fn: (tx: SqlDriver) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** ControlStore.changes, for a database only this process can write (embedded PGlite); absent otherwise. */
  changes?: () => number;
}

const wallClock: Clock = { now: () => Date.now() };

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Users and sessions, detectors and alerts, channels and the outbox, playbooks, what split roles share come from the
 * base classes (sql-users.ts, sql-detectors.ts, sql-notifications.ts, sql-playbooks.ts, sql-cluster.ts).
 */
export class SqlControlStore extends SqlCluster implements ControlStore {
  private closed = false;

  readonly changes?: () => number;

  /** `clock` stamps created_at / revoked_at with service time (DESIGN §3 test clock); wall time by default. */
  constructor(private readonly db: SqlDriver, protected override readonly clock: Clock = wallClock) {
    super();
    const changes = db.changes;
    if (changes) this.changes = () => changes();
  }

  // ── accounts ────────────────────────────────────────────────────────────────────────────────────────────

  async createAccount(input: NewAccount): Promise<Account> {
    const rows = await this.q<AccountRow>(
      `INSERT INTO accounts (id, name, tier, signup_at, trial_ends_at, payment_method, features, limits, created_at)
       VALUES ($1, $2, $3, $4, $5, false, $6::jsonb, $7::jsonb, $8) RETURNING *`,
      [input.id ?? newId('acc'), input.name, input.tier, input.signupAt, input.trialEndsAt,
        JSON.stringify(input.features ?? {}), JSON.stringify(input.limits ?? {}), this.clock.now()],
    );
    return toAccount(one(rows));
  }

  async getAccount(id: string): Promise<Account | null> {
    const rows = await this.q<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<Account | null> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    const set = (column: string, value: unknown, expr = (p: string): string => p): void => {
      params.push(value);
      sets.push(`${column} = ${expr(`$${params.length}`)}`);
    };
    if (patch.tier !== undefined) set('tier', patch.tier);
    if (patch.trialEndsAt !== undefined) set('trial_ends_at', patch.trialEndsAt);
    if (patch.paymentMethod !== undefined) set('payment_method', patch.paymentMethod);
    // Overrides merge key by key (control-store.ts AccountPatch); a key sent as null drops the override, so the
    // tier's default applies again (DESIGN §3, §6).
    if (patch.features !== undefined) set('features', JSON.stringify(patch.features), (p) => `jsonb_strip_nulls(features || ${p}::jsonb)`);
    if (patch.limits !== undefined) set('limits', JSON.stringify(patch.limits), (p) => `jsonb_strip_nulls(limits || ${p}::jsonb)`);
    if (sets.length === 0) return this.getAccount(id);
    const rows = await this.q<AccountRow>(`UPDATE accounts SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async transitionTier(id: string, from: Tier, to: Tier): Promise<Account | null> {
    const rows = await this.q<AccountRow>('UPDATE accounts SET tier = $3 WHERE id = $1 AND tier = $2 RETURNING *', [id, from, to]);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  withAccountLock<T>(accountId: string, fn: (store: ControlStore) => Promise<T>): Promise<T> {
    return this.tx(async (tx) => {
      await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      return fn(new SqlControlStore(tx, this.clock));
    });
  }

  async withDetectorLock<T>(id: string, fn: (store: ControlStore, detector: Detector) => Promise<T>): Promise<T | null> {
    return this.tx(async (tx) => {
      const rows = await tx.query<Parameters<typeof toDetector>[0]>('SELECT * FROM detectors WHERE id = $1 FOR UPDATE', [id]);
      const row = rows[0];
      return row ? fn(new SqlControlStore(tx, this.clock), toDetector(row)) : null;
    });
  }

  async countAccounts(): Promise<number> {
    const rows = await this.q<{ n: unknown }>('SELECT count(*) AS n FROM accounts', []);
    return num(one(rows).n);
  }

  async listExpiredTrials(atMs: number): Promise<Account[]> {
    const rows = await this.q<AccountRow>(
      `SELECT * FROM accounts WHERE tier = 'trial' AND trial_ends_at IS NOT NULL AND trial_ends_at <= $1
       ORDER BY trial_ends_at, id`,
      [atMs],
    );
    return rows.map(toAccount);
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.q<AccountRow>('SELECT * FROM accounts ORDER BY created_at, id', [])).map(toAccount);
  }

  // ── tenants ─────────────────────────────────────────────────────────────────────────────────────────────

  async createTenant(input: { id?: string; accountId: string; name: string }): Promise<Tenant> {
    const rows = await this.q<TenantRow>(
      'INSERT INTO tenants (id, account_id, name, disabled, created_at) VALUES ($1, $2, $3, false, $4) RETURNING *',
      [input.id ?? newId('ten'), input.accountId, input.name, this.clock.now()],
    );
    return toTenant(one(rows));
  }

  async getTenant(id: string): Promise<Tenant | null> {
    const rows = await this.q<TenantRow>('SELECT * FROM tenants WHERE id = $1', [id]);
    return rows[0] ? toTenant(rows[0]) : null;
  }

  async setTenantDisabled(id: string, disabled: boolean): Promise<Tenant | null> {
    const rows = await this.q<TenantRow>('UPDATE tenants SET disabled = $2 WHERE id = $1 RETURNING *', [id, disabled]);
    return rows[0] ? toTenant(rows[0]) : null;
  }

  async listTenants(accountId: string): Promise<Tenant[]> {
    const rows = await this.q<TenantRow>('SELECT * FROM tenants WHERE account_id = $1 ORDER BY created_at, id', [accountId]);
    return rows.map(toTenant);
  }

  // ── API keys ────────────────────────────────────────────────────────────────────────────────────────────
  // A revoked key is gone for every reader (getKey, listKeys, rotation, lookup): spec rule 9 treats it as unknown.

  async createKey(input: { tenantId: string; name: string; scopes: Scope[]; expiresAt: number | null; secretHash: string }): Promise<ApiKey> {
    const rows = await this.q<KeyRow>(
      `INSERT INTO api_keys (id, tenant_id, name, scopes, expires_at, created_at, revoked_at, secret_hash)
       VALUES ($1, $2, $3, $4::text[], $5, $6, NULL, $7) RETURNING *`,
      [newId('key'), input.tenantId, input.name, [...new Set(input.scopes)], input.expiresAt, this.clock.now(), input.secretHash],
    );
    return toKey(one(rows));
  }

  async getKey(id: string): Promise<ApiKey | null> {
    const rows = await this.q<KeyRow>('SELECT * FROM api_keys WHERE id = $1 AND revoked_at IS NULL', [id]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  async findGrantByHash(secretHash: string): Promise<KeyGrant | null> {
    // One statement, so key, tenant and account are read from one snapshot. Expiry and `disabled` are returned,
    // not filtered: the caller answers 403 with the right reason (spec rule 9).
    const rows = await this.q<{ k: KeyRow; t: TenantRow; a: AccountRow }>(
      `SELECT to_jsonb(k) AS k, to_jsonb(t) AS t, to_jsonb(a) AS a
         FROM api_keys k JOIN tenants t ON t.id = k.tenant_id JOIN accounts a ON a.id = t.account_id
        WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`,
      [secretHash],
    );
    const row = rows[0];
    return row ? { key: toKey(row.k), tenant: toTenant(row.t), account: toAccount(row.a) } : null;
  }

  async replaceKeySecret(id: string, secretHash: string): Promise<ApiKey | null> {
    // Only the hash changes, in place: the old secret stops matching with this statement (DESIGN §3 rotate).
    const rows = await this.q<KeyRow>(
      'UPDATE api_keys SET secret_hash = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING *',
      [id, secretHash],
    );
    return rows[0] ? toKey(rows[0]) : null;
  }

  async revokeKey(id: string): Promise<boolean> {
    // True only when a live key was revoked now; a second DELETE answers 404 (DESIGN §3).
    const rows = await this.q<{ id: string }>(
      'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id',
      [id, this.clock.now()],
    );
    return rows.length > 0;
  }

  async listKeys(tenantId: string): Promise<ApiKey[]> {
    const rows = await this.q<KeyRow>(
      'SELECT * FROM api_keys WHERE tenant_id = $1 AND revoked_at IS NULL ORDER BY created_at, id',
      [tenantId],
    );
    return rows.map(toKey);
  }

  async countLiveKeys(accountId: string): Promise<number> {
    // Expired-but-not-revoked keys still count: they exist until deleted (DESIGN §6 ceilings count what exists).
    const rows = await this.q<{ n: unknown }>(
      `SELECT count(*) AS n FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
        WHERE t.account_id = $1 AND k.revoked_at IS NULL`,
      [accountId],
    );
    return num(one(rows).n);
  }

  // ── saved searches ──────────────────────────────────────────────────────────────────────────────────────

  async createSavedSearch(input: { tenantId: string; accountId: string; name: string; query: string }): Promise<SavedSearch> {
    const rows = await this.q<SavedSearchRow>(
      `INSERT INTO saved_searches (id, tenant_id, account_id, name, query, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [newId('srch'), input.tenantId, input.accountId, input.name, input.query, this.clock.now()],
    );
    return toSavedSearch(one(rows));
  }

  async getSavedSearch(id: string): Promise<SavedSearch | null> {
    const rows = await this.q<SavedSearchRow>('SELECT * FROM saved_searches WHERE id = $1', [id]);
    return rows[0] ? toSavedSearch(rows[0]) : null;
  }

  async listSavedSearches(tenantId: string): Promise<SavedSearch[]> {
    const rows = await this.q<SavedSearchRow>('SELECT * FROM saved_searches WHERE tenant_id = $1 ORDER BY created_at, id', [tenantId]);
    return rows.map(toSavedSearch);
  }

  async deleteSavedSearch(id: string): Promise<boolean> {
    return (await this.q<{ id: string }>('DELETE FROM saved_searches WHERE id = $1 RETURNING id', [id])).length > 0;
  }

  async countSavedSearches(accountId: string): Promise<number> {
    return num(one(await this.q<{ n: unknown }>('SELECT count(*) AS n FROM saved_searches WHERE account_id = $1', [accountId])).n);
  }

  // ── dashboards ──────────────────────────────────────────────────────────────────────────────────────────

  async createDashboard(input: { tenantId: string; accountId: string; title: string; panels: unknown[] }): Promise<Dashboard> {
    const now = this.clock.now();
    const rows = await this.q<DashboardRow>(
      `INSERT INTO dashboards (id, tenant_id, account_id, title, panels, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $6) RETURNING *`,
      [newId('dash'), input.tenantId, input.accountId, input.title, JSON.stringify(input.panels), now],
    );
    return toDashboard(one(rows));
  }

  async getDashboard(id: string): Promise<Dashboard | null> {
    const rows = await this.q<DashboardRow>('SELECT * FROM dashboards WHERE id = $1', [id]);
    return rows[0] ? toDashboard(rows[0]) : null;
  }

  async listDashboards(tenantId: string): Promise<Dashboard[]> {
    const rows = await this.q<DashboardRow>('SELECT * FROM dashboards WHERE tenant_id = $1 ORDER BY created_at, id', [tenantId]);
    return rows.map(toDashboard);
  }

  async updateDashboard(id: string, patch: { title?: string; panels?: unknown[] }): Promise<Dashboard | null> {
    const rows = await this.q<DashboardRow>(
      `UPDATE dashboards SET title = COALESCE($2, title), panels = COALESCE($3::jsonb, panels), updated_at = $4
        WHERE id = $1 RETURNING *`,
      [id, patch.title ?? null, patch.panels === undefined ? null : JSON.stringify(patch.panels), this.clock.now()],
    );
    return rows[0] ? toDashboard(rows[0]) : null;
  }

  async deleteDashboard(id: string): Promise<boolean> {
    return (await this.q<{ id: string }>('DELETE FROM dashboards WHERE id = $1 RETURNING id', [id])).length > 0;
  }

  async countDashboards(accountId: string): Promise<number> {
    return num(one(await this.q<{ n: unknown }>('SELECT count(*) AS n FROM dashboards WHERE account_id = $1', [accountId])).n);
  }

  // ── counters ────────────────────────────────────────────────────────────────────────────────────────────

  async addCounters(deltas: CounterDelta[]): Promise<void> {
    // Sum duplicates first: one INSERT … ON CONFLICT may not touch a row twice. Rows are upserted in key order so
    // two concurrent flushes lock them in the same order and cannot deadlock (DESIGN §6 durable metering).
    const sums = new Map<string, CounterDelta>();
    for (const d of deltas) {
      if (!DAY_RE.test(d.day)) throw new RangeError(`counter day must be YYYY-MM-DD, got ${JSON.stringify(d.day)}`);
      if (!Number.isSafeInteger(d.delta)) throw new RangeError(`counter delta must be an integer, got ${d.delta}`);
      const k = JSON.stringify([d.accountId, d.day, d.name]);
      const prev = sums.get(k);
      sums.set(k, { ...d, delta: (prev?.delta ?? 0) + d.delta });
    }
    const rows = [...sums.values()].filter((d) => d.delta !== 0);
    if (rows.length === 0) return;
    await this.tx((tx) => tx.query(
      `INSERT INTO counters (account_id, day, name, value)
       SELECT a, d, n, v FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(a, d, n, v)
        ORDER BY a, d, n
       ON CONFLICT (account_id, day, name) DO UPDATE SET value = counters.value + EXCLUDED.value`,
      [rows.map((r) => r.accountId), rows.map((r) => r.day), rows.map((r) => r.name), rows.map((r) => r.delta)],
    ));
  }

  async getCounters(accountId: string, day: string): Promise<Record<string, number>> {
    const rows = await this.q<{ name: string; value: unknown }>(
      'SELECT name, value FROM counters WHERE account_id = $1 AND day = $2 ORDER BY name',
      [accountId, day],
    );
    const out: Record<string, number> = {};
    for (const r of rows) out[r.name] = num(r.value);
    return out;
  }

  async getCountersRange(accountId: string, fromDay: string, toDay: string): Promise<Record<string, Record<string, number>>> {
    // Days are YYYY-MM-DD text, so text order is day order (usage history, DESIGN §7 Settings → Usage).
    const rows = await this.q<{ day: string; name: string; value: unknown }>(
      'SELECT day, name, value FROM counters WHERE account_id = $1 AND day >= $2 AND day <= $3 ORDER BY day, name',
      [accountId, fromDay, toDay],
    );
    const out: Record<string, Record<string, number>> = {};
    for (const r of rows) (out[r.day] ??= {})[r.name] = num(r.value);
    return out;
  }

  // ── lifecycle ───────────────────────────────────────────────────────────────────────────────────────────

  async ping(): Promise<void> {
    await this.q('SELECT 1 AS ok', []);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }

  /** After close, calls fail as an outage (503 auth_unavailable), the same on every backend, not a driver quirk. */
  protected override q<T>(sql: string, params: unknown[]): Promise<T[]> {
    if (this.closed) return Promise.reject(new ControlStoreUnavailableError('control store is closed'));
    return this.db.query<T>(sql, params);
  }

  protected override tx<T>(fn: (tx: SqlDriver) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new ControlStoreUnavailableError('control store is closed'));
    return this.db.transaction(fn);
  }
}
