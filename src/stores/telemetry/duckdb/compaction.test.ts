// Compaction at a clean stop (compaction.ts, issue 12 item 3): the file loses its free blocks and nothing else.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { log, logsBatch } from '../telemetry-store.contract.js';
import { mulberry32 } from '../../../testing/prng.js';
import type { CloseOptions } from '../telemetry-store.js';
import { openDuckdbStore, type DuckdbStoreOptions, type DuckdbTelemetryStore } from './duckdb-store.js';
import { openDuckdbWorkerStore } from './worker-store.js';
import { DEFAULT_COMPACTION, compactionPathOf, reasonToSkip } from './compaction.js';

const HOUR_NS = 3_600_000_000_000n;
/** Any free block is worth a copy, and copies are taken to be quick, so the tests decide when one is made. */
const EAGER: DuckdbStoreOptions = { compaction: { minFreeBlocks: 1, minFreeShare: 0.01, bytesPerMs: 1e12 } };

/** 120,000 log rows an hour for `hours` hours, with unique ids in them so the file has some size. */
async function fill(s: DuckdbTelemetryStore, hours: number): Promise<void> {
  const random = mulberry32(12);
  const hex = () => Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
  for (let h = 0; h < hours; h++) {
    const rows = Array.from({ length: 120_000 }, (_, i) => log({
      timeNs: BigInt(h) * HOUR_NS + BigInt(i), msg: `request ${hex()}${hex()} done in ${i % 500} ms`, traceId: `${hex()}${hex()}${hex()}${hex()}`,
    }));
    await s.write([logsBatch('t1', rows)], BigInt(h + 1));
  }
}

async function count(s: DuckdbTelemetryStore): Promise<bigint> {
  return (await s.reader.all('SELECT count(*) AS n FROM logs', []))[0]?.n as bigint;
}

void describe('compaction of the DuckDB file at a clean stop', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  async function freshPath(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'sightline-compact-'));
    dirs.push(dir);
    return join(dir, 'telemetry.duckdb');
  }
  /** A file of four hours of rows whose oldest two retention has dropped: their blocks are free in the file. */
  async function withFreeBlocks(path: string, open = openDuckdbStore): Promise<DuckdbTelemetryStore> {
    const s = await open(path, EAGER);
    await fill(s, 4);
    assert.equal(await s.deleteOlderThan('t1', 2n * HOUR_NS), 240_000);
    return s;
  }

  /** A file with free blocks, closed, and its size. */
  async function closedWithFreeBlocks(): Promise<{ path: string; before: number }> {
    const path = await freshPath();
    await (await withFreeBlocks(path)).close();
    return { path, before: (await stat(path)).size };
  }
  /** Opens the store at `path` and closes it as `close` says; what the close reported. */
  async function reportsOfClose(path: string, options: DuckdbStoreOptions, close: CloseOptions): Promise<string[]> {
    const lines: string[] = [];
    await (await openDuckdbStore(path, options)).close({ ...close, report: (l) => lines.push(l) });
    return lines;
  }

  for (const [where, open] of [['in-process', openDuckdbStore], ['in its worker thread', openDuckdbWorkerStore]] as const) {
    void test(`a clean stop copies the file without its free blocks; every row and the WAL position are kept (${where})`, async () => {
      const path = await freshPath();
      const s = await withFreeBlocks(path, open);
      const lines: string[] = [];
      // Closed once without compaction, to see the size that the copy then shrinks.
      await s.close();
      const before = (await stat(path)).size;
      const again = await open(path, EAGER);
      await again.close({ compactWithinMs: 60_000, report: (l) => lines.push(l) });
      const after = (await stat(path)).size;
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0] ?? '', /compacted .* MB \(\d+ of \d+ blocks were free\) in \d+ ms/);
      assert.ok(after < before * 0.8, `${before} → ${after} bytes`);
      await assert.rejects(stat(compactionPathOf(path)), 'the copy is gone: it is the file now');
      const reopened = await openDuckdbStore(path);
      try {
        assert.equal(await count(reopened), 240_000n);
        assert.equal(await reopened.walPosition(), 4n);
        const oldest = await reopened.reader.all('SELECT min(time_ns) AS t FROM logs', []);
        assert.equal(oldest[0]?.t, 2n * HOUR_NS);
        await reopened.write([logsBatch('t1', [log({ timeNs: 5n * HOUR_NS, msg: 'after the copy' })])], 5n);
        assert.equal(await count(reopened), 240_001n);
      } finally {
        await reopened.close();
      }
    });
  }

  void test('a copy not expected to end in the time given is not started, and the file stays as it was', async () => {
    const { path, before } = await closedWithFreeBlocks();
    const slow: DuckdbStoreOptions = { compaction: { ...DEFAULT_COMPACTION, minFreeBlocks: 1, minFreeShare: 0.01, bytesPerMs: 1 } };
    const lines = await reportsOfClose(path, slow, { compactWithinMs: 5_000 });
    assert.equal((await stat(path)).size, before);
    assert.match(lines.join('\n'), /not compacted: a copy would take about \d+ ms, more than the 5000 ms left/);
  });

  void test('a copy that reaches its time limit is dropped, and the file stays as it was', async () => {
    const { path, before } = await closedWithFreeBlocks();
    const lines = await reportsOfClose(path, EAGER, { compactWithinMs: 1 });
    assert.equal((await stat(path)).size, before);
    assert.match(lines.join('\n'), /compaction stopped at its 1 ms limit; the file is as it was/);
    await assert.rejects(stat(compactionPathOf(path)));
    const reopened = await openDuckdbStore(path);
    assert.equal(await count(reopened), 240_000n);
    await reopened.close();
  });

  void test('no compaction without a time for it, or under the thresholds', async () => {
    const { path, before } = await closedWithFreeBlocks();
    const lines = await reportsOfClose(path, EAGER, {});
    assert.equal((await stat(path)).size, before);
    assert.deepEqual(lines, []);
    const space = { totalBlocks: 400, freeBlocks: 19, blockSize: 262_144 };
    assert.match(reasonToSkip(space, 60_000, DEFAULT_COMPACTION) ?? '', /19 of 400 blocks free, under the threshold/);
    assert.equal(reasonToSkip({ ...space, freeBlocks: 20 }, 60_000, DEFAULT_COMPACTION), null);
    assert.equal(reasonToSkip({ ...space, totalBlocks: 100, freeBlocks: 15 }, 60_000, DEFAULT_COMPACTION)?.includes('under'), true);
  });

  void test('a copy a crash left behind is removed at open, never read', async () => {
    const path = await freshPath();
    await (await openDuckdbStore(path)).close();
    await writeFile(compactionPathOf(path), 'half a copy');
    await writeFile(`${compactionPathOf(path)}.wal`, 'its WAL');
    const s = await openDuckdbStore(path);
    await s.close();
    await assert.rejects(stat(compactionPathOf(path)));
    await assert.rejects(stat(`${compactionPathOf(path)}.wal`));
  });
});
