// The reads detectors add to the telemetry store (DESIGN §8): span durations per (service, name) and the oldest
// stored data of a signal. Registered by telemetry-store.contract.ts inside its suite, so every backend runs it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TelemetryStore } from './telemetry-store.js';
import { log, logsBatch, span, spansBatch } from './telemetry-store.contract.js';
import { parseLogsql } from '../../query/logsql/parser.js';

type WithStore = (fn: (s: TelemetryStore) => Promise<void>) => Promise<void>;

const MS = 1_000_000n;
const T0 = 1_700_000_000_000n * MS;

export function detectorReadsContract(withStore: WithStore): void {
  void test('spanDurations: per (service, name) in the range, durations in ms ascending, errors counted, a bounded sample', () => withStore(async (s) => {
    const spans = [
      ...Array.from({ length: 10 }, (_, i) => span({
        spanId: `a${i}`.padStart(16, '0'), service: 'api', name: 'GET /', startNs: T0 + BigInt(i) * MS, durationNs: BigInt(10 - i) * MS,
        statusCode: i < 3 ? 2 : 0,
      })),
      span({ spanId: 'b'.repeat(16), service: 'db', name: 'query', startNs: T0, durationNs: 1_500_000n }),
      span({ spanId: 'c'.repeat(16), service: 'api', name: 'GET /', startNs: T0 + 100n * MS, durationNs: MS }),
    ];
    await s.write([spansBatch('t1', spans), spansBatch('t2', [span({ service: 'other' })])], 1n);
    const range = { startNs: T0, endNs: T0 + 100n * MS };
    const all = await s.spanDurations('t1', range, {}, 100);
    assert.deepEqual(all, [
      { service: 'api', name: 'GET /', count: 10, errorCount: 3, durationsMs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
      { service: 'db', name: 'query', count: 1, errorCount: 0, durationsMs: [1.5] },
    ], 'the span at the range end is outside it (half-open)');
    assert.deepEqual((await s.spanDurations('t1', range, { service: 'db' }, 100)).map((g) => g.service), ['db']);
    assert.deepEqual(await s.spanDurations('t1', range, { service: 'api', name: 'POST /' }, 100), []);
    const sampled = await s.spanDurations('t1', range, { service: 'api' }, 4);
    const [first] = sampled;
    assert.ok(first);
    assert.equal(first.count, 10);
    assert.equal(first.durationsMs.length, 4);
    assert.deepEqual(await s.spanDurations('t1', range, { service: 'api' }, 4), sampled, 'the same data gives the same sample');
    assert.deepEqual(await s.spanDurations('t3', {}, {}, 10), []);
  }));

  void test('oldestData: per signal and tenant; logs through a LogsQL filter, RUM as browser logs, metrics by name', () => withStore(async (s) => {
    const t = (ms: bigint) => T0 + ms * MS;
    await s.write([
      logsBatch('t1', [
        log({ timeNs: t(5000n), msg: 'boot', service: 'api' }),
        log({ timeNs: t(2000n), msg: 'error early', service: 'web' }),
        log({ timeNs: t(9000n), msg: 'click', fields: { 'telemetry.sdk.language': 'webjs' } }),
      ]),
      logsBatch('t2', [log({ timeNs: t(0n) })]),
      spansBatch('t1', [span({ startNs: t(7000n) })]),
      {
        tenantId: 't1', format: 'remote_write', batch: {
          logs: [], spans: [], samples: [
            { name: 'up', labels: { job: 'a' }, timeMs: 1_700_000_003_000, value: 1 },
            { name: 'http_requests_total', labels: {}, timeMs: 1_700_000_001_000, value: 1 },
          ],
        },
      },
    ], 1n);
    const base = 1_700_000_000_000;
    assert.equal(await s.oldestData('t1', { signal: 'logs' }), base + 2000);
    assert.equal(await s.oldestData('t1', { signal: 'logs', query: parseLogsql('service:=api', 0n) }), base + 5000);
    assert.equal(await s.oldestData('t1', { signal: 'logs', query: parseLogsql('nothing_matches_this', 0n) }), null);
    assert.equal(await s.oldestData('t1', { signal: 'rum' }), base + 9000);
    assert.equal(await s.oldestData('t1', { signal: 'traces' }), base + 7000);
    assert.equal(await s.oldestData('t1', { signal: 'metrics' }), base + 1000);
    assert.equal(await s.oldestData('t1', { signal: 'metrics', names: ['up'] }), base + 3000);
    assert.equal(await s.oldestData('t1', { signal: 'metrics', names: ["it's missing"] }), null);
    assert.equal(await s.oldestData('t2', { signal: 'logs' }), base);
    assert.equal(await s.oldestData('t2', { signal: 'traces' }), null);
    assert.equal(await s.oldestData('t3', { signal: 'rum' }), null);
  }));
}
