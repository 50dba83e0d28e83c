// Starts the real service (the compiled `sightline serve`) on free ports in a temp data dir, the way
// an operator would, and talks HTTP to it. For end-to-end tests (STYLE.md layout: test/).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'main.js');

export interface RunningService {
  ingest: string;
  app: string;
  dataDir: string;
  adminToken: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait; keeps the data dir when asked (restart tests). */
  stop(opts?: { keepData?: boolean }): Promise<number | null>;
  kill(): Promise<void>;
}

export async function startService(opts: { dataDir?: string; env?: Record<string, string>; adminToken?: string } = {}): Promise<RunningService> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'sightline-test-'));
  const adminToken = opts.adminToken ?? 'test-admin-' + randomBytes(8).toString('hex');
  // SIGHTLINE_NODE_FLAGS lets a benchmark profile the service (`--cpu-prof`), which NODE_OPTIONS refuses.
  const nodeFlags = (process.env.SIGHTLINE_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  const child = spawn(process.execPath, [...nodeFlags, MAIN, 'serve'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      SIGHTLINE_DATA_DIR: dataDir, SIGHTLINE_INGEST_PORT: '0', SIGHTLINE_APP_PORT: '0', SIGHTLINE_HOST: '127.0.0.1',
      SIGHTLINE_ADMIN_TOKEN: adminToken, SIGHTLINE_TEST_CLOCK: '1', SIGHTLINE_KEY_CACHE_TTL_MS: '1000',
      ...opts.env,
    },
  });
  let out = '';
  const urls = await new Promise<{ ingest: string; app: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in 60 s:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /sightline listening ingest=(\S+) app=(\S+)/.exec(out);
      if (m?.[1] && m[2]) {
        clearTimeout(timer);
        resolve({ ingest: m[1], app: m[2] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${out}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    ...urls, dataDir, adminToken, child,
    output: () => out,
    async stop({ keepData = false } = {}) {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** fetch with the reply read whole; `json` is undefined when the body is not JSON. */
export async function call(url: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), text, json };
}

export function admin(svc: RunningService, method: string, path: string, body?: unknown): Promise<Reply> {
  return call(svc.app + path, {
    method,
    headers: { Authorization: `Bearer ${svc.adminToken}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export interface TestAccount {
  accountId: string;
  tenantId: string;
  key: string;
  keyId: string;
}

export async function newAccount(svc: RunningService, body: Record<string, unknown> = {}): Promise<TestAccount> {
  const r = await admin(svc, 'POST', '/admin/v1/accounts', { name: 'acct-' + randomBytes(4).toString('hex'), ...body });
  if (r.status !== 201) throw new Error(`account creation failed: ${r.status} ${r.text}`);
  const j = r.json as { account: { id: string }; tenant: { id: string }; api_key: { key: string; id: string } };
  return { accountId: j.account.id, tenantId: j.tenant.id, key: j.api_key.key, keyId: j.api_key.id };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value or `ms` pass; returns the last value. */
export async function eventually<T>(fn: () => Promise<T>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  let last = await fn();
  while (!last && Date.now() < end) {
    await sleep(100);
    last = await fn();
  }
  return last;
}
