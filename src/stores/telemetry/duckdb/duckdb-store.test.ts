// The store contract on DuckDB (a temp file), plus what only this backend can show: its write is one
// transaction even when it fails part-way, and reads on their own connection are not held behind a write.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { FieldValue } from '../../../model/log-entry.js';
import { log, logsBatch, span, spansBatch, telemetryStoreContract } from '../telemetry-store.contract.js';
import { openDuckdbStore, type DuckdbTelemetryStore } from './duckdb-store.js';
import { openDuckdbWorkerStore } from './worker-store.js';
import { peekDuckdbLogs } from './peek-logs.js';

const fileOf = (dir: string) => join(dir, 'telemetry.duckdb');

const peek = peekDuckdbLogs;

telemetryStoreContract('duckdb', (dir) => openDuckdbStore(fileOf(dir)), peek);
// The same store behind its worker thread, as the service runs it (worker-store.ts).
telemetryStoreContract('duckdb in a worker thread', (dir) => openDuckdbWorkerStore(fileOf(dir)), peek);

void describe('duckdb store', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  async function fresh(): Promise<DuckdbTelemetryStore> {
    const dir = await mkdtemp(join(tmpdir(), 'sightline-duckdb-'));
    dirs.push(dir);
    return openDuckdbStore(fileOf(dir));
  }

  void test('a write that fails part-way leaves neither its rows nor its position', async () => {
    const s = await fresh();
    try {
      await s.write([logsBatch('t1', [log({ msg: 'before' })])], 10n);
      const good = logsBatch('t1', Array.from({ length: 5000 }, (_, i) => log({ msg: `row ${i}` })));
      // A value the appender refuses, after 5000 good rows and a span batch have gone in.
      const bad = logsBatch('t1', [log({ msg: null as unknown as string })]);
      await assert.rejects(s.write([good, spansBatch('t1', [span()]), bad], 20n));
      assert.equal(await s.walPosition(), 10n);
      assert.deepEqual((await peek(s, 't1')).map((r) => r.entry.msg), ['before']);
      assert.deepEqual(await s.getTrace('t1', span().traceId), []);
      await s.write([good], 20n); // the connection is usable again
      assert.equal((await peek(s, 't1')).length, 5001);
    } finally {
      await s.close();
    }
  });

  void test('a query runs while a large write is in progress, without waiting for it', async () => {
    const s = await fresh();
    try {
      const rows = Array.from({ length: 60_000 }, (_, i) => log({ timeNs: BigInt(i), msg: `m${i}` }));
      let writeDone = false;
      const writing = s.write([logsBatch('t1', rows)], 1n).then(() => { writeDone = true; });
      await new Promise((r) => setImmediate(r));
      const seen = await s.reader.all('SELECT count(*) AS n FROM logs', []);
      assert.equal(writeDone, false, 'the read finished first');
      assert.equal(seen[0]?.n, 0n, 'and saw the last commit, not the write in flight');
      await writing;
    } finally {
      await s.close();
    }
  });

  void test('store.write throughput (figure only)', async (t) => {
    const s = await fresh();
    try {
      const fields: Record<string, FieldValue> = { 'http.method': 'GET', 'http.status': 200, host: 'web-1', 'k8s.pod': 'pod-abc' };
      const mk = (k: number) => Array.from({ length: 50_000 }, (_, i) => log({
        timeNs: BigInt(k * 50_000 + i), msg: `GET /api/v1/users/${i} 200 12ms`, fields,
      }));
      let best = 0;
      for (let k = 0; k < 3; k++) {
        const batch = logsBatch('t1', mk(k));
        const t0 = performance.now();
        await s.write([batch], BigInt(k + 1));
        best = Math.max(best, 50_000 / ((performance.now() - t0) / 1000));
      }
      t.diagnostic(`store.write: ${Math.round(best)} log rows/s (50k-row batches)`);
    } finally {
      await s.close();
    }
  });
});
