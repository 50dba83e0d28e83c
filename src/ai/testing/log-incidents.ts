// Synthetic log incidents with a known cause (issue 10, item 7): realistic service logs — several services, each on
// a few pods spread over hosts, a version per pod, levels, templated messages carrying unique ids and numbers,
// customers drawn with a heavy head — over a baseline window and an incident window, with one cause injected into
// the incident window. The known-answer tests of `ai/rca` and its bench write these into a real store and check that
// the injected cause is what the analysis names first. Deterministic: the same spec gives the same entries.
import type { LogEntry } from '../../model/log-entry.js';
import { mulberry32 } from '../../testing/prng.js';

export type IncidentKind =
  /** Two of checkout's three pods are replaced by pods on a new version that fails most payments. */
  | 'bad_version'
  /** One existing customer floods every service with requests that fail with the usual client errors. */
  | 'noisy_customer'
  /** An error message never seen before appears on every service alike (a shared dependency breaks). */
  | 'new_error_template'
  /** One service's error rate jumps, with its usual error messages. */
  | 'service_error_jump'
  /** Nothing happens: the incident window is more of the baseline. */
  | 'none';

export interface IncidentSpec {
  kind: IncidentKind;
  seed: number;
  /** Start of the incident window, unix ms; the baseline is the same length just before it. */
  incidentStartMs: number;
  windowMs: number;
  /** Entries generated per window before the incident adds its own (the incident window gets more for some kinds). */
  eventsPerWindow: number;
}

/** What the generator injected: the field value, service or message template an analysis should name first. */
export interface KnownCause {
  kind: IncidentKind;
  field?: string;
  value?: string;
  service?: string;
  /** A fixed part of the injected message that masking leaves as it is (for `new_error_template`). */
  messageFragment?: string;
}

export const SERVICES = ['checkout', 'cart', 'payments', 'inventory', 'search', 'auth'] as const;
const REGIONS = ['eu-west-1', 'us-east-1', 'ap-south-1'];
const CUSTOMERS = 400;
const NOISY_CUSTOMER = 'c-0042';
const BAD_VERSION = '2.4.1';
const JUMP_SERVICE = 'inventory';
const NEW_TEMPLATE = 'TLS handshake to vault.internal:8200 failed: certificate has expired';

/** The seeded generator of this data (testing/prng.ts). */
export const prng = mulberry32;

interface Pod {
  service: string;
  name: string;
  host: string;
  version: string;
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
/** `n` characters of `alphabet`, one draw each. A plain loop: Array.from over `{ length }` made ids the bulk of the
 * time to generate ten million entries (bench/search-bench.ts). */
function draw(r: Rand, n: number, alphabet: string): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet.charAt(Math.floor(r() * alphabet.length));
  return s;
}
const hex = (r: Rand, n: number): string => draw(r, n, '0123456789abcdef');
const alnum = (r: Rand, n: number): string => draw(r, n, 'bcdfghjklmnpqrstvwxz2456789');
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
/** Customers with a heavy head (a few big accounts), as real traffic has: index ~ 400^u. */
const customer = (r: Rand): string => `c-${String(Math.min(CUSTOMERS, Math.floor(Math.pow(CUSTOMERS, r())))).padStart(4, '0')}`;
const uuid = (r: Rand): string => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;

function podsOf(r: Rand): Pod[] {
  const pods: Pod[] = [];
  SERVICES.forEach((service, i) => {
    const version = `${1 + (i % 3)}.${int(r, 0, 9)}.${int(r, 0, 9)}`;
    const rs = alnum(r, 9);
    for (let k = 0; k < 3; k++) pods.push({ service, name: `${service}-${rs}-${alnum(r, 5)}`, host: `node-${int(r, 1, 8)}`, version });
  });
  return pods;
}

/** The usual messages of each level; every one carries ids or numbers, as real lines do. */
function infoMessage(r: Rand, p: Pod, cust: string): string {
  switch (int(r, 0, 4)) {
    case 0: return `GET /api/${p.service}/items/${int(r, 1, 99999)} 200 in ${int(r, 2, 250)}ms`;
    case 1: return `request ${uuid(r)} completed for customer ${cust} in ${int(r, 3, 400)}ms`;
    case 2: return `cache hit ratio ${int(r, 60, 99)}% over ${int(r, 100, 5000)} lookups`;
    case 3: return `published event order.updated id=${int(r, 1, 9999999)} partition=${int(r, 0, 11)}`;
    default: return `POST /api/${p.service}/v2/sessions 201 in ${int(r, 5, 120)}ms bytes=${int(r, 200, 9000)}`;
  }
}

function warnMessage(r: Rand): string {
  return r() < 0.5
    ? `slow query on table orders took ${int(r, 500, 3000)}ms rows=${int(r, 1, 5000)}`
    : `retrying call to 10.0.${int(r, 0, 255)}.${int(r, 1, 254)}:${int(r, 8000, 9000)} attempt ${int(r, 1, 3)}`;
}

function errorMessage(r: Rand, p: Pod, cust: string): string {
  switch (int(r, 0, 4)) {
    case 0: return `upstream ${pick(r, SERVICES)} returned 503 after ${int(r, 100, 5000)}ms`;
    case 1: return `connection reset by peer 10.0.${int(r, 0, 255)}.${int(r, 1, 254)}:5432`;
    case 2: return `request rejected: invalid payload for customer ${cust} (field ${pick(r, ['sku', 'qty', 'address'])})`;
    case 3: return `order ${int(r, 1, 9999999)} failed validation: ${pick(r, ['price mismatch', 'stock unavailable', 'expired cart'])}`;
    default: return `handler ${p.service}.${pick(r, ['Create', 'Update', 'Get'])} timed out after ${int(r, 1000, 30000)}ms`;
  }
}

