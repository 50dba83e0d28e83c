// The one contract every telemetry store backend passes (DESIGN §1: "The same test suite runs against
// every backend that is present"; STYLE.md habit 3). A backend's test file calls telemetryStoreContract.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { TenantBatch } from '../../model/batch.js';
import type { LogEntry } from '../../model/log-entry.js';
import type { Span } from '../../model/span.js';
import type { TelemetryStore } from './telemetry-store.js';
import { staleMarker } from '../../model/metric.js';
import { nsToRfc3339 } from '../../model/time.js';
import { detectorReadsContract } from './telemetry-store-detectors.contract.js';
import { traceSampleContract } from './telemetry-store-trace-sample.contract.js';
import { valueCountsContract } from './telemetry-store-value-counts.contract.js';
import { streamContract } from './telemetry-store-stream.contract.js';

/** Opens the store kept under `key` (a fresh temp directory per test); the same key reopens the same data. */
export type OpenStore = (key: string) => Promise<TelemetryStore>;

/** A stored log row as written; the interface has no raw read, so each backend supplies this test-only view. */
export interface StoredLog {
  format: string;
  entry: LogEntry;
}
export type PeekLogs = (store: TelemetryStore, tenantId: string) => Promise<StoredLog[]>;

const T0 = 1_700_000_000_123_456_789n;

export function log(over: Partial<LogEntry> = {}): LogEntry {
  return {
    timeNs: T0, observedNs: T0 + 1n, service: 'api', severity: 'info', msg: 'hello', traceId: '', spanId: '',
    stream: '{service="api"}', fields: {}, ...over,
  };
}

export function span(over: Partial<Span> = {}): Span {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', parentSpanId: '', name: 'GET /', kind: 2,
    startNs: T0, durationNs: 1_000_000n, statusCode: 0, statusMessage: '', service: 'api', attributes: {}, resource: {},
    events: [], links: [], ...over,
  };
}

export function logsBatch(tenantId: string, logs: LogEntry[], format = 'native'): TenantBatch {
  return { tenantId, format, batch: { logs, spans: [] } };
}

export function spansBatch(tenantId: string, spans: Span[], format = 'otlp'): TenantBatch {
  return { tenantId, format, batch: { logs: [], spans } };
}

const byTime = (a: StoredLog, b: StoredLog) => (a.entry.timeNs < b.entry.timeNs ? -1 : a.entry.timeNs > b.entry.timeNs ? 1 : 0);

