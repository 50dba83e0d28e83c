// Exactly once across SIGKILL (DESIGN §1: "A crash after a 200 loses nothing"): a child process appends
// numbered entries through the WAL into a real DuckDB store and prints each acked id; it is killed
// mid-stream twice, and after replay every acked id must be stored exactly once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { openDuckdbStore } from '../stores/telemetry/duckdb/duckdb-store.js';
import { openWal } from './wal.js';

const CHILD = fileURLToPath(new URL('../../test/support/wal-crash-child.js', import.meta.url));

/** Runs the child until it has acked at least `acks` ids, SIGKILLs it, and returns the acked ids. */
function runAndKill(dir: string, firstId: number, acks: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, String(firstId)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const ids: number[] = [];
    let partial = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => { killed = true; child.kill('SIGKILL'); }, 20_000);
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.stdout.on('data', (d: Buffer) => {
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l !== 'ready') ids.push(Number(l));
      if (!killed && ids.length >= acks) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`child exited with ${code}: ${stderr}`));
      else if (ids.length < acks) reject(new Error(`child acked only ${ids.length} ids: ${stderr}`));
      else resolve(ids);
    });
  });
}

void test('every acknowledged entry is stored exactly once after SIGKILL and replay', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sightline-crash-'));
  try {
    const acked = [...await runAndKill(dir, 0, 3000), ...await runAndKill(dir, 10_000_000, 3000)];
    const store = await openDuckdbStore(join(dir, 'telemetry.duckdb'));
    try {
      const wal = await openWal({ dir: join(dir, 'wal'), store, maxBytes: 1 << 30 });
      const { replayedRecords } = wal.stats();
      await wal.close();
      const rows = await store.reader.all('SELECT msg, count(*) AS n FROM logs GROUP BY msg', []);
      const dupes = rows.filter((r) => r.n !== 1n).map((r) => r.msg);
      assert.deepEqual(dupes, [], 'no entry is stored twice');
      const stored = new Set(rows.map((r) => r.msg));
      const lost = acked.filter((id) => !stored.has(`e${id}`));
      assert.deepEqual(lost, [], 'no acknowledged entry is lost');
      t.diagnostic(`${acked.length} ids acked before two SIGKILLs, ${rows.length} entries stored, ${replayedRecords} records replayed by the last open`);
      const spans = await store.reader.all('SELECT span_id FROM spans GROUP BY span_id HAVING count(*) > 1', []);
      assert.deepEqual(spans, [], 'no span is stored twice');
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
