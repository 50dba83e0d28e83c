// The control-store contract on embedded PGlite (DESIGN §1 default backend), in a temp data dir so the reopen
// test proves persistence on disk. One PGlite per process at a time: every open here follows a close.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ControlStoreUnavailableError } from './control-store.js';
import { controlStoreContract } from './control-store.contract.js';
import { clusterContract } from './control-store-cluster.contract.js';
import { MIGRATIONS, migrate } from './migrations.js';
import { openControlStore } from './open-control-store.js';
import { openPglite } from './pglite-driver.js';

const dataDir = mkdtempSync(join(tmpdir(), 'sightline-control-'));
after(() => { rmSync(dataDir, { recursive: true, force: true }); });

controlStoreContract('PGlite', async () => {
  const store = await openControlStore({ dataDir });
  return { store, cleanup: () => store.close() };
});

clusterContract('PGlite', async () => {
  const store = await openControlStore({ dataDir });
  return { store, cleanup: () => store.close() };
});

void describe('control store on PGlite', () => {
  void it('lives in <dataDir>/control, and migrating an up-to-date schema applies nothing', async () => {
    const db = await openPglite(join(dataDir, 'control'));
    try {
      assert.deepEqual(await migrate(db), []);
      const rows = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version', []);
      assert.deepEqual(rows.map((r) => r.version), MIGRATIONS.map((m) => m.version));
    } finally {
      await db.close();
    }
  });

  void it('a failing migration leaves neither its tables nor its version row behind', async () => {
    const db = await openPglite(join(dataDir, 'control'));
    try {
      const broken = [...MIGRATIONS, { version: 999, name: 'broken', statements: ['CREATE TABLE half_done (x int)', 'SELECT * FROM no_such_table'] }];
      await assert.rejects(migrate(db, broken));
      assert.deepEqual(await db.query('SELECT version FROM schema_migrations WHERE version = 999', []), []);
      assert.deepEqual(await db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'half_done'`, []), []);
    } finally {
      await db.close();
    }
  });

  void it('SQL errors pass through with their SQLSTATE; a closed PGlite is an outage (spec rule 11)', async () => {
    const db = await openPglite(join(dataDir, 'control'));
    await assert.rejects(db.query('SELECT * FROM no_such_table', []), (e: unknown) =>
      !(e instanceof ControlStoreUnavailableError) && (e as { code?: string }).code === '42P01');
    await assert.rejects(db.transaction((tx) => tx.query('INSERT INTO tenants (id) VALUES ($1)', ['t'])), (e: unknown) =>
      !(e instanceof ControlStoreUnavailableError) && (e as { code?: string }).code === '23502');
    await assert.rejects(db.transaction(() => Promise.reject(new RangeError('mine'))), RangeError);
    await db.close();
    await assert.rejects(db.query('SELECT 1', []), ControlStoreUnavailableError);
    await assert.rejects(db.transaction((tx) => tx.query('SELECT 1', [])), ControlStoreUnavailableError);
  });
});
