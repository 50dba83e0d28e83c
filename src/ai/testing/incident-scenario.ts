// The shared story of the deep-RCA known-answer incidents (issue 10 item 7): a shop whose requests go frontend → api
// → checkout → inventory / payments, each reaching a `db` service (a connection-pooling proxy), and what each
// injected incident does to each service over time. trace-incidents.ts draws traces and logs from it and
// metric-incidents.ts draws metric series, so the three signals tell one consistent story with a known cause.
import { mulberry32 } from '../../testing/prng.js';

export type DeepIncidentKind =
  /** payments gets about ten times slower from the onset; its callers slow down only by waiting for it. */
  | 'slow_downstream'
  /** inventory starts failing half its requests; the failures pass up through checkout, api and frontend. */
  | 'error_origin'
  /** db's connection pool saturates at the onset; db requests queue and slow down six minutes later. */
  | 'metric_first'
  /** Nothing happens: the window is more of the baseline. */
  | 'none';

export interface DeepIncidentSpec {
  kind: DeepIncidentKind;
  seed: number;
  /** Start of the analysed window, unix ms; the baseline is the same length just before it. */
  windowStartMs: number;
  windowMs: number;
  /** Requests (traces) per window. */
  tracesPerWindow: number;
}

export interface DeepKnownCause {
  kind: DeepIncidentKind;
  /** The service an analysis should rank first (none for `none`). */
  service?: string;
  /** The metric whose series moves first (`metric_first`). */
  firstMetric?: string;
  /** Unix ms the incident begins. */
  onsetMs?: number;
}

/** One operation of the call tree: its own work in ms at baseline, and the calls it makes in order. */
export interface Call {
  service: string;
  name: string;
  selfMs: number;
  children: Call[];
}

const db = (name: string, selfMs: number): Call => ({ service: 'db', name, selfMs, children: [] });

/** The two routes of the shop and the share of requests each takes. */
export const ROUTES: { share: number; root: Call }[] = [
  {
    share: 0.45,
    root: { service: 'frontend', name: 'GET /checkout', selfMs: 8, children: [
      { service: 'api', name: 'POST /api/orders', selfMs: 5, children: [
        { service: 'checkout', name: 'PlaceOrder', selfMs: 12, children: [
          { service: 'inventory', name: 'ReserveStock', selfMs: 9, children: [db('UPDATE stock', 4)] },
          { service: 'payments', name: 'Charge', selfMs: 30, children: [db('INSERT payment', 5)] },
        ] },
      ] },
    ] },
  },
  {
    share: 0.55,
    root: { service: 'frontend', name: 'GET /products', selfMs: 10, children: [
      { service: 'api', name: 'GET /api/products', selfMs: 4, children: [
        { service: 'inventory', name: 'ListProducts', selfMs: 7, children: [db('SELECT products', 6)] },
      ] },
    ] },
  },
];

export const SHOP_SERVICES = ['frontend', 'api', 'checkout', 'inventory', 'payments', 'db'] as const;
/** A service's own failures per request at all times (bugs, timeouts): the noise a quiet window has too. */
export const BACKGROUND_ERROR_RATE = 0.002;
const ONSET_AFTER_MS = 3 * 60_000;

export function onsetMs(spec: DeepIncidentSpec): number {
  return spec.windowStartMs + ONSET_AFTER_MS;
}

export function deepKnownCause(spec: DeepIncidentSpec): DeepKnownCause {
  switch (spec.kind) {
    case 'slow_downstream': return { kind: spec.kind, service: 'payments', onsetMs: onsetMs(spec) };
    case 'error_origin': return { kind: spec.kind, service: 'inventory', onsetMs: onsetMs(spec) };
    case 'metric_first': return { kind: spec.kind, service: 'db', firstMetric: 'db_pool_connections_in_use_ratio', onsetMs: onsetMs(spec) };
    case 'none': return { kind: spec.kind };
  }
}

/** How the incident changes a service at time t: a factor on its own work, and its own failure rate. */
export function effect(spec: DeepIncidentSpec, service: string, tMs: number): { selfFactor: number; errorRate: number } {
  const since = tMs - onsetMs(spec);
  const out = { selfFactor: 1, errorRate: BACKGROUND_ERROR_RATE };
  if (since < 0) return out;
  if (spec.kind === 'slow_downstream' && service === 'payments') out.selfFactor = 10;
  if (spec.kind === 'error_origin' && service === 'inventory') out.errorRate = 0.5;
  // Requests queue for a connection once the pool has been full for a while.
  if (spec.kind === 'metric_first' && service === 'db' && since >= 6 * 60_000) out.selfFactor = 8;
  return out;
}

/** Share of db's pool in use at time t: about a third, filling up over two minutes from the onset. */
export function poolInUse(spec: DeepIncidentSpec, tMs: number): number {
  const since = tMs - onsetMs(spec);
  if (spec.kind !== 'metric_first' || since < 0) return 0.35;
  return Math.min(0.98, 0.35 + (0.63 * since) / 120_000);
}

/** The seeded generator of this data (testing/prng.ts). */
export const seeded = mulberry32;

/** A standard normal draw (Box–Muller). */
export function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** A Poisson draw: Knuth's product method for small means, the normal approximation above. */
export function poisson(rand: () => number, lambda: number): number {
  if (lambda <= 0) return 0;
  if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * normal(rand)));
  const limit = Math.exp(-lambda);
  let k = 0;
  for (let p = rand(); p > limit; p *= rand()) k++;
  return k;
}
