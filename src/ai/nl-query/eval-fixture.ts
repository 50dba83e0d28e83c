// The fixed schema the evaluation set is judged on (issue 10 item 2): one tenant's logs, spans and metric samples
// over the week before a fixed now, written through a real store by eval.test.ts. The values are chosen to test
// the linking: "api" is a substring of "api-gateway" and "web-1" of "web-10" (so those need exact filters),
// `cluster` lives only in the stream labels, and the cpu metric that carries services differs from the one that
// carries hosts.
import type { TenantBatch } from '../../model/batch.js';
import type { LogEntry } from '../../model/log-entry.js';
import type { MetricSample } from '../../model/metric.js';
import type { Span } from '../../model/span.js';
import { msToNs } from '../../model/time.js';

/** Saturday 2026-11-21 12:00 UTC: "this week" began Monday 2026-11-16, "yesterday" is 2026-11-20. */
export const EVAL_NOW_MS = Date.UTC(2026, 10, 21, 12, 0, 0);
export const EVAL_TENANT = 'eval-tenant';

export const SERVICES = ['checkout', 'cart', 'payments', 'api', 'api-gateway', 'frontend'] as const;
const HOSTS = ['web-1', 'web-2', 'web-3', 'web-10'];
const CUSTOMERS = ['42', '1001', '7', '77'];
const REGIONS = ['us-east-1', 'eu-west-1'];
const VERSIONS = ['v1.4.2', 'v1.5.0'];
const LEVELS = ['info', 'info', 'info', 'warn', 'error', 'debug', 'info', 'fatal'];
const MESSAGES = ['payment declined for card', 'connection refused by db', 'request timeout after 30s', 'user logged in', 'cache miss for key'];
const CLUSTERS = ['eu1', 'us2'];
const HOUR = 3_600_000;

/** A deterministic pick: the fixture is the same on every run. */
const pick = <T>(xs: readonly T[], i: number): T => xs[i % xs.length] as T;

function logs(): LogEntry[] {
  const out: LogEntry[] = [];
  // 400 entries, one every ~25 minutes back over the week, so every day and the last hour have some.
  for (let i = 0; i < 400; i++) {
    const t = EVAL_NOW_MS - 60_000 - i * 25 * 60_000;
    const service = pick(SERVICES, i);
    const cluster = pick(CLUSTERS, Math.floor(i / 6));
    out.push({
      timeNs: msToNs(t), observedNs: msToNs(t + 5), service, severity: pick(LEVELS, Math.floor(i / 3)),
      msg: pick(MESSAGES, i * 7 + 3), traceId: '', spanId: '', stream: `{cluster="${cluster}",service="${service}"}`,
      fields: {
        host: pick(HOSTS, Math.floor(i / 2)), customer_id: pick(CUSTOMERS, Math.floor(i / 5)), region: pick(REGIONS, i * 3 + 1),
        version: pick(VERSIONS, Math.floor(i / 11)), status: pick([200, 200, 404, 500, 503], i), method: pick(['GET', 'POST'], i),
      },
    });
  }
  return out;
}

function spans(): Span[] {
  const names: Record<string, string> = {
    checkout: 'POST /checkout', cart: 'GET /cart', payments: 'charge card', api: 'GET /api/items',
    'api-gateway': 'proxy', frontend: 'render page',
  };
  const out: Span[] = [];
  for (let i = 0; i < 120; i++) {
    const service = pick(SERVICES, i);
    const t = EVAL_NOW_MS - 30_000 - i * 80 * 60_000;
    out.push({
      traceId: i.toString(16).padStart(32, '0'), spanId: (i + 1).toString(16).padStart(16, '0'), parentSpanId: '',
      name: names[service] ?? 'op', kind: 2, startNs: msToNs(t), durationNs: msToNs(20 + (i % 10) * 100),
      statusCode: i % 7 === 0 ? 2 : 0, statusMessage: '', service, attributes: {}, resource: {}, events: [], links: [],
    });
  }
  return out;
}

function samples(): MetricSample[] {
  const out: MetricSample[] = [];
  const svc = ['checkout', 'cart', 'payments', 'api', 'frontend'];
  // A sample every hour over the last two days, so every series has a sample in the week's window.
  for (let h = 0; h < 48; h++) {
    const timeMs = EVAL_NOW_MS - h * HOUR - 1000;
    const v = 1000 - h;
    for (const [k, service] of svc.entries()) {
      const host = pick(HOSTS, k);
      for (const status of ['200', '500']) {
        out.push({ name: 'http_requests_total', labels: { service, method: 'GET', status, host }, timeMs, value: v * (status === '200' ? 10 : 1) });
      }
      for (const le of ['0.1', '0.5', '1', '+Inf']) out.push({ name: 'http_request_duration_seconds_bucket', labels: { service, le }, timeMs, value: v * Number(le === '+Inf' ? 4 : le) });
      out.push({ name: 'http_request_duration_seconds_sum', labels: { service }, timeMs, value: v * 0.3 });
      out.push({ name: 'http_request_duration_seconds_count', labels: { service }, timeMs, value: v * 4 });
      out.push({ name: 'process_cpu_seconds_total', labels: { service, host }, timeMs, value: v * 2 });
      out.push({ name: 'process_resident_memory_bytes', labels: { service, host }, timeMs, value: 2e8 + k * 1e7 });
      out.push({ name: 'go_goroutines', labels: { service }, timeMs, value: 50 + k });
    }
    for (const host of HOSTS) {
      for (const mode of ['idle', 'user', 'system']) out.push({ name: 'node_cpu_seconds_total', labels: { host, cpu: '0', mode }, timeMs, value: v * 3 });
      out.push({ name: 'node_memory_MemAvailable_bytes', labels: { host }, timeMs, value: 4e9 });
    }
  }
  return out;
}

/** The fixture as the batches a store's write() takes. */
export function fixtureBatches(tenantId: string = EVAL_TENANT): TenantBatch[] {
  return [
    { tenantId, format: 'native', batch: { logs: logs(), spans: [] } },
    { tenantId, format: 'otlp', batch: { logs: [], spans: spans() } },
    { tenantId, format: 'prometheus', batch: { logs: [], spans: [], samples: samples(), metadata: [] } },
  ];
}
