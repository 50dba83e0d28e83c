// Exactly once on ClickHouse (DESIGN §10, issue 11 item 4): the SIGKILL test of sigkill.e2e.test.ts against a service
// whose telemetry store is ClickHouse in-process (SIGHTLINE_TELEMETRY_DB=chdb:clickhouse). ClickHouse has no
// transaction to hold rows and the WAL position together: a kill between the inserts and the checkpoint is what the
// insert deduplication tokens (and the write intent of exactly-once.ts) must absorb. Several clients ingest without
// pause, the service is SIGKILLed twice mid-stream, and after the restarts every acknowledged entry is stored exactly
// once — checked through the query API and, after the service stops, by counting the rows in the engine itself.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { chdbClient } from '../src/stores/telemetry/clickhouse/connect.js';
import { countRunIds, runLoad, uid, type LoadResult } from './support/load.js';
import { newAccount, sleep, startService, type RunningService } from './support/service.js';

const ROUNDS = 2;
const LOAD_MS = 3000;
const CLIENTS = 6;
const ENV = { SIGHTLINE_TELEMETRY_DB: 'chdb:clickhouse', TZ: 'UTC' };

void test('on ClickHouse, after SIGKILL in the middle of sustained ingest, every acknowledged entry is stored exactly once', async () => {
  let svc: RunningService = await startService({ env: ENV });
  const { dataDir, adminToken } = svc;
  const acct = await newAccount(svc, { tier: 'custom' });
  const run = uid('chkill');
  const rounds: LoadResult[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      let stop: () => void = () => undefined;
      const stopped = new Promise<void>((resolve) => { stop = resolve; });
      const load = runLoad({ url: svc.ingest, key: acct.key, clients: CLIENTS, perRequest: 25, run: `${run}r${round}`, until: stopped });
      await sleep(LOAD_MS);
      await svc.kill();
      stop();
      const result = await load;
      rounds.push(result);
      assert.ok(result.acked.length > 0, `round ${round}: the load got no 200 at all: ${JSON.stringify(result.statuses)}`);
      svc = await startService({ dataDir, adminToken, env: ENV });
    }

    const acked = new Set(rounds.flatMap((r) => r.acked));
    const unknown = new Set(rounds.flatMap((r) => r.unknown));
    let counts = new Map<string, number>();
    const deadline = Date.now() + 15_000;
    for (;;) {
      counts = await countRunIds(svc, acct.tenantId, acct.key, run, ROUNDS, CLIENTS);
      if ([...acked].every((id) => counts.has(id)) || Date.now() > deadline) break;
      await sleep(250);
    }
    const missing = [...acked].filter((id) => counts.get(id) !== 1);
    assert.deepEqual(missing.slice(0, 20), [], `${missing.length} acknowledged entries are not there exactly once`);
    const strangers = [...counts.keys()].filter((id) => !acked.has(id) && !unknown.has(id));
    assert.deepEqual(strangers.slice(0, 20), [], 'stored entries that were refused or never sent');
    console.log(`clickhouse sigkill: ${acked.size} acked, ${unknown.size} without reply; statuses ${rounds.map((r) => JSON.stringify(r.statuses)).join(' ')}`);
  } finally {
    await svc.stop({ keepData: true });
  }

  // The engine's own count, past any read-side limit: no id of the run twice. (The service is stopped: chdb allows
  // one process per directory.)
  const client = await chdbClient(join(dataDir, 'clickhouse'));
  try {
    const rs = await client.query({
      query: `SELECT count() AS rows, uniqExact(fields['id']) AS ids FROM sightline.logs WHERE tenant_id = {t:String}`,
      query_params: { t: acct.tenantId }, format: 'JSONEachRow',
    });
    const [row] = await rs.json<{ rows: number | string; ids: number | string }>();
    assert.ok(row);
    assert.equal(Number(row.rows), Number(row.ids), 'every stored row has its own id');
  } finally {
    await client.close();
    await svc.stop();
  }
});
