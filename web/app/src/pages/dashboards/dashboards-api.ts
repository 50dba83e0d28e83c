// What the Dashboards page asks of the service (DESIGN §4, §7): the tenant's dashboards
// (`GET/POST …/dashboards`, `GET/PUT/DELETE …/dashboards/<id>`, replies as in src/query/dashboards-api.ts), and the
// LogsQL reads of its panels: `hits` for bars over time, `query` for `| stats` rows, `field_names`/`field_values`
// for the panel editor's completion. PromQL panels read through ../metrics/prom-api.ts.
import { getJson, getNdjson, sendJson, tenantPath } from '../../lib/api';

export interface DashboardRecord {
  id: string;
  title: string;
  /** The app's own JSON (panels.ts reads it). */
  panels: unknown;
  tenant_id: string;
  created_at: string;
  updated_at: string;
}

export interface Range { start: string; end: string }

const sig = (signal?: AbortSignal) => (signal ? { signal } : {});

export const listDashboards = async (tenant: string, signal?: AbortSignal): Promise<DashboardRecord[]> =>
  (await getJson<{ dashboards: DashboardRecord[] }>(tenantPath(tenant, 'dashboards'), sig(signal))).dashboards;

export const getDashboard = async (tenant: string, id: string, signal?: AbortSignal): Promise<DashboardRecord> =>
  (await getJson<{ dashboard: DashboardRecord }>(tenantPath(tenant, `dashboards/${encodeURIComponent(id)}`), sig(signal))).dashboard;

export const createDashboard = async (tenant: string, body: { title: string; panels: unknown[] }): Promise<DashboardRecord> =>
  (await sendJson<{ dashboard: DashboardRecord }>('POST', tenantPath(tenant, 'dashboards'), body)).dashboard;

export const updateDashboard = async (tenant: string, id: string, body: { title: string; panels: unknown[] }): Promise<DashboardRecord> =>
  (await sendJson<{ dashboard: DashboardRecord }>('PUT', tenantPath(tenant, `dashboards/${encodeURIComponent(id)}`), body)).dashboard;

export const deleteDashboard = (tenant: string, id: string): Promise<void> =>
  sendJson<undefined>('DELETE', tenantPath(tenant, `dashboards/${encodeURIComponent(id)}`));

export interface HitsReply {
  hits: { fields: Record<string, string>; timestamps: string[]; values: number[]; total: number }[];
}

export const logHits = (tenant: string, query: string, range: Range, step: string, signal?: AbortSignal): Promise<HitsReply> =>
  getJson<HitsReply>(tenantPath(tenant, 'select/logsql/hits'), { query: { query, ...range, step }, ...sig(signal) });

/** Rows of a LogsQL query, `| stats …` results included (one row per group). */
export const logRows = (tenant: string, query: string, range: Range, limit: number, signal?: AbortSignal): Promise<Record<string, unknown>[]> =>
  getNdjson<Record<string, unknown>>(tenantPath(tenant, 'select/logsql/query'), { query: { query, ...range, limit }, ...sig(signal) });

export const fieldNames = async (tenant: string, range: Range): Promise<string[]> =>
  (await getJson<{ values: { value: string }[] }>(tenantPath(tenant, 'select/logsql/field_names'), { query: { query: '*', ...range } })).values.map((v) => v.value);

export const fieldValues = async (tenant: string, field: string, range: Range): Promise<string[]> =>
  (await getJson<{ values: { value: string }[] }>(tenantPath(tenant, 'select/logsql/field_values'), { query: { query: '*', field, ...range, limit: 50 } })).values.map((v) => v.value);

const STEPS: readonly [number, string][] = [
  [1000, '1s'], [5000, '5s'], [10_000, '10s'], [30_000, '30s'], [60_000, '1m'], [300_000, '5m'], [600_000, '10m'],
  [1_800_000, '30m'], [3_600_000, '1h'], [10_800_000, '3h'], [21_600_000, '6h'], [43_200_000, '12h'], [86_400_000, '1d'],
];

/** A round bucket width giving about `bars` buckets over the span, and its length in ms. */
export function hitsStep(spanMs: number, bars = 60): { step: string; ms: number } {
  const target = Math.max(1000, spanMs / bars);
  for (const [ms, step] of STEPS) if (ms >= target) return { step, ms };
  return { step: '7d', ms: 7 * 86_400_000 };
}
