// Synthetic metric series of a deep-RCA known-answer incident (issue 10 item 7), drawn from incident-scenario.ts
// every 15 s over the baseline and the window, as a Prometheus scrape of the shop would give them: per service a
// p99 latency gauge (its own work plus what it waits for), request and error counters, CPU per instance, and db's
// connection-pool usage. Deterministic: the same spec gives the same samples.
import type { MetricSample } from '../../model/metric.js';
import { effect, normal, poisson, poolInUse, ROUTES, seeded, SHOP_SERVICES, type Call, type DeepIncidentSpec } from './incident-scenario.js';

export const SCRAPE_MS = 15_000;
/** p99 over the typical request: the tail of the self-time noise. */
const P99_OVER_TYPICAL = 2.2;

export function incidentMetrics(spec: DeepIncidentSpec): MetricSample[] {
  const rand = seeded(spec.seed ^ 0x5eed);
  const out: MetricSample[] = [];
  const startMs = spec.windowStartMs - spec.windowMs;
  const rps = spec.tracesPerWindow / (spec.windowMs / 1000);
  const counters = new Map<string, number>();
  const bump = (key: string, by: number): number => {
    const v = (counters.get(key) ?? 0) + by;
    counters.set(key, v);
    return v;
  };
  for (let t = startMs; t < spec.windowStartMs + spec.windowMs; t += SCRAPE_MS) {
    for (const service of SHOP_SERVICES) {
      const labels = { service, job: `shop/${service}` };
      const { latencyMs, share, failRate } = serviceAt(spec, service, t);
      out.push({ name: 'http_server_request_duration_p99_seconds', labels, timeMs: t,
        value: (P99_OVER_TYPICAL * latencyMs * (1 + 0.05 * normal(rand))) / 1000 });
      const requests = poisson(rand, rps * share * (SCRAPE_MS / 1000));
      let errors = 0;
      for (let i = 0; i < requests; i++) if (rand() < failRate) errors++;
      out.push({ name: 'http_server_requests_total', labels, timeMs: t, value: bump(`r${service}`, requests) });
      out.push({ name: 'http_server_errors_total', labels, timeMs: t, value: bump(`e${service}`, errors) });
      for (const instance of ['0', '1']) {
        const cpu = Math.max(0, (0.12 + 0.002 * requests) * (SCRAPE_MS / 1000) * (1 + 0.1 * normal(rand)));
        out.push({ name: 'process_cpu_seconds_total', labels: { ...labels, instance: `${service}-${instance}` }, timeMs: t,
          value: bump(`c${service}${instance}`, cpu) });
      }
    }
    out.push({ name: 'db_pool_connections_in_use_ratio', labels: { service: 'db', job: 'shop/db', pool: 'main' }, timeMs: t,
      value: Math.min(1, Math.max(0, poolInUse(spec, t) + 0.02 * normal(rand))) });
  }
  return out;
}

/** A service's typical latency (its work and its callees'), its share of requests, and its failure rate at t. */
function serviceAt(spec: DeepIncidentSpec, service: string, tMs: number): { latencyMs: number; share: number; failRate: number } {
  let latencyMs = 0;
  let share = 0;
  let failRate = 0;
  for (const route of ROUTES) {
    for (const call of callsOf(route.root, service)) {
      latencyMs = Math.max(latencyMs, subtree(spec, call, tMs).latencyMs);
      failRate = Math.max(failRate, subtree(spec, call, tMs).failRate);
      share += route.share;
    }
  }
  return { latencyMs, share, failRate };
}

function subtree(spec: DeepIncidentSpec, call: Call, tMs: number): { latencyMs: number; failRate: number } {
  const fx = effect(spec, call.service, tMs);
  let latencyMs = call.selfMs * fx.selfFactor;
  let ok = 1 - fx.errorRate;
  for (const c of call.children) {
    const sub = subtree(spec, c, tMs);
    latencyMs += sub.latencyMs;
    ok *= 1 - sub.failRate;
  }
  return { latencyMs, failRate: 1 - ok };
}

function callsOf(call: Call, service: string): Call[] {
  return [...(call.service === service ? [call] : []), ...call.children.flatMap((c) => callsOf(c, service))];
}
