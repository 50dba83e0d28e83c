// Helpers of the detector e2e tests (DESIGN §8): the test clock, the tenant's detector and alert routes, a pass of
// POST /admin/v1/detectors/evaluate, and log entries spread over a stretch of time.
import assert from 'node:assert/strict';
import { admin, call, type Reply, type RunningService, type TestAccount } from './service.js';
import { obj, show } from './load.js';

export const MIN = 60_000;

export interface AlertJson {
  fingerprint: string;
  detector_id: string;
  state: string;
  prior_state: string | null;
  reason: string | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  value: number | null;
  starts_at: string;
  ends_at: string | null;
  active_at: string;
  fired_at: string | null;
  last_eval_at: string;
  last_notified_at: string | null;
  last_notified_status: string | null;
  notified_count: number;
}

export interface PassJson {
  evaluated: number;
  firing: number;
  resolved: number;
  pending: number;
  errors: number;
  deferred: number;
}

/** Moves service time (PUT /admin/v1/clock); returns the time set. */
export async function clockTo(svc: RunningService, ms: number): Promise<number> {
  const r = await admin(svc, 'PUT', '/admin/v1/clock', { now: new Date(ms).toISOString() });
  assert.equal(r.status, 200, show(r));
  return ms;
}

/** A tenant route (`/detectors`, `/alerts`, …) with the account's key. */
export function detectorApi(svc: RunningService, acct: TestAccount, method: string, path: string, body?: unknown, key = acct.key): Promise<Reply> {
  return call(`${svc.app}/api/v1/tenants/${acct.tenantId}${path}`, {
    method,
    headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export async function createDetector(svc: RunningService, acct: TestAccount, body: Record<string, unknown>): Promise<{ id: string; kind: string; status: unknown } & Record<string, unknown>> {
  const r = await detectorApi(svc, acct, 'POST', '/detectors', body);
  assert.equal(r.status, 201, show(r));
  return obj(r).detector as { id: string; kind: string; status: unknown };
}

/** One pass now over the tenant's detectors. */
export async function evaluate(svc: RunningService, tenantId: string): Promise<PassJson> {
  const r = await admin(svc, 'POST', '/admin/v1/detectors/evaluate', { tenant_id: tenantId });
  assert.equal(r.status, 200, show(r));
  return r.json as PassJson;
}

export async function alertsOf(svc: RunningService, acct: TestAccount, state?: string): Promise<AlertJson[]> {
  const r = await detectorApi(svc, acct, 'GET', `/alerts${state === undefined ? '' : `?state=${state}`}`);
  assert.equal(r.status, 200, show(r));
  return (obj(r).alerts ?? []) as AlertJson[];
}

/** A 422 whose `condition` is the one named and whose detail matches; returns the body. */
export async function expectIneligible(
  svc: RunningService, acct: TestAccount, body: Record<string, unknown>, condition: string, detail: RegExp,
): Promise<Record<string, unknown>> {
  const r = await detectorApi(svc, acct, 'POST', '/detectors', body);
  assert.equal(r.status, 422, show(r));
  const j = obj(r);
  assert.equal(j.error, 'unprocessable');
  assert.equal(j.condition, condition, show(r));
  assert.match(String(j.detail), detail);
  return j;
}

/** `n` native-format entries spread evenly over [from, from + spanMs), each with the given fields. */
export function logsAt(n: number, from: number, spanMs: number, fields: Record<string, unknown>): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({ _time: new Date(from + Math.floor((i * spanMs) / n)).toISOString(), ...fields }));
}
