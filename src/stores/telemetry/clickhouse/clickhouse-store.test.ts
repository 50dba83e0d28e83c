// The store contract on the real ClickHouse engine in-process (chdb; issue 11 item 3), each store in its own database
// on one engine, plus what only this backend has to show: exactly-once writes by insert deduplication tokens (issue 11
// item 4) and its schema.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { log, logsBatch, span, spansBatch, telemetryStoreContract } from '../telemetry-store.contract.js';
import type { TelemetryStore } from '../telemetry-store.js';
import type { ClickhouseTelemetryStore } from './clickhouse-store.js';
import { peekLogs } from './peek-logs.js';
import { startTestEngine, type TestEngine } from './test-engine.js';

const enginePromise = startTestEngine();
after(async () => (await enginePromise).close());

telemetryStoreContract('clickhouse (chdb in-process)', async (key) => (await enginePromise).open(key), peekLogs);

const traceOf = (s: TelemetryStore) => s.getTrace('t1', span().traceId);

void describe('clickhouse store', () => {
  let engine: TestEngine;
  let n = 0;
  before(async () => { engine = await enginePromise; });
  const fresh = (): Promise<ClickhouseTelemetryStore> => engine.open(`fresh-${process.pid}-${n++}`);

  void test('the same write at the same WAL position twice stores its rows once (the engine drops the repeat by token)', async () => {
    const s = await fresh();
    try {
      const spans = [span({ spanId: 'a'.repeat(16) }), span({ spanId: 'b'.repeat(16), startNs: 1n })];
      const batch = [spansBatch('t1', spans), { tenantId: 't1', format: 'remote_write', batch: { logs: [], spans: [], samples: [{ name: 'up', labels: {}, timeMs: 1000, value: 1 }] } }];
      // A crash after the inserts and before the checkpoint: the rows are in, the position is not.
      await s.write(batch, 10n);
      await s.exec.command(`DELETE FROM wal_state WHERE slot = 'done'`);
      const reopened = await engine.open(`fresh-${process.pid}-${n - 1}`);
      assert.equal(await reopened.walPosition(), 0n, 'the checkpoint is gone, as after a crash before it');
      await reopened.write(batch, 10n);
      assert.equal((await traceOf(reopened)).length, 2);
      assert.equal((await reopened.metrics.select('t1', [{ name: '__name__', type: '=', value: 'up' }], 0, 2000))[0]?.samples.length, 1);
      const count = await reopened.exec.query('SELECT count() AS n FROM samples');
      assert.equal(Number(count[0]?.n), 1, 'the sample row is there once, not hidden by a read-side dedup');
      assert.equal(await reopened.walPosition(), 10n);
    } finally {
      await s.close();
    }
  });

  void test('a replay that batches more records than the crashed write: the crashed part is deduplicated, the rest stored', async () => {
    const s = await fresh();
    try {
      const rec = (i: number) => spansBatch('t1', [span({ spanId: String(i).padStart(16, '0'), startNs: BigInt(i) })]);
      await s.write([rec(0)], 5n);
      // The crashed write: records 1-2 up to position 20, inserted, never checkpointed.
      await s.write([rec(1), rec(2)], 20n);
      await s.exec.command(`DELETE FROM wal_state WHERE slot = 'done' AND end_pos = 20`);
      const again = await engine.open(`fresh-${process.pid}-${n - 1}`);
      assert.equal(await again.walPosition(), 5n);
      // The replay drains records 1-4 in one write, up to position 40.
      await again.write([rec(1), rec(2), rec(3), rec(4)], 40n);
      assert.deepEqual((await traceOf(again)).map((x) => Number(x.spanId)), [0, 1, 2, 3, 4]);
      assert.equal(await again.walPosition(), 40n);
      const count = await again.exec.query('SELECT count() AS n FROM spans');
      assert.equal(Number(count[0]?.n), 5);
    } finally {
      await s.close();
    }
  });

  void test('writers sharing a database keep their own WAL positions and tokens', async () => {
    const key = `shared-${process.pid}`;
    const a = await engine.open(key, 'ingest-a');
    const b = await engine.open(key, 'ingest-b');
    try {
      await a.write([spansBatch('t1', [span({ spanId: 'a'.repeat(16) })])], 100n);
      await b.write([spansBatch('t1', [span({ spanId: 'b'.repeat(16) })])], 100n);
      await b.write([spansBatch('t1', [span({ spanId: 'c'.repeat(16) })])], 50n);
      assert.equal(await a.walPosition(), 100n);
      assert.equal(await b.walPosition(), 100n);
      assert.deepEqual((await traceOf(a)).map((x) => x.spanId).sort(), ['a'.repeat(16), 'b'.repeat(16)]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  void test('migrations are recorded and a reopen runs none again', async () => {
    const s = await fresh();
    try {
      const versions = (await s.exec.query('SELECT DISTINCT version FROM schema_migrations ORDER BY version')).map((r) => Number(r.version));
      assert.ok(versions.length >= 8 && versions[0] === 1, versions.join(','));
      const engines = await s.exec.query(`SELECT name, sorting_key, partition_key FROM system.tables WHERE database = currentDatabase() AND name = 'spans'`);
      assert.deepEqual(engines[0], { name: 'spans', sorting_key: 'tenant_id, service, name, start_ns', partition_key: 'intDiv(start_ns, 86400000000000)' });
    } finally {
      await s.close();
    }
  });

  void test('a retention delete leaves other tenants and newer rows, and counts what went', async () => {
    const s = await fresh();
    try {
      await s.write([
        spansBatch('t1', [span({ spanId: '1'.repeat(16), startNs: 10n }), span({ spanId: '2'.repeat(16), startNs: 3n * 86_400_000_000_000n })]),
        spansBatch('t2', [span({ spanId: '3'.repeat(16), startNs: 10n })]),
        { tenantId: 't1', format: 'replay', batch: { logs: [], spans: [], replay: [{ sessionId: 's', seq: 0, startNs: 1n, endNs: 2n, eventsJson: '[]', eventCount: 0, page: '', user: '' }] } },
      ], 1n);
      assert.equal(await s.deleteOlderThan('t1', 86_400_000_000_000n), 2);
      assert.deepEqual((await traceOf(s)).map((x) => x.spanId), ['2'.repeat(16)]);
      assert.equal((await s.getTrace('t2', span().traceId)).length, 1);
      assert.deepEqual(await s.getReplay('t1', 's'), []);
      assert.equal(await s.deleteOlderThan('t1', 86_400_000_000_000n), 0);
    } finally {
      await s.close();
    }
  });

  void test('a log row written by a batch is kept with its format (peek)', async () => {
    const s = await fresh();
    try {
      await s.write([logsBatch('t1', [log({ msg: 'x' })], 'loki')], 1n);
      assert.deepEqual((await peekLogs(s, 't1')).map((r) => [r.format, r.entry.msg]), [['loki', 'x']]);
    } finally {
      await s.close();
    }
  });

  void test('store.write throughput (figure only): one JSONEachRow insert per table per write', async (t) => {
    const s = await fresh();
    try {
      const fields = { 'http.method': 'GET', 'http.status': 200, host: 'web-1', 'k8s.pod': 'pod-abc' };
      let best = 0;
      for (let k = 0; k < 3; k++) {
        const rows = Array.from({ length: 20_000 }, (_, i) => log({ timeNs: BigInt(k * 20_000 + i), msg: `GET /api/v1/users/${i} 200 12ms`, fields }));
        const t0 = performance.now();
        await s.write([logsBatch('t1', rows)], BigInt(k + 1));
        best = Math.max(best, 20_000 / ((performance.now() - t0) / 1000));
      }
      t.diagnostic(`clickhouse store.write: ${Math.round(best)} log rows/s (20k-row batches, chdb in-process)`);
    } finally {
      await s.close();
    }
  });
});
