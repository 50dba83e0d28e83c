// npm run bench: native NDJSON ingest through the real service over HTTP (durable: WAL + fsync + DuckDB)
// side by side with a bare node:http server that only parses the same bodies line by line, in one run.
// Prints entries/s, MB/s, their ratio, p50/p99 ack latency, and LogsQL query latency during full ingest.
// Figures only: nothing here passes or fails on a time (STYLE.md: speed is measured, not asserted).
import { startService, admin, newAccount, call } from '../test/support/service.js';
import { startBareServer } from './bare-server.js';
import { ndjsonBodies, percentile, runLoad, type LoadResult } from './load.js';
import { extraBenchmarks } from './extra-benchmarks.js';
import { waitForDrain, watchBacklog } from './drain.js';
import { sustainedRates } from './sustained.js';
import { probeCpuSpeedInChild } from './cpu-probe.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);

function line(label: string, r: LoadResult): string {
  const eps = r.entries / r.seconds;
  const mbps = r.bytes / r.seconds / 1e6;
  return `${label.padEnd(34)} ${Math.round(eps).toLocaleString('en').padStart(10)} entries/s  ${mbps.toFixed(1).padStart(6)} MB/s  ` +
    `ack p50 ${percentile(r.latenciesMs, 50).toFixed(1)} ms  p99 ${percentile(r.latenciesMs, 99).toFixed(1)} ms` +
    (r.failures ? `  (${r.failures} refused, first: ${r.firstFailure})` : '');
}

