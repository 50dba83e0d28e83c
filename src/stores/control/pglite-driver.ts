// The embedded control database: PGlite (PostgreSQL compiled to WASM) in this process, files under
// `<data>/control` (DESIGN §1). Only one PGlite instance may live in a process at a time — close before reopening.
import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { ControlStoreUnavailableError } from './control-store.js';
import type { SqlDriver } from './sql-control-store.js';

/** Opens PGlite at `dir`, or in memory when `dir` is undefined (tests). */
export async function openPglite(dir: string | undefined): Promise<SqlDriver> {
  let db: PGlite;
  try {
    if (dir !== undefined) await mkdir(dir, { recursive: true });
    db = await PGlite.create(dir === undefined ? {} : { dataDir: dir });
  } catch (e) {
    throw unavailable(e);
  }
  let closed = false;
  return {
    async query<T>(sql: string, params: unknown[]): Promise<T[]> {
      try {
        return (await db.query<T>(sql, params)).rows;
      } catch (e) {
        throw classify(e);
      }
    },
    async transaction<T>(fn: (tx: SqlDriver) => Promise<T>): Promise<T> {
      // Errors thrown by `fn` (its own, or already classified by txDriver) pass through untouched; only failures of
      // BEGIN / COMMIT themselves are classified here.
      let fromFn: { error: unknown } | undefined;
      try {
        return await db.transaction(async (tx) => {
          try {
            return await fn(txDriver(tx));
          } catch (e) {
            fromFn = { error: e };
            throw e;
          }
        });
      } catch (e) {
        if (fromFn && fromFn.error === e) throw e;
        throw classify(e);
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };
}

function txDriver(tx: Transaction): SqlDriver {
  const self: SqlDriver = {
    async query<T>(sql: string, params: unknown[]): Promise<T[]> {
      try {
        return (await tx.query<T>(sql, params)).rows;
      } catch (e) {
        throw classify(e);
      }
    },
    // Nested transactions join the open one: PGlite serialises all work anyway.
    transaction: <T>(fn: (inner: SqlDriver) => Promise<T>): Promise<T> => fn(self),
    close: () => Promise.resolve(),
  };
  return self;
}

/**
 * A SQL error (PostgreSQL's DatabaseError: a SQLSTATE `code` and a `severity`) is the caller's business and passes
 * through as is. Anything else — PGlite closed, a WASM abort, a file-system ErrnoError — means the embedded
 * database cannot answer, which callers must see exactly like an unreachable PostgreSQL (spec Authentication
 * rule 11: 503 auth_unavailable), not as a 500.
 */
function classify(e: unknown): unknown {
  return isSqlError(e) || e instanceof ControlStoreUnavailableError ? e : unavailable(e);
}

function isSqlError(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, severity } = e as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}

function unavailable(e: unknown): ControlStoreUnavailableError {
  const err = new ControlStoreUnavailableError(e);
  err.cause = e;
  return err;
}
