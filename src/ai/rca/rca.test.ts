// Known-answer tests of root-cause hypotheses (issue 10 items 1 and 7): synthetic incidents with a known cause
// (src/ai/testing/log-incidents.ts) written into a real DuckDB store; the cause must rank first, the change before
// its symptoms, every hypothesis' query must show exactly its count, and a quiet window must yield no hypothesis
// (none passes q ≤ 0.01 with at least a point of excess share: rank.ts MAX_Q, MIN_EXCESS).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Evidence } from '../evidence.js';
import type { AiReadContext, Hypothesis, RcaResult } from '../model.js';
import { compileLogsql } from '../../query/logsql-request.js';
import { openDuckdbStore, type DuckdbTelemetryStore } from '../../stores/telemetry/duckdb/duckdb-store.js';
import { incidentLogs, knownCause, type IncidentKind } from '../testing/log-incidents.js';
import { rootCauseHypotheses } from './rca.js';

const START = Date.UTC(2025, 2, 3, 14, 0);
const WINDOW = 30 * 60_000;
const PER_WINDOW = 15_000;
const KINDS: IncidentKind[] = ['bad_version', 'noisy_customer', 'new_error_template', 'service_error_jump', 'none'];

const dirs: string[] = [];
const stores = new Map<IncidentKind, DuckdbTelemetryStore>();

before(async () => {
  await Promise.all(KINDS.map(async (kind, i) => {
    const dir = await mkdtemp(join(tmpdir(), 'sightline-rca-'));
    dirs.push(dir);
    const s = await openDuckdbStore(join(dir, 'telemetry.duckdb'));
    stores.set(kind, s);
    let pos = 1n;
    for (const logs of incidentLogs({ kind, seed: 1000 + i, incidentStartMs: START, windowMs: WINDOW, eventsPerWindow: PER_WINDOW })) {
      await s.write([{ tenantId: 't1', format: 'native', batch: { logs, spans: [] } }], pos++);
    }
  }));
});

