// Debian's real Alertmanager for notification tests (issue 9 item 5): launched from the test itself — it does not
// start as a service in a container — on a free 127.0.0.1 port, with clustering off (`--cluster.listen-address=`),
// a temp storage dir and a route to a receiver that drops everything, so only its API v2 matters.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ALERTMANAGER_BIN = '/usr/bin/prometheus-alertmanager';
export const ALERTMANAGER_MISSING = `${ALERTMANAGER_BIN} not found (apt-get install prometheus-alertmanager)`;

export interface AlertmanagerServer {
  url: string;
  /** GET /api/v2/alerts with the given matchers (`alertname="x"`), as Alertmanager lists them. */
  alerts(...filters: string[]): Promise<GettableAlert[]>;
  stop(): Promise<void>;
}

/** api/v2/openapi.yaml gettableAlert, the fields the tests read. */
export interface GettableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
  fingerprint: string;
  status: { state: string };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

export function alertmanagerPresent(): boolean {
  return existsSync(ALERTMANAGER_BIN);
}

export async function startAlertmanager(): Promise<AlertmanagerServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-am-'));
  const config = join(dir, 'alertmanager.yml');
  writeFileSync(config, 'route:\n  receiver: blackhole\nreceivers:\n  - name: blackhole\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let out = '';
  const child: ChildProcess = spawn(ALERTMANAGER_BIN, [
    `--config.file=${config}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`,
    '--cluster.listen-address=',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Alertmanager did not become ready:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async alerts(...filters) {
      const q = new URLSearchParams(filters.map((f): [string, string] => ['filter', f]));
      const res = await fetch(`${url}/api/v2/alerts?${q.toString()}`);
      if (!res.ok) throw new Error(`GET /api/v2/alerts: ${res.status} ${await res.text()}`);
      return (await res.json()) as GettableAlert[];
    },
    stop,
  };
}
