// DESIGN §1 "WAL before ack": a 200 means the batch is fsynced in the write-ahead log, so a crash after the 200
// loses nothing, and the replay past the store's checkpoint duplicates nothing. Several clients ingest without
// pause, the service is SIGKILLed in the middle (twice, so a replay is itself interrupted by load and a crash),
// and after the restart every acknowledged entry is read back exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, sleep, startService, type RunningService } from './support/service.js';
import { countRunIds, obj, runLoad, uid, type LoadResult } from './support/load.js';

const ROUNDS = 2;
const LOAD_MS = 3000;

const CLIENTS = 6;

test('after SIGKILL in the middle of sustained ingest, every acknowledged entry is stored exactly once and nothing refused is', async () => {
  let svc: RunningService = await startService();
  const { dataDir, adminToken } = svc;
  const acct = await newAccount(svc, { tier: 'custom' });
  const run = uid('kill');
  const rounds: (LoadResult & { killedAt: number })[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      let stop: () => void = () => undefined;
      const stopped = new Promise<void>((resolve) => { stop = resolve; });
      const load = runLoad({ url: svc.ingest, key: acct.key, clients: CLIENTS, perRequest: 25, run: `${run}r${round}`, until: stopped });
      await sleep(LOAD_MS);
      const killedAt = Date.now();
      await svc.kill();
      stop();
      const result = await load;
      rounds.push({ ...result, killedAt });
      assert.ok(result.acked.length > 0, `round ${round}: the load got no 200 at all: ${JSON.stringify(result.statuses)}`);
      svc = await startService({ dataDir, adminToken });
    }

    const acked = new Set(rounds.flatMap((r) => r.acked));
    const unknown = new Set(rounds.flatMap((r) => r.unknown));
    const refused = new Set(rounds.flatMap((r) => r.refused));
    // The WAL is replayed before the service listens; allow the drain a moment all the same.
    let counts = new Map<string, number>();
    const deadline = Date.now() + 15_000;
    for (;;) {
      counts = await countRunIds(svc, acct.tenantId, acct.key, run, ROUNDS, CLIENTS);
      if ([...acked].every((id) => counts.has(id)) || Date.now() > deadline) break;
      await sleep(250);
    }

    const missing = [...acked].filter((id) => counts.get(id) !== 1);
    assert.deepEqual(missing.slice(0, 20), [], `${missing.length} acknowledged entries are not there exactly once (e.g. ${missing.slice(0, 5).map((id) => `${id}×${counts.get(id) ?? 0}`).join(', ')})`);
    const doubled = [...counts].filter(([, n]) => n > 1);
    assert.deepEqual(doubled.slice(0, 20), [], `${doubled.length} entries are stored more than once`);
    const strangers = [...counts.keys()].filter((id) => !acked.has(id) && !unknown.has(id));
    assert.deepEqual(strangers.slice(0, 20), [], `stored entries that were refused or never sent: ${refused.size} refused`);
    const unknownStored = [...unknown].filter((id) => counts.has(id)).length;
    console.log(`sigkill: ${acked.size} acked, ${unknown.size} without reply (${unknownStored} of them stored), ${refused.size} refused; statuses ${rounds.map((r) => JSON.stringify(r.statuses)).join(' ')}`);

    // Metering (DESIGN §6): never more than what could have been accepted; a crash loses at most ~1 s of it.
    const usage = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/usage`, { headers: { 'X-API-Key': acct.key } });
    const bytes = Number(obj(usage).bytes_accepted);
    const ceiling = rounds.reduce((n, r) => n + r.ackedBytes + r.unknownBytes, 0);
    const floor = rounds.reduce((n, r) => n + r.acks.filter((a) => a.at < r.killedAt - 1500).reduce((m, a) => m + a.bytes, 0), 0);
    assert.ok(bytes <= ceiling, `metered ${bytes} bytes, more than the ${ceiling} bytes ever sent (double counting after the crash)`);
    assert.ok(bytes >= floor, `metered ${bytes} bytes, but ${floor} bytes were acknowledged more than 1.5 s before a crash`);
  } finally {
    await svc.stop();
  }
});
