// The chunk inserter (chunk-insert.ts): chunks a ChunkWriter built, inserted by DuckDB from its table function, read
// back as the appender stores them — long strings (which stay in the built chunk's heap until DuckDB asks for the
// next), NULLs, constants, UUIDs, a JSON column taken as it is, rows in order over chunks built ahead and built as
// asked; a build that throws fails the insert with its error and leaves the inserter usable.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection, type DuckDBDataChunk } from '@duckdb/node-api';
import { withAppender } from './appender.js';
import { ChunkInserter, type InsertColumn } from './chunk-insert.js';
import { CHUNK_ROWS, ChunkWriter, type ColumnKind } from './chunk-writer.js';

const KINDS: ColumnKind[] = ['varchar', 'bigint', 'varchar', 'uuid', 'varchar', 'varchar'];
const COLUMNS: InsertColumn[] = ['tenant', 'seq', 'msg', 'id', 'note', 'doc']
  .map((name, i) => ({ name, kind: KINDS[i] ?? 'varchar', json: name === 'doc' }));
const TABLE = '(tenant VARCHAR, seq BIGINT, msg VARCHAR, id UUID, note VARCHAR, doc JSON)';

interface Row {
  tenant: string;
  seq: bigint;
  msg: string;
  id: string | null;
  note: string | null;
  doc: string;
}

/** Rows of three tenants over several chunks, the last of each part-full. */
function rowsOf(count: number): Row[] {
  return Array.from({ length: count }, (_, i) => ({
    tenant: i < count / 2 ? 'tenant-a' : 'tenant-b',
    seq: BigInt(i),
    msg: i % 3 === 0 ? `short ${i % 10}` : `a message long enough to leave the string_t, number ${i} é`,
    id: i % 7 === 0 ? null : `0a1b2c3d-4e5f-4a6b-8c7d-${(i % 1_000_000).toString(16).padStart(12, '0')}`,
    note: i % 5 === 0 ? null : i % 5 === 1 ? '' : `note ${i % 4} of a length past twelve bytes`,
    doc: i % 2 === 0 ? '{}' : `{"k":${i}}`,
  }));
}

/** The rows as chunks (a tenant's rows start a chunk, its tenant a constant of it), built as they are asked for. */
function* chunksOf(rows: Row[], throwAt = -1): Generator<DuckDBDataChunk, void> {
  const w = new ChunkWriter(KINDS);
  let tenant: string | null = null;
  for (const r of rows) {
    if (r.tenant !== tenant) {
      const last = w.take();
      if (last) yield last;
      tenant = r.tenant;
    }
    if (Number(r.seq) === throwAt) throw new Error('a build that fails');
    if (w.rows === 0) w.constant(0, r.tenant);
    w.bigint(1, r.seq);
    w.string(2, r.msg);
    if (r.id === null) w.null(3);
    else w.uuid(3, r.id);
    if (r.note === null) w.null(4);
    else w.string(4, r.note);
    w.string(5, r.doc);
    if (w.endRow()) yield w.take() as DuckDBDataChunk;
  }
  const last = w.take();
  if (last) yield last;
}

void describe('chunk inserter', () => {
  let instance: DuckDBInstance;
  let c: DuckDBConnection;
  let inserter: ChunkInserter;
  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    c = await instance.connect();
    inserter = new ChunkInserter(c);
  });
  after(() => {
    c.closeSync();
    instance.closeSync();
  });

  const read = async (table: string) => (await c.runAndReadAll(
    `SELECT tenant, seq, msg, CAST(id AS VARCHAR) AS id, note, CAST(doc AS VARCHAR) AS doc FROM ${table} ORDER BY rowid`)).getRowObjectsJS();

  test('stores what the appender stores, in order, over chunks built ahead and built as asked for', async () => {
    const rows = rowsOf(40 * CHUNK_ROWS + 123);
    await c.run(`CREATE TABLE appended ${TABLE}`);
    await c.run(`CREATE TABLE inserted ${TABLE}`);
    await withAppender(c, 'appended', (a) => {
      for (const chunk of chunksOf(rows)) a.appendDataChunk(chunk);
    });
    const rest = chunksOf(rows);
    const built: DuckDBDataChunk[] = [];
    for (let k = 0; k < 5; k++) {
      const next = rest.next();
      if (next.done !== true) built.push(next.value);
    }
    await c.run('BEGIN TRANSACTION');
    await inserter.insert(c, 'inserted', COLUMNS, { built, rest });
    await c.run('COMMIT');
    const want = await read('appended');
    assert.equal(want.length, rows.length);
    assert.deepEqual(await read('inserted'), want);
    assert.deepEqual(want.slice(0, 3).map((r) => r.seq), [0n, 1n, 2n]);
  });

  test('takes a JSON column as it is, with no cast (a cast would check it)', async () => {
    await c.run(`CREATE TABLE as_is ${TABLE}`);
    const rows = rowsOf(10).map((r) => ({ ...r, doc: 'not JSON at all' }));
    await c.run('BEGIN TRANSACTION');
    await inserter.insert(c, 'as_is', COLUMNS, { built: [], rest: chunksOf(rows) });
    await c.run('COMMIT');
    assert.deepEqual((await read('as_is')).map((r) => r.doc), rows.map(() => 'not JSON at all'));
  });

  test('fails the insert with what the build threw, and inserts again after', async () => {
    await c.run(`CREATE TABLE failing ${TABLE}`);
    const rows = rowsOf(30 * CHUNK_ROWS);
    await c.run('BEGIN TRANSACTION');
    await assert.rejects(inserter.insert(c, 'failing', COLUMNS, { built: [], rest: chunksOf(rows, 25 * CHUNK_ROWS + 7) }),
      /a build that fails/);
    await c.run('ROLLBACK');
    assert.equal((await read('failing')).length, 0);
    await c.run('BEGIN TRANSACTION');
    await inserter.insert(c, 'failing', COLUMNS, { built: [], rest: chunksOf(rows) });
    await c.run('COMMIT');
    assert.equal((await read('failing')).length, rows.length);
  });

  test('refuses a second insert while one runs', async () => {
    await c.run(`CREATE TABLE one_at_a_time ${TABLE}`);
    await c.run('BEGIN TRANSACTION');
    const first = inserter.insert(c, 'one_at_a_time', COLUMNS, { built: [], rest: chunksOf(rowsOf(3 * CHUNK_ROWS)) });
    await assert.rejects(inserter.insert(c, 'one_at_a_time', COLUMNS, { built: [], rest: chunksOf(rowsOf(1)) }), /one insert at a time/);
    await first;
    await c.run('COMMIT');
    assert.equal((await read('one_at_a_time')).length, 3 * CHUNK_ROWS);
  });
});
