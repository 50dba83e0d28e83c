// The WAL's rules (DESIGN §1): ack after fsync with group commit, exactly-once replay past the store's
// position, torn tails cut off, pressure thresholds, and a failing store retried without loss.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rm, stat, appendFile, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { after, describe, test } from 'node:test';
import type { TenantBatch } from '../model/batch.js';
import type { WalTarget } from '../stores/telemetry/telemetry-store.js';
import { log, logsBatch, span } from '../stores/telemetry/telemetry-store.contract.js';
import { crc32, decodePayload, encodeRecord, scanRecords } from './wal-codec.js';
import { openWal, type Wal, type WalOptions } from './wal.js';
import { writeLength } from './wal-drain.js';

/** A store that keeps batches in memory; it can hold writes at a gate or fail the next N of them. */
class FakeStore implements WalTarget {
  batches: TenantBatch[] = [];
  position = 0n;
  writes: { rows: number; position: bigint }[] = [];
  failNext = 0;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  hold(): void {
    this.gate = new Promise((r) => { this.open = r; });
  }
  release(): void {
    this.gate = undefined;
    this.open?.();
  }
  clone(): FakeStore {
    const c = new FakeStore();
    c.batches = [...this.batches];
    c.position = this.position;
    return c;
  }
  msgs(): string[] {
    return this.batches.flatMap((b) => b.batch.logs.map((l) => l.msg));
  }

  async write(batches: TenantBatch[], walPosition: bigint): Promise<void> {
    if (this.gate) await this.gate;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('store down');
    }
    if (walPosition <= this.position) throw new Error('written twice: the WAL drains each position once');
    this.batches.push(...batches);
    this.position = walPosition;
    this.writes.push({ rows: batches.reduce((n, b) => n + b.batch.logs.length + b.batch.spans.length, 0), position: walPosition });
  }
  walPosition(): Promise<bigint> {
    return Promise.resolve(this.position);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const entry = (msg: string) => logsBatch('t1', [log({ msg })]);
const until = async (cond: () => boolean, ms = 5000) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
};

