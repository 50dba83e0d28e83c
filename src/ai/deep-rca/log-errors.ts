// The logs half of deep RCA (DESIGN §9 `ai/deep-rca`): error logs per service and time bucket in the window and
// the baseline — how many, and when a service's errors rose above what its baseline explains (the timeline's
// "first error" of a service: isolated errors of ordinary noise do not count, a sustained rise does). One LogsQL
// stats query per window, the text a person can paste into Explore to see the same counts.
import { parseLogsql } from '../../query/logsql/parser.js';
import type { AiReadContext } from '../model.js';
import { firstSustainedShift } from './change-point.js';
import type { Windows } from './model.js';

/**
 * Error and worse, however a format spells it: `level` words match case-insensitively as substrings (DESIGN §4),
 * so `err` covers ERROR, error and err, and `crit` covers critical.
 */
export const ERROR_FILTER = 'level:(err OR fatal OR crit OR emerg)';
/** Buckets per window: minutes for windows up to an hour. */
const BUCKETS = 60;
const MAX_ROWS = 100_000;

export interface ServiceLogErrors {
  window: number;
  baseline: number;
  /** Unix ms of the bucket where the service's error logs began a sustained rise, if they did. */
  riseMs?: number;
}

export interface LogFindings {
  services: Map<string, ServiceLogErrors>;
  /** The LogsQL run (over each window). */
  query: string;
}

/** LogsQL restricting to a set of services (req.service and its downstream). */
export function serviceScopeFilter(scope: ReadonlySet<string> | undefined): string {
  if (scope === undefined) return '';
  return `service:in(${[...scope].sort().map((s) => JSON.stringify(s)).join(', ')}) `;
}

export async function analyseLogs(ctx: AiReadContext, w: Windows, scope?: ReadonlySet<string>): Promise<LogFindings> {
  const stepS = Math.max(60, Math.ceil((w.endMs - w.startMs) / 1000 / BUCKETS));
  const stepMs = stepS * 1000;
  const query = `${serviceScopeFilter(scope)}${ERROR_FILTER} | stats by (service, _time:${stepS}s) count() errors`;
  const run = async (startMs: number, endMs: number, purpose: string) => {
    ctx.evidence.add('logs', query, startMs, endMs, purpose);
    const rows = await ctx.telemetry.searchLogs(ctx.tenantId, parseLogsql(query, BigInt(ctx.nowMs) * 1_000_000n),
      { startNs: BigInt(Math.trunc(startMs)) * 1_000_000n, endNs: BigInt(Math.trunc(endMs)) * 1_000_000n }, MAX_ROWS);
    // Per service, counts per bucket from the epoch-aligned bucket holding startMs, zeros where no row came back.
    const from = alignDown(startMs, stepMs);
    const n = Math.ceil((endMs - from) / stepMs);
    const out = new Map<string, number[]>();
    for (const r of rows) {
      const service = text(r.service);
      const at = Math.floor((Date.parse(text(r._time)) - from) / stepMs);
      if (service === '' || !(at >= 0 && at < n)) continue;
      let counts = out.get(service);
      if (!counts) out.set(service, (counts = new Array<number>(n).fill(0)));
      counts[at] = (counts[at] ?? 0) + Number(text(r.errors));
    }
    return out;
  };
  const [win, base] = await Promise.all([
    run(w.startMs, w.endMs, 'error logs per service and minute in the window: how many, and when they rose'),
    run(w.baselineStartMs, w.baselineEndMs, 'error logs per service and minute in the baseline'),
  ]);
  const services = new Map<string, ServiceLogErrors>();
  const sum = (xs: number[] | undefined): number => (xs ?? []).reduce((a, b) => a + b, 0);
  for (const service of new Set([...win.keys(), ...base.keys()])) {
    const wc = win.get(service) ?? [];
    const bc = base.get(service) ?? new Array<number>(Math.ceil((w.baselineEndMs - alignDown(w.baselineStartMs, stepMs)) / stepMs)).fill(0);
    const e: ServiceLogErrors = { window: sum(wc), baseline: sum(bc) };
    // Counts of rare events: σ at least √(mean + 1), the Poisson noise, as for counters (metric-changes.ts).
    const shift = firstSustainedShift(bc, wc, 0.05, Math.sqrt(sum(bc) / Math.max(1, bc.length) + 1));
    if (shift && shift.direction > 0) e.riseMs = Math.max(w.startMs, alignDown(w.startMs, stepMs) + shift.index * stepMs);
    services.set(service, e);
  }
  return { services, query };
}

/** LogsQL's `_time:<step>` buckets start at multiples of the step since the epoch. */
const alignDown = (ms: number, stepMs: number): number => ms - (((ms % stepMs) + stepMs) % stepMs);

/** Stats rows are strings (VictoriaLogs' output); anything else reads as empty. */
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** The LogsQL of one service's error logs: what the suspect's RCA hypotheses are asked about. */
export function serviceErrorsQuery(service: string): string {
  return `service:=${JSON.stringify(service)} ${ERROR_FILTER}`;
}
