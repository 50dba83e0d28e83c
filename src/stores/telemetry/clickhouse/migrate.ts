// Versioned migrations at start (issue 11 item 1): `schema_migrations` lists the versions applied; the rest run in
// version order. Each migration's DDL is `IF NOT EXISTS`, so processes starting together against one shared
// ClickHouse (split roles, DESIGN §10) may both run one without harm, and a crash between a migration and its record
// only repeats it.
import type { ChExecutor } from './executor.js';
import type { Migration } from './schema.js';

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  applied_at DateTime('UTC') DEFAULT now()
) ENGINE = ReplacingMergeTree ORDER BY version`;

/** Applies every migration not yet recorded; returns the versions applied now. */
export async function migrate(exec: ChExecutor, migrations: readonly Migration[]): Promise<number[]> {
  const seen = new Set<number>();
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version <= 0 || seen.has(m.version)) {
      throw new Error(`clickhouse-store: migration version ${m.version} is not a unique positive integer`);
    }
    seen.add(m.version);
  }
  await exec.command(MIGRATIONS_TABLE);
  const rows = await exec.query('SELECT DISTINCT version FROM schema_migrations');
  const applied = new Set(rows.map((r) => Number(r.version)));
  const done: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    await exec.command(m.sql);
    await exec.insert('schema_migrations', [{ version: m.version }]);
    done.push(m.version);
  }
  return done;
}
