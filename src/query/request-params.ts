// Query parameters of the read APIs: from the query string, or a form body on POST (VictoriaLogs
// and Prometheus clients both POST forms).
import type { RequestContext } from '../front-doors/context.js';
import { readBody } from '../ingest/body.js';
import { errors } from '../errors.js';
import { msToNs } from '../model/time.js';

const MAX_FORM_BYTES = 1024 * 1024;

export async function requestParams(ctx: RequestContext): Promise<URLSearchParams> {
  if (ctx.method !== 'POST') return ctx.query;
  const type = ctx.req.headers['content-type'] ?? '';
  const merged = new URLSearchParams(ctx.query);
  if (type.includes('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams((await readBody(ctx.req, MAX_FORM_BYTES)).toString('utf8'));
    for (const [k, v] of form) merged.append(k, v);
  }
  return merged;
}

/**
 * A time parameter: RFC 3339, unix seconds (with fraction), or a duration back from now (`5m`, `1h`).
 * Returns unix ns, or undefined when absent.
 */
export function timeParam(params: URLSearchParams, name: string, nowMs: number): bigint | undefined {
  const v = params.get(name);
  if (v === null || v.trim() === '') return undefined;
  const text = v.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    // Digit count decides the unit, as VictoriaLogs does: seconds, ms, µs or ns.
    if (Math.abs(n) < 1e11) return msToNs(n * 1000);
    if (Math.abs(n) < 1e14) return msToNs(n);
    if (Math.abs(n) < 1e17) return BigInt(Math.trunc(n)) * 1000n;
    return BigInt(text.split('.')[0] ?? '0');
  }
  const dur = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(text);
  if (dur) {
    const unit = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 }[dur[2] as 'ms' | 's' | 'm' | 'h' | 'd' | 'w'];
    return msToNs(nowMs - Number(dur[1]) * unit);
  }
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw errors.badRequest(`${name} must be RFC 3339, unix seconds or a duration like 5m; got "${text}"`);
  return msToNs(ms);
}

export function intParam(params: URLSearchParams, name: string, dflt: number, max: number): number {
  const v = params.get(name);
  if (v === null || v === '') return dflt;
  if (!/^\d+$/.test(v)) throw errors.badRequest(`${name} must be a whole number`);
  return Math.min(Number(v), max);
}

/** JSON with bigints (DuckDB counts, ns times) as numbers where exact, else strings. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'bigint' ? (v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()) : v);
}
