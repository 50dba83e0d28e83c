// LogsQL stats as Prometheus-shaped metrics (DESIGN §4): select/logsql/stats_query (an instant vector) and
// select/logsql/stats_query_range (a matrix), as VictoriaLogs answers them for vmalert and Grafana's VictoriaLogs
// datasource (https://docs.victoriametrics.com/victorialogs/querying/#querying-log-stats; reply templates
// app/vlselect/logsql/stats_query_response.qtpl and stats_query_range_response.qtpl).
import type { Router } from '../front-doors/router.js';
import { sendJson } from '../front-doors/reply.js';
import type { LogRow, TelemetryStore, TimeRange } from '../stores/telemetry/telemetry-store.js';
import type { LogsqlQuery } from '../model/logsql-ast.js';
import { errors } from '../errors.js';
import { setLabel } from '../model/metric.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import { durationParam, logsqlArgs } from './logsql-args.js';
import { statsShape, withTimeBuckets } from './logsql-stats.js';
import { parseTimestamp } from './logsql/time-value.js';

const BASE = '/api/v1/tenants/:tenant/select/logsql';
/** Stats rows one reply may carry: more means a `by` over something like `_msg`, or a far too small step. */
const MAX_STATS_ROWS = 100_000;
/** VictoriaLogs' default step for stats_query_range. */
const DEFAULT_STEP_NS = 86_400_000_000_000n;

/** A Prometheus sample: [unix seconds, value text]. Grafana's datasource reads the time as a JSON number. */
type Sample = [number, string];

interface VectorItem {
  metric: Record<string, string>;
  value: Sample;
}

interface MatrixItem {
  metric: Record<string, string>;
  values: Sample[];
}

const seconds = (ns: bigint): number => Number(ns) / 1e9;

export function registerLogsStatsRoutes(router: Router, deps: TenantGuardDeps & { telemetry: TelemetryStore }): void {
  const run = async (tenantId: string, query: LogsqlQuery, range: TimeRange): Promise<LogRow[]> => {
    const rows = await deps.telemetry.searchLogs(tenantId, query, range, MAX_STATS_ROWS + 1);
    if (rows.length > MAX_STATS_ROWS) {
      throw errors.badRequest(`the query gives more than ${MAX_STATS_ROWS} stats rows; group by fewer fields or use a larger step`);
    }
    return rows;
  };

  router.on(['GET', 'POST'], `${BASE}/stats_query`, guarded(deps, 'read', true, async (ctx, grant) => {
    const { query, range, atNs } = await logsqlArgs(ctx, deps.clock.now());
    const shape = statsShape(query);
    const rows = await run(grant.tenant.id, query, range);
    const at = seconds(atNs);
    const result: VectorItem[] = [];
    for (const row of rows) {
      const labels = labelsOf(row, shape.labels);
      for (const name of metricsOf(row, shape.metrics)) {
        result.push({ metric: { __name__: name, ...labels }, value: [at, text(row[name])] });
      }
    }
    sendJson(ctx.res, 200, { status: 'success', data: { resultType: 'vector', result } });
  }));

  router.on(['GET', 'POST'], `${BASE}/stats_query_range`, guarded(deps, 'read', true, async (ctx, grant) => {
    const { params, query, range, atNs } = await logsqlArgs(ctx, deps.clock.now());
    const stepNs = durationParam(params, 'step', DEFAULT_STEP_NS);
    if (stepNs <= 0n) throw errors.badRequest('step must be positive');
    const offsetNs = durationParam(params, 'offset', 0n, true);
    const bucketed = withTimeBuckets(query, stepNs, offsetNs);
    const shape = statsShape(bucketed);
    const labelNames = shape.labels.filter((l) => l !== '_time');
    const rows = await run(grant.tenant.id, bucketed, range);
    // Series keyed by name and labels, points sorted by time, series by key: VictoriaLogs' order.
    const series = new Map<string, { item: MatrixItem; points: [bigint, string][] }>();
    for (const row of rows) {
      const t = parseTimestamp(text(row._time))?.startNs ?? atNs;
      const labels = labelsOf(row, labelNames);
      for (const name of metricsOf(row, shape.metrics)) {
        const key = name + JSON.stringify(labels);
        let s = series.get(key);
        if (!s) series.set(key, (s = { item: { metric: { __name__: name, ...labels }, values: [] }, points: [] }));
        s.points.push([t, text(row[name])]);
      }
    }
    const result = [...series].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => {
      s.item.values = s.points.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([t, v]) => [seconds(t), v]);
      return s.item;
    });
    sendJson(ctx.res, 200, { status: 'success', data: { resultType: 'matrix', result } });
  }));
}

/** The by fields of a stats row, in column order, empty values included (VictoriaLogs writes them as ""). */
function labelsOf(row: LogRow, names: string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const k of Object.keys(row)) if (names.includes(k)) setLabel(labels, k, text(row[k]));
  return labels;
}

/** The metric columns of a stats row, in column order. */
function metricsOf(row: LogRow, names: string[]): string[] {
  return Object.keys(row).filter((k) => names.includes(k));
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
}
