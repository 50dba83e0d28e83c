// The scale-out control database: PostgreSQL through a `pg` Pool (DESIGN §1, SIGHTLINE_CONTROL_DB=postgres://…).
// Every failure that means "the server cannot be reached" becomes ControlStoreUnavailableError here, once, so each
// store method reports an outage the same way and auth can answer 503 auth_unavailable (spec Authentication
// rule 11). Short timeouts make an outage fail fast instead of hanging requests.
import pg from 'pg';
import { ControlStoreUnavailableError } from './control-store.js';
import type { SqlDriver } from './sql-control-store.js';

/** Socket errors that mean the server or the path to it is gone. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN',
  'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'ENOENT',
]);

/**
 * SQLSTATEs of an unreachable or going-away server: class 08 (connection exception), 57P01 admin shutdown,
 * 57P02 crash shutdown, 57P03 cannot connect now (starting up / shutting down), 53300 too many connections.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Messages `pg` uses for a dropped or never-made connection (it gives these errors no code). */
const UNAVAILABLE_MESSAGE = /connection terminated|timeout exceeded when trying to connect|query read timeout|connection error|not queryable|connection timeout/i;

export interface PostgresOptions {
  /** Give up connecting after this long (default 2000 ms): an outage must not hang auth. */
  connectionTimeoutMillis?: number;
  /** Give up on a query with no answer after this long (default 5000 ms): a half-dead server must not either. */
  queryTimeoutMillis?: number;
  max?: number;
}

export function openPostgres(url: string, options: PostgresOptions = {}): Promise<SqlDriver> {
  const pool = new pg.Pool({
    connectionString: url,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 2000,
    query_timeout: options.queryTimeoutMillis ?? 5000,
    max: options.max ?? 10,
    keepAlive: true,
  });
  // An idle client whose server went away emits 'error' on the pool; unhandled, that would crash the process.
  // The pool drops that client by itself and the next checkout reconnects (or reports the outage).
  pool.on('error', () => undefined);
  let closed = false;
  return Promise.resolve({
    async query<T>(sql: string, params: unknown[]): Promise<T[]> {
      try {
        return (await pool.query(sql, params)).rows as T[];
      } catch (e) {
        throw classify(e);
      }
    },
    async transaction<T>(fn: (tx: SqlDriver) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (e) {
        throw classify(e);
      }
      let broken: Error | undefined;
      // pg-pool takes its own 'error' listener off a client it hands out. A server that cuts the connection while
      // fn is between statements (a shutdown, pg_terminate_backend) then emits 'error' on the client with nobody
      // listening, and the process exits, taking cached-key ingest with it (spec Authentication rule 11). Keep it:
      // the next statement fails as an outage, and the client is destroyed on release instead of pooled.
      const onCut = (e: Error): void => { broken = e; };
      client.on('error', onCut);
      try {
        await clientQuery(client, 'BEGIN', []);
        const result = await fn(clientDriver(client));
        await clientQuery(client, 'COMMIT', []);
        return result;
      } catch (e) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          // The connection is unusable: release(err) destroys it instead of returning it to the pool.
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw e;
      } finally {
        client.removeListener('error', onCut);
        client.release(broken);
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  });
}

function clientDriver(client: pg.PoolClient): SqlDriver {
  const self: SqlDriver = {
    query: <T>(sql: string, params: unknown[]): Promise<T[]> => clientQuery<T>(client, sql, params),
    // Nested transactions join the open one.
    transaction: <T>(fn: (tx: SqlDriver) => Promise<T>): Promise<T> => fn(self),
    close: () => Promise.resolve(),
  };
  return self;
}

async function clientQuery<T>(client: pg.PoolClient, sql: string, params: unknown[]): Promise<T[]> {
  try {
    return (await client.query(sql, params)).rows as T[];
  } catch (e) {
    throw classify(e);
  }
}

/** Outages become ControlStoreUnavailableError; SQL errors (constraint, syntax, …) pass through unchanged. */
export function classify(e: unknown): unknown {
  if (e instanceof ControlStoreUnavailableError || !isUnreachable(e)) return e;
  const err = new ControlStoreUnavailableError(e);
  err.cause = e;
  return err;
}

function isUnreachable(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, message, errors } = e as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  // Node's happy-eyeballs connect reports an AggregateError of one error per address tried.
  return Array.isArray(errors) && errors.length > 0 && errors.every(isUnreachable);
}
