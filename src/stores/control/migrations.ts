// Versioned schema of the control store (DESIGN §1: one PostgreSQL dialect for PGlite and PostgreSQL 15).
// Each migration is an ordered list of single statements (PGlite's extended protocol takes one statement per
// call), applied with its version row in one transaction, so a crash mid-migration leaves nothing half-done and a
// restart simply carries on. Append new migrations; never edit one that has shipped.
import type { SqlDriver } from './sql-control-store.js';

export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, tenants, api keys, daily counters',
    statements: [
      // Times are unix ms (control-store.ts). features / limits hold only the overrides; the tier's plan fills
      // the rest (DESIGN §3, §6).
      `CREATE TABLE accounts (
         id             text PRIMARY KEY,
         name           text NOT NULL,
         tier           text NOT NULL CHECK (tier IN ('trial', 'team', 'growth', 'custom', 'trial_expired')),
         signup_at      bigint NOT NULL,
         trial_ends_at  bigint,
         payment_method boolean NOT NULL DEFAULT false,
         features       jsonb NOT NULL DEFAULT '{}'::jsonb,
         limits         jsonb NOT NULL DEFAULT '{}'::jsonb,
         created_at     bigint NOT NULL
       )`,
      // The hourly sweep's work list (spec "States and transitions").
      `CREATE INDEX accounts_trial_ends_idx ON accounts (trial_ends_at) WHERE tier = 'trial'`,
      `CREATE TABLE tenants (
         id         text PRIMARY KEY,
         account_id text NOT NULL REFERENCES accounts (id),
         name       text NOT NULL,
         disabled   boolean NOT NULL DEFAULT false,
         created_at bigint NOT NULL
       )`,
      `CREATE INDEX tenants_account_idx ON tenants (account_id)`,
      `CREATE TABLE api_keys (
         id          text PRIMARY KEY,
         tenant_id   text NOT NULL REFERENCES tenants (id),
         name        text NOT NULL,
         scopes      text[] NOT NULL,
         expires_at  bigint,
         created_at  bigint NOT NULL,
         revoked_at  bigint,
         secret_hash text NOT NULL
       )`,
      // Every request's key lookup goes through this index; unique among live keys only, so a revoked row never
      // blocks anything (spec "Authentication").
      `CREATE UNIQUE INDEX api_keys_live_hash_idx ON api_keys (secret_hash) WHERE revoked_at IS NULL`,
      `CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id)`,
      // Daily counters per account and UTC day (spec "Daily byte counter"; DESIGN §6 metering). No foreign key on
      // purpose: one stray account id must not make a whole metering flush fail.
      `CREATE TABLE counters (
         account_id text NOT NULL,
         day        text NOT NULL CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
         name       text NOT NULL,
         value      bigint NOT NULL DEFAULT 0,
         PRIMARY KEY (account_id, day, name)
       )`,
    ],
  },
  {
    version: 2,
    name: 'saved searches, dashboards, users',
    statements: [
      // account_id is the tenant's account, stored so the per-account ceilings (DESIGN §6) count without a join.
      `CREATE TABLE saved_searches (
         id         text PRIMARY KEY,
         tenant_id  text NOT NULL REFERENCES tenants (id),
         account_id text NOT NULL REFERENCES accounts (id),
         name       text NOT NULL,
         query      text NOT NULL,
         created_at bigint NOT NULL
       )`,
      `CREATE INDEX saved_searches_tenant_idx ON saved_searches (tenant_id)`,
      `CREATE INDEX saved_searches_account_idx ON saved_searches (account_id)`,
      `CREATE TABLE dashboards (
         id         text PRIMARY KEY,
         tenant_id  text NOT NULL REFERENCES tenants (id),
         account_id text NOT NULL REFERENCES accounts (id),
         title      text NOT NULL,
         panels     jsonb NOT NULL DEFAULT '[]'::jsonb,
         created_at bigint NOT NULL,
         updated_at bigint NOT NULL
       )`,
      `CREATE INDEX dashboards_tenant_idx ON dashboards (tenant_id)`,
      `CREATE INDEX dashboards_account_idx ON dashboards (account_id)`,
      `CREATE TABLE users (
         id         text PRIMARY KEY,
         account_id text NOT NULL REFERENCES accounts (id),
         email      text NOT NULL,
         role       text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
         created_at bigint NOT NULL,
         UNIQUE (account_id, email)
       )`,
    ],
  },
  {
    version: 3,
    name: 'user passwords and invites, browser sessions',
    statements: [
      // DESIGN §7 sign-in: a slow salted hash (passwords.ts); null until an invited user sets one. The invite's
      // token is kept only as its sha256, like API key secrets.
      `ALTER TABLE users ADD COLUMN password_hash text`,
      `ALTER TABLE users ADD COLUMN invite_token_hash text`,
      `ALTER TABLE users ADD COLUMN invite_expires_at bigint`,
      `CREATE UNIQUE INDEX users_invite_hash_idx ON users (invite_token_hash) WHERE invite_token_hash IS NOT NULL`,
      // Sign-in looks an email up over every account, ignoring case.
      `CREATE INDEX users_email_lower_idx ON users (lower(email))`,
      // Browser sessions (spec rule 10, DESIGN §7). No foreign key on user_id on purpose: removing a user ends its
      // sessions, and the row must stay so that the token answers 401 Token expired rather than 403 unknown.
      `CREATE TABLE sessions (
         id           text PRIMARY KEY,
         token_hash   text NOT NULL,
         user_id      text NOT NULL,
         account_id   text NOT NULL REFERENCES accounts (id),
         created_at   bigint NOT NULL,
         last_used_at bigint NOT NULL,
         ended_at     bigint
       )`,
      `CREATE UNIQUE INDEX sessions_token_hash_idx ON sessions (token_hash)`,
      `CREATE INDEX sessions_live_user_idx ON sessions (user_id) WHERE ended_at IS NULL`,
      // The sweep deletes sessions long past their maximum age.
      `CREATE INDEX sessions_created_idx ON sessions (created_at)`,
    ],
  },
  {
    version: 4,
    name: 'detectors, their evaluation state and alerts',
    statements: [
      // DESIGN §8. account_id is the tenant's, stored so evaluation finds the plan without a join. Defaults are
      // Prometheus' (for 0, keep_firing_for 0) and Alertmanager's repeat_interval (4 h).
      `CREATE TABLE detectors (
         id                 text PRIMARY KEY,
         tenant_id          text NOT NULL REFERENCES tenants (id),
         account_id         text NOT NULL REFERENCES accounts (id),
         name               text NOT NULL,
         kind               text NOT NULL,
         params             jsonb NOT NULL DEFAULT '{}'::jsonb,
         window_s           integer NOT NULL CHECK (window_s > 0),
         interval_s         integer NOT NULL CHECK (interval_s > 0),
         for_s              integer NOT NULL DEFAULT 0 CHECK (for_s >= 0),
         keep_firing_for_s  integer NOT NULL DEFAULT 0 CHECK (keep_firing_for_s >= 0),
         labels             jsonb NOT NULL DEFAULT '{}'::jsonb,
         annotations        jsonb NOT NULL DEFAULT '{}'::jsonb,
         channel_ids        text[] NOT NULL DEFAULT '{}',
         repeat_interval_s  integer NOT NULL DEFAULT 14400 CHECK (repeat_interval_s > 0),
         enabled            boolean NOT NULL DEFAULT true,
         created_at         bigint NOT NULL,
         updated_at         bigint NOT NULL
       )`,
      `CREATE INDEX detectors_tenant_idx ON detectors (tenant_id)`,
      // Runtime state apart from the definition: a PUT and an evaluation touch different rows.
      `CREATE TABLE detector_state (
         detector_id      text PRIMARY KEY REFERENCES detectors (id) ON DELETE CASCADE,
         kind_state       jsonb NOT NULL DEFAULT '{}'::jsonb,
         last_eval_at     bigint,
         last_error       text,
         last_duration_ms double precision
       )`,
      // One row per alert (detector × label set). prior_state is what an `error` alert was before the failed
      // evaluation (issue 9 notes: a throttled evaluation keeps the last known state, never a false resolve).
      `CREATE TABLE alerts (
         detector_id      text NOT NULL REFERENCES detectors (id) ON DELETE CASCADE,
         fingerprint      text NOT NULL,
         tenant_id        text NOT NULL,
         state            text NOT NULL CHECK (state IN ('pending', 'firing', 'resolved', 'nodata', 'error')),
         prior_state      text CHECK (prior_state IN ('pending', 'firing', 'resolved', 'nodata', 'inactive')),
         labels           jsonb NOT NULL,
         annotations      jsonb NOT NULL DEFAULT '{}'::jsonb,
         value            double precision,
         active_at        bigint NOT NULL,
         fired_at         bigint,
         ends_at          bigint,
         last_active_at   bigint,
         last_eval_at     bigint NOT NULL,
         last_sent_at     bigint,
         last_sent_status text CHECK (last_sent_status IN ('firing', 'resolved')),
         sent_count       integer NOT NULL DEFAULT 0,
         reason           text,
         PRIMARY KEY (detector_id, fingerprint)
       )`,
      `CREATE INDEX alerts_tenant_state_idx ON alerts (tenant_id, state)`,
    ],
  },
  {
    version: 5,
    name: 'notification channels and the delivery outbox',
    statements: [
      // DESIGN §8 "Notifications"; notification-records.ts. send_resolved defaults to Alertmanager's (true).
      `CREATE TABLE notification_channels (
         id            text PRIMARY KEY,
         tenant_id     text NOT NULL REFERENCES tenants (id),
         account_id    text NOT NULL REFERENCES accounts (id),
         type          text NOT NULL CHECK (type IN ('webhook', 'alertmanager', 'slack')),
         name          text NOT NULL,
         url           text NOT NULL,
         headers       jsonb NOT NULL DEFAULT '{}'::jsonb,
         send_resolved boolean NOT NULL DEFAULT true,
         created_at    bigint NOT NULL,
         updated_at    bigint NOT NULL
       )`,
      `CREATE INDEX notification_channels_tenant_idx ON notification_channels (tenant_id)`,
      // The transactional outbox: one row per payload (one detector's notices of one evaluation) and channel,
      // inserted in the transaction of the alert change. No foreign keys on purpose: a deleted channel or detector
      // must not make the engine's transaction fail; the worker fails such rows with the reason.
      `CREATE TABLE notification_outbox (
         id                bigserial PRIMARY KEY,
         tenant_id         text NOT NULL,
         channel_id        text NOT NULL,
         detector_id       text NOT NULL,
         notices           jsonb NOT NULL,
         interval_s        integer NOT NULL,
         repeat_interval_s integer NOT NULL,
         state             text NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
         attempts          integer NOT NULL DEFAULT 0,
         created_at        bigint NOT NULL,
         next_attempt_at   bigint NOT NULL,
         lease_until       bigint,
         last_error        text,
         done_at           bigint
       )`,
      // The worker's work list, and the per (channel, detector) order it keeps.
      `CREATE INDEX notification_outbox_due_idx ON notification_outbox (next_attempt_at) WHERE state = 'pending'`,
      `CREATE INDEX notification_outbox_order_idx ON notification_outbox (channel_id, detector_id, id) WHERE state = 'pending'`,
      `CREATE INDEX notification_outbox_channel_idx ON notification_outbox (channel_id, id)`,
    ],
  },
  {
    version: 6,
    name: 'alerts: keep_firing_for counts from the first evaluation where the condition failed',
    statements: [
      // Prometheus' KeepFiringSince (rules/alerting.go): a firing alert whose condition fails stays firing until
      // keep_firing_for has passed since the first failed evaluation; null while the condition holds.
      `ALTER TABLE alerts ADD COLUMN keep_firing_since bigint`,
    ],
  },
  {
    version: 7,
    name: 'playbooks: imported runbooks with the saved searches and detectors they created',
    statements: [
      // DESIGN §9 `ai/playbooks`; playbook-records.ts. The created ids are plain arrays, not foreign keys: a
      // detector or saved search deleted on its own must not take the playbook with it (nor be blocked by it).
      `CREATE TABLE playbooks (
         id               text PRIMARY KEY,
         tenant_id        text NOT NULL REFERENCES tenants (id),
         account_id       text NOT NULL REFERENCES accounts (id),
         title            text NOT NULL,
         format           text NOT NULL CHECK (format IN ('markdown', 'yaml')),
         steps            jsonb NOT NULL,
         saved_search_ids text[] NOT NULL DEFAULT '{}',
         detector_ids     text[] NOT NULL DEFAULT '{}',
         created_at       bigint NOT NULL
       )`,
      `CREATE INDEX playbooks_tenant_idx ON playbooks (tenant_id, created_at)`,
    ],
  },
  {
    version: 8,
    name: 'cluster: process heartbeats, daily byte totals, query-rate windows, live-tail sessions shared by split roles',
    statements: [
      // DESIGN §10, issue 11 item 6; cluster-records.ts. last_seen is the database's clock (unix ms), so liveness
      // does not depend on the processes' clocks agreeing.
      `CREATE TABLE process_heartbeats (
         process_id text PRIMARY KEY,
         role       text NOT NULL CHECK (role IN ('ingest', 'app')),
         started_at bigint NOT NULL,
         last_seen  bigint NOT NULL
       )`,
      `CREATE INDEX process_heartbeats_seen_idx ON process_heartbeats (last_seen)`,
      // The day's bytes over every signal and process, in-flight reservations included: the one row a reservation
      // checks and adds to in one statement (DESIGN §6 "refused when used + size would pass the cap").
      `CREATE TABLE daily_bytes (
         account_id text NOT NULL,
         day        text NOT NULL CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
         used       bigint NOT NULL DEFAULT 0,
         PRIMARY KEY (account_id, day)
       )`,
      // A tenant's admitted request times, oldest first, at most its limit (DESIGN §6 "Query rate": at most N in any
      // rolling 60 s); the same sliding log as limits/query-rate.ts, kept where every app process sees it.
      `CREATE TABLE query_rate_windows (
         tenant_id text PRIMARY KEY,
         stamps    bigint[] NOT NULL
       )`,
      // The newest `lim` stamps after now − window, ascending: what still decides the next request. A stamp a little
      // ahead of `now` is kept: another process's clock, or its request that won the row first, may be that much ahead.
      `CREATE FUNCTION sightline_query_window(stamps bigint[], now_ms bigint, lim integer, window_ms bigint)
         RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $$
           SELECT coalesce(array_agg(s ORDER BY s), '{}'::bigint[])
             FROM (SELECT s FROM unnest(stamps) AS u(s)
                    WHERE s > now_ms - window_ms
                    ORDER BY s DESC LIMIT lim) AS k
         $$`,
      // Open live-tail streams (DESIGN §6 live-tail ceiling), each held by the process whose response it is; a
      // process that stops heartbeating no longer holds any.
      `CREATE TABLE live_tail_sessions (
         id         text PRIMARY KEY,
         account_id text NOT NULL,
         process_id text NOT NULL,
         opened_at  bigint NOT NULL
       )`,
      `CREATE INDEX live_tail_sessions_account_idx ON live_tail_sessions (account_id)`,
      `CREATE INDEX live_tail_sessions_process_idx ON live_tail_sessions (process_id)`,
    ],
  },
];

/** Any constant will do: it only keeps two processes opening one PostgreSQL from migrating at once. */
const MIGRATION_LOCK = 0x51_67_6c_6e;

/** Applies every pending migration in order; returns the versions applied now (empty when up to date). */
export async function migrate(db: SqlDriver, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    const ran = await db.transaction(async (tx) => {
      // Lock, then create-if-missing and re-check inside the transaction: a second process waits here and then
      // finds the version already recorded.
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await tx.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version    integer PRIMARY KEY,
           name       text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
        [],
      );
      const done = await tx.query<{ version: number }>('SELECT version FROM schema_migrations WHERE version = $1', [m.version]);
      if (done.length > 0) return false;
      for (const sql of m.statements) await tx.query(sql, []);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      return true;
    });
    if (ran) applied.push(m.version);
  }
  return applied;
}