async function main(): Promise<void> {
  const bodies = ndjsonBodies(24, 500_000, 2_000_000);
  const entriesPerBody = bodies.reduce((n, b) => n + b.entries, 0) / bodies.length;
  const bytesPerEntry = bodies.reduce((n, b) => n + b.body.length, 0) / bodies.reduce((n, b) => n + b.entries, 0);
  console.log(`bodies: ${bodies.length}, 0.5–2 MB, ~${Math.round(entriesPerBody)} entries each, ~${Math.round(bytesPerEntry)} bytes/entry; ` +
    `${CONNECTIONS} connections, ${SECONDS} s per run`);

  const bare = await startBareServer();
  await runLoad({ url: bare.url, headers: { 'Content-Type': 'application/x-ndjson' }, bodies, connections: CONNECTIONS, seconds: 2 });
  // The machine's speed just before and after each of item 1's two runs (cpu-probe.ts): the ratio carries its movement.
  const speed = { bareBefore: probeCpuSpeedInChild().roundsPerCpuSecond, bareAfter: 0, svcBefore: 0, svcAfter: 0 };
  const bareResult = await runLoad({ url: bare.url, headers: { 'Content-Type': 'application/x-ndjson' }, bodies, connections: CONNECTIONS, seconds: SECONDS });
  speed.bareAfter = probeCpuSpeedInChild().roundsPerCpuSecond;
  await bare.close();

  // The platform limiter (50,000/s by default) would cap the figure, not measure the path: lift it here.
  const svc = await startService({ env: { SIGHTLINE_PLATFORM_RATE: '100000000' } });
  try {
    const acct = await newAccount(svc, { tier: 'custom' });
    await admin(svc, 'PATCH', `/admin/v1/accounts/${acct.accountId}`, { limits: { ingest_rate: 100_000_000, daily_included_bytes: 1e15 } });
    const headers = { 'Content-Type': 'application/x-ndjson', 'X-API-Key': acct.key };
    const url = `${svc.ingest}/api/v1/ingest`;
    await runLoad({ url, headers, bodies, connections: CONNECTIONS, seconds: 2 });
    await waitForDrain(svc);

    // Query latency while ingest runs flat out (DESIGN §1: the drain must leave the store free for queries), in a run
    // of its own, before item 1's (as in earlier stops: the table is as large); what the queries cost the ingest is
    // printed beside it.
    const queryMs: number[] = [];
    const load = { running: true };
    const queries = (async () => {
      const q = encodeURIComponent('service:checkout-3 warn | stats count() as n');
      while (load.running) {
        const t0 = performance.now();
        const r = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/select/logsql/query?query=${q}`, { headers: { 'X-API-Key': acct.key } });
        if (r.status === 200) queryMs.push(performance.now() - t0);
        await new Promise((res) => setTimeout(res, 250));
      }
    })();
    const queried = await runLoad({ url, headers, bodies, connections: CONNECTIONS, seconds: SECONDS });
    load.running = false;
    await queries;
    const queriedDrainS = await waitForDrain(svc);
    const queriedStored = queried.entries / (queried.seconds + queriedDrainS);

    // Item 1's figures come from a run with nothing else on the machine, as the bare-parse run has nothing else.
    speed.svcBefore = probeCpuSpeedInChild().roundsPerCpuSecond;
    const backlog = watchBacklog(svc);
    const svcResult = await runLoad({ url, headers, bodies, connections: CONNECTIONS, seconds: SECONDS });
    // What was acknowledged but not yet in DuckDB when the run ended: the rate all the way into the store counts it.
    const drainS = await waitForDrain(svc);
    const { peakBytes, samples } = await backlog.stop();
    speed.svcAfter = probeCpuSpeedInChild().roundsPerCpuSecond; // once the service is idle again: the probe shares no core

    console.log(line('bare node:http, parse only', bareResult));
    console.log(line('sightline native NDJSON (durable)', svcResult));
    const round = (x: number): string => Math.round(x).toLocaleString('en');
    console.log(`machine speed (a fixed loop, rounds per CPU second): around the bare run ${round(speed.bareBefore)} → ` +
      `${round(speed.bareAfter)}, around the service's ${round(speed.svcBefore)} → ${round(speed.svcAfter)} ` +
      `(${(((speed.svcBefore + speed.svcAfter) / (speed.bareBefore + speed.bareAfter)) * 100).toFixed(1)} % of the bare run's)`);
    const bareRate = bareResult.entries / bareResult.seconds;
    const ratio = (svcResult.entries / svcResult.seconds) / bareRate;
    console.log(`ratio durable / bare-parse: ${(ratio * 100).toFixed(1)} %`);
    const storedRate = svcResult.entries / (svcResult.seconds + drainS);
    console.log(`backlog landed in DuckDB ${drainS.toFixed(1)} s after the run: ${Math.round(storedRate).toLocaleString('en')} entries/s acked and stored ` +
      `(${((storedRate / bareRate) * 100).toFixed(1)} % of bare-parse)`);
    console.log(`backlog peak: ${(peakBytes / 1e6).toFixed(1)} MB of WAL records not yet in the store (~${Math.round(peakBytes / bytesPerEntry).toLocaleString('en')} entries)`);
    const sustained = sustainedRates(svcResult, samples);
    console.log(sustained === null ? 'sustained: the backlog did not settle at a bound during the run' :
      `sustained, the run's last ${sustained.seconds.toFixed(1)} s with the backlog at its bound: ` +
      `acked ${Math.round(sustained.ackedPerSecond).toLocaleString('en')} entries/s (${((sustained.ackedPerSecond / bareRate) * 100).toFixed(1)} %), ` +
      `stored ${Math.round(sustained.storedPerSecond).toLocaleString('en')} entries/s (${((sustained.storedPerSecond / bareRate) * 100).toFixed(1)} %) of bare-parse; ` +
      `backlog ${Math.round(sustained.backlogFrom).toLocaleString('en')} → ${Math.round(sustained.backlogTo).toLocaleString('en')} entries`);
    // Half the load the service sustains — acked and stored, the lower of the two rates — paced (open loop): the
    // acknowledgement latency a steady shipper sees when the store keeps up.
    const half = Math.min(svcResult.entries / svcResult.seconds, storedRate) / 2;
    const paced = await runLoad({ url, headers, bodies, connections: CONNECTIONS, seconds: SECONDS, entriesPerSecond: half });
    await waitForDrain(svc);
    console.log(line(`  paced at half (${Math.round(half).toLocaleString('en')}/s)`, paced));
    console.log(line('sightline NDJSON, LogsQL query every 250 ms', queried));
    console.log(`  with the queries: acked ${(((queried.entries / queried.seconds) / bareRate) * 100).toFixed(1)} %, ` +
      `stored ${Math.round(queriedStored).toLocaleString('en')} entries/s (${((queriedStored / bareRate) * 100).toFixed(1)} %) of bare-parse`);
    console.log(`LogsQL stats query during full ingest: ${queryMs.length} queries, p50 ${percentile(queryMs, 50).toFixed(1)} ms, p99 ${percentile(queryMs, 99).toFixed(1)} ms`);

    await extraBenchmarks({ svc, acct, seconds: SECONDS, connections: CONNECTIONS, line });
  } finally {
    await svc.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
