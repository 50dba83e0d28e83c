// npm run bench:storage: the DuckDB store alone on the realistic bodies of backends-bench (issue 12 item 3), without
// the service around it — parse, store.write in the drain's 50k-row batches, a clean close, then the figures the
// storage work is judged by: bytes on disk per raw NDJSON byte, each column's share of the file and its compression
// (from DuckDB's storage_info), store.write rows/s, and the two reads that must not get slower (a needle search and
// `stats by (service) count()`). Figures only: nothing here passes or fails (STYLE.md).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { realisticBodies } from './realistic-logs.js';
import { parseNative } from '../src/ingest/formats/native.js';
import { openDuckdbStore } from '../src/stores/telemetry/duckdb/duckdb-store.js';
import { parseLogsql } from '../src/query/logsql/parser.js';
import type { LogEntry } from '../src/model/log-entry.js';
import type { TelemetryStore } from '../src/stores/telemetry/telemetry-store.js';
import { percentile } from './load.js';
import { str } from '../src/stores/telemetry/sql/span-rows.js';

const BODIES = Number(process.env.PROBE_BODIES ?? 100);
/** The WAL drain's largest batch (wal.ts batchRows); a drain keeping up with its ingest writes smaller ones. */
const BATCH_ROWS = Number(process.env.PROBE_BATCH_ROWS ?? 50_000);
const FIRST_BATCH_ROWS = 2_000;
const QUERY_RUNS = 5;

async function fileSize(path: string): Promise<number> {
  return (await stat(path).catch(() => null))?.size ?? 0;
}

async function medianMs(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < QUERY_RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return percentile(times, 50);
}

/**
 * Bytes per column of `table`, from DuckDB's storage_info, which gives each segment's place but not its size. A
 * segment is taken to run to the next segment of its block, and a segment alone in its block to fill it; the last of
 * several gets its column's bytes per row (from its segments measured so) times its rows, at most the rest of the
 * block; overflow blocks (ZSTD strings) count whole. What no segment accounts for is reported as `unused`: block
 * tails, the file's metadata, free blocks.
 */
async function columnBytes(path: string, table: string): Promise<{ column: string; bytes: number; compression: string }[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const c = await instance.connect();
  try {
    const size = (await c.runAndReadAll('SELECT block_size, total_blocks, free_blocks FROM pragma_database_size()')).getRowObjectsJS()[0];
    const blockSize = Number(size?.block_size);
    const rows = (await c.runAndReadAll(`
      SELECT column_name, segment_type, compression, count, len(additional_block_ids) AS extra,
        coalesce(lead(block_offset) OVER (PARTITION BY block_id ORDER BY block_offset) - block_offset,
          CASE WHEN count(*) OVER (PARTITION BY block_id) = 1 THEN ${blockSize} - block_offset END) AS span,
        ${blockSize} - block_offset AS rest
      FROM pragma_storage_info('${table}') WHERE block_id >= 0`)).getRowObjectsJS();
    const segments = rows.map((r) => ({
      column: str(r.column_name), compression: r.segment_type === 'VALIDITY' ? '' : str(r.compression), rows: Number(r.count),
      span: r.span === null ? null : Number(r.span), rest: Number(r.rest), extra: Number(r.extra) * blockSize,
    }));
    const rate = new Map<string, { bytes: number; rows: number }>();
    for (const g of segments) {
      if (g.span === null) continue;
      const r = rate.get(g.column) ?? { bytes: 0, rows: 0 };
      rate.set(g.column, { bytes: r.bytes + g.span, rows: r.rows + g.rows });
    }
    const out = new Map<string, { bytes: number; compression: Set<string> }>();
    for (const g of segments) {
      const r = rate.get(g.column);
      const last = r && r.rows > 0 ? Math.min(g.rest, (r.bytes / r.rows) * g.rows) : g.rest;
      const o = out.get(g.column) ?? { bytes: 0, compression: new Set<string>() };
      o.bytes += (g.span ?? last) + g.extra;
      if (g.compression !== '') o.compression.add(g.compression);
      out.set(g.column, o);
    }
    const columns = [...out].map(([column, o]) => ({ column, bytes: o.bytes, compression: [...o.compression].sort().join('+') }));
    const used = columns.reduce((n, x) => n + x.bytes, 0);
    columns.push({ column: '(unused)', bytes: Number(size?.total_blocks) * blockSize - used, compression: `${str(size?.free_blocks)} free blocks` });
    return columns.sort((a, b) => b.bytes - a.bytes);
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

async function main(): Promise<void> {
  const bodies = realisticBodies(BODIES, 1_000_000);
  const rawBytes = bodies.reduce((n, b) => n + b.body.length, 0);
  const now = BigInt(Date.now()) * 1_000_000n;
  const logs: LogEntry[] = bodies.flatMap((b) => parseNative(b.body, now).logs);
  const dir = await mkdtemp(join(tmpdir(), 'sightline-storage-probe-'));
  const path = join(dir, 'telemetry.duckdb');
  try {
    let store: TelemetryStore = await openDuckdbStore(path);
    let writeMs = 0;
    let position = 0n;
    // The drain's first write after a start takes what the first requests brought; later ones are full batches.
    for (let i = 0, n = FIRST_BATCH_ROWS; i < logs.length; i += n, n = BATCH_ROWS) {
      const batch = { tenantId: 't1', format: 'native', batch: { logs: logs.slice(i, i + n), spans: [] } };
      const t0 = performance.now();
      await store.write([batch], ++position);
      writeMs += performance.now() - t0;
    }
    const needle = 'needle5f3a9c';
    const one = parseNative(Buffer.from(JSON.stringify({ _msg: `lookup failed for ${needle} after retry`, service: 'checkout' })), now).logs;
    await store.write([{ tenantId: 't1', format: 'native', batch: { logs: one, spans: [] } }], ++position);
    await store.close();
    const onDisk = await fileSize(path) + await fileSize(`${path}.wal`);

    // Reopened, so that the reads run on the checkpointed file as a restarted service would.
    store = await openDuckdbStore(path);
    const range = {};
    const needleMs = await medianMs(async () => {
      const found = await store.searchLogs('t1', parseLogsql(needle, now), range, 100);
      if (found.length !== 1) throw new Error(`needle: found ${found.length}`);
    });
    const statsMs = await medianMs(() => store.searchLogs('t1', parseLogsql('* | stats by (service) count() as n', now), range, 100));
    await store.close();

    console.log(`storage probe: ${logs.length.toLocaleString('en')} realistic entries, ${(rawBytes / 1e6).toFixed(1)} MB of NDJSON ` +
      `(~${Math.round(rawBytes / logs.length)} bytes each)`);
    console.log(`bytes on disk per raw NDJSON byte   ${(onDisk / rawBytes).toFixed(3)}  (${(onDisk / 1e6).toFixed(1)} MB)`);
    console.log(`store.write, log rows/s             ${Math.round(logs.length / (writeMs / 1000)).toLocaleString('en')}`);
    console.log(`needle search, median ms            ${needleMs.toFixed(1)}`);
    console.log(`stats by (service) count(), ms      ${statsMs.toFixed(1)}`);
    console.log('logs column                      bytes/row   compression');
    for (const c of await columnBytes(path, 'logs')) {
      console.log(`  ${c.column.padEnd(30)} ${(c.bytes / logs.length).toFixed(2).padStart(9)}   ${c.compression}`);
    }
  } finally {
    if (process.env.PROBE_KEEP) console.log(dir); else await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