after(async () => {
  for (const s of stores.values()) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function ctxOf(kind: IncidentKind): AiReadContext {
  const telemetry = stores.get(kind);
  if (!telemetry) throw new Error(`no store for ${kind}`);
  return { telemetry, tenantId: 't1', nowMs: START + 2 * WINDOW, evidence: new Evidence() };
}

async function rca(kind: IncidentKind, query: string): Promise<RcaResult> {
  return rootCauseHypotheses({ query, startMs: START, endMs: START + WINDOW }, ctxOf(kind));
}

function first(r: RcaResult): Hypothesis {
  const h = r.hypotheses[0];
  assert.ok(h, 'some hypothesis');
  return h;
}

const describeAll = (r: RcaResult) => r.hypotheses.map((h) => `${h.kind} ${h.score}: ${h.summary}`).join('\n');

/** Every hypothesis' query, run as a person would paste it into Explore, counts exactly its `count`. */
async function assertQueriesShowCounts(kind: IncidentKind, r: RcaResult): Promise<void> {
  const ctx = ctxOf(kind);
  for (const h of r.hypotheses) {
    const rows = await ctx.telemetry.searchLogs('t1', compileLogsql(`${h.query} | stats count()`, ctx.nowMs), {}, 1);
    assert.equal(Number(rows[0]?.['count(*)']), h.count, `${h.query} shows ${h.count} events`);
  }
}

void describe('root-cause hypotheses on known incidents', () => {
  void test('a bad version on some pods: the version change ranks first, before its pods and symptoms', async () => {
    const r = await rca('bad_version', 'level:error');
    const cause = knownCause('bad_version');
    const top = first(r);
    assert.deepEqual([top.kind, top.field, top.value], ['change', cause.field, cause.value], describeAll(r));
    assert.equal(top.baseline_share, 0);
    assert.match(top.summary, /^version=2\.4\.1 is new: on \d+% of matching events/);
    const at = (pred: (h: Hypothesis) => boolean) => r.hypotheses.findIndex(pred);
    for (const [what, i] of [
      ['a pod', at((h) => h.field === 'pod')],
      ['the failing template', at((h) => h.kind === 'pattern')],
      ['checkout', at((h) => h.value === 'checkout')],
    ] as const) assert.ok(i > 0, `${what} is named after the version (at ${i})\n${describeAll(r)}`);
    await assertQueriesShowCounts('bad_version', r);
  });

  void test('one noisy customer: its customer_id ranks first', async () => {
    const r = await rca('noisy_customer', 'level:error');
    const top = first(r);
    assert.deepEqual([top.field, top.value], ['customer_id', knownCause('noisy_customer').value], describeAll(r));
    assert.equal(top.kind, 'field_value', 'the customer was there before: not a change');
    assert.ok(top.baseline_share > 0 && top.baseline_share < 0.05);
    await assertQueriesShowCounts('noisy_customer', r);
  });

  void test('a new error template: the template ranks first', async () => {
    const r = await rca('new_error_template', 'level:error');
    const top = first(r);
    assert.equal(top.kind, 'pattern', describeAll(r));
    assert.ok(top.pattern?.includes(knownCause('new_error_template').messageFragment ?? '?'), top.pattern);
    assert.equal(top.baseline_share, 0);
    await assertQueriesShowCounts('new_error_template', r);
  });

  void test("one service's error share jumps: that service ranks first", async () => {
    const r = await rca('service_error_jump', 'level:error');
    const top = first(r);
    assert.ok(top.kind === 'service' || top.kind === 'field_value', describeAll(r));
    assert.deepEqual([top.field, top.value], ['service', knownCause('service_error_jump').service], describeAll(r));
    const svc = r.hypotheses.find((h) => h.kind === 'service');
    assert.equal(svc?.value, 'inventory', 'and its error share rose');
    await assertQueriesShowCounts('service_error_jump', r);
  });

  void test('a quiet window yields no hypothesis, over errors and over every event', async () => {
    for (const query of ['level:error', '*', 'service:checkout']) {
      const r = await rca('none', query);
      assert.ok(r.incident_count > 0 && r.baseline_count > 0);
      assert.deepEqual(r.hypotheses, [], `${query}:\n${describeAll(r)}`);
    }
  });

  void test('every read is in the evidence as LogsQL that parses', async () => {
    const ctx = ctxOf('bad_version');
    await rootCauseHypotheses({ query: 'level:error | limit 5', startMs: START, endMs: START + WINDOW }, ctx);
    assert.ok(ctx.evidence.queries.length > 5);
    for (const q of ctx.evidence.queries) {
      assert.equal(q.signal, 'logs');
      assert.doesNotThrow(() => compileLogsql(q.query, ctx.nowMs), q.query);
      assert.ok(!q.query.includes('limit 5'), 'the query\'s pipes are ignored');
    }
    assert.ok(ctx.evidence.queries.some((q) => q.query.includes('stats by (version) count()')));
  });

  void test('an empty window gives zero hypotheses, not an error', async () => {
    const r = await rootCauseHypotheses({ query: '*', startMs: START + 10 * WINDOW, endMs: START + 11 * WINDOW }, ctxOf('none'));
    assert.deepEqual([r.hypotheses, r.incident_count], [[], 0]);
  });

  void test('a bad query or window is a 400', async () => {
    for (const req of [
      { query: 'level:(error', startMs: START, endMs: START + WINDOW },
      { query: '*', startMs: START + WINDOW, endMs: START },
      { query: '*', startMs: START, endMs: START + WINDOW, baselineStartMs: START, baselineEndMs: START - 1 },
    ]) {
      await assert.rejects(rootCauseHypotheses(req, ctxOf('none')), (e: unknown) => (e as { status?: number }).status === 400);
    }
  });

  void test('an explicit baseline is used and reported', async () => {
    const r = await rootCauseHypotheses({
      query: 'level:error', startMs: START, endMs: START + WINDOW, baselineStartMs: START - WINDOW, baselineEndMs: START - WINDOW / 2,
    }, ctxOf('noisy_customer'));
    assert.equal(r.baseline.end, new Date(START - WINDOW / 2).toISOString().replace('.000Z', '.000000000Z'));
    assert.equal(first(r).value, knownCause('noisy_customer').value);
  });
});