export function telemetryStoreContract(name: string, open: OpenStore, peek: PeekLogs): void {
  void describe(`telemetry store contract: ${name}`, () => {
    const dirs: string[] = [];
    after(async () => {
      for (const d of dirs) await rm(d, { recursive: true, force: true });
    });
    /** A fresh store, closed after `fn` even when it fails. */
    async function withStore(fn: (s: TelemetryStore, key: string) => Promise<void>): Promise<void> {
      const key = await mkdtemp(join(tmpdir(), 'sightline-store-'));
      dirs.push(key);
      const s = await open(key);
      try {
        await fn(s, key);
      } finally {
        await s.close();
      }
    }

    void test('a new store is at WAL position 0', () => withStore(async (s) => {
      assert.equal(await s.walPosition(), 0n);
    }));

    void test('write records its rows and the WAL position together, and the position only moves forward', () => withStore(async (s) => {
      await s.write([logsBatch('t1', [log({ msg: 'a' })])], 100n);
      assert.equal(await s.walPosition(), 100n);
      await s.write([logsBatch('t1', [log({ msg: 'b' })])], 250n);
      assert.equal(await s.walPosition(), 250n);
      assert.deepEqual((await peek(s, 't1')).map((r) => r.entry.msg).sort(), ['a', 'b']);
    }));

    void test('a write at or behind the recorded position is already in the store and is skipped (retries are idempotent)', () => withStore(async (s) => {
      await s.write([logsBatch('t1', [log({ msg: 'a' })])], 100n);
      await s.write([logsBatch('t1', [log({ msg: 'a' })])], 100n);
      await s.write([logsBatch('t1', [log({ msg: 'older' })])], 60n);
      assert.equal(await s.walPosition(), 100n);
      assert.deepEqual((await peek(s, 't1')).map((r) => r.entry.msg), ['a']);
    }));

    void test('a write without rows still moves the position (records of zero entries are drained too)', () => withStore(async (s) => {
      await s.write([], 40n);
      await s.write([logsBatch('t1', [])], 80n);
      assert.equal(await s.walPosition(), 80n);
    }));

    void test('metric samples are written with the batch and selected per tenant, stale markers kept', () => withStore(async (s) => {
      const t0 = 1_700_000_000_000;
      const samples = [
        { name: 'http_requests_total', labels: { job: 'api', code: '200' }, timeMs: t0, value: 1 },
        { name: 'http_requests_total', labels: { job: 'api', code: '200' }, timeMs: t0 + 15_000, value: 4 },
        { name: 'http_requests_total', labels: { job: 'api', code: '200' }, timeMs: t0 + 30_000, value: staleMarker() },
      ];
      const metadata = [{ name: 'http_requests_total', type: 'counter', help: 'Requests.', unit: '' }];
      await s.write([
        { tenantId: 't1', format: 'remote_write', batch: { logs: [], spans: [], samples, metadata } },
        { tenantId: 't2', format: 'remote_write', batch: { logs: [], spans: [], samples: samples.slice(0, 1) } },
      ], 5n);
      const matchers = [{ name: '__name__', type: '=' as const, value: 'http_requests_total' }];
      const got = await s.metrics.select('t1', matchers, t0, t0 + 60_000);
      assert.equal(got.length, 1);
      const [series] = got;
      assert.ok(series);
      assert.deepEqual(series.labels, { __name__: 'http_requests_total', job: 'api', code: '200' });
      assert.deepEqual(series.samples.slice(0, 2).map((x) => [x.t, x.v]), [[t0, 1], [t0 + 15_000, 4]]);
      assert.equal(series.samples.at(2)?.stale, true);
      assert.equal((await s.metrics.select('t2', matchers, t0, t0 + 60_000))[0]?.samples.length, 1);
      assert.deepEqual((await s.metrics.metadata('t1')).map((m) => m.type), ['counter']);
      assert.deepEqual(await s.metrics.metadata('t2'), []);
    }));

    void test('replay chunks come back per session in seq order, a retried chunk once', () => withStore(async (s) => {
      const chunk = (seq: number, ts: number) => ({
        sessionId: 'sess-1', seq, startNs: BigInt(ts) * 1_000_000n, endNs: BigInt(ts + 5) * 1_000_000n,
        eventsJson: JSON.stringify([{ type: 3, timestamp: ts }]), eventCount: 1, page: 'https://shop/', user: 'u1',
      });
      const batch = (chunks: ReturnType<typeof chunk>[]) => ({ tenantId: 't1', format: 'replay', batch: { logs: [], spans: [], replay: chunks } });
      await s.write([batch([chunk(1, 2000), chunk(0, 1000)])], 7n);
      await s.write([batch([chunk(1, 2000)])], 8n);
      const got = await s.getReplay('t1', 'sess-1');
      assert.deepEqual(got.map((c) => c.seq), [0, 1]);
      assert.equal(got[0]?.eventsJson, JSON.stringify([{ type: 3, timestamp: 1000 }]));
      const sessions = await s.listReplays('t1', {}, 10);
      assert.deepEqual(sessions.map((x) => [x.sessionId, x.chunks, x.events]), [['sess-1', 2, 2]]);
      assert.deepEqual(await s.getReplay('t2', 'sess-1'), []);
    }));

    void test('logs round-trip every column, ns exact and fields as JSON', () => withStore(async (s) => {
      const full = log({
        timeNs: 9_223_372_036_854_775_807n, observedNs: 1_700_000_000_000_000_001n, service: 'checkout',
        severity: 'ERROR', msg: 'naïve "quoted" ✓ \n line', traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7', stream: '{app="shop",env="prod"}',
        fields: { 'http.status': 503, 'k8s.pod.name': 'pod-1', ok: false, nothing: null, ratio: 0.25, tags: ['a', 'b'] },
      });
      const early = log({ timeNs: 1n, observedNs: 2n, msg: 'early', fields: {} });
      await s.write([logsBatch('t1', [full, early], 'loki')], 1n);
      const rows = (await peek(s, 't1')).sort(byTime);
      assert.deepEqual(rows, [{ format: 'loki', entry: early }, { format: 'loki', entry: full }]);
    }));

    void test('the log reads see a write as soon as it resolves, for its tenant only', () => withStore(async (s) => {
      const all = { filter: { kind: 'all' as const }, pipes: [] };
      await s.write([logsBatch('t1', [log({ msg: 'seen', fields: { user: 'ann' } })]), logsBatch('t2', [log({ msg: 'other' })])], 3n);
      const rows = await s.searchLogs('t1', all, {}, 10);
      assert.deepEqual(rows.map((r) => [r._msg, r._stream, r.service, r.user]), [['seen', '{service="api"}', 'api', 'ann']]);
      assert.equal((await s.logHits('t1', all, {}, 1_000_000_000n))[0]?.total, 1);
      assert.ok((await s.logFieldNames('t1', all, {})).some((v) => v.value === 'user' && v.hits === 1));
      assert.deepEqual(await s.logFieldValues('t1', all, {}, 'user', 10), [{ value: 'ann', hits: 1 }]);
    }));

    void test('facets: each field\'s most frequent values; constant, too varied and too long fields left out; one tenant', () => withStore(async (s) => {
      const all = { filter: { kind: 'all' as const }, pipes: [] };
      const shop = '{app="shop",env="prod"}';
      await s.write([logsBatch('t1', [
        log({ timeNs: T0, msg: 'm1', service: 'api', severity: 'error', stream: shop, fields: { user: 'ann', code: 500, id: 'a1', region: 'eu', tag: 'x', long: 'x'.repeat(40) } }),
        log({ timeNs: T0 + 1n, msg: 'm2', service: 'api', severity: 'info', stream: shop, fields: { user: 'bob', code: 200, id: 'a2', region: 'eu', tag: 'x' } }),
        log({ timeNs: T0 + 2n, msg: 'm3', service: 'web', severity: 'info', stream: '{app="web",env="prod"}', fields: { user: 'ann', code: 200, id: 'a3', region: 'eu', nothing: null } }),
      ]), logsBatch('t2', [log({ service: 'secret', stream: '{app="secret"}', fields: { user: 'zed', region: 'us' } })])], 1n);
      const opts = { limit: 10, maxValuesPerField: 2, maxValueLen: 30, keepConstFields: false };
      const facets = await s.logFacets('t1', all, {}, opts);
      assert.deepEqual(facets, [
        { field: '_stream', values: [{ value: shop, hits: 2 }, { value: '{app="web",env="prod"}', hits: 1 }] },
        { field: 'code', values: [{ value: '200', hits: 2 }, { value: '500', hits: 1 }] },
        { field: 'service', values: [{ value: 'api', hits: 2 }, { value: 'web', hits: 1 }] },
        { field: 'severity', values: [{ value: 'info', hits: 2 }, { value: 'error', hits: 1 }] },
        // One value, but not on every entry: it tells entries apart, so it stays.
        { field: 'tag', values: [{ value: 'x', hits: 2 }] },
        { field: 'user', values: [{ value: 'ann', hits: 2 }, { value: 'bob', hits: 1 }] },
      ]);
      const kept = await s.logFacets('t1', all, {}, { ...opts, limit: 1, keepConstFields: true });
      assert.deepEqual(kept.map((f) => [f.field, f.values]), [
        ['_stream', [{ value: shop, hits: 2 }]], ['code', [{ value: '200', hits: 2 }]], ['region', [{ value: 'eu', hits: 3 }]],
        ['service', [{ value: 'api', hits: 2 }]], ['severity', [{ value: 'info', hits: 2 }]], ['tag', [{ value: 'x', hits: 2 }]],
        ['user', [{ value: 'ann', hits: 2 }]],
      ]);
      const wide = await s.logFacets('t1', all, {}, { limit: 10, maxValuesPerField: 1000, maxValueLen: 128, keepConstFields: false });
      assert.deepEqual(wide.map((f) => f.field), ['_msg', '_stream', '_time', 'code', 'id', 'long', 'service', 'severity', 'tag', 'user']);
      assert.deepEqual(wide.find((f) => f.field === '_time')?.values.map((v) => v.value).sort(), [T0, T0 + 1n, T0 + 2n].map(nsToRfc3339));
      const api = { filter: { kind: 'exact' as const, field: 'service', value: 'api' }, pipes: [{ kind: 'limit' as const, n: 1 }] };
      const apiFacets = await s.logFacets('t1', api, {}, opts);
      assert.deepEqual(apiFacets.map((f) => f.field), ['_msg', '_time', 'code', 'id', 'severity', 'user'], 'the filter applies, the pipes do not');
      assert.deepEqual(await s.logFacets('t1', all, { startNs: T0 + 2n }, { ...opts, keepConstFields: true }).then((f) => f.find((x) => x.field === 'user')),
        { field: 'user', values: [{ value: 'ann', hits: 1 }] });
      assert.deepEqual((await s.logFacets('t2', all, {}, { ...opts, keepConstFields: true })).find((f) => f.field === 'user')?.values, [{ value: 'zed', hits: 1 }]);
      assert.deepEqual(await s.logFacets('t3', all, {}, opts), []);
    }));

    void test('stream field names and values come from the streams of the result, for the tenant only', () => withStore(async (s) => {
      const all = { filter: { kind: 'all' as const }, pipes: [] };
      await s.write([logsBatch('t1', [
        log({ stream: '{app="shop",env="prod"}' }), log({ stream: '{app="shop",env="prod"}' }),
        log({ stream: '{app="q\\"t",env="prod",zone="a b"}' }), log({ stream: '', service: 'web' }),
      ]), logsBatch('t2', [log({ stream: '{app="secret",team="b"}' })])], 1n);
      assert.deepEqual(await s.logStreamFieldNames('t1', all, {}), [
        { value: 'app', hits: 3 }, { value: 'env', hits: 3 }, { value: 'service', hits: 1 }, { value: 'zone', hits: 1 },
      ]);
      assert.deepEqual(await s.logStreamFieldValues('t1', all, {}, 'app', 0), [{ value: 'shop', hits: 2 }, { value: 'q"t', hits: 1 }]);
      assert.deepEqual(await s.logStreamFieldValues('t1', all, {}, 'app', 1), [{ value: 'shop', hits: 2 }]);
      assert.deepEqual(await s.logStreamFieldValues('t1', all, {}, 'zone', 10), [{ value: 'a b', hits: 1 }]);
      assert.deepEqual(await s.logStreamFieldValues('t1', all, {}, 'team', 10), []);
      const shop = { filter: { kind: 'stream' as const, matchers: [{ label: 'app', op: '=' as const, value: 'shop' }] }, pipes: [] };
      assert.deepEqual(await s.logStreamFieldNames('t1', shop, {}), [{ value: 'app', hits: 2 }, { value: 'env', hits: 2 }]);
      assert.deepEqual(await s.logStreamFieldNames('t2', all, {}), [{ value: 'app', hits: 1 }, { value: 'team', hits: 1 }]);
    }));

    void test('a log without a stream gets one derived from its service', () => withStore(async (s) => {
      await s.write([logsBatch('t1', [log({ stream: '', service: 'web', msg: 'x' }), log({ stream: '', service: '', msg: 'y' })])], 1n);
      const rows = await peek(s, 't1');
      assert.deepEqual(rows.map((r) => [r.entry.msg, r.entry.stream]).sort(), [['x', '{service="web"}'], ['y', '{}']]);
    }));

    void test('spans round-trip with events and links, and getTrace orders them by start', () => withStore(async (s) => {
      const root = span({
        spanId: 'aaaaaaaaaaaaaaaa', name: 'POST /pay', startNs: T0, durationNs: 5_000_000n, statusCode: 2,
        statusMessage: 'boom', kind: 2, attributes: { 'http.method': 'POST', retries: 2 }, resource: { 'service.name': 'api' },
        events: [{ timeNs: T0 + 7n, name: 'exception', attributes: { 'exception.type': 'Error' } }],
        links: [{ traceId: '0123456789abcdef0123456789abcdef', spanId: '0123456789abcdef', attributes: { why: 'retry' } }],
      });
      const child = span({ spanId: 'bbbbbbbbbbbbbbbb', parentSpanId: 'aaaaaaaaaaaaaaaa', name: 'db', kind: 3, startNs: T0 + 1000n, service: 'db' });
      await s.write([spansBatch('t1', [child, root])], 1n);
      assert.deepEqual(await s.getTrace('t1', root.traceId), [root, child]);
      assert.deepEqual(await s.getTrace('t2', root.traceId), [], 'another tenant sees nothing');
      assert.deepEqual(await s.getTrace('t1', 'ffffffffffffffffffffffffffffffff'), []);
    }));

    void test('findTraces groups spans by trace, filters, and lists the newest first', () => withStore(async (s) => {
      const id = (n: number) => n.toString(16).padStart(32, '0');
      const spans: Span[] = [];
      for (let n = 1; n <= 4; n++) {
        const start = T0 + BigInt(n) * 1_000_000_000n;
        spans.push(span({ traceId: id(n), spanId: `${n}`.padStart(16, 'a'), name: `root${n}`, service: 'front', startNs: start, durationNs: 100n }));
        spans.push(span({
          traceId: id(n), spanId: `${n}`.padStart(16, 'b'), parentSpanId: `${n}`.padStart(16, 'a'), name: n === 3 ? 'slow' : 'query',
          service: 'db', startNs: start + 10n, durationNs: BigInt(n) * 1000n, statusCode: n % 2 === 0 ? 2 : 0,
        }));
      }
      await s.write([spansBatch('t1', spans), spansBatch('t2', [span({ traceId: id(9), service: 'front' })])], 1n);
      const all = await s.findTraces('t1', { range: {}, limit: 10 });
      assert.deepEqual(all.map((t) => t.traceId), [id(4), id(3), id(2), id(1)]);
      assert.deepEqual(all[0], {
        traceId: id(4), rootService: 'front', rootName: 'root4', startNs: T0 + 4_000_000_000n, durationNs: 4010n,
        spanCount: 2, errorCount: 1,
      });
      const ids = async (f: Partial<Parameters<TelemetryStore['findTraces']>[1]>) =>
        (await s.findTraces('t1', { range: {}, limit: 10, ...f })).map((t) => t.traceId);
      assert.deepEqual(await ids({ limit: 2 }), [id(4), id(3)]);
      assert.deepEqual(await ids({ name: 'slow' }), [id(3)]);
      assert.deepEqual(await ids({ service: 'db', minDurationNs: 2000n }), [id(4), id(3), id(2)]);
      assert.deepEqual(await ids({ service: 'front', minDurationNs: 2000n }), [], 'filters hold for one span together');
      assert.deepEqual(await ids({ range: { startNs: T0 + 2_000_000_000n, endNs: T0 + 4_000_000_000n } }), [id(3), id(2)]);
      assert.deepEqual(await ids({ service: 'nope' }), []);
      assert.deepEqual(await ids({ status: 'error' }), [id(4), id(2)], 'traces with a failed span');
      assert.deepEqual(await ids({ status: 'error', name: 'slow' }), [], 'the failed span must pass the other filters too');
      assert.deepEqual((await s.findTraces('t2', { range: {}, limit: 10 })).map((t) => t.traceId), [id(9)]);
    }));

    void test('deleteOlderThan drops logs by time and spans by start, for that tenant only', () => withStore(async (s) => {
      const cut = T0 + 100n;
      await s.write([
        logsBatch('t1', [log({ timeNs: cut - 1n, msg: 'old' }), log({ timeNs: cut, msg: 'new' })]),
        spansBatch('t1', [span({ spanId: '1'.repeat(16), startNs: cut - 1n }), span({ spanId: '2'.repeat(16), startNs: cut })]),
        logsBatch('t2', [log({ timeNs: cut - 1n, msg: 'other tenant' })]),
        spansBatch('t2', [span({ startNs: cut - 1n })]),
      ], 5n);
      assert.equal(await s.deleteOlderThan('t1', cut), 2);
      assert.deepEqual((await peek(s, 't1')).map((r) => r.entry.msg), ['new']);
      assert.deepEqual((await s.getTrace('t1', span().traceId)).map((x) => x.spanId), ['2'.repeat(16)]);
      assert.equal((await peek(s, 't2')).length, 1);
      assert.equal((await s.getTrace('t2', span().traceId)).length, 1);
      assert.equal(await s.walPosition(), 5n, 'retention leaves the WAL position alone');
    }));

    detectorReadsContract(withStore);
    traceSampleContract(withStore);
    valueCountsContract(withStore);
    streamContract(withStore);

    void test('a reopened store keeps its rows and position', async () => {
      const key = await mkdtemp(join(tmpdir(), 'sightline-store-'));
      dirs.push(key);
      const first = await open(key);
      await first.write([logsBatch('t1', [log({ msg: 'kept' })]), spansBatch('t1', [span()])], 77n);
      await first.close();
      const again = await open(key);
      try {
        assert.equal(await again.walPosition(), 77n);
        assert.deepEqual((await peek(again, 't1')).map((r) => r.entry.msg), ['kept']);
        assert.deepEqual(await again.getTrace('t1', span().traceId), [span()]);
        await again.write([logsBatch('t1', [log({ msg: 'more' })])], 78n);
        assert.equal((await peek(again, 't1')).length, 2);
      } finally {
        await again.close();
      }
    });
  });
}
