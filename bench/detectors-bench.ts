// Detector evaluation at load (issue 9 item 9): 1,000 detectors over 10 tenants — LogsQL thresholds, PromQL
// thresholds and absences — evaluated by `POST /admin/v1/detectors/evaluate` while native NDJSON ingest runs flat
// out, against the same ingest with no evaluation. Prints the pass times (to compare with the 60 s evaluation
// interval) and the ingest rate with and without evaluation. Figures only: nothing passes or fails on a time.
import { admin, call, newAccount, startService, type RunningService, type TestAccount } from '../test/support/service.js';
import { ndjsonBodies, percentile, runLoad } from './load.js';

const TENANTS = 10;
const PER_TENANT = 100;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const SERVICES = ['checkout', 'cart', 'search', 'payments', 'frontend', 'auth', 'catalog', 'shipping'];

async function must(r: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const reply = await r;
  if (reply.status >= 300) throw new Error(`${what}: ${reply.status} ${reply.text.slice(0, 300)}`);
}

async function seedTenant(svc: RunningService, acct: TestAccount): Promise<void> {
  const now = Date.now();
  const logs = Array.from({ length: 2000 }, (_, i) => JSON.stringify({
    _time: new Date(now - (i % 600) * 1000).toISOString(), _msg: i % 17 === 0 ? `payment failed for order ${i}` : `request served ${i}`,
    service: SERVICES[i % SERVICES.length], level: i % 17 === 0 ? 'error' : 'info',
  })).join('\n');
  await must(call(`${svc.ingest}/api/v1/ingest`, { method: 'POST', headers: { 'X-API-Key': acct.key, 'Content-Type': 'application/x-ndjson' }, body: logs }), 'logs');
  const lines = SERVICES.map((s, i) => `http_requests,service=${s} total=${100 + i * 7}i ${now * 1_000_000}`).join('\n');
  await must(call(`${svc.app}/api/v2/write?org=o&bucket=b`, { method: 'POST', headers: { Authorization: `Token ${acct.key}` }, body: lines }), 'metrics');
  // Absence detectors refuse a query that has matched nothing yet (has_data): wait for the logs to land.
  const count = `${svc.app}/api/v1/tenants/${acct.tenantId}/select/logsql/query?query=${encodeURIComponent('* | stats count() as n')}`;
  for (let tries = 0; tries < 200 && !(await call(count, { headers: { 'X-API-Key': acct.key } })).text.includes('"2000"'); tries++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (let i = 0; i < PER_TENANT; i++) {
    const service = SERVICES[i % SERVICES.length] ?? 'checkout';
    const body = i % 10 < 6
      ? { name: `errors ${i}`, kind: 'log_threshold', params: { query: `service:${service} level:error`, threshold: 5 + (i % 4) }, window_s: 300 }
      : i % 10 < 9
        ? { name: `requests ${i}`, kind: 'metric_threshold', params: { expr: `http_requests_total{service="${service}"}`, op: '>', threshold: 110 + i }, window_s: 300 }
        : { name: `heartbeat ${i}`, kind: 'absence', params: { query: `service:${service}`, lookback: '10m' }, window_s: 300 };
    await must(call(`${svc.app}/api/v1/tenants/${acct.tenantId}/detectors`, {
      method: 'POST', headers: { 'X-API-Key': acct.key, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    }), `detector ${i}`);
  }
}

async function passes(svc: RunningService, until: { running: boolean }): Promise<number[]> {
  const times: number[] = [];
  while (until.running) {
    const t0 = performance.now();
    await must(admin(svc, 'POST', '/admin/v1/detectors/evaluate', {}), 'evaluate');
    times.push(performance.now() - t0);
  }
  return times;
}

async function main(): Promise<void> {
  // Evaluation runs only when this bench asks (interval 0), so the two ingest runs differ in that alone.
  const svc = await startService({ env: { SIGHTLINE_PLATFORM_RATE: '100000000', SIGHTLINE_EVAL_INTERVAL_MS: '0' } });
  try {
    const accounts = await Promise.all(Array.from({ length: TENANTS }, () => newAccount(svc, { tier: 'custom' })));
    const t0 = performance.now();
    for (const acct of accounts) await seedTenant(svc, acct);
    console.log(`${TENANTS * PER_TENANT} detectors over ${TENANTS} tenants created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const idle: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = performance.now();
      await must(admin(svc, 'POST', '/admin/v1/detectors/evaluate', {}), 'evaluate');
      idle.push(performance.now() - s);
    }
    console.log(`evaluation pass, idle: ${idle.map((ms) => `${Math.round(ms)} ms`).join(', ')}`);

    const loader = accounts[0];
    if (!loader) return;
    await admin(svc, 'PATCH', `/admin/v1/accounts/${loader.accountId}`, { limits: { ingest_rate: 100_000_000, daily_included_bytes: 1e15 } });
    const bodies = ndjsonBodies(12, 500_000, 2_000_000);
    const load = { url: `${svc.ingest}/api/v1/ingest`, headers: { 'Content-Type': 'application/x-ndjson', 'X-API-Key': loader.key }, bodies, connections: 8, seconds: SECONDS };
    await runLoad({ ...load, seconds: 3 }); // warm-up: the first seconds of a new service are not its rate
    const alone = await runLoad(load);
    const flag = { running: true };
    const during = passes(svc, flag);
    const withEval = await runLoad(load);
    flag.running = false;
    const passMs = await during;
    const rate = (r: { entries: number; seconds: number }) => r.entries / r.seconds;
    console.log(`ingest alone:            ${Math.round(rate(alone)).toLocaleString('en')} entries/s`);
    console.log(`ingest during passes:    ${Math.round(rate(withEval)).toLocaleString('en')} entries/s (${(100 * rate(withEval) / rate(alone)).toFixed(0)} % of alone)`);
    console.log(`evaluation pass during ingest: ${passMs.length} passes, p50 ${Math.round(percentile(passMs, 50))} ms, max ${Math.round(Math.max(...passMs))} ms (interval 60,000 ms)`);
  } finally {
    await svc.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
