// Child process of src/ingest/wal-crash.test.ts: opens a DuckDB store and the WAL in <dir>, replays, then
// appends batches of uniquely numbered entries from several concurrent loops (so group commit and the drain
// are busy) and prints each id once its append has resolved — until the parent SIGKILLs it.
// Usage: node wal-crash-child.js <dir> <first id>
import { join } from 'node:path';
import type { TenantBatch } from '../../src/model/batch.js';
import { openWal } from '../../src/ingest/wal.js';
import { openDuckdbStore } from '../../src/stores/telemetry/duckdb/duckdb-store.js';

const PER_BATCH = 10;
const LOOPS = 8;

const [dir, firstArg] = process.argv.slice(2);
if (dir === undefined || firstArg === undefined) throw new Error('usage: wal-crash-child <dir> <first id>');

const store = await openDuckdbStore(join(dir, 'telemetry.duckdb'));
const wal = await openWal({
  dir: join(dir, 'wal'), store, maxBytes: 1 << 30, segmentBytes: 256 * 1024, batchRows: 2000, batchIntervalMs: 50,
  onError: (e) => process.stderr.write(`wal error: ${String(e)}\n`),
});
process.stdout.write('ready\n');

let next = Number(firstArg);

function batch(first: number): TenantBatch {
  const ids = Array.from({ length: PER_BATCH }, (_, k) => first + k);
  const ns = BigInt(Date.now()) * 1_000_000n;
  return {
    tenantId: 'crash', format: 'native',
    batch: {
      logs: ids.map((id) => ({
        timeNs: ns, observedNs: ns, service: 'crash', severity: 'info', msg: `e${id}`, traceId: '', spanId: '',
        stream: '', fields: { id },
      })),
      spans: [{
        traceId: first.toString(16).padStart(32, '0'), spanId: first.toString(16).padStart(16, '0'), parentSpanId: '',
        name: 'batch', kind: 1, startNs: ns, durationNs: 1n, statusCode: 0, statusMessage: '', service: 'crash',
        attributes: {}, resource: {}, events: [], links: [],
      }],
    },
  };
}

async function loop(): Promise<void> {
  for (;;) {
    const first = next;
    next += PER_BATCH;
    await wal.append(batch(first));
    let out = '';
    for (let k = 0; k < PER_BATCH; k++) out += `${first + k}\n`;
    process.stdout.write(out); // only after the ack: every id the parent reads was acknowledged
  }
}

await Promise.all(Array.from({ length: LOOPS }, loop));
