// The write-path A/B (write-ab.ts) on this checkout against itself: both sides' writes land whole in their own
// stores, in turns, and only the writes past the warm-up are counted.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseLogsql } from '../src/query/logsql/parser.js';
import { ndjsonBodies } from './load.js';
import { openSide, writeInTurns, type Side } from './write-ab.js';

/** The checkout this test runs from (dist/bench/ is two levels down). */
const CHECKOUT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

test('both sides store every write, and count the rows and CPU of all but the first two', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'write-ab-test-'));
  const sides: Side[] = [];
  try {
    sides.push(await openSide(CHECKOUT, join(dir, 'a.duckdb')), await openSide(CHECKOUT, join(dir, 'b.duckdb')));
    const bodies = ndjsonBodies(2, 20_000, 40_000);
    const rowsPerWrite = bodies.reduce((n, b) => n + b.entries, 0);
    await writeInTurns(sides, bodies.map((b) => b.body), 5);
    for (const side of sides) {
      assert.equal(side.rows, 3 * rowsPerWrite, 'writes 3 to 5 counted');
      assert.ok(side.cpuMicros > 0);
      assert.equal(side.position, 5n);
      const stats = await side.store.searchLogs('write-ab', parseLogsql('* | stats count() n', 0n), {}, 10);
      assert.deepEqual(stats, [{ n: String(5 * rowsPerWrite) }]);
    }
  } finally {
    for (const s of sides) await s.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
