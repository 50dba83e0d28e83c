// Test support: stores on one in-process ClickHouse engine (chdb allows one engine path per process, clickhouse.md
// "chDB in tests"), each in its own database so tests stay apart, the same key reopening the same database. Used by
// this folder's tests and the PromQL ones; the engine is the real one (issue 11 item 3).
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { clientExecutor, quoteIdent } from './client-executor.js';
import { openClickhouseStore, type ClickhouseTelemetryStore } from './clickhouse-store.js';
import { chdbClient } from './connect.js';
import type { ChExecutor } from './executor.js';

export interface TestEngine {
  client: ClickHouseClient;
  /** An executor in the database named after `key` (created when new). */
  executor(key: string): Promise<ChExecutor>;
  /** A store in the database named after `key`; closing it leaves the engine running. */
  open(key: string, writerId?: string): Promise<ClickhouseTelemetryStore>;
  /** Closes the engine and deletes its directory. */
  close(): Promise<void>;
}

export function databaseFor(key: string): string {
  return `t_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/** Starts the engine in a temp directory. DateTime would render in the host zone, so TZ is pinned first. */
export async function startTestEngine(): Promise<TestEngine> {
  process.env.TZ = 'UTC';
  const dir = await mkdtemp(join(tmpdir(), 'sightline-chdb-'));
  const client = await chdbClient(join(dir, 'engine'));
  const executor = async (key: string): Promise<ChExecutor> => {
    const database = databaseFor(key);
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdent(database)}` });
    return clientExecutor(client, { database, inProcess: true });
  };
  return {
    client,
    executor,
    open: async (key, writerId = 'test') => openClickhouseStore({ exec: await executor(key), writerId, release: () => Promise.resolve() }),
    close: async () => {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
