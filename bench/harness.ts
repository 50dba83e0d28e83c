// A/B harness for issue 12: one load against the real service, then the rates, acked and stored, and the CPU each
// of the service's threads spent per stored entry (from /proc), so that a change can be judged by where its time
// went, not only by a rate this VM moves between runs. `node dist/bench/harness.js ndjson|otlp-logs|remote-write|otlp-metrics [seconds]`.
import { readdirSync, readFileSync } from 'node:fs';
import { startService, admin, newAccount } from '../test/support/service.js';
import { ndjsonBodies, runLoad } from './load.js';
import { otlpLogBodies, otlpMetricBodies, remoteWriteBodies } from './extra-benchmarks.js';
import { waitForDrain } from './drain.js';
import { statCpuMs } from './proc-cpu.js';

/** CPU ms by thread (name#tid; the main thread as name#main), of process `pid`. */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}#${tid === String(pid) ? 'main' : tid}`;
      out.set(name, (out.get(name) ?? 0) + statCpuMs(stat));
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return out;
}

const LOADS = {
  ndjson: () => ({ path: '/api/v1/ingest', app: false, headers: { 'Content-Type': 'application/x-ndjson' }, bodies: ndjsonBodies(24, 500_000, 2_000_000) }),
  'otlp-logs': () => ({ path: '/v1/logs', app: false, headers: { 'Content-Type': 'application/x-protobuf' }, bodies: otlpLogBodies(24, 4000) }),
  'remote-write': () => ({
    path: '/api/v1/write', app: true,
    headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Write-Version': '0.1.0' },
    bodies: remoteWriteBodies(16, 2000, 10),
  }),
  'otlp-metrics': () => ({ path: '/v1/metrics', app: true, headers: { 'Content-Type': 'application/x-protobuf' }, bodies: otlpMetricBodies(16, 5000) }),
} as const;

async function main(): Promise<void> {
  const kind = (process.argv[2] ?? 'ndjson') as keyof typeof LOADS;
  const seconds = Number(process.argv[3] ?? 10);
  const load = LOADS[kind]();
  const svc = await startService({ env: { SIGHTLINE_PLATFORM_RATE: '100000000' } });
  try {
    const acct = await newAccount(svc, { tier: 'custom' });
    await admin(svc, 'PATCH', `/admin/v1/accounts/${acct.accountId}`, { limits: { ingest_rate: 100_000_000, daily_included_bytes: 1e15 } });
    const url = `${load.app ? svc.app : svc.ingest}${load.path}`;
    const headers = { ...load.headers, 'X-API-Key': acct.key };
    await runLoad({ url, headers, bodies: load.bodies, connections: 8, seconds: 2 });
    await waitForDrain(svc);
    const pid = svc.child.pid ?? 0;
    const before = threadCpu(pid);
    const r = await runLoad({ url, headers, bodies: load.bodies, connections: 8, seconds });
    const drainS = await waitForDrain(svc);
    const after = threadCpu(pid);
    const stored = r.entries / (r.seconds + drainS);
    console.log(`${kind}: acked ${Math.round(r.entries / r.seconds).toLocaleString('en')}/s, stored ${Math.round(stored).toLocaleString('en')}/s ` +
      `(drain +${drainS.toFixed(1)} s), ${r.failures} refused`);
    let total = 0;
    const rows: [string, number][] = [];
    for (const [name, ms] of after) {
      const used = ms - (before.get(name) ?? 0);
      total += used;
      if (used > 0) rows.push([name, used]);
    }
    rows.sort((a, b) => b[1] - a[1]);
    const per = (ms: number) => ((ms * 1000) / r.entries).toFixed(3);
    console.log(`  CPU µs an entry: total ${per(total)}; ` + rows.map(([n, ms]) => `${n} ${per(ms)}`).join(', '));
  } finally {
    await svc.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
