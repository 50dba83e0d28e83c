// Reaching ClickHouse from SIGHTLINE_TELEMETRY_DB (DESIGN §10): `http(s)://[user:password@]host:port[/db]` is a
// server through @clickhouse/client; `chdb:<dir>` is the engine in-process through chdb's connection plugged into the
// same client. chdb is an optional package (large, platform-specific: issue 11 item 3), loaded only when asked for.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { clientExecutor, quoteIdent } from './client-executor.js';
import { openClickhouseStore, type ClickhouseTelemetryStore } from './clickhouse-store.js';

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

/** The database the in-process engine keeps the store in. */
const CHDB_DATABASE = 'sightline';

/** The directory of a `chdb:<dir>` setting: a relative dir is inside the data dir, so each service has its own. */
export function chdbPath(target: string, dataDir: string): string {
  const dir = target.slice('chdb:'.length);
  if (dir === '') throw new Error('chdb: needs a directory (chdb:<dir>)');
  return isAbsolute(dir) ? dir : join(dataDir, dir);
}

/** A client on the in-process engine at `path`; says how to install chdb when it is missing. */
export async function chdbClient(path: string): Promise<ClickHouseClient> {
  let mod: typeof import('chdb/connection');
  try {
    mod = await import('chdb/connection');
  } catch (e) {
    const missing = (e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' || (e as { code?: string }).code === 'MODULE_NOT_FOUND';
    throw new Error(missing
      ? 'SIGHTLINE_TELEMETRY_DB=chdb:… needs the chdb package: install chdb (npm i chdb)'
      : `chdb could not be loaded: ${String(e)}`, { cause: e });
  }
  await mkdir(path, { recursive: true });
  // chdb types its connection against @clickhouse/client-common while the client bundles its own copy of the same
  // interface; the two are the same contract (chdb/connection re-exports it verbatim), so the cast only bridges copies.
  const connection = mod.createChdbConnection({ path }) as unknown as ClientConnection;
  return createClient({ connection });
}

/**
 * This process's writer id (exactly-once.ts): kept in the data dir beside the WAL it names, so a restart continues
 * the same WAL's positions and another process (split roles) gets its own.
 */
export async function writerIdOf(dataDir: string): Promise<string> {
  const file = join(dataDir, 'telemetry-writer-id');
  try {
    const id = (await readFile(file, 'utf8')).trim();
    if (id !== '') return id;
  } catch (e) {
    if ((e as { code?: string }).code !== 'ENOENT') throw e;
  }
  const id = randomUUID();
  await writeFile(file, id + '\n', { mode: 0o600 });
  return id;
}

/** Opens the ClickHouse store named by `target` (an http(s) URL or chdb:<dir>), creating its database and tables. */
export async function openClickhouseTarget(target: string, dataDir: string): Promise<ClickhouseTelemetryStore> {
  const writerId = await writerIdOf(dataDir);
  if (target.startsWith('chdb:')) {
    const client = await chdbClient(chdbPath(target, dataDir));
    try {
      await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdent(CHDB_DATABASE)}` });
      const exec = clientExecutor(client, { database: CHDB_DATABASE, inProcess: true });
      return await openClickhouseStore({ exec, writerId, release: () => client.close() });
    } catch (e) {
      await client.close();
      throw e;
    }
  }
  return openHttpStore(target, writerId);
}

/** A ClickHouse server (or anything speaking its HTTP interface) at `url`; the database is the URL's path or default. */
export async function openHttpStore(url: string, writerId: string): Promise<ClickhouseTelemetryStore> {
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.slice(1)) || 'default';
  // The client takes the database from the URL's path; the database is created from `default` first.
  parsed.pathname = '/';
  const admin = createClient({ url: parsed.toString(), database: 'default' });
  try {
    await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdent(database)}` });
  } finally {
    await admin.close();
  }
  const client = createClient({ url });
  try {
    const exec = clientExecutor(client, { database, inProcess: false });
    return await openClickhouseStore({ exec, writerId, release: () => client.close() });
  } catch (e) {
    await client.close();
    throw e;
  }
}
