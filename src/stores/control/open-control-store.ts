// Picks the control store's backend once, at the composition root (STYLE.md habit 2; DESIGN §1 "Two stores"):
// a postgres:// or postgresql:// URL → PostgreSQL, otherwise embedded PGlite under `<dataDir>/control`.
import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import type { ControlStore } from './control-store.js';
import { migrate } from './migrations.js';
import { openPglite } from './pglite-driver.js';
import { openPostgres } from './postgres-driver.js';
import { SqlControlStore, type SqlDriver } from './sql-control-store.js';

export interface ControlStoreOptions {
  /** SIGHTLINE_CONTROL_DB; anything but a postgres URL (or nothing) means the embedded store. */
  url?: string | undefined;
  /** SIGHTLINE_DATA_DIR; the embedded store lives in `<dataDir>/control`. */
  dataDir: string;
  /** Service time for created_at / revoked_at stamps (DESIGN §3 test clock); wall time if omitted. */
  clock?: Clock;
}

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

/** Opens the backend and brings its schema up to date. An unreachable PostgreSQL rejects with ControlStoreUnavailableError. */
export async function openControlStore(opts: ControlStoreOptions): Promise<ControlStore> {
  const driver: SqlDriver = isPostgresUrl(opts.url) ? await openPostgres(opts.url) : await openPglite(join(opts.dataDir, 'control'));
  try {
    await migrate(driver);
  } catch (e) {
    await driver.close().catch(() => undefined);
    throw e;
  }
  return new SqlControlStore(driver, opts.clock);
}
