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
  // Statements that may write, and transactions: PGlite's files are this process's alone, so nothing else changes it.
  const counter = { changes: 0 };
  return {
    changes: () => counter.changes,
    async query<T>(sql: string, params: unknown[]): Promise<T[]> {
      if (!READ_ONLY.test(sql)) counter.changes++;
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
      counter.changes++; // a transaction may write
      try {
        return await db.transaction(async (tx) => {
          try {
            return await fn(txDriver(tx, counter));
          } catch (e) {
            fromFn = { error: e };
            throw e;
          }
        });
      } catch (e) {
        if (fromFn && fromFn.error === e) throw e;
        throw classify(e);
      } finally {
        counter.changes++; // and again once it has committed or rolled back
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };
}

/** A plain SELECT of ours: it reads, and calls no function that writes (none of ours does). */
const READ_ONLY = /^\s*SELECT\s/i;

function txDriver(tx: Transaction, counter: { changes: number }): SqlDriver {
  const self: SqlDriver = {
    async query<T>(sql: string, params: unknown[]): Promise<T[]> {
      if (!READ_ONLY.test(sql)) counter.changes++;
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
