// Starts a real, throw-away PostgreSQL 15 for tests (DESIGN §1: "the same test suite runs against every backend
// that is present"). initdb into a fresh temp dir, listen on a free 127.0.0.1 port with the unix socket in that
// dir, create a database. stop()/start() reuse the same dir and port so a test can stage an outage and recovery.
import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/<db>` */
  url: string;
  port: number;
  /** pg_ctl stop -m fast: clients are disconnected, the server shuts down cleanly. */
  stop(): Promise<void>;
  /** pg_ctl stop -m immediate: like a crash; the next start() runs recovery. */
  kill(): Promise<void>;
  /** Starts again on the same dir and port and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops the server if it runs and removes its temp dir. Call once, at the end. */
  destroy(): Promise<void>;
}

const BINARIES = ['initdb', 'pg_ctl', 'postgres'] as const;

/** The directory holding initdb, pg_ctl and postgres, preferring PostgreSQL 15; null when they are absent. */
export async function findPostgresBinDir(): Promise<string | null> {
  const candidates = [process.env.SIGHTLINE_PG_BINDIR, '/usr/lib/postgresql/15/bin'];
  try {
    candidates.push((await run('pg_config', ['--bindir'])).stdout.trim());
  } catch {
    // no pg_config on PATH: only the fixed candidates remain
  }
  for (const dir of candidates) {
    if (dir && BINARIES.every((b) => existsSync(join(dir, b)))) return dir;
  }
  return null;
}

/** Starts a fresh server, or returns null when no PostgreSQL binaries are installed (callers skip). */
export async function startPostgres(dbName = 'sightline_test'): Promise<PostgresServer | null> {
  // CREATE DATABASE takes no parameters, so the name is checked instead.
  if (!/^[a-z_][a-z0-9_]*$/.test(dbName)) throw new RangeError(`not a plain database name: ${dbName}`);
  const bin = await findPostgresBinDir();
  if (bin === null) return null;

  const dir = mkdtempSync(join(tmpdir(), 'sightline-pg-'));
  const dataDir = join(dir, 'data');
  const port = await freePort();
  // initdb and postgres refuse to run as root: run them as the `postgres` user, which must own the temp dir.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const argv = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
  const exec = async (tool: string, args: string[]): Promise<void> => {
    const [file, rest] = argv(tool, args);
    try {
      await run(file, rest, { cwd: dir, timeout: 60_000 });
    } catch (e) {
      const { stderr, stdout } = e as { stderr?: string; stdout?: string };
      throw new Error(`${tool} ${args.join(' ')} failed: ${stderr ?? ''}${stdout ?? ''}`, { cause: e });
    }
  };

  await exec('initdb', ['-D', dataDir, '--auth=trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  // fsync off: a test server need not survive a power cut, and it makes start/stop fast.
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  let running = false;
  const start = async (): Promise<void> => {
    await exec('pg_ctl', ['-D', dataDir, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', serverOptions, 'start']);
    running = true;
    await waitForConnections(`postgres://postgres@127.0.0.1:${port}/postgres`);
  };
  const stopWith = async (mode: 'fast' | 'immediate'): Promise<void> => {
    await exec('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
    running = false;
  };
  // A test process that dies early must not leave a server behind.
  const onExit = (): void => {
    if (running) {
      const [file, rest] = argv('pg_ctl', ['-D', dataDir, '-m', 'immediate', 'stop']);
      spawnSync(file, rest, { cwd: dir, stdio: 'ignore' });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  try {
    await start();
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${dbName}`);
    } finally {
      await admin.end();
    }
  } catch (e) {
    onExit();
    process.removeListener('exit', onExit);
    throw e;
  }

  return {
    url: `postgres://postgres@127.0.0.1:${port}/${dbName}`,
    port,
    stop: () => stopWith('fast'),
    kill: () => stopWith('immediate'),
    start,
    destroy: async () => {
      if (running) await stopWith('fast');
      process.removeListener('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on now (the OS picks it), for a server that must be told its port up front. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => { resolve(port); });
    });
  });
}

/** pg_ctl -w already waits for the postmaster; this also proves a TCP client gets through. */
async function waitForConnections(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (e) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections within ${timeoutMs} ms`, { cause: e });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
