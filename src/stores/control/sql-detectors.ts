// Detectors, their evaluation state and alerts in the control store (DESIGN §8; detector-records.ts), in the same
// PostgreSQL dialect as the rest. SqlControlStore extends this class (its own file only to keep each under ~400
// lines); withDetectorLock lives there, as it needs a store bound to the transaction.
import {
  ALERT_STATES,
  type AlertFilter, type Detector, type DetectorPatch, type DetectorRunState, type NewDetector, type PriorAlertState,
  type StoredAlert, type StoredAlertState,
} from './detector-records.js';
import { newId, num, numOrNull, one, parseTextArray } from './sql-rows.js';
import { SqlUsersAndSessions } from './sql-users.js';

interface DetectorRow {
  id: string; tenant_id: string; account_id: string; name: string; kind: string; params: unknown;
  window_s: unknown; interval_s: unknown; for_s: unknown; keep_firing_for_s: unknown; labels: unknown;
  annotations: unknown; channel_ids: unknown; repeat_interval_s: unknown; enabled: boolean;
  created_at: unknown; updated_at: unknown;
}

interface RunStateRow {
  detector_id: string; kind_state: unknown; last_eval_at: unknown; last_error: string | null; last_duration_ms: unknown;
}

interface AlertRow {
  detector_id: string; fingerprint: string; tenant_id: string; state: string; prior_state: string | null;
  labels: unknown; annotations: unknown; value: unknown; active_at: unknown; fired_at: unknown; ends_at: unknown;
  last_active_at: unknown; keep_firing_since: unknown; last_eval_at: unknown; last_sent_at: unknown; last_sent_status: string | null;
  sent_count: unknown; reason: string | null;
}

export abstract class SqlDetectors extends SqlUsersAndSessions {
  async createDetector(input: NewDetector): Promise<Detector> {
    const now = this.clock.now();
    const rows = await this.q<DetectorRow>(
      `INSERT INTO detectors (id, tenant_id, account_id, name, kind, params, window_s, interval_s, for_s,
         keep_firing_for_s, labels, annotations, channel_ids, repeat_interval_s, enabled, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11::jsonb, $12::jsonb, $13::text[], $14, $15, $16, $16)
       RETURNING *`,
      [newId('det'), input.tenantId, input.accountId, input.name, input.kind, JSON.stringify(input.params),
        input.windowS, input.intervalS, input.forS, input.keepFiringForS, JSON.stringify(input.labels),
        JSON.stringify(input.annotations), input.channelIds, input.repeatIntervalS, input.enabled, now],
    );
    return toDetector(one(rows));
  }

  async getDetector(id: string): Promise<Detector | null> {
    const rows = await this.q<DetectorRow>('SELECT * FROM detectors WHERE id = $1', [id]);
    return rows[0] ? toDetector(rows[0]) : null;
  }

  async listDetectors(tenantId: string): Promise<Detector[]> {
    const rows = await this.q<DetectorRow>('SELECT * FROM detectors WHERE tenant_id = $1 ORDER BY created_at, id', [tenantId]);
    return rows.map(toDetector);
  }

  async listEnabledDetectors(): Promise<Detector[]> {
    // A disabled tenant is refused everywhere (spec rule 9); its detectors rest with it, their alerts as they were.
    const rows = await this.q<DetectorRow>(
      `SELECT d.* FROM detectors d JOIN tenants t ON t.id = d.tenant_id
        WHERE d.enabled AND NOT t.disabled ORDER BY d.id`,
      [],
    );
    return rows.map(toDetector);
  }

