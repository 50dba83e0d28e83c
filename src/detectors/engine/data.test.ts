// DetectorData over the real DuckDB store answers as the kinds' test double does (testing/memory-data.ts) for the
// same data and the same query texts, so what the kinds were tested against is what they get in the service; and
// every call takes one query from the gate (spec "Plans": alert evaluation is bounded by the query rate).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../clock.js';
import type { LogEntry } from '../../model/log-entry.js';
import type { Span } from '../../model/span.js';
import { openDuckdbStore } from '../../stores/telemetry/duckdb/duckdb-store.js';
import type { TelemetryStore } from '../../stores/telemetry/telemetry-store.js';
import { MemoryDetectorData, type MemoryLog, type MemorySpan } from '../testing/memory-data.js';
import { DetectorQueryError, EvaluationDeferred, metricNames, StoreDetectorData } from './data.js';
import { parsePromql } from '../../query/promql/parse.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 2, 10, 0);
const W = { startMs: T0, endMs: T0 + 10 * MIN };

const logs: MemoryLog[] = Array.from({ length: 40 }, (_, i) => ({
  timeMs: T0 - 5 * MIN + i * 20_000,
  msg: i % 4 === 0 ? `payment failed for order ${i}` : `request ${i} ok`,
  fields: { service: i % 2 === 0 ? 'api' : 'web', region: i % 3 === 0 ? 'eu' : 'us', ...(i === 7 ? { 'telemetry.sdk.language': 'webjs' } : {}) },
}));
const spans: MemorySpan[] = Array.from({ length: 12 }, (_, i) => ({
  timeMs: T0 + i * MIN, service: i < 8 ? 'checkout' : 'search', name: 'GET /', durationMs: (i + 1) * 10, error: i === 3,
}));

function toEntry(l: MemoryLog): LogEntry {
  const { service = '', ...fields } = l.fields ?? {};
  return { timeNs: BigInt(l.timeMs) * 1_000_000n, observedNs: BigInt(l.timeMs) * 1_000_000n, service, severity: '', msg: l.msg, traceId: '', spanId: '', stream: '', fields };
}

function toSpan(s: MemorySpan, i: number): Span {
  return {
    traceId: i.toString(16).padStart(32, '0'), spanId: i.toString(16).padStart(16, '0'), parentSpanId: '', name: s.name, kind: 2,
    startNs: BigInt(s.timeMs) * 1_000_000n, durationNs: BigInt(s.durationMs) * 1_000_000n, statusCode: s.error === true ? 2 : 0,
    statusMessage: '', service: s.service, attributes: {}, resource: {}, events: [], links: [],
  };
}

const counter = (t: number, v: number) => [t, v] as const;
const reqPoints = Array.from({ length: 30 }, (_, i) => counter(T0 - 10 * MIN + i * MIN, i * 6));

