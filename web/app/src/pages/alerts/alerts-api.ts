// Every call the Alerts page makes (DESIGN §8 Detectors and alerts), in one place so that the issue building
// that API only has to meet these shapes. Until the routes exist the service answers 404 on them; the list
// calls turn that into `null` ("not set up on this service yet") so the page can say so instead of erring.
import { ApiError, getJson, tenantPath } from '../../lib/api';

/** Prometheus lifecycle states plus Grafana's `nodata` and `error` (DESIGN §8 Alerts). */
export const ALERT_STATES = ['firing', 'pending', 'nodata', 'error', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

export interface Alert {
  id?: string;
  state: AlertState;
  /** `detector`, `tenant` and the group-by values. */
  labels: Record<string, string>;
  annotations: { summary?: string; description?: string; runbook_url?: string; [k: string]: string | undefined };
  starts_at: string;
  ends_at?: string | null;
  value?: number | string | null;
}

export interface Detector {
  id: string;
  name?: string;
  kind: string;
  signal?: string;
  params?: Record<string, unknown>;
  for?: string;
  enabled?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  created_at?: string;
}

/** One entry of `GET /api/v1/detectors/catalog`. */
export interface DetectorKind {
  kind: string;
  signal: string;
  description: string;
  params?: unknown;
  min_history_s?: number;
  /** The conditions a detector of this kind must meet (DESIGN §8), each with a stable id. */
  eligibility?: { id: string; description: string }[];
}

/** A list call's answer: the rows, or `null` when the service has no such route yet (404). */
async function listOrAbsent<T>(load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/** Reads `{<key>: [...]}`, or a bare array. */
const rowsOf = <T>(reply: unknown, key: string): T[] => {
  if (Array.isArray(reply)) return reply as T[];
  const rows = (reply as Record<string, unknown> | null)?.[key];
  return Array.isArray(rows) ? (rows as T[]) : [];
};

export const listAlerts = (tenant: string, state: AlertState | '', signal?: AbortSignal): Promise<Alert[] | null> =>
  listOrAbsent(async () => rowsOf<Alert>(await getJson<unknown>(tenantPath(tenant, 'alerts'), { query: { state }, ...(signal ? { signal } : {}) }), 'alerts'));

export const listDetectors = (tenant: string, signal?: AbortSignal): Promise<Detector[] | null> =>
  listOrAbsent(async () => rowsOf<Detector>(await getJson<unknown>(tenantPath(tenant, 'detectors'), signal ? { signal } : {}), 'detectors'));

export const detectorCatalog = (signal?: AbortSignal): Promise<DetectorKind[] | null> =>
  listOrAbsent(async () => rowsOf<DetectorKind>(await getJson<unknown>('/api/v1/detectors/catalog', signal ? { signal } : {}), 'kinds'));

/** One alert sentence of a playbook step and what became of it (DESIGN §9 `ai/playbooks`). */
export interface PlaybookAlert {
  sentence: string;
  bound?: { target: { kind: string }; op: string; threshold: number; window_s?: number; for_s?: number };
  note?: string;
  detector_id?: string;
}

export interface PlaybookStep {
  title: string;
  text: string;
  section?: string;
  query?: string;
  signal?: 'logs' | 'metrics';
  manual?: { language: string; command: string };
  alerts?: PlaybookAlert[];
  notes?: string[];
  saved_search_id?: string;
}

export interface PlaybookSummary {
  id: string;
  title: string;
  format: string;
  step_count?: number;
  saved_search_ids: string[];
  detector_ids: string[];
  created_at: string;
}

export interface Playbook extends PlaybookSummary {
  steps: PlaybookStep[];
}

export const listPlaybooks = (tenant: string, signal?: AbortSignal): Promise<PlaybookSummary[] | null> =>
  listOrAbsent(async () => rowsOf<PlaybookSummary>(await getJson<unknown>(tenantPath(tenant, 'ai/playbooks'), signal ? { signal } : {}), 'playbooks'));

/** One playbook, or `null` when there is none by that id (404). */
export const getPlaybook = (tenant: string, id: string, signal?: AbortSignal): Promise<Playbook | null> =>
  listOrAbsent(async () => (await getJson<{ playbook: Playbook }>(tenantPath(tenant, `ai/playbooks/${encodeURIComponent(id)}`), signal ? { signal } : {})).playbook);
