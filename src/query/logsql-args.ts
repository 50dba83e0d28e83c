// The arguments every VictoriaLogs query endpoint takes (VictoriaLogs app/vlselect/logsql/logsql.go,
// parseCommonArgs; https://docs.victoriametrics.com/victorialogs/querying/#http-api): `query`, `start`, `end`, the
// query's own timestamp `time`, and `ignore_pipes`. Used by the stats, streams and facets routes.
import type { RequestContext } from '../front-doors/context.js';
import type { LogsqlQuery } from '../model/logsql-ast.js';
import type { TimeRange } from '../stores/telemetry/telemetry-store.js';
import { compileLogsqlAt } from './logsql-request.js';
import { parseDuration } from './logsql/time-value.js';
import { msToNs } from '../model/time.js';
import { errors } from '../errors.js';
import { requestParams, timeParam } from './request-params.js';

export interface LogsqlArgs {
  params: URLSearchParams;
  query: LogsqlQuery;
  range: TimeRange;
  /** The instant the query is evaluated at, unix ns: `time`, else `end`, else now. */
  atNs: bigint;
}

export async function logsqlArgs(ctx: RequestContext, nowMs: number): Promise<LogsqlArgs> {
  const params = await requestParams(ctx);
  const range: TimeRange = {};
  const start = timeParam(params, 'start', nowMs);
  const end = timeParam(params, 'end', nowMs);
  if (start !== undefined) range.startNs = start;
  if (end !== undefined) range.endNs = end;
  const atNs = timeParam(params, 'time', nowMs) ?? end ?? msToNs(nowMs);
  // One ns before `time`, as VictoriaLogs does, so that `_time:1d` at midnight leaves out the next day's first
  // entries (those stamped exactly at midnight).
  const query = compileLogsqlAt(params.get('query') ?? '*', atNs - 1n);
  if (boolParam(params, 'ignore_pipes')) query.pipes = [];
  return { params, query, range, atNs };
}

/** VictoriaLogs' boolean arguments: `1`, `true`, `yes`, `on` (any case) or an empty value mean true. */
export function boolParam(params: URLSearchParams, name: string): boolean {
  const v = params.get(name);
  if (v === null) return false;
  const t = v.trim().toLowerCase();
  if (t === '' || t === '1' || t === 'true' || t === 'yes' || t === 'on') return true;
  if (t === '0' || t === 'false' || t === 'no' || t === 'off') return false;
  throw errors.badRequest(`${name} must be 1 or 0 (true or false); got "${v}"`);
}

const MAX_STEP_NS = 36_500n * 86_400_000_000_000n;

/**
 * A duration argument (`step`, `offset`): `5m`, `1h30m`, `1.5s`, Go's `1m0s` as Grafana writes it, or a bare
 * number of seconds as Prometheus clients send it; signed when `signed`. Unix ns; `dflt` when absent.
 */
export function durationParam(params: URLSearchParams, name: string, dflt: bigint, signed = false): bigint {
  const v = params.get(name);
  if (v === null || v.trim() === '') return dflt;
  const text = v.trim();
  const neg = signed && text.startsWith('-');
  const body = neg ? text.slice(1) : text;
  const ns = /^\d+(\.\d+)?$/.test(body) ? BigInt(Math.round(Number(body) * 1e9)) : parseDuration(body);
  if (ns === undefined) throw errors.badRequest(`${name} must be a duration like 5m, 1h or 30s; got "${text}"`);
  // A bucket wider than a century answers nothing new and would overflow DuckDB's 64-bit arithmetic.
  if (ns > MAX_STEP_NS) throw errors.badRequest(`${name} must be at most 36500d`);
  return neg ? -ns : ns;
}
