// DuckDB's thread count while writes keep coming (write-threads.ts): down to the cores the two JS threads leave, at
// least one, for as long as writes follow each other; back to the idle count once none has started for `idleMs`; left
// alone on a machine with cores to spare. And on a real store: a write leaves DuckDB at one thread on two cores, and
// a second later queries have both back.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { log, logsBatch } from '../telemetry-store.contract.js';
import { openDuckdbStore } from './duckdb-store.js';
import { WriteThreads } from './write-threads.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recorder(normal: number, cores: number, idleMs = 30): { threads: WriteThreads; queued: number[]; here: number[]; setHere: (n: number) => Promise<void> } {
  const queued: number[] = [];
  const here: number[] = [];
  const threads = new WriteThreads({ normal, cores, idleMs, set: (n) => { queued.push(n); return Promise.resolve(); } });
  return { threads, queued, here, setHere: (n) => { here.push(n); return Promise.resolve(); } };
}

void describe('DuckDB threads while writing', () => {
  void test('two cores: one thread from the first write on, set once; both back after the idle time', async () => {
    const r = recorder(2, 2);
    assert.equal(r.threads.writingThreads, 1);
    await r.threads.writing(r.setHere);
    r.threads.written();
    await r.threads.writing(r.setHere);
    r.threads.written();
    assert.deepEqual(r.here, [1]);
    await sleep(80);
    assert.deepEqual(r.queued, [2]);
    await r.threads.writing(r.setHere);
    assert.deepEqual(r.here, [1, 1], 'the next write lowers them again');
    await r.threads.close();
  });

  void test('a write that starts within the idle time keeps the threads down', async () => {
    const r = recorder(2, 2, 60);
    await r.threads.writing(r.setHere);
    r.threads.written();
    await sleep(20);
    await r.threads.writing(r.setHere);
    await sleep(80);
    assert.deepEqual(r.queued, [], 'no restore while a write runs');
    r.threads.written();
    await sleep(100);
    assert.deepEqual(r.queued, [2]);
    await r.threads.close();
  });

  void test('cores to spare: the two JS threads keep two of eight; four cores with two DuckDB threads: left alone', async () => {
    const eight = recorder(8, 8);
    assert.equal(eight.threads.writingThreads, 6);
    await eight.threads.writing(eight.setHere);
    assert.deepEqual(eight.here, [6]);
    await eight.threads.close();
    const four = recorder(2, 4);
    await four.threads.writing(four.setHere);
    four.threads.written();
    await sleep(60);
    assert.deepEqual([...four.here, ...four.queued], []);
    await four.threads.close();
  });

  void test('closing brings every thread back at once, and no restore comes after', async () => {
    const r = recorder(2, 2);
    await r.threads.writing(r.setHere);
    r.threads.written();
    await r.threads.close();
    assert.deepEqual(r.queued, [2]);
    await sleep(80);
    assert.deepEqual(r.queued, [2]);
  });

  void test('a real store on two cores: one DuckDB thread right after a write, two a second later', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sightline-threads-'));
    const store = await openDuckdbStore(join(dir, 'telemetry.duckdb'), { cores: 2 });
    try {
      const threads = async () => Number((await store.reader.all("SELECT current_setting('threads') AS n", []))[0]?.n);
      const idle = await threads();
      await store.write([logsBatch('t1', [log({ msg: 'one' })])], 10n);
      assert.equal(await threads(), 1);
      await sleep(1300);
      assert.equal(await threads(), idle);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
