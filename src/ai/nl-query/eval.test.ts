// The evaluation set of `ai/query` run end to end (issue 10 item 2): the fixture written into a real DuckDB store in
// a temp dir, every question answered with the schema read from it, the accuracy printed and held at ≥ 90%, and
// every question that must be refused refused. The expected queries themselves are run, so the set cannot drift
// into queries the store would reject.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDuckdbStore, type DuckdbTelemetryStore } from '../../stores/telemetry/duckdb/duckdb-store.js';
import { compileLogsql } from '../../query/logsql-request.js';
import { parsePromql } from '../../query/promql/parse.js';
import { evalInstant } from '../../query/promql/engine.js';
import { msToNs } from '../../model/time.js';
import { Evidence } from '../evidence.js';
import { EVAL_NOW_MS, EVAL_TENANT, fixtureBatches } from './eval-fixture.js';
import { EVAL_SET, evaluate } from './eval-set.js';
import { answerQuestion } from './nl-query.js';
import { parseTraceSearch } from './traces-reader.js';

void describe('nl-query evaluation set', () => {
  let dir = '';
  let store: DuckdbTelemetryStore;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sightline-nlq-'));
    store = await openDuckdbStore(join(dir, 'telemetry.duckdb'));
    await store.write(fixtureBatches(), 1n);
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  void test('has at least 60 questions, refusals among them', () => {
    assert.ok(EVAL_SET.length >= 60, `${EVAL_SET.length} questions`);
    assert.ok(EVAL_SET.some((c) => 'refuse' in c));
  });

  void test('every expected query parses and runs on the fixture store', async () => {
    for (const c of EVAL_SET) {
      if ('refuse' in c) continue;
      const range = { startNs: msToNs(Date.parse(c.start)), endNs: msToNs(Date.parse(c.end)) };
      if (c.signal === 'logs') await store.searchLogs(EVAL_TENANT, compileLogsql(c.query, EVAL_NOW_MS), range, 5);
      else if (c.signal === 'metrics') await evalInstant(store.metrics, EVAL_TENANT, parsePromql(c.query), Date.parse(c.end));
      else parseTraceSearch(c.query);
    }
  });

  void test('answers at least 90% of the set as expected and refuses every question it must refuse', async () => {
    const report = await evaluate((question) => answerQuestion({ question }, {
      telemetry: store, tenantId: EVAL_TENANT, nowMs: EVAL_NOW_MS, evidence: new Evidence(),
    }));
    console.log(`nl-query eval: ${report.passed}/${report.total} = ${(report.accuracy * 100).toFixed(1)}%`);
    for (const r of report.results) if (!r.ok) console.log(`  miss: ${r.question} — ${r.why ?? ''}`);
    assert.ok(report.accuracy >= 0.9, `accuracy ${report.accuracy}`);
    const refusals = EVAL_SET.flatMap((c, i) => ('refuse' in c ? [report.results[i]] : []));
    for (const r of refusals) assert.ok(r?.ok, `${r?.question ?? ''}: ${r?.why ?? ''}`);
  });

  void test('each schema read is recorded as evidence', async () => {
    const evidence = new Evidence();
    await answerQuestion({ question: 'errors from checkout in the last hour' }, { telemetry: store, tenantId: EVAL_TENANT, nowMs: EVAL_NOW_MS, evidence });
    const purposes = evidence.queries.map((q) => q.purpose).join('\n');
    assert.match(purposes, /field names/);
    assert.match(purposes, /values of every log field/);
    assert.match(purposes, /metric names/);
    assert.ok(evidence.queries.every((q) => q.start <= q.end));
  });
});
