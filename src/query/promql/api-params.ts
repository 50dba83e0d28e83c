// Request parameters of the Prometheus HTTP API as web/api/v1/api.go reads them: times are unix seconds
// (float) or RFC 3339, durations are float seconds or `5m`-style, `match[]` is a repeated series selector.
// Every refusal is a `bad_data` error whose message names the parameter, as Prometheus's invalidParamError.
import { parseDurationMs, parseGoFloat } from './literals.js';
import { parsePromql, PromqlError } from './parse.js';
import type { LabelMatcher } from '../../model/series-source.js';

/** Prometheus's MinTime / MaxTime stand for "no bound"; kept inside the safe-integer range here. */
export const MIN_TIME_MS = -Number.MAX_SAFE_INTEGER;
export const MAX_TIME_MS = Number.MAX_SAFE_INTEGER;
const MIN_TIME_FORMATTED = '-292273086-05-16T16:47:06Z';
const MAX_TIME_FORMATTED = '292277025-08-18T07:12:54.999999999Z';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function invalidParam(name: string, message: string): PromqlError {
  return new PromqlError(`invalid parameter ${JSON.stringify(name)}: ${message}`, 'bad_data');
}

/** math.Round of Go: halves away from zero. */
function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** parseTime: float seconds rounded to the millisecond, else RFC 3339 (to the millisecond). */
export function parseTimeMs(text: string): number | undefined {
  const f = parseGoFloat(text);
  if (f !== undefined) {
    if (!Number.isFinite(f)) return undefined;
    const whole = Math.trunc(f);
    return whole * 1000 + goRound((f - whole) * 1000);
  }
  if (text === MIN_TIME_FORMATTED) return MIN_TIME_MS;
  if (text === MAX_TIME_FORMATTED) return MAX_TIME_MS;
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(base) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const ms = frac === '' ? 0 : Math.trunc(Number(`0${frac}`) * 1000);
  let offset = 0;
  if (zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offset = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return base + ms - offset;
}

/** A time parameter, or `fallback` when absent (Prometheus parseTimeParam). */
export function timeParam(params: URLSearchParams, name: string, fallback: number): number {
  const text = params.get(name);
  if (text === null || text === '') return fallback;
  const ms = parseTimeMs(text);
  if (ms === undefined) throw invalidParam(name, `cannot parse ${JSON.stringify(text)} to a valid timestamp`);
  return ms;
}

/** A required time parameter (query_range start / end). */
export function requiredTimeParam(params: URLSearchParams, name: string): number {
  const text = params.get(name) ?? '';
  const ms = parseTimeMs(text);
  if (ms === undefined) throw invalidParam(name, `cannot parse ${JSON.stringify(text)} to a valid timestamp`);
  return ms;
}

/** parseDuration: float seconds, else a Prometheus duration; in milliseconds (may be fractional). */
export function durationParam(params: URLSearchParams, name: string): number | undefined {
  const text = params.get(name);
  if (text === null || text === '') return undefined;
  const f = parseGoFloat(text);
  if (f !== undefined) {
    if (!Number.isFinite(f) || Math.abs(f * 1e9) > 9.223372036854776e18) {
      throw invalidParam(name, `cannot parse ${JSON.stringify(text)} to a valid duration. It overflows int64`);
    }
    return f * 1000;
  }
  const d = parseDurationMs(text);
  if (d === undefined) throw invalidParam(name, `cannot parse ${JSON.stringify(text)} to a valid duration`);
  return d;
}

/** One `match[]` value: a bare series selector (ParseMetricSelector), no offset, `@` or range. */
export function parseSeriesSelector(text: string): LabelMatcher[] {
  let e;
  try {
    e = parsePromql(text);
  } catch (err) {
    throw invalidParam('match[]', err instanceof Error ? err.message : String(err));
  }
  if (e.kind !== 'vector' || e.offsetMs !== 0 || e.at) {
    throw invalidParam('match[]', `1:1: parse error: expected type vector selector, got ${e.kind === 'matrix' ? 'range vector' : 'expression'}`);
  }
  return e.matchers;
}

export function matchSets(params: URLSearchParams): LabelMatcher[][] {
  return params.getAll('match[]').map(parseSeriesSelector);
}
