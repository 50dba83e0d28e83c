// The search bench's data (issue 12 item 4): `entries` realistic lines (realistic-logs.ts) written once as raw NDJSON
// for grep and jq, and the same lines loaded into the real DuckDB telemetry store. The load goes straight through the
// store's write() — the drain's own call — in batches parsed by the native ingest parser, not through HTTP: ten
// million entries over HTTP take minutes that measure ingest, which ingest-bench already does.
import { open } from 'node:fs/promises';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseNative } from '../src/ingest/formats/native.js';
import { msToNs } from '../src/model/time.js';
import { openDuckdbStore, type DuckdbTelemetryStore } from '../src/stores/telemetry/duckdb/duckdb-store.js';
import { realisticLines } from './realistic-logs.js';

/** Entries per store write: about what the WAL drain hands the store under load. */
const BATCH = 50_000;

export interface SearchData {
  store: DuckdbTelemetryStore;
  tenantId: string;
  rawPath: string;
  storePath: string;
  entries: number;
  rawBytes: number;
  /** Tokens each found in exactly one entry: an id as users paste them (a UUID), and a word of letters only. */
  needles: { id: string; word: string };
  loadSeconds: number;
}

/** Writes `dir`/raw.ndjson and `dir`/telemetry.duckdb; the store is left open. */
export async function loadSearchData(dir: string, entries: number): Promise<SearchData> {
  const tenantId = 'bench-search';
  const word = `needle${Array.from(randomBytes(10), (b) => String.fromCharCode(97 + (b % 26))).join('')}`;
  const needles = { id: randomUUID(), word };
  // Not the first or last entries, where a scan that happens to start or stop early would find them for free.
  const planted = new Map([[Math.floor(entries * 0.37), `lookup failed for ${needles.id} after retry`],
    [Math.floor(entries * 0.61), `cache ${needles.word} evicted`]]);
  const rawPath = join(dir, 'raw.ndjson');
  const storePath = join(dir, 'telemetry.duckdb');
  const store = await openDuckdbStore(storePath);
  const raw = await open(rawPath, 'w');
  const t0 = performance.now();
  let seen = 0;
  let rawBytes = 0;
  let walPosition = 0n;
  try {
    for (const lines of realisticLines(entries, BATCH)) {
      for (const [at, msg] of planted) {
        const line = lines[at - seen];
        if (line !== undefined) lines[at - seen] = JSON.stringify({ ...(JSON.parse(line) as Record<string, unknown>), _msg: msg });
      }
      seen += lines.length;
      const body = Buffer.from(lines.join('\n') + '\n');
      rawBytes += body.length;
      await raw.write(body);
      const batch = parseNative(body, msToNs(Date.now()));
      await store.write([{ tenantId, format: 'native', batch }], ++walPosition);
    }
  } catch (e) {
    await store.close();
    throw e;
  } finally {
    await raw.close();
  }
  return { store, tenantId, rawPath, storePath, entries: seen, rawBytes, needles, loadSeconds: (performance.now() - t0) / 1000 };
}
