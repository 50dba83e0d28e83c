// LogsQL read-back (DESIGN §4): select/logsql/{query,hits,field_names,field_values}, VictoriaLogs-compatible.
import type { Router } from '../front-doors/router.js';
import { sendJson } from '../front-doors/reply.js';
import type { TelemetryStore, TimeRange } from '../stores/telemetry/telemetry-store.js';
import { compileLogsql } from './logsql-request.js';
import { errors } from '../errors.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import { sendNdjsonStream } from './ndjson-stream.js';
import { intParam, requestParams, timeParam, toJson } from './request-params.js';

const BASE = '/api/v1/tenants/:tenant/select/logsql';
/** field_values' cap: a list of distinct values, answered in one JSON body. */
const MAX_VALUES = 100_000;
/**
 * `select/logsql/query` without `limit` (DESIGN §4: "`limit` default 1000"). An explicit `limit` is honoured
 * whatever its size, and `limit=0` returns every matching row, as VictoriaLogs treats 0 (issue 12 item 5): both are
 * streamed with bounded memory, so no ceiling is needed and none drops rows silently.
 */
const DEFAULT_ROWS = 1000;

export function registerLogsRoutes(router: Router, deps: TenantGuardDeps & { telemetry: TelemetryStore }): void {
  const parsed = async (ctx: Parameters<Parameters<typeof guarded>[3]>[0]) => {
    const params = await requestParams(ctx);
    const nowMs = deps.clock.now();
    const query = compileLogsql(params.get('query') ?? '*', nowMs);
    const range: TimeRange = {};
    const start = timeParam(params, 'start', nowMs);
    const end = timeParam(params, 'end', nowMs);
    if (start !== undefined) range.startNs = start;
    if (end !== undefined) range.endNs = end;
    return { params, query, range };
  };

  router.on(['GET', 'POST'], `${BASE}/query`, guarded(deps, 'read', true, async (ctx, grant) => {
    const { params, query, range } = await parsed(ctx);
    const limit = intParam(params, 'limit', DEFAULT_ROWS, Number.MAX_SAFE_INTEGER);
    const tenantId = grant.tenant.id;
    const sent = await sendNdjsonStream(ctx.res,
      (onChunk, signal) => deps.telemetry.streamLogs(tenantId, query, range, limit, onChunk, signal), deps.log);
    if (sent.abandoned) deps.log(`select/logsql/query of ${tenantId}: the client left after ${sent.rows} rows; the query was stopped`);
  }));

  router.on(['GET', 'POST'], `${BASE}/hits`, guarded(deps, 'read', true, async (ctx, grant) => {
    const { params, query, range } = await parsed(ctx);
    const stepNs = stepParam(params.get('step'));
    const hits = await deps.telemetry.logHits(grant.tenant.id, query, range, stepNs);
    sendJson(ctx.res, 200, JSON.parse(toJson({ hits })));
  }));

  router.on(['GET', 'POST'], `${BASE}/field_names`, guarded(deps, 'read', true, async (ctx, grant) => {
    const { query, range } = await parsed(ctx);
    const values = await deps.telemetry.logFieldNames(grant.tenant.id, query, range);
    sendJson(ctx.res, 200, { values });
  }));

  router.on(['GET', 'POST'], `${BASE}/field_values`, guarded(deps, 'read', true, async (ctx, grant) => {
    const { params, query, range } = await parsed(ctx);
    const fieldName = params.get('field');
    if (!fieldName) throw errors.badRequest('field is required');
    const limit = intParam(params, 'limit', 1000, MAX_VALUES);
    const values = await deps.telemetry.logFieldValues(grant.tenant.id, query, range, fieldName, limit);
    sendJson(ctx.res, 200, { values });
  }));
}

const MAX_STEP_NS = 36_500n * 86_400_000_000_000n;

/** `step` as a duration (`5m`, `1h`, `30s`); default one hour. */
function stepParam(text: string | null): bigint {
  if (text === null || text === '') return 3_600_000_000_000n;
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) throw errors.badRequest(`step must be a duration like 5m or 1h; got "${text}"`);
  const unitNs = { ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n, d: 86_400_000_000_000n }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  const step = BigInt(m[1] ?? '0') * unitNs;
  if (step <= 0n) throw errors.badRequest('step must be positive');
  // A bucket wider than a century answers nothing new and would overflow DuckDB's 64-bit arithmetic.
  if (step > MAX_STEP_NS) throw errors.badRequest('step must be at most 36500d');
  return step;
}
