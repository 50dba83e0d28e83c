// Known-answer tests of deep RCA (issue 10 item 7): synthetic incidents with a known cause (incident-scenario.ts)
// written as traces, logs and metric samples into a real DuckDB store, then analysed as the endpoint would. The
// cause must rank first, ahead of the callers that merely show its symptoms, and a quiet window must name no
// confident suspect.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { openDuckdbStore } from '../../stores/telemetry/duckdb/duckdb-store.js';
import type { TelemetryStore } from '../../stores/telemetry/telemetry-store.js';
import { logsBatch, spansBatch } from '../../stores/telemetry/telemetry-store.contract.js';
import { Evidence } from '../evidence.js';
import type { AiReadContext } from '../model.js';
import { deepKnownCause, type DeepIncidentKind, type DeepIncidentSpec } from '../testing/incident-scenario.js';
import { incidentMetrics } from '../testing/metric-incidents.js';
import { incidentTraces } from '../testing/trace-incidents.js';
import { incidentLogs, knownCause } from '../testing/log-incidents.js';
import { CONFIDENT_SCORE, deepRootCause, type DeepRcaResult } from './deep-rca.js';

const WINDOW_START = Date.UTC(2024, 2, 5, 10, 0, 0);
const WINDOW = 30 * 60_000;
const KINDS: DeepIncidentKind[] = ['slow_downstream', 'error_origin', 'metric_first', 'none'];
const spec = (kind: DeepIncidentKind, seed = 7): DeepIncidentSpec => ({ kind, seed, windowStartMs: WINDOW_START, windowMs: WINDOW, tracesPerWindow: 1500 });

