// Compaction of the DuckDB file at a clean stop (issue 12 item 3: bytes on disk per raw byte). A checkpoint that
// rewrites a partly filled row group leaves the old copy's blocks free inside the file; later checkpoints reuse them,
// but DuckDB never gives them back, and it reclaims them only by copying the database into a fresh file
// (duckdb.org, "Reclaiming Space": COPY FROM DATABASE). Free blocks stay bounded — a few row groups' worth, whatever
// the store holds — so the copy is worth its time only when they are a real share of a smallish file.
import { rm, rename, stat, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

export interface CompactionPolicy {
  /** Fewest free blocks worth a copy (DuckDB's blocks are 256 KB). */
  minFreeBlocks: number;
  /** Smallest share of the file's blocks that are free worth a copy. */
  minFreeShare: number;
  /**
   * Bytes of file the copy gets through per millisecond, at the least: a copy not expected to end within its time is
   * not started. Measured 32,000 (123 MB of logs in 3.8 s, two busy cores); this leaves room for a slower machine.
   */
  bytesPerMs: number;
}

export const DEFAULT_COMPACTION: CompactionPolicy = { minFreeBlocks: 16, minFreeShare: 0.05, bytesPerMs: 20_000 };

export interface FileSpace {
  totalBlocks: number;
  freeBlocks: number;
  blockSize: number;
}

/** The copy is made beside the file; a stop that crashes mid-copy leaves it for openDuckdbStore to remove. */
export function compactionPathOf(path: string): string {
  return `${path}.compact`;
}

export async function fileSpace(c: DuckDBConnection): Promise<FileSpace> {
  const row = (await c.runAndReadAll('SELECT total_blocks, free_blocks, block_size FROM pragma_database_size()')).getRowObjectsJS()[0];
  return { totalBlocks: Number(row?.total_blocks ?? 0), freeBlocks: Number(row?.free_blocks ?? 0), blockSize: Number(row?.block_size ?? 0) };
}

/** Why a copy is not worth making (or cannot end in time), or null when it is. */
export function reasonToSkip(space: FileSpace, withinMs: number, policy: CompactionPolicy): string | null {
  if (space.freeBlocks < policy.minFreeBlocks || space.freeBlocks < space.totalBlocks * policy.minFreeShare) {
    return `${space.freeBlocks} of ${space.totalBlocks} blocks free, under the threshold`;
  }
  const expectedMs = (space.totalBlocks - space.freeBlocks) * space.blockSize / policy.bytesPerMs;
  if (expectedMs > withinMs) return `a copy would take about ${Math.round(expectedMs)} ms, more than the ${Math.round(withinMs)} ms left`;
  return null;
}

/**
 * Copies the open database `catalog` into a fresh file at `target`, holding only used blocks. Interrupted at
 * `withinMs`; returns false then, with the partial copy removed. Nothing may write to the database meanwhile: the
 * copy must hold every committed row, the WAL position among them (exactly-once).
 */
export async function copyCompacted(c: DuckDBConnection, catalog: string, target: string, withinMs: number): Promise<boolean> {
  await removeCopy(target);
  const deadline = performance.now() + withinMs;
  // An interrupt that lands between two statements is lost, so the time is also checked between them.
  const timer = setTimeout(() => c.interrupt(), withinMs);
  try {
    await c.run(`ATTACH ${sqlString(target)} AS sightline_compacted`);
    try {
      if (performance.now() >= deadline) throw new Error('Interrupted: out of time before the copy began');
      await c.run(`COPY FROM DATABASE ${sqlIdent(catalog)} TO sightline_compacted`);
    } finally {
      clearTimeout(timer);
      await c.run('DETACH sightline_compacted'); // checkpoints the copy and closes its file
    }
    return true;
  } catch (e) {
    clearTimeout(timer);
    await removeCopy(target);
    if (e instanceof Error && /interrupt/i.test(e.message)) return false;
    throw e;
  }
}

/**
 * Puts the finished copy in place of `path`, once every connection to `path` is closed. DuckDB's own WAL of `path`
 * must be gone (the close checkpointed it): replayed onto the copy it would corrupt it, so if it is still there the
 * copy is dropped instead. The rename is atomic: a crash leaves either file whole.
 */
export async function swapIn(path: string, copy: string): Promise<boolean> {
  const leftoverWal = await stat(`${path}.wal`).then((s) => s.size > 0, () => false);
  if (leftoverWal || await stat(`${copy}.wal`).then(() => true, () => false)) {
    await removeCopy(copy);
    return false;
  }
  await fsync(copy);
  await rename(copy, path);
  await fsync(dirname(path));
  return true;
}

export async function removeCopy(copy: string): Promise<void> {
  await rm(copy, { force: true });
  await rm(`${copy}.wal`, { force: true });
}

async function fsync(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

function sqlIdent(s: string): string {
  return `"${s.replaceAll('"', '""')}"`;
}
