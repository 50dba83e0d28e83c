// A/B of the DuckDB store's write path for issue 12 item 1: two builds of the project (each a checkout with `dist`
// built, e.g. a `git worktree` of the code before) load their store modules into this one process, and their writes of
// the bench's native NDJSON bodies (read in place, chunks built, inserted and committed into a file store of their
// own, as the drain's store worker does) take turns. This VM's speed moves up to 2x between seconds (README,
// Benchmark), which swamps a change of a few percent between two runs; in turns, both builds see the same machine.
// The figure is the process's CPU (every thread: DuckDB's too) per row, summed over all but the first two writes of
// each, checkpoints included. `node dist/bench/write-ab.js <checkout A> <checkout B> [writes]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TenantBatch } from '../src/model/batch.js';
import { ndjsonBodies } from './load.js';

type StoreModule = typeof import('../src/stores/telemetry/duckdb/duckdb-store.js');
type NativeModule = typeof import('../src/ingest/formats/native.js');
type Store = Awaited<ReturnType<StoreModule['openDuckdbStore']>>;

/** Writes not counted: the store's first, before its file and DuckDB's buffers have grown. */
const WARM_WRITES = 2;

export interface Side {
  readonly checkout: string;
  readonly store: Store;
  readonly batchesOf: (bodies: readonly Buffer[]) => TenantBatch[];
  cpuMicros: number;
  rows: number;
  position: bigint;
}

/** One build's store, on the file `path`. */
export async function openSide(checkout: string, path: string): Promise<Side> {
  const root = resolve(checkout, 'dist');
  const { openDuckdbStore } = (await import(join(root, 'src/stores/telemetry/duckdb/duckdb-store.js'))) as StoreModule;
  const { nativeLogWindows } = (await import(join(root, 'src/ingest/formats/native.js'))) as NativeModule;
  const receivedNs = BigInt(Date.now()) * 1_000_000n;
  const batchesOf = (bodies: readonly Buffer[]): TenantBatch[] => bodies.map((body) => {
    const logWindows = nativeLogWindows(body, receivedNs, () => undefined);
    if (logWindows === null) throw new Error('write-ab: a body the native format does not read in place');
    return { tenantId: 'write-ab', format: 'native', batch: { logs: [], spans: [], logWindows } };
  });
  const store = await openDuckdbStore(path);
  return { checkout, store, batchesOf, cpuMicros: 0, rows: 0, position: 0n };
}

/** `writes` writes of `bodies` into each side, in turns (A B, B A, …); each side's CPU and rows past the warm-up. */
export async function writeInTurns(sides: readonly Side[], bodies: readonly Buffer[], writes: number): Promise<void> {
  for (let w = 0; w < writes; w++) {
    for (const side of w % 2 === 0 ? sides : [...sides].reverse()) {
      const batches = side.batchesOf(bodies);
      const rows = batches.reduce((n, b) => n + (b.batch.logWindows?.lines?.count ?? 0), 0);
      const before = process.cpuUsage();
      await side.store.write(batches, ++side.position);
      const spent = process.cpuUsage(before);
      if (w >= WARM_WRITES) {
        side.cpuMicros += spent.user + spent.system;
        side.rows += rows;
      }
    }
  }
}

async function main(): Promise<void> {
  const [a, b, writesArg] = process.argv.slice(2);
  if (a === undefined || b === undefined) throw new Error('usage: node dist/bench/write-ab.js <checkout A> <checkout B> [writes]');
  const writes = Number(writesArg ?? 16);
  const dir = mkdtempSync(join(tmpdir(), 'write-ab-'));
  const sides: Side[] = [];
  try {
    for (const [i, checkout] of [a, b].entries()) sides.push(await openSide(checkout, join(dir, `side-${i}.duckdb`)));
    // The bench's bodies (ingest-bench.ts): 24 of 0.5-2 MB, ~92,000 entries a write.
    const bodies = ndjsonBodies(24, 500_000, 2_000_000).map((x) => x.body);
    await writeInTurns(sides, bodies, writes);
    const perRow = sides.map((s) => s.cpuMicros / s.rows);
    sides.forEach((s, i) => console.log(`${s.checkout}: ${(perRow[i] ?? 0).toFixed(3)} µs of CPU a row over ${s.rows.toLocaleString('en')} rows`));
    console.log(`B / A: ${((perRow[1] ?? 0) / (perRow[0] ?? 1)).toFixed(3)}`);
  } finally {
    for (const s of sides) await s.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
