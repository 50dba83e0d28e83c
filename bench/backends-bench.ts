// npm run bench:backends (part of npm run bench): the same native NDJSON ingest and the same queries on each telemetry
// store, side by side in one run (issue 11 item 7) — DuckDB (the default) and ClickHouse's engine in-process
// (`SIGHTLINE_TELEMETRY_DB=chdb:clickhouse`, when the chdb package is installed). Per backend: the acked rate, the
// rate counted until the backlog is in the store, a needle search and `stats by (service) count()` over everything
// stored (median of 5), and bytes on disk per raw NDJSON byte after a clean stop. The entries are realistic and
// mostly unique (issue 12 item 3: services, pods, hosts, versions and levels that repeat, templated messages, unique
// trace, span and request ids), from the RCA incident generator's quiet traffic, and far more bodies than one run
// sends, so the storage figure is not flattered by the same rows stored again. Figures only: nothing here passes or
// fails on a time (STYLE.md).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { admin, call, newAccount, startService, type RunningService } from '../test/support/service.js';
import { percentile, runLoad } from './load.js';
import { realisticBodies, type Body } from './realistic-logs.js';
import { waitForDrain } from './drain.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const QUERY_RUNS = 5;

interface Backend {
  name: string;
  env: Record<string, string>;
  /** What holds the telemetry store's bytes inside the data dir. */
  paths: string[];
}

interface Figures {
  acked: number;
  stored: number;
  drainS: number;
  entries: number;
  needleMs: number;
  statsMs: number;
  bytesPerRaw: number;
  note: string;
}

async function sizeOf(path: string): Promise<number> {
  const s = await stat(path).catch(() => null);
  if (!s) return 0;
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name));
  return total;
}

async function timed(svc: RunningService, tenantId: string, key: string, query: string): Promise<{ ms: number; text: string }> {
  const times: number[] = [];
  let text = '';
  for (let i = 0; i < QUERY_RUNS; i++) {
    const t0 = performance.now();
    const r = await call(`${svc.app}/api/v1/tenants/${tenantId}/select/logsql/query?query=${encodeURIComponent(query)}&limit=100`,
      { headers: { 'X-API-Key': key } });
    if (r.status !== 200) throw new Error(`${query}: ${r.status} ${r.text}`);
    times.push(performance.now() - t0);
    text = r.text;
  }
  return { ms: percentile(times, 50), text };
}

async function measure(backend: Backend, bodies: Body[]): Promise<Figures> {
  const svc = await startService({ env: { SIGHTLINE_PLATFORM_RATE: '100000000', ...backend.env } });
  let rawBytes = 0;
  try {
    const acct = await newAccount(svc, { tier: 'custom' });
    await admin(svc, 'PATCH', `/admin/v1/accounts/${acct.accountId}`, { limits: { ingest_rate: 100_000_000, daily_included_bytes: 1e15 } });
    const headers = { 'Content-Type': 'application/x-ndjson', 'X-API-Key': acct.key };
    const url = `${svc.ingest}/api/v1/ingest`;
    const warm = await runLoad({ url, headers, bodies, connections: CONNECTIONS, seconds: 2 });
    await waitForDrain(svc);
    const run = await runLoad({ url, headers, bodies, connections: CONNECTIONS, seconds: SECONDS });
    const drainS = await waitForDrain(svc);
    rawBytes = warm.bytes + run.bytes;
    const entries = warm.entries + run.entries;

    const needle = `needle${randomBytes(6).toString('hex')}`;
    const one = JSON.stringify({ _msg: `lookup failed for ${needle} after retry`, service: 'checkout-1', level: 'error' }) + '\n';
    const sent = await call(url, { method: 'POST', headers, body: one });
    if (sent.status !== 200) throw new Error(`needle: ${sent.status} ${sent.text}`);
    await waitForDrain(svc);
    const needleQ = await timed(svc, acct.tenantId, acct.key, needle);
    const found = needleQ.text.trim().split('\n').filter((l) => l !== '').length;
    const statsQ = await timed(svc, acct.tenantId, acct.key, '* | stats by (service) count() as n');
    const counted = statsQ.text.trim().split('\n').reduce((n, l) => n + Number((JSON.parse(l) as { n: string }).n), 0);
    const acked = run.entries / run.seconds;
    return {
      acked, stored: run.entries / (run.seconds + drainS), drainS, entries, needleMs: needleQ.ms, statsMs: statsQ.ms, bytesPerRaw: 0,
      note: `needle found ${found}, stats counted ${counted.toLocaleString('en')} of ${(entries + 1).toLocaleString('en')}`,
    };
  } finally {
    await svc.stop({ keepData: true });
    const onDisk = (await Promise.all(backend.paths.map((p) => sizeOf(join(svc.dataDir, p))))).reduce((a, b) => a + b, 0);
    measured.set(backend.name, rawBytes > 0 ? onDisk / rawBytes : NaN);
    const { rm } = await import('node:fs/promises');
    await rm(svc.dataDir, { recursive: true, force: true });
  }
}

const measured = new Map<string, number>();

async function chdbInstalled(): Promise<boolean> {
  try {
    await import('chdb/connection');
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const bodies = realisticBodies(Number(process.env.BENCH_BODIES ?? 240), 1_000_000);
  const backends: Backend[] = [{ name: 'DuckDB (default)', env: {}, paths: ['telemetry.duckdb', 'telemetry.duckdb.wal'] }];
  if (await chdbInstalled()) backends.push({ name: 'ClickHouse (chdb, in-process)', env: { SIGHTLINE_TELEMETRY_DB: 'chdb:clickhouse' }, paths: ['clickhouse'] });
  else console.log('chdb is not installed (npm i chdb): ClickHouse is left out');
  const total = bodies.reduce((n, b) => n + b.entries, 0);
  console.log(`backends: ${bodies.length} bodies of ~1 MB, ${total.toLocaleString('en')} distinct realistic entries of ` +
    `~${Math.round(bodies.reduce((n, b) => n + b.body.length, 0) / total)} bytes, ${CONNECTIONS} connections, ${SECONDS} s per run`);
  const rows: [string, Figures][] = [];
  for (const b of backends) rows.push([b.name, await measure(b, bodies)]);
  const cell = (s: string) => s.padStart(16);
  console.log(`${'figure'.padEnd(40)}${rows.map(([n]) => cell(n.split(' ')[0] ?? n)).join('')}`);
  const show = (label: string, f: (x: Figures, name: string) => string) => console.log(`${label.padEnd(40)}${rows.map(([n, x]) => cell(f(x, n))).join('')}`);
  show('acked entries/s', (x) => Math.round(x.acked).toLocaleString('en'));
  show('stored entries/s (until in the store)', (x) => Math.round(x.stored).toLocaleString('en'));
  show('backlog drained after the run (s)', (x) => x.drainS.toFixed(1));
  show('entries stored', (x) => x.entries.toLocaleString('en'));
  show('needle search, median ms', (x) => x.needleMs.toFixed(1));
  show('stats by (service) count(), median ms', (x) => x.statsMs.toFixed(1));
  show('bytes on disk per raw NDJSON byte', (_x, n) => (measured.get(n) ?? NaN).toFixed(3));
  for (const [n, x] of rows) console.log(`${n}: ${x.note}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
