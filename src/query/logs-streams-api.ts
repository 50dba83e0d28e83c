// Log streams and facets (DESIGN §4), VictoriaLogs-compatible: select/logsql/{streams,stream_ids,
// stream_field_names,stream_field_values} answer `{values: [{value, hits}]}` like field_names/field_values, and
// select/logsql/facets answers `{facets: [{field_name, values: [{field_value, hits}]}]}`
// (https://docs.victoriametrics.com/victorialogs/querying/#querying-streams, #querying-facets).
import type { Router } from '../front-doors/router.js';
import { sendJson } from '../front-doors/reply.js';
import type { TelemetryStore } from '../stores/telemetry/telemetry-store.js';
import { errors } from '../errors.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import { intParam } from './request-params.js';
import { boolParam, logsqlArgs } from './logsql-args.js';

const BASE = '/api/v1/tenants/:tenant/select/logsql';
const MAX_ROWS = 100_000;
/** The facets pipe's defaults (VictoriaLogs lib/logstorage/pipe_facets.go); 0 or absent takes them. */
const FACETS_LIMIT = 10;
const FACETS_MAX_VALUES_PER_FIELD = 1000;
const FACETS_MAX_VALUE_LEN = 128;

export function registerLogsStreamsRoutes(router: Router, deps: TenantGuardDeps & { telemetry: TelemetryStore }): void {
  const t = deps.telemetry;
  const route = (path: string, handler: Parameters<typeof guarded>[3]) =>
    router.on(['GET', 'POST'], `${BASE}/${path}`, guarded(deps, 'read', true, handler));

  // `_stream` and `_stream_id` values are field values like any other: the most frequent first, `limit` of them.
  for (const [path, field] of [['streams', '_stream'], ['stream_ids', '_stream_id']] as const) {
    route(path, async (ctx, grant) => {
      const { params, query, range } = await logsqlArgs(ctx, deps.clock.now());
      const limit = intParam(params, 'limit', 1000, MAX_ROWS);
      sendJson(ctx.res, 200, { values: await t.logFieldValues(grant.tenant.id, query, range, field, limit) });
    });
  }

  route('stream_field_names', async (ctx, grant) => {
    const { query, range } = await logsqlArgs(ctx, deps.clock.now());
    sendJson(ctx.res, 200, { values: await t.logStreamFieldNames(grant.tenant.id, query, range) });
  });

  route('stream_field_values', async (ctx, grant) => {
    const { params, query, range } = await logsqlArgs(ctx, deps.clock.now());
    const field = params.get('field');
    if (!field) throw errors.badRequest('field is required');
    const limit = intParam(params, 'limit', 1000, MAX_ROWS);
    sendJson(ctx.res, 200, { values: await t.logStreamFieldValues(grant.tenant.id, query, range, field, limit) });
  });

  route('facets', async (ctx, grant) => {
    const { params, query, range } = await logsqlArgs(ctx, deps.clock.now());
    const orDefault = (name: string, dflt: number, max: number): number => intParam(params, name, dflt, max) || dflt;
    const facets = await t.logFacets(grant.tenant.id, query, range, {
      limit: orDefault('limit', FACETS_LIMIT, 1000),
      maxValuesPerField: orDefault('max_values_per_field', FACETS_MAX_VALUES_PER_FIELD, MAX_ROWS),
      maxValueLen: orDefault('max_value_len', FACETS_MAX_VALUE_LEN, 64 * 1024),
      keepConstFields: boolParam(params, 'keep_const_fields'),
    });
    sendJson(ctx.res, 200, {
      facets: facets.map((f) => ({ field_name: f.field, values: f.values.map((v) => ({ field_value: v.value, hits: v.hits })) })),
    });
  });
}