void describe('deep RCA on known incidents', () => {
  let dir = '';
  let store: TelemetryStore;
  const results = new Map<string, { result: DeepRcaResult; evidence: Evidence; ms: number }>();

  const analyse = async (tenantId: string, service?: string) => {
    const evidence = new Evidence();
    const ctx: AiReadContext = { telemetry: store, tenantId, nowMs: WINDOW_START + WINDOW, evidence };
    const t0 = performance.now();
    const result = await deepRootCause({ startMs: WINDOW_START, endMs: WINDOW_START + WINDOW, ...(service === undefined ? {} : { service }) }, ctx);
    return { result, evidence, ms: performance.now() - t0 };
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sightline-deep-rca-'));
    store = await openDuckdbStore(join(dir, 'telemetry.duckdb'));
    let position = 1n;
    // One tenant per incident, all in one store: the analysis must also keep tenants apart.
    for (const kind of KINDS) {
      const { spans, logs } = incidentTraces(spec(kind));
      const samples = incidentMetrics(spec(kind));
      await store.write([spansBatch(kind, spans), logsBatch(kind, logs),
        { tenantId: kind, format: 'promremote', batch: { logs: [], spans: [], samples } }], position++);
    }
    // A tenant that sends logs only (no spans, no metrics): a bad version on checkout's pods.
    for (const logs of incidentLogs({ kind: 'bad_version', seed: 11, incidentStartMs: WINDOW_START, windowMs: WINDOW, eventsPerWindow: 20_000 })) {
      await store.write([logsBatch('logs-only', logs)], position++);
    }
    for (const kind of [...KINDS, 'logs-only']) results.set(kind, await analyse(kind));
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (kind: string) => {
    const r = results.get(kind);
    assert.ok(r, kind);
    return r;
  };
  const rank = (r: DeepRcaResult, service: string): number => r.suspects.findIndex((s) => s.service === service);

  void test('a slow downstream service (payments ×10) ranks first, above the callers that wait for it', (t) => {
    const { result, ms } = get('slow_downstream');
    t.diagnostic(`analysis ${ms.toFixed(0)} ms; ${JSON.stringify(result.suspects.map((s) => [s.service, s.score]))}`);
    if (process.env.DEEP_RCA_DEBUG) t.diagnostic(JSON.stringify(result, null, 1));
    const [top] = result.suspects;
    assert.ok(top);
    assert.equal(top.service, deepKnownCause(spec('slow_downstream')).service);
    assert.ok(top.score >= CONFIDENT_SCORE, result.summary);
    assert.ok(top.evidence.some((e) => e.kind === 'critical_path' && e.query?.startsWith('trace_id=')), JSON.stringify(top.evidence));
    for (const caller of ['checkout', 'api', 'frontend']) {
      const at = rank(result, caller);
      assert.ok(at === -1 || at > 0, `${caller} ranks below payments`);
    }
    assert.match(result.summary, /^Most likely cause: payments/);
  });

  void test('errors that begin in inventory rank inventory first, not checkout, api or frontend that pass them up', (t) => {
    const { result, ms } = get('error_origin');
    t.diagnostic(`analysis ${ms.toFixed(0)} ms; ${JSON.stringify(result.suspects.map((s) => [s.service, s.score]))}`);
    if (process.env.DEEP_RCA_DEBUG) t.diagnostic(JSON.stringify(result, null, 1));
    const [top] = result.suspects;
    assert.ok(top);
    assert.equal(top.service, 'inventory');
    assert.ok(top.score >= CONFIDENT_SCORE);
    const origin = top.evidence.find((e) => e.kind === 'error_origin');
    assert.ok(origin, JSON.stringify(top.evidence));
    assert.match(origin.query ?? '', /^trace_id=[0-9a-f]{32}/);
    for (const caller of ['checkout', 'api', 'frontend']) {
      const s = result.suspects.find((x) => x.service === caller);
      assert.ok(s, `${caller} shows the symptoms`);
      assert.ok(s.score < top.score, `${caller} below inventory`);
      assert.ok(s.evidence.some((e) => e.kind === 'propagation' || e.kind === 'error_propagation'), `${caller} is marked as propagating`);
    }
    // The first error of the incident on the timeline is inventory's (its callers fail after it, in the same trace).
    const firstError = result.timeline.find((e) => e.signal === 'traces' && e.text.startsWith('first failing'));
    assert.equal(firstError?.service, 'inventory');
    // Log RCA over inventory's error logs: its hypotheses are about inventory, with LogsQL a person can run.
    assert.ok(result.hypotheses.length > 0);
    for (const h of result.hypotheses) {
      assert.ok(h.query.length > 0);
      assert.ok(h.kind !== 'service' || h.value === 'inventory', h.summary);
    }
  });

  void test('a metric that moves first (db pool saturation) heads the timeline and db ranks first', (t) => {
    const { result, ms } = get('metric_first');
    t.diagnostic(`analysis ${ms.toFixed(0)} ms; ${JSON.stringify(result.suspects.map((s) => [s.service, s.score]))}`);
    if (process.env.DEEP_RCA_DEBUG) t.diagnostic(JSON.stringify(result, null, 1));
    const firstMetric = result.timeline.find((e) => e.signal === 'metrics');
    assert.ok(firstMetric);
    assert.match(firstMetric.text, /^db_pool_connections_in_use_ratio\{/);
    assert.equal(firstMetric.service, 'db');
    const onset = deepKnownCause(spec('metric_first')).onsetMs ?? 0;
    const at = Date.parse(firstMetric.time);
    assert.ok(at >= onset && at <= onset + 2 * 60_000, `the change is placed near the onset: ${firstMetric.time}`);
    const latency = result.timeline.find((e) => e.signal === 'metrics' && e.text.startsWith('http_server_request_duration'));
    assert.ok(latency && Date.parse(latency.time) > at, 'latency rises after the pool fills');
    assert.equal(result.suspects[0]?.service, 'db');
    assert.ok(result.suspects[0].evidence.some((e) => e.kind === 'metric_change'));
  });

  void test('a quiet window names no confident suspect', (t) => {
    const { result, ms } = get('none');
    t.diagnostic(`analysis ${ms.toFixed(0)} ms; ${JSON.stringify(result.suspects.map((s) => [s.service, s.score]))}`);
    if (process.env.DEEP_RCA_DEBUG) t.diagnostic(JSON.stringify(result, null, 1));
    assert.ok(result.suspects.every((s) => s.score < CONFIDENT_SCORE), JSON.stringify(result.suspects));
    assert.match(result.summary, /^No confident suspect/);
    assert.deepEqual(result.hypotheses, []);
  });

  void test('every read is in the evidence, on all three signals, over the window and the baseline', () => {
    const { evidence } = get('error_origin');
    const signals = new Set(evidence.queries.map((q) => q.signal));
    assert.deepEqual([...signals].sort(), ['logs', 'metrics', 'traces']);
    const starts = new Set(evidence.queries.map((q) => q.start));
    assert.ok(starts.has(new Date(WINDOW_START).toISOString().replace('.000Z', 'Z')) || starts.size >= 2);
    assert.ok(evidence.queries.some((q) => q.signal === 'traces' && q.query.includes('status=error')));
    assert.ok(evidence.queries.some((q) => q.signal === 'logs' && q.query.includes('| stats by (service)')));
    assert.ok(evidence.queries.every((q) => q.purpose.length > 0));
  });

  void test('the timeline is in time order, inside the window, in RFC 3339', () => {
    for (const kind of KINDS) {
      const times = get(kind).result.timeline.map((e) => Date.parse(e.time));
      assert.ok(times.every((x) => x >= WINDOW_START && x < WINDOW_START + WINDOW), kind);
      assert.deepEqual(times, [...times].sort((a, b) => a - b), kind);
    }
  });

  void test('a service narrows the analysis to it and what it calls', async () => {
    const { result, evidence } = await analyse('error_origin', 'checkout');
    const allowed = new Set(['checkout', 'inventory', 'payments', 'db']);
    assert.ok(result.suspects.every((s) => allowed.has(s.service)), JSON.stringify(result.suspects.map((s) => s.service)));
    assert.equal(result.suspects[0]?.service, 'inventory');
    assert.ok(evidence.queries.some((q) => q.signal === 'traces' && q.query.includes('service=checkout')));
    assert.ok(evidence.queries.some((q) => q.signal === 'logs' && q.query.startsWith('service:in(')));
  });

  void test('a tenant with logs only: the service whose errors jumped is a confident suspect, its new version in the evidence', (t) => {
    const { result } = get('logs-only');
    t.diagnostic(JSON.stringify(result.suspects.map((s) => [s.service, s.score])));
    const [top] = result.suspects;
    assert.ok(top);
    const cause = knownCause('bad_version');
    assert.equal(top.service, cause.service);
    assert.ok(top.score >= CONFIDENT_SCORE, result.summary);
    assert.match(result.summary, /^Most likely cause: checkout/);
    assert.ok(result.hypotheses.some((h) => h.field === cause.field && h.value === cause.value), JSON.stringify(result.hypotheses.map((h) => h.summary)));
  });
});
