// Starts a split-role deployment for end-to-end tests (DESIGN §1 `--role ingest|app`, §10 scale-out): `--role app`
// and `--role ingest` processes of the compiled service on one PostgreSQL control store (the tests' own,
// postgres-server.ts), each with its own data dir (WAL, and DuckDB unless `env` names a shared telemetry store).
// Ports are chosen up front because each role must name the other's door at start.
import { randomBytes } from 'node:crypto';
import { startService, sleep, type RunningService } from './service.js';
import { freePort, startPostgres, type PostgresServer } from './postgres-server.js';

export interface SplitCluster {
  pg: PostgresServer;
  apps: RunningService[];
  ingests: RunningService[];
  adminToken: string;
  /** Starts one more ingest process (it joins the others' shares within a heartbeat). */
  addIngest(): Promise<RunningService>;
  stop(): Promise<void>;
}

export interface SplitOptions {
  dbName: string;
  apps: number;
  ingests: number;
  /** Extra environment for every process (e.g. SIGHTLINE_TELEMETRY_DB for a shared ClickHouse). */
  env?: Record<string, string>;
}

/** Null when PostgreSQL is not installed (callers skip, as the control-store suite does). */
export async function startSplitCluster(opts: SplitOptions): Promise<SplitCluster | null> {
  const pg = await startPostgres(opts.dbName);
  if (pg === null) return null;
  const adminToken = 'split-admin-' + randomBytes(8).toString('hex');
  const appPorts = await Promise.all(Array.from({ length: opts.apps }, () => freePort()));
  const firstIngestPort = await freePort();
  const appUpstream = `http://127.0.0.1:${appPorts[0] ?? 0}`;
  const base = { SIGHTLINE_CONTROL_DB: pg.url, SIGHTLINE_EVAL_INTERVAL_MS: '0', ...opts.env };
  const apps: RunningService[] = [];
  const ingests: RunningService[] = [];
  const startIngest = async (port: number): Promise<RunningService> => {
    const svc = await startService({
      adminToken,
      env: { ...base, SIGHTLINE_ROLE: 'ingest', SIGHTLINE_INGEST_PORT: String(port), SIGHTLINE_APP_UPSTREAM: appUpstream },
    });
    ingests.push(svc);
    return svc;
  };
  try {
    // Apps first, one at a time: the first start bootstraps the empty control store.
    for (const port of appPorts) {
      apps.push(await startService({
        adminToken,
        env: {
          ...base, SIGHTLINE_ROLE: 'app', SIGHTLINE_APP_PORT: String(port),
          SIGHTLINE_INGEST_UPSTREAM: `http://127.0.0.1:${firstIngestPort}`,
        },
      }));
    }
    for (let i = 0; i < opts.ingests; i++) await startIngest(i === 0 ? firstIngestPort : 0);
  } catch (e) {
    await Promise.all([...apps, ...ingests].map((s) => s.stop()));
    await pg.destroy();
    throw e;
  }
  return {
    pg, apps, ingests, adminToken,
    addIngest: () => startIngest(0),
    async stop() {
      await Promise.all([...apps, ...ingests].map((s) => s.stop()));
      await pg.destroy();
    },
  };
}

/** The N a process last announced for its role (membership.ts logs one line per change); 0 before the first. */
export function announcedShare(svc: RunningService): number {
  const all = [...svc.output().matchAll(/cluster: (\d+) live (?:ingest|app) process/g)];
  return Number(all.at(-1)?.[1] ?? 0);
}

/** Waits until every process announces `n` live processes of its role; false if they do not within `ms`. */
export async function waitForShare(list: readonly RunningService[], n: number, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (list.every((s) => announcedShare(s) === n)) return true;
    await sleep(100);
  }
  return false;
}