  async updateDetector(id: string, patch: DetectorPatch): Promise<Detector | null> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    const set = (column: string, value: unknown, cast = ''): void => {
      params.push(value);
      sets.push(`${column} = $${params.length}${cast}`);
    };
    if (patch.name !== undefined) set('name', patch.name);
    if (patch.kind !== undefined) set('kind', patch.kind);
    if (patch.params !== undefined) set('params', JSON.stringify(patch.params), '::jsonb');
    if (patch.windowS !== undefined) set('window_s', patch.windowS);
    if (patch.intervalS !== undefined) set('interval_s', patch.intervalS);
    if (patch.forS !== undefined) set('for_s', patch.forS);
    if (patch.keepFiringForS !== undefined) set('keep_firing_for_s', patch.keepFiringForS);
    if (patch.labels !== undefined) set('labels', JSON.stringify(patch.labels), '::jsonb');
    if (patch.annotations !== undefined) set('annotations', JSON.stringify(patch.annotations), '::jsonb');
    if (patch.channelIds !== undefined) set('channel_ids', patch.channelIds, '::text[]');
    if (patch.repeatIntervalS !== undefined) set('repeat_interval_s', patch.repeatIntervalS);
    if (patch.enabled !== undefined) set('enabled', patch.enabled);
    set('updated_at', this.clock.now());
    const rows = await this.q<DetectorRow>(`UPDATE detectors SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params);
    return rows[0] ? toDetector(rows[0]) : null;
  }

  async deleteDetector(id: string): Promise<boolean> {
    // detector_state and alerts go with it (ON DELETE CASCADE).
    return (await this.q<{ id: string }>('DELETE FROM detectors WHERE id = $1 RETURNING id', [id])).length > 0;
  }

  async getDetectorRunState(detectorId: string): Promise<DetectorRunState | null> {
    const rows = await this.q<RunStateRow>('SELECT * FROM detector_state WHERE detector_id = $1', [detectorId]);
    return rows[0] ? toRunState(rows[0]) : null;
  }

  async listDetectorRunStates(tenantId: string): Promise<DetectorRunState[]> {
    const rows = await this.q<RunStateRow>(
      `SELECT s.* FROM detector_state s JOIN detectors d ON d.id = s.detector_id WHERE d.tenant_id = $1 ORDER BY s.detector_id`,
      [tenantId],
    );
    return rows.map(toRunState);
  }

  async saveDetectorRunState(s: DetectorRunState): Promise<void> {
    await this.q(
      `INSERT INTO detector_state (detector_id, kind_state, last_eval_at, last_error, last_duration_ms)
       VALUES ($1, $2::jsonb, $3, $4, $5)
       ON CONFLICT (detector_id) DO UPDATE SET kind_state = EXCLUDED.kind_state, last_eval_at = EXCLUDED.last_eval_at,
         last_error = EXCLUDED.last_error, last_duration_ms = EXCLUDED.last_duration_ms`,
      [s.detectorId, JSON.stringify(s.kindState), s.lastEvalAt, s.lastError, s.lastDurationMs],
    );
  }

  async listAlerts(tenantId: string, filter: AlertFilter = {}): Promise<StoredAlert[]> {
    const where = ['tenant_id = $1'];
    const params: unknown[] = [tenantId];
    const add = (cond: string, value: unknown): void => {
      params.push(value);
      where.push(cond.replace('?', `$${params.length}`));
    };
    if (filter.states !== undefined) add('state = ANY(?::text[])', [...filter.states]);
    if (filter.detectorId !== undefined) add('detector_id = ?', filter.detectorId);
    if (filter.fingerprint !== undefined) add('fingerprint = ?', filter.fingerprint);
    const rows = await this.q<AlertRow>(
      `SELECT * FROM alerts WHERE ${where.join(' AND ')} ORDER BY last_eval_at DESC, detector_id, fingerprint`,
      params,
    );
    return rows.map(toAlert);
  }

  async upsertAlerts(alerts: readonly StoredAlert[]): Promise<void> {
    if (alerts.length === 0) return;
    // One statement for any number of rows: the records travel as one JSON array (every value a parameter).
    // JSON has no NaN or Infinity, so a value that is not finite is stored as null.
    const records = alerts.map((a) => ({
      detector_id: a.detectorId, fingerprint: a.fingerprint, tenant_id: a.tenantId, state: a.state,
      prior_state: a.priorState, labels: a.labels, annotations: a.annotations,
      value: a.value !== null && Number.isFinite(a.value) ? a.value : null, active_at: a.activeAt, fired_at: a.firedAt,
      ends_at: a.endsAt, last_active_at: a.lastActiveAt, keep_firing_since: a.keepFiringSince, last_eval_at: a.lastEvalAt, last_sent_at: a.lastSentAt,
      last_sent_status: a.lastSentStatus, sent_count: a.sentCount, reason: a.reason,
    }));
    await this.q(
      `INSERT INTO alerts (detector_id, fingerprint, tenant_id, state, prior_state, labels, annotations, value, active_at,
         fired_at, ends_at, last_active_at, keep_firing_since, last_eval_at, last_sent_at, last_sent_status, sent_count, reason)
       SELECT detector_id, fingerprint, tenant_id, state, prior_state, labels, annotations, value, active_at,
         fired_at, ends_at, last_active_at, keep_firing_since, last_eval_at, last_sent_at, last_sent_status, sent_count, reason
         FROM jsonb_to_recordset($1::jsonb) AS x(detector_id text, fingerprint text, tenant_id text, state text,
           prior_state text, labels jsonb, annotations jsonb, value double precision, active_at bigint, fired_at bigint,
           ends_at bigint, last_active_at bigint, keep_firing_since bigint, last_eval_at bigint, last_sent_at bigint, last_sent_status text,
           sent_count integer, reason text)
        ORDER BY detector_id, fingerprint
       ON CONFLICT (detector_id, fingerprint) DO UPDATE SET
         tenant_id = EXCLUDED.tenant_id, state = EXCLUDED.state, prior_state = EXCLUDED.prior_state,
         labels = EXCLUDED.labels, annotations = EXCLUDED.annotations, value = EXCLUDED.value,
         active_at = EXCLUDED.active_at, fired_at = EXCLUDED.fired_at, ends_at = EXCLUDED.ends_at,
         last_active_at = EXCLUDED.last_active_at, keep_firing_since = EXCLUDED.keep_firing_since, last_eval_at = EXCLUDED.last_eval_at,
         last_sent_at = EXCLUDED.last_sent_at, last_sent_status = EXCLUDED.last_sent_status,
         sent_count = EXCLUDED.sent_count, reason = EXCLUDED.reason`,
      [JSON.stringify(records)],
    );
  }

  async deleteAlerts(detectorId: string, fingerprints: readonly string[]): Promise<void> {
    if (fingerprints.length === 0) return;
    await this.q('DELETE FROM alerts WHERE detector_id = $1 AND fingerprint = ANY($2::text[])', [detectorId, [...fingerprints]]);
  }
}

export function toDetector(r: DetectorRow): Detector {
  return {
    id: r.id, tenantId: r.tenant_id, accountId: r.account_id, name: r.name, kind: r.kind,
    params: jsonObject(r.params), windowS: num(r.window_s), intervalS: num(r.interval_s), forS: num(r.for_s),
    keepFiringForS: num(r.keep_firing_for_s), labels: stringMap(r.labels), annotations: stringMap(r.annotations),
    channelIds: textArray(r.channel_ids), repeatIntervalS: num(r.repeat_interval_s), enabled: r.enabled,
    createdAt: num(r.created_at), updatedAt: num(r.updated_at),
  };
}

function toRunState(r: RunStateRow): DetectorRunState {
  return {
    detectorId: r.detector_id, kindState: jsonObject(r.kind_state), lastEvalAt: numOrNull(r.last_eval_at),
    lastError: r.last_error ?? null, lastDurationMs: numOrNull(r.last_duration_ms),
  };
}

function toAlert(r: AlertRow): StoredAlert {
  return {
    detectorId: r.detector_id, fingerprint: r.fingerprint, tenantId: r.tenant_id, state: alertState(r.state),
    priorState: r.prior_state === null ? null : priorState(r.prior_state), labels: stringMap(r.labels),
    annotations: stringMap(r.annotations), value: numOrNull(r.value), activeAt: num(r.active_at),
    firedAt: numOrNull(r.fired_at), endsAt: numOrNull(r.ends_at), lastActiveAt: numOrNull(r.last_active_at),
    keepFiringSince: numOrNull(r.keep_firing_since),
    lastEvalAt: num(r.last_eval_at), lastSentAt: numOrNull(r.last_sent_at),
    lastSentStatus: r.last_sent_status === 'firing' || r.last_sent_status === 'resolved' ? r.last_sent_status : null,
    sentCount: num(r.sent_count), reason: r.reason ?? null,
  };
}

function alertState(v: string): StoredAlertState {
  const s = ALERT_STATES.find((x) => x === v);
  if (!s) throw new Error(`control store holds an unknown alert state ${JSON.stringify(v)}`);
  return s;
}

function priorState(v: string): PriorAlertState {
  if (v === 'inactive') return v;
  const s = alertState(v);
  if (s === 'error') throw new Error('control store holds an alert whose prior state is error');
  return s;
}

function jsonObject(v: unknown): Record<string, unknown> {
  const parsed: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(jsonObject(v))) if (typeof x === 'string') out[k] = x;
  return out;
}

function textArray(v: unknown): string[] {
  const raw: unknown = typeof v === 'string' ? parseTextArray(v) : v;
  return Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [];
}
