// The control-store contract on a real PostgreSQL 15 (DESIGN §1 scale-out backend), started by the test helper,
// plus the outage behaviour auth depends on (spec Authentication rule 11: unreachable → 503, never a hang).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPostgres, type PostgresServer } from '../../../test/support/postgres-server.js';
import { ControlStoreUnavailableError, type ControlStore } from './control-store.js';
import { controlStoreContract } from './control-store.contract.js';
import { clusterContract } from './control-store-cluster.contract.js';
import { openControlStore } from './open-control-store.js';
import { openPostgres } from './postgres-driver.js';

const server = await startPostgres();
const SKIP = 'PostgreSQL binaries (initdb, pg_ctl, postgres) not found under /usr/lib/postgresql/15/bin or pg_config --bindir';

if (server === null) {
  void describe('control store on PostgreSQL', () => {
    void it('runs the contract against PostgreSQL 15', { skip: SKIP }, () => undefined);
  });
} else {
  const pg: PostgresServer = server;
  after(() => pg.destroy());

  controlStoreContract('PostgreSQL', async () => {
    const store = await openControlStore({ url: pg.url, dataDir: '/nonexistent' });
    return { store, cleanup: () => store.close() };
  });

  clusterContract('PostgreSQL', async () => {
    const store = await openControlStore({ url: pg.url, dataDir: '/nonexistent' });
    return { store, cleanup: () => store.close() };
  });

  void describe('control store on PostgreSQL: outages', () => {
    let store: ControlStore | undefined;
    const s = (): ControlStore => {
      if (!store) throw new Error('store not open');
      return store;
    };
    before(async () => {
      // postgresql:// is the other spelling DESIGN §1's SIGHTLINE_CONTROL_DB accepts.
      store = await openControlStore({ url: pg.url.replace(/^postgres:/, 'postgresql:'), dataDir: '/nonexistent' });
    });
    after(() => store?.close());

    const calls: [string, (st: ControlStore) => Promise<unknown>][] = [
      ['ping', (st) => st.ping()],
      ['getAccount', (st) => st.getAccount('acc_x')],
      ['findGrantByHash', (st) => st.findGrantByHash('00')],
      ['countLiveKeys', (st) => st.countLiveKeys('acc_x')],
      ['createAccount', (st) => st.createAccount({ name: 'x', tier: 'trial', signupAt: 0, trialEndsAt: 1 })],
      ['addCounters (a transaction)', (st) => st.addCounters([{ accountId: 'acc_x', day: '2026-01-01', name: 'n', delta: 1 }])],
    ];

    void it('a stopped server makes every call reject with ControlStoreUnavailableError within seconds', async () => {
      const a = await s().createAccount({ name: 'survivor', tier: 'team', signupAt: 0, trialEndsAt: null });
      await pg.stop();
      try {
        for (const [label, call] of calls) {
          const t0 = Date.now();
          await assert.rejects(call(s()), ControlStoreUnavailableError, label);
          assert.ok(Date.now() - t0 < 5000, `${label} took ${Date.now() - t0} ms`);
        }
        await assert.rejects(openControlStore({ url: pg.url, dataDir: '/nonexistent' }), ControlStoreUnavailableError);
      } finally {
        await pg.start();
      }
      // The pool reconnects by itself once the server is back.
      assert.equal((await s().getAccount(a.id))?.name, 'survivor');
      for (const [label, call] of calls) await assert.doesNotReject(call(s()), label);
    });

    void it('a crashed server (immediate stop) is an outage too, and recovery keeps committed data', async () => {
      const a = await s().createAccount({ name: 'crash', tier: 'team', signupAt: 0, trialEndsAt: null });
      await s().addCounters([{ accountId: a.id, day: '2026-01-01', name: 'bytes:logs', delta: 42 }]);
      await pg.kill();
      try {
        await assert.rejects(s().getCounters(a.id, '2026-01-01'), ControlStoreUnavailableError);
      } finally {
        await pg.start();
      }
      assert.deepEqual(await s().getCounters(a.id, '2026-01-01'), { 'bytes:logs': 42 });
    });

    void it('a connection cut while its transaction waits between statements fails that transaction, not the process', async () => {
      // A checked-out pg client has no 'error' listener of the pool's; without one of ours the server's
      // "terminating connection" during fn is an uncaught 'error' event and the whole service exits (rule 11).
      const driver = await openPostgres(pg.url);
      const uncaught: unknown[] = [];
      const onUncaught = (e: unknown): void => { uncaught.push(e); };
      process.prependListener('uncaughtException', onUncaught);
      try {
        await assert.rejects(driver.transaction(async (tx) => {
          const [me] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', []);
          assert.ok(me);
          await driver.query('SELECT pg_terminate_backend($1)', [me.pid]);
          await new Promise((resolve) => setTimeout(resolve, 300)); // the cut arrives while fn does other work
          return tx.query('SELECT 1', []);
        }), ControlStoreUnavailableError);
        assert.deepEqual(uncaught, []);
        // The broken client was not returned to the pool: the next transaction gets a working one.
        assert.deepEqual(await driver.transaction((tx) => tx.query('SELECT 1 AS one', [])), [{ one: 1 }]);
      } finally {
        process.removeListener('uncaughtException', onUncaught);
        await driver.close();
      }
    });

    void it('SQL errors on PostgreSQL stay SQL errors, not outages', async () => {
      await assert.rejects(s().createTenant({ accountId: 'acc_missing', name: 'orphan' }), (e: unknown) =>
        e instanceof Error && !(e instanceof ControlStoreUnavailableError) && (e as { code?: string }).code === '23503');
    });
  });
}
