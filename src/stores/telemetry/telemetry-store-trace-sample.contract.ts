// The read deep RCA adds to the telemetry store (DESIGN §9 `ai/deep-rca`, issue 10): whole traces sampled from a
// window, with or without an error. Registered by telemetry-store.contract.ts inside its suite, so every backend runs it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TelemetryStore } from './telemetry-store.js';
import { span, spansBatch } from './telemetry-store.contract.js';

type WithStore = (fn: (s: TelemetryStore) => Promise<void>) => Promise<void>;

const MS = 1_000_000n;
const T0 = 1_700_000_000_000n * MS;

/** A two-span trace (api → db) starting at T0 + i ms; the db span fails when `error`. */
function trace(i: number, error: boolean, tenant = 't1') {
  const traceId = i.toString(16).padStart(32, '0');
  return spansBatch(tenant, [
    span({ traceId, spanId: `${i}a`.padStart(16, '0'), service: 'api', startNs: T0 + BigInt(i) * MS, durationNs: 5n * MS }),
    span({ traceId, spanId: `${i}b`.padStart(16, '0'), parentSpanId: `${i}a`.padStart(16, '0'), service: 'db',
      startNs: T0 + BigInt(i) * MS + MS, durationNs: 2n * MS, statusCode: error ? 2 : 0 }),
  ]);
}

export function traceSampleContract(withStore: WithStore): void {
  void test('sampleTraces: whole traces in the range, by error status and service, a bounded and repeatable pick', () => withStore(async (s) => {
    await s.write([...Array.from({ length: 10 }, (_, i) => trace(i, i % 3 === 0)), trace(50, true, 't2')], 1n);
    const range = { startNs: T0, endNs: T0 + 9n * MS };
    const ids = (spans: { traceId: string }[]) => [...new Set(spans.map((x) => parseInt(x.traceId, 16)))].sort((a, b) => a - b);
    const errors = await s.sampleTraces('t1', range, { status: 'error' }, 100);
    assert.deepEqual(ids(errors), [0, 3, 6], 'trace 9 starts at the range end (half-open)');
    assert.equal(errors.length, 6, 'every span of a picked trace, the parent included');
    const [root, child] = errors;
    assert.ok(root && child);
    assert.equal(root.service, 'api', 'spans by trace, then start');
    assert.equal(child.parentSpanId, root.spanId);
    assert.deepEqual(ids(await s.sampleTraces('t1', range, { status: 'ok' }, 100)), [1, 2, 4, 5, 7, 8]);
    assert.deepEqual(ids(await s.sampleTraces('t1', range, {}, 100)), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert.deepEqual(await s.sampleTraces('t1', range, { service: 'cache' }, 100), []);
    const some = await s.sampleTraces('t1', range, { service: 'db' }, 4);
    assert.equal(ids(some).length, 4);
    assert.deepEqual(await s.sampleTraces('t1', range, { service: 'db' }, 4), some, 'the same data gives the same sample');
    assert.deepEqual(ids(await s.sampleTraces('t2', {}, {}, 10)), [50]);
  }));
}
