// What Explore asks of the tenant's LogsQL API (DESIGN §4; VictoriaLogs-compatible shapes).
import { ApiError, getJson, getNdjson, tenantPath } from '../../lib/api';

export type LogRow = Record<string, unknown>;

export interface HitsReply {
  hits: { fields: Record<string, string>; timestamps: string[]; values: number[]; total: number }[];
}

export interface FacetsReply {
  facets: { field_name: string; values: { field_value: string; hits: number }[] }[];
}

export interface Range {
  start: string;
  end: string;
}

export const searchLogs = (tenant: string, query: string, range: Range, limit: number, signal?: AbortSignal): Promise<LogRow[]> =>
  getNdjson<LogRow>(tenantPath(tenant, 'select/logsql/query'), { query: { query, ...range, limit }, ...(signal ? { signal } : {}) });

export const logHits = (tenant: string, query: string, range: Range, step: string, signal?: AbortSignal): Promise<HitsReply> =>
  getJson<HitsReply>(tenantPath(tenant, 'select/logsql/hits'), { query: { query, ...range, step }, ...(signal ? { signal } : {}) });

export const facets = (tenant: string, query: string, range: Range, signal?: AbortSignal): Promise<FacetsReply> =>
  getJson<FacetsReply>(tenantPath(tenant, 'select/logsql/facets'), {
    query: { query, ...range, limit: 8, max_values_per_field: 8 }, ...(signal ? { signal } : {}),
  });

export const fieldNames = async (tenant: string, range: Range): Promise<string[]> =>
  (await getJson<{ values: { value: string }[] }>(tenantPath(tenant, 'select/logsql/field_names'), { query: { query: '*', ...range } })).values.map((v) => v.value);

export const fieldValues = async (tenant: string, field: string, range: Range): Promise<string[]> =>
  (await getJson<{ values: { value: string }[] }>(tenantPath(tenant, 'select/logsql/field_values'), { query: { query: '*', field, ...range, limit: 50 } })).values.map((v) => v.value);

/** A step that gives the histogram about 80 bars over the range, in a unit the API takes. */
export function stepFor(spanMs: number): string {
  const target = Math.max(1000, spanMs / 80);
  const steps: [number, string][] = [
    [1000, '1s'], [5000, '5s'], [10_000, '10s'], [30_000, '30s'], [60_000, '1m'], [300_000, '5m'], [600_000, '10m'],
    [1_800_000, '30m'], [3_600_000, '1h'], [10_800_000, '3h'], [21_600_000, '6h'], [43_200_000, '12h'], [86_400_000, '1d'],
  ];
  for (const [ms, text] of steps) if (ms >= target) return text;
  return '7d';
}

export function stepMs(step: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(step);
  if (!m) return 60_000;
  return Number(m[1]) * ({ s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd']);
}

/** The `level` of a row under its common names, lower-cased, for colouring. */
export function levelOf(row: LogRow): string {
  const v = row.level ?? row.severity ?? row.severity_text ?? row.log_level ?? row['log.level'];
  return typeof v === 'string' ? v.toLowerCase() : '';
}

export function levelClass(level: string): string {
  if (/^(error|err|fatal|crit|critical|emerg|alert|panic)/.test(level)) return 'error';
  if (/^warn/.test(level)) return 'warn';
  return '';
}

export const textOf = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/** A 400 from the query API: the query itself is wrong (the results area shows it, with its position). */
export const isQueryError = (e: unknown): boolean => e instanceof ApiError && e.status === 400;