void describe('wal', () => {
  const dirs: string[] = [];
  const wals: Wal[] = [];
  after(async () => {
    for (const w of wals) await w.close().catch(() => undefined);
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  async function tempDir(): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), 'sightline-wal-'));
    dirs.push(d);
    return d;
  }
  async function open(o: Partial<WalOptions> & { dir: string; store: WalTarget }): Promise<Wal> {
    const w = await openWal({ maxBytes: 1 << 30, onError: () => undefined, ...o });
    wals.push(w);
    return w;
  }
  const segmentFiles = async (dir: string) => (await readdir(dir)).filter((f) => f.endsWith('.wal')).sort();

  void test('crc32 is the IEEE polynomial', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(crc32(Buffer.alloc(0)), 0);
    const long = Buffer.from('The quick brown fox jumps over the lazy dog, 0123456789 times over.');
    assert.equal(crc32(long), crc32(Buffer.concat([long.subarray(0, 0), long])));
    assert.equal(crc32(Buffer.from('The quick brown fox jumps over the lazy dog')), 0x414fa339);
    // A range, and a CRC continued from the one before it (wal-raw.ts sums a record's pieces so), as zlib gives them.
    const body = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 2654435761) >>> 24));
    assert.equal(crc32(body, 1_000, 70_000), zlibCrc32(body.subarray(1_000, 70_000)));
    assert.equal(crc32(body, 40_000, body.length, crc32(body, 0, 40_000)), zlibCrc32(body));
  });

  void test('a batch survives the record codec unchanged', () => {
    const tb: TenantBatch = {
      tenantId: 'tenant-ü', format: 'otlp',
      batch: {
        logs: [log({ timeNs: 9_223_372_036_854_775_807n, msg: 'naïve ✓', fields: { a: 1, b: [true, null], 'c.d': 'x' } })],
        spans: [span({ events: [{ timeNs: 5n, name: 'e', attributes: { k: 'v' } }], links: [{ traceId: 'ab', spanId: 'cd', attributes: {} }] })],
      },
    };
    const { records, validEnd } = scanRecords(Buffer.concat([encodeRecord(tb), encodeRecord(tb)]));
    const [first, second] = records;
    assert.ok(first && second && records.length === 2);
    assert.equal(first.rows, 2);
    assert.equal(validEnd, second.end);
    assert.deepEqual(decodePayload(first.payload), tb);
  });

  void test('concurrent appends share write+fsyncs (group commit) and all reach the store', async (t) => {
    const store = new FakeStore();
    const w = await open({ dir: await tempDir(), store });
    const clients = 64;
    const each = 30;
    const n = clients * each;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < each; i++) await w.append(entry(`c${c}-${i}`));
    }));
    const secs = (performance.now() - t0) / 1000;
    const st = w.stats();
    assert.equal(st.appendedRecords, n);
    assert.ok(st.fsyncs <= n / 8, `${st.fsyncs} fsyncs for ${n} appends`);
    t.diagnostic(`group commit: ${Math.round(n / secs)} appends/s from ${clients} concurrent clients, ${(n / st.fsyncs).toFixed(1)} records per fsync`);
    await w.flush();
    assert.equal(store.msgs().length, n);
    assert.equal(new Set(store.msgs()).size, n);
    assert.equal(store.position, st.position);
    assert.equal(w.stats().unflushedBytes, 0);
  });

  void test('close with a drain budget stops writing when it runs out; the rest replays once at the next open', async () => {
    const dir = await tempDir();
    /** A store whose every write takes 50 ms: a backlog that drains slower than a shutdown may wait. */
    class SlowStore extends FakeStore {
      override async write(batches: TenantBatch[], walPosition: bigint): Promise<void> {
        await new Promise((r) => setTimeout(r, 50));
        await super.write(batches, walPosition);
      }
    }
    const store = new SlowStore();
    store.hold();
    const w = await openWal({ dir, store, maxBytes: 1 << 30, batchRows: 1, onError: () => undefined });
    const n = 60;
    for (let i = 0; i < n; i++) await w.append(entry(`backlog-${i}`));
    store.release();
    await w.close({ drainForMs: 200 });
    const written = store.msgs().length;
    assert.ok(written > 0 && written < n, `${written} of ${n} written before the budget ran out`);
    // The next start replays exactly what the store had not committed: every record once, in order.
    const again = await open({ dir, store });
    await again.flush();
    assert.deepEqual(store.msgs(), Array.from({ length: n }, (_, i) => `backlog-${i}`));
  });

  void test('an acked record is already in the segment file', async () => {
    const dir = await tempDir();
    const store = new FakeStore();
    store.hold();
    const w = await open({ dir, store });
    await w.append(entry('durable'));
    const [file] = await segmentFiles(dir);
    const { records } = scanRecords(await readFile(join(dir, file ?? '')));
    assert.deepEqual(records.map((r) => decodePayload(r.payload).batch.logs[0]?.msg), ['durable']);
    store.release();
  });

  void test('an entry reaches the store within the batching window, without a flush', async () => {
    const store = new FakeStore();
    const w = await open({ dir: await tempDir(), store });
    const t0 = performance.now();
    await w.append(entry('soon'));
    await until(() => store.msgs().length === 1, 2000); // DESIGN §1: queryable within 2 s of the ack
    assert.ok(performance.now() - t0 < 2000);
  });

  void test('the drain writes large batches, never over batchRows', async () => {
    const store = new FakeStore();
    // A long window: only a full batch (or the flush) starts a write, so the batch sizes are exact.
    const w = await open({ dir: await tempDir(), store, batchRows: 100, batchIntervalMs: 60_000 });
    store.hold();
    await Promise.all(Array.from({ length: 50 }, (_, i) => w.append(logsBatch('t1', Array.from({ length: 10 }, () => log({ msg: `b${i}` }))))));
    store.release();
    await w.flush();
    assert.equal(store.msgs().length, 500);
    assert.deepEqual(store.writes.map((x) => x.rows), [100, 100, 100, 100, 100]);
  });

  void test('records coming fast enough to fill a row group within groupWindowMs wait for one; a trickle goes at the interval', async () => {
    const pace = async (w: Wal, bodies: number, rows: number, everyMs: number) => {
      for (let i = 0; i < bodies; i++) {
        await w.append(logsBatch('t1', Array.from({ length: rows }, () => log({ msg: `m${i}` }))));
        await new Promise((r) => setTimeout(r, everyMs));
      }
    };
    // Bodies of 25 rows (a quarter of a group, so the interval always brings one) every ~10 ms: a group of 100 within
    // ~40 ms, past the 20 ms interval and well inside the window, however slow the machine's timers run.
    const fast = new FakeStore();
    const heavy = await open({ dir: await tempDir(), store: fast, batchRows: 200, rowGroupRows: 100, batchIntervalMs: 20, groupWindowMs: 10_000 });
    await pace(heavy, 12, 25, 10);
    await heavy.flush();
    assert.equal(fast.msgs().length, 300);
    // Every write but the flush's last is a whole group or more.
    assert.ok(fast.writes.slice(0, -1).every((x) => x.rows >= 100), String(fast.writes.map((x) => x.rows)));
    // One row every 30 ms would take 3 s to fill a group: past a 1 s window, so each write goes at the interval.
    const slow = new FakeStore();
    const trickle = await open({ dir: await tempDir(), store: slow, batchRows: 200, rowGroupRows: 100, batchIntervalMs: 20, groupWindowMs: 1000 });
    await pace(trickle, 5, 1, 30);
    await until(() => slow.msgs().length === 5);
    assert.ok(slow.writes.length >= 3, String(slow.writes.map((x) => x.rows)));
  });

  void test('a write of a row group or more never ends in a group less than half full (writeLength)', () => {
    const q = (...rows: number[]) => rows.map((r) => ({ rows: r }));
    // Up to maxRows, at least one record, from `start`.
    assert.equal(writeLength(q(40, 40, 40), 0, 100, 1000), 2);
    assert.equal(writeLength(q(40, 40, 40), 1, 100, 1000), 2);
    assert.equal(writeLength(q(500), 0, 100, 1000), 1);
    // 2 groups of 100 at most: 190 rows end in a group 90 % full, kept; 130 would leave 30 in the second, so the
    // write stops at the first group instead (100), and the next write starts the next group.
    assert.equal(writeLength(q(95, 95, 95), 0, 200, 100), 2);
    assert.equal(writeLength(q(50, 50, 30, 80), 0, 200, 100), 2);
    assert.equal(writeLength(q(50, 50, 30, 70), 0, 200, 100), 4); // exactly two groups
    assert.equal(writeLength(q(60, 70), 0, 200, 100), 1); // 130 rows: cut back to the 60 that fit in one group
    assert.equal(writeLength(q(130, 10), 0, 200, 100), 2); // no shorter prefix fits in whole groups: kept
    assert.equal(writeLength(q(100, 100), 0, 200, 100), 2); // whole groups
    assert.equal(writeLength(q(60, 30), 0, 200, 100), 2); // under one group: DuckDB's WAL path, as it must
  });

  void test('after a crash, records past the store position reach the store exactly once on open', async () => {
    const dir = await tempDir();
    const store = new FakeStore();
    const w = await open({ dir, store });
    for (let i = 0; i < 5; i++) await w.append(entry(`first${i}`));
    await w.flush();
    store.hold(); // the next drain write never commits before the "crash"
    for (let i = 0; i < 5; i++) await w.append(entry(`second${i}`));
    // The crash: the disk as it is now, and the store as it last committed.
    const crashed = await tempDir();
    await cp(dir, crashed, { recursive: true });
    const restarted = store.clone();
    const w2 = await open({ dir: crashed, store: restarted });
    assert.equal(w2.stats().replayedRecords, 5);
    assert.deepEqual(restarted.msgs(), [...[0, 1, 2, 3, 4].map((i) => `first${i}`), ...[0, 1, 2, 3, 4].map((i) => `second${i}`)]);
    assert.equal(restarted.position, w.stats().position);
    await w2.append(entry('third'));
    await w2.flush();
    assert.equal(restarted.msgs().length, 11);
    store.release();
  });

  void test('a torn tail is cut off on open and appends continue after the last whole record', async () => {
    const dir = await tempDir();
    const w = await open({ dir, store: new FakeStore() });
    for (let i = 0; i < 3; i++) await w.append(entry(`ok${i}`));
    await w.close();
    const [file] = await segmentFiles(dir);
    const path = join(dir, file ?? '');
    const whole = (await stat(path)).size;
    await appendFile(path, encodeRecord(entry('torn')).subarray(0, 30)); // a write cut short by the crash
    const errors: unknown[] = [];
    const store = new FakeStore();
    const w2 = await open({ dir, store, onError: (e) => errors.push(e) });
    assert.deepEqual(store.msgs(), ['ok0', 'ok1', 'ok2']);
    assert.equal((await stat(path)).size, whole);
    assert.equal(errors.length, 1);
    await w2.append(entry('after'));
    await w2.close();
    const store3 = new FakeStore();
    await open({ dir, store: store3, onError: (e) => errors.push(e) });
    assert.deepEqual(store3.msgs(), ['ok0', 'ok1', 'ok2', 'after']);
    assert.equal(errors.length, 1, 'the second open finds nothing torn');
  });

  void test('a last record with a bad checksum counts as torn', async () => {
    const dir = await tempDir();
    const w = await open({ dir, store: new FakeStore() });
    for (let i = 0; i < 3; i++) await w.append(entry(`ok${i}`));
    await w.close();
    const [file] = await segmentFiles(dir);
    const path = join(dir, file ?? '');
    const buf = await readFile(path);
    buf[buf.length - 3] = (buf[buf.length - 3] ?? 0) ^ 0xff;
    await writeFile(path, buf);
    const store = new FakeStore();
    await open({ dir, store });
    assert.deepEqual(store.msgs(), ['ok0', 'ok1']);
  });

  void test('pressure: backpressure past a quarter of maxBytes, wal_full past maxBytes, ok once drained', async () => {
    const store = new FakeStore();
    const one = encodeRecord(entry('m0')).length;
    const w = await open({ dir: await tempDir(), store, maxBytes: one * 8 });
    assert.equal(w.pressure(), 'ok');
    store.hold();
    await w.append(entry('m0'));
    await w.append(entry('m1'));
    assert.equal(w.pressure(), 'ok', 'two records are exactly a quarter');
    await w.append(entry('m2'));
    assert.equal(w.pressure(), 'backpressure');
    for (let i = 3; i < 9; i++) await w.append(entry(`m${i}`));
    assert.equal(w.pressure(), 'wal_full');
    assert.equal(w.stats().unflushedRecords, 9);
    store.release();
    await w.flush();
    assert.equal(w.pressure(), 'ok');
    assert.equal(store.msgs().length, 9);
  });

  void test('past the watermark a body waits for room: taken once the store commits, refused when none comes in time', async () => {
    const store = new FakeStore();
    const one = encodeRecord(entry('m0')).length;
    const w = await open({ dir: await tempDir(), store, maxBytes: one * 8, roomWaitMs: 60_000, maxWaitingBytes: one * 2 });
    store.hold();
    for (let i = 0; i < 3; i++) await w.append(entry(`m${i}`));
    assert.equal(w.pressure(), 'backpressure');
    // Two bodies wait (their bytes are within maxWaitingBytes); a third would pass it and is refused at once.
    const waiting = [w.waitForRoom(one), w.waitForRoom(one)];
    assert.equal(await w.waitForRoom(one), 'backpressure');
    let settled = false;
    void Promise.all(waiting).then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(settled, false, 'nothing has committed: they still wait');
    store.release();
    assert.deepEqual(await Promise.all(waiting), ['ok', 'ok']);
    assert.equal(w.pressure(), 'ok');

    // With no commit to come, the wait ends at its limit; past maxBytes nothing waits at all.
    const short = await open({ dir: await tempDir(), store: new FakeStore(), maxBytes: one * 8, roomWaitMs: 30 });
    const held = new FakeStore();
    held.hold();
    const stuck = await open({ dir: await tempDir(), store: held, maxBytes: one * 8, roomWaitMs: 30, maxWaitingBytes: one });
    for (let i = 0; i < 3; i++) await stuck.append(entry(`s${i}`));
    const t0 = performance.now();
    assert.equal(await stuck.waitForRoom(one), 'backpressure');
    assert.ok(performance.now() - t0 >= 25, 'it waited for room first');
    for (let i = 3; i < 9; i++) await stuck.append(entry(`s${i}`));
    assert.equal(await stuck.waitForRoom(one), 'wal_full');
    assert.equal(await short.waitForRoom(one), 'ok');
    held.release();
  });

  void test('a body waiting for room is refused when the waits end or the WAL closes', async () => {
    const one = encodeRecord(entry('m0')).length;
    for (const end of ['endRoomWaits', 'close'] as const) {
      const store = new FakeStore();
      const w = await open({ dir: await tempDir(), store, maxBytes: one * 8, roomWaitMs: 60_000, maxWaitingBytes: one * 4 });
      store.hold();
      for (let i = 0; i < 3; i++) await w.append(entry(`m${i}`));
      const waiting = w.waitForRoom(one);
      const closed = end === 'close' ? w.close({ drainForMs: 0 }) : (w.endRoomWaits(), Promise.resolve());
      // Had the wait gone on, the commit this lets through would have made room and the answer would be 'ok'.
      store.release();
      assert.equal(await waiting, 'backpressure', end);
      if (end === 'endRoomWaits') {
        store.hold();
        for (let i = 3; i < 6; i++) await w.append(entry(`m${i}`));
        const later = w.waitForRoom(one);
        store.release();
        assert.equal(await later, 'backpressure', 'no later body waits either');
      }
      await closed;
    }
  });

  void test('a failing store turns on backpressure, is retried, and loses nothing', async () => {
    const store = new FakeStore();
    const errors: unknown[] = [];
    const w = await open({ dir: await tempDir(), store, batchIntervalMs: 10, onError: (e) => errors.push(e), roomWaitMs: 60_000 });
    store.failNext = 4;
    for (let i = 0; i < 20; i++) await w.append(entry(`m${i}`));
    await until(() => w.pressure() === 'backpressure');
    // Waiting cannot help while the store fails: refused at once (a wait would end 'ok', once the retries succeed).
    assert.equal(await w.waitForRoom(1), 'backpressure');
    assert.ok(w.stats().storeFailures > 0);
    await w.flush();
    assert.equal(w.pressure(), 'ok');
    assert.equal(w.stats().storeFailures, 0);
    assert.equal(errors.length, 4);
    assert.deepEqual(store.msgs(), Array.from({ length: 20 }, (_, i) => `m${i}`));
  });

  void test('segments behind the store are deleted, and positions run on across a reopen', async () => {
    const dir = await tempDir();
    const store = new FakeStore();
    const w = await open({ dir, store, segmentBytes: 1024 });
    store.hold(); // nothing drains (and no segment goes) until the appends are all in, however slow the machine
    for (let i = 0; i < 40; i++) await w.append(entry(`m${i}`));
    assert.ok((await segmentFiles(dir)).length > 3);
    store.release();
    await w.flush();
    assert.equal((await segmentFiles(dir)).length, 1, 'only the active segment is left');
    const pos = w.stats().position;
    await w.close();
    await rm(dir, { recursive: true }); // even with no segment at all, positions go on from the store's
    const w2 = await open({ dir, store, segmentBytes: 1024 });
    await w2.append(entry('next'));
    await w2.flush();
    assert.ok(store.position > pos);
    assert.equal(store.msgs().length, 41);
  });

  void test('records past the memory cap are read back from their segments', async () => {
    const store = new FakeStore();
    const w = await open({ dir: await tempDir(), store, memoryBytes: 0, segmentBytes: 2048 });
    const sent = Array.from({ length: 30 }, (_, i) => logsBatch(`t${i % 3}`, [log({ msg: `m${i}`, timeNs: BigInt(i) })]));
    await Promise.all(sent.map((b) => w.append(b)));
    await w.flush();
    assert.deepEqual(store.batches, sent);
  });

  void test('appends after close are refused', async () => {
    const w = await open({ dir: await tempDir(), store: new FakeStore() });
    await w.close();
    await assert.rejects(w.append(entry('late')), /closed/);
  });
});