function entry(r: Rand, timeMs: number, p: Pod, severity: string, msg: string, cust: string): LogEntry {
  const timeNs = BigInt(timeMs) * 1_000_000n + BigInt(int(r, 0, 999_999));
  return {
    timeNs, observedNs: timeNs + 1_000_000n, service: p.service, severity, msg, traceId: hex(r, 32), spanId: hex(r, 16),
    stream: `{service="${p.service}"}`,
    fields: {
      host: p.host, pod: p.name, version: p.version, region: REGIONS[p.name.charCodeAt(p.name.length - 1) % REGIONS.length] ?? '',
      customer_id: cust, request_id: uuid(r), duration_ms: int(r, 1, 900),
    },
  };
}

/** One ordinary entry from a random pod of `pods`, with the service's base error rate (×`errorBoost` when given). */
function ordinary(r: Rand, timeMs: number, pods: readonly Pod[], errorRate = 0.03): LogEntry {
  const p = pick(r, pods);
  const cust = customer(r);
  const u = r();
  if (u < errorRate) return entry(r, timeMs, p, 'error', errorMessage(r, p, cust), cust);
  if (u < errorRate + 0.07) return entry(r, timeMs, p, 'warn', warnMessage(r), cust);
  if (u < errorRate + 0.12) return entry(r, timeMs, p, 'debug', `cache miss for key ${cust}:${hex(r, 10)}`, cust);
  return entry(r, timeMs, p, 'info', infoMessage(r, p, cust), cust);
}

/** The cause named by `spec.kind`, as a test expects to find it. */
export function knownCause(kind: IncidentKind): KnownCause {
  switch (kind) {
    case 'bad_version': return { kind, field: 'version', value: BAD_VERSION, service: 'checkout' };
    case 'noisy_customer': return { kind, field: 'customer_id', value: NOISY_CUSTOMER };
    case 'new_error_template': return { kind, messageFragment: 'failed: certificate has expired' };
    case 'service_error_jump': return { kind, field: 'service', value: JUMP_SERVICE, service: JUMP_SERVICE };
    case 'none': return { kind };
  }
}

/**
 * The baseline then the incident window, oldest first, in chunks of at most `chunk` entries (so a million entries
 * never sit in memory at once). The incident adds its own entries on top of the ordinary traffic.
 */
export function* incidentLogs(spec: IncidentSpec, chunk = 50_000): Generator<LogEntry[]> {
  const r = prng(spec.seed);
  const pods = podsOf(r);
  // bad_version: a rollout replaced two of checkout's pods with pods on the new version at the incident's start.
  const rolled = pods.map((p, i) => (p.service === 'checkout' && i % 3 !== 0
    ? { ...p, name: `checkout-${alnum(r, 9)}-${alnum(r, 5)}`, version: BAD_VERSION } : p));
  const start = spec.incidentStartMs - spec.windowMs;
  const n = spec.eventsPerWindow;
  let out: LogEntry[] = [];
  for (let i = 0; i < 2 * n; i++) {
    const timeMs = start + Math.floor((i * spec.windowMs) / n);
    const inIncident = i >= n;
    out.push(...eventsAt(r, timeMs, inIncident ? spec.kind : 'none', pods, rolled));
    if (out.length >= chunk) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}

/** The entries of one tick: one ordinary entry, shaped or joined by the incident when one is running. */
function eventsAt(r: Rand, timeMs: number, kind: IncidentKind, pods: readonly Pod[], rolled: readonly Pod[]): LogEntry[] {
  switch (kind) {
    case 'none':
      return [ordinary(r, timeMs, pods)];
    case 'bad_version': {
      const e = ordinary(r, timeMs, rolled);
      const p = rolled.find((x) => x.name === e.fields.pod);
      // Most payments on the new pods fail with a nil dereference; the rest of their lines are ordinary.
      if (p?.version === BAD_VERSION && r() < 0.35) {
        const cust = typeof e.fields.customer_id === 'string' ? e.fields.customer_id : '';
        const msg = r() < 0.7 ? `payment authorization failed: nil pointer dereference in handler ${hex(r, 12)}` : errorMessage(r, p, cust);
        return [entry(r, timeMs, p, 'error', msg, cust)];
      }
      return [e];
    }
    case 'noisy_customer': {
      const out = [ordinary(r, timeMs, pods)];
      // The flood: about as many extra lines as the ordinary traffic's errors, twice over, all failing.
      if (r() < 0.06) {
        const p = pick(r, pods);
        out.push(entry(r, timeMs, p, 'error', errorMessage(r, p, NOISY_CUSTOMER), NOISY_CUSTOMER));
      }
      return out;
    }
    case 'new_error_template': {
      const out = [ordinary(r, timeMs, pods)];
      if (r() < 0.05) {
        const p = pick(r, pods);
        const cust = customer(r);
        out.push(entry(r, timeMs, p, 'error', `${NEW_TEMPLATE} (serial ${hex(r, 16)}, ${int(r, 1, 90)} days ago)`, cust));
      }
      return out;
    }
    case 'service_error_jump': {
      const p = pick(r, pods);
      const rate = p.service === JUMP_SERVICE ? 0.3 : 0.03;
      return [ordinary(r, timeMs, pods.filter((x) => x.service === p.service), rate)];
    }
  }
}