void describe('DetectorData over the DuckDB store', () => {
  let dir = '';
  let store: TelemetryStore | undefined;
  const memory = new MemoryDetectorData().addLogs(logs).addSpans(spans).addSeries('http_requests_total', { job: 'api' }, reqPoints);
  let taken = 0;
  const real = (): StoreDetectorData => {
    if (!store) throw new Error('no store');
    return new StoreDetectorData(store, 'ten_a', () => { taken++; }, new ManualClock(T0 + 20 * MIN));
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sightline-detector-data-'));
    store = await openDuckdbStore(join(dir, 't.duckdb'));
    await store.write([
      { tenantId: 'ten_a', format: 'native', batch: { logs: logs.map(toEntry), spans: spans.map(toSpan) } },
      { tenantId: 'ten_a', format: 'remote_write', batch: { logs: [], spans: [], samples: reqPoints.map(([timeMs, value]) => ({ name: 'http_requests_total', labels: { job: 'api' }, timeMs, value })) } },
      { tenantId: 'ten_b', format: 'native', batch: { logs: logs.map(toEntry), spans: [] } },
    ], 1n);
  });
  after(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const sortRows = (rows: Record<string, unknown>[]) => rows.map((r) => JSON.stringify(Object.entries(r).sort())).sort();

  for (const query of ['* | stats count() as n', 'failed | stats by (service) count() as n', 'region:=eu | stats by (service, region) count() as n']) {
    void it(`logStats ${query}`, async () => {
      assert.deepEqual(sortRows(await real().logStats(query, W)), sortRows(await memory.logStats(query, W)));
    });
  }

  void it('logCounts: epoch-aligned buckets per group, empty buckets left out', async () => {
    const norm = (s: { labels: Record<string, string>; points: [number, number][] }[]) => s.map((x) => JSON.stringify(x)).sort();
    for (const [query, by] of [['failed', ['service']], ['*', []], ['region:=eu', ['region', 'service']]] as const) {
      assert.deepEqual(norm(await real().logCounts(query, W, 2 * MIN, by)), norm(await memory.logCounts(query, W, 2 * MIN, by)), query);
    }
  });

  void it('logLines: newest first, the fields asked for', async () => {
    assert.deepEqual(await real().logLines('failed', W, 3, ['service', 'region', 'missing']), await memory.logLines('failed', W, 3, ['service', 'region', 'missing']));
  });

  void it('PromQL instant and range reads give the engine\'s answer; a range covers [start, end)', async () => {
    const expr = 'rate(http_requests_total[5m])';
    assert.deepEqual(await real().promInstant(expr, W.endMs), await memory.promInstant(expr, W.endMs));
    assert.deepEqual(await real().promInstant('1 + 1', W.endMs), [{ labels: {}, value: 2 }]);
    const range = await real().promRange(expr, W, MIN);
    assert.deepEqual(range, await memory.promRange(expr, W, MIN));
    assert.equal(range[0]?.points.length, 10);
  });

  void it('spanDurations and oldestDataMs answer as the double does', async () => {
    const byName = (g: { service: string }[]) => [...g].sort((a, b) => a.service.localeCompare(b.service));
    assert.deepEqual(byName(await real().spanDurations(W, {}, 100)), byName(await memory.spanDurations(W, {}, 100)));
    assert.deepEqual(await real().spanDurations(W, { service: 'search' }, 1).then((g) => g.map((x) => [x.count, x.durationsMs.length])), [[2, 1]]);
    for (const [signal, query] of [['logs', undefined], ['logs', 'failed'], ['rum', undefined], ['traces', undefined], ['metrics', 'rate(http_requests_total[5m])']] as const) {
      assert.equal(await real().oldestDataMs(signal, query), await memory.oldestDataMs(signal, query), `${signal} ${query ?? ''}`);
    }
  });

  void it('every call takes one query from the gate; a spent gate defers before the store is asked', async () => {
    taken = 0;
    const d = real();
    await d.logStats('* | stats count()', W);
    await d.promInstant('up', W.endMs);
    await d.oldestDataMs('logs');
    assert.equal(taken, 3);
    assert.deepEqual(d.queries, ['* | stats count()', 'up', 'oldest logs']);
    if (!store) throw new Error('no store');
    const spent = new StoreDetectorData(store, 'ten_a', () => { throw new EvaluationDeferred(12, 300); }, new ManualClock());
    await assert.rejects(spent.logStats('* | stats count()', W), (e: unknown) =>
      e instanceof EvaluationDeferred && /query rate \(300\/min\) is spent; next try in 12 s/.test(e.message));
  });

  void it('a query the parser refuses is a DetectorQueryError naming the position', async () => {
    await assert.rejects(real().logStats('error AND (', W), (e: unknown) => e instanceof DetectorQueryError && /position|column|at /i.test(e.message));
    await assert.rejects(real().promInstant('rate(x[5m]', W.endMs), (e: unknown) => e instanceof DetectorQueryError && /1:\d+: parse error/.test(e.message));
  });

  void it('metricNames lists the names a PromQL expression reads, none when a selector has no fixed name', () => {
    assert.deepEqual(metricNames(parsePromql('sum(rate(b_total[5m])) / sum(rate(a_total[5m]))')), ['a_total', 'b_total']);
    assert.deepEqual(metricNames(parsePromql('up + {job="x"}')), []);
  });
});
