// The chunk writer (chunk-writer.ts) against DuckDB's own row appender: the same rows, written both ways into two
// tables, read back the same — strings short and long, empty, non-ASCII, with NUL bytes, twelve bytes exactly and
// one more; int64 at its ends, from BigInts and from numbers; UUIDs at theirs; NULLs anywhere; constants per chunk;
// several chunks, one part-full.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { withAppender } from './appender.js';
import { CHUNK_ROWS, ChunkWriter } from './chunk-writer.js';

const STRINGS = ['', 'a', 'node-3', 'twelve bytes', 'thirteen byte', 'é', 'ééééééé', '😀😀😀', 'x\u0000y', 'ключ', 'abcdé', 'abcdefghijké',
  'a longer message with words and 123 numbers in it'];
const UUIDS = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '80000000-0000-0000-0000-000000000000', '7fffffff-ffff-ffff-ffff-ffffffffffff', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'];
const BIGINTS = [0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 1_714_564_800_123_456_789n];

interface Row {
  tenant: string;
  s: string;
  n: bigint;
  u: string | null;
  t: string | null;
}

/** Rows over three chunks and a bit, NULLs and constants changing with the batch. */
function rows(): Row[][] {
  const batch = (tenant: string, count: number, from: number): Row[] => Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      tenant, s: STRINGS[i % STRINGS.length] ?? '', n: BIGINTS[i % BIGINTS.length] ?? 0n,
      u: i % 7 === 3 ? null : UUIDS[i % UUIDS.length] ?? null, t: i % 5 === 0 ? null : STRINGS[(i * 3) % STRINGS.length] ?? null,
    };
  });
  return [batch('tenant-a', 2 * CHUNK_ROWS + 17, 0), batch('tenant-b', 5, 10_000), batch('', CHUNK_ROWS, 20_000)];
}

const TABLE = '(tenant VARCHAR, s VARCHAR, n BIGINT, u UUID, t VARCHAR)';

void describe('chunk writer', () => {
  let instance: DuckDBInstance;
  let c: DuckDBConnection;
  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    c = await instance.connect();
    await c.run(`CREATE TABLE by_rows ${TABLE}`);
    await c.run(`CREATE TABLE by_chunks ${TABLE}`);
  });
  after(() => {
    c.closeSync();
    instance.closeSync();
  });

  test('stores what the row appender stores', async () => {
    const batches = rows();
    await withAppender(c, 'by_rows', (a) => {
      for (const r of batches.flat()) {
        a.appendVarchar(r.tenant);
        a.appendVarchar(r.s);
        a.appendBigInt(r.n);
        if (r.u === null) a.appendNull();
        else a.appendVarchar(r.u);
        if (r.t === null) a.appendNull();
        else a.appendVarchar(r.t);
        a.endRow();
      }
    });
    await withAppender(c, 'by_chunks', (a) => {
      const w = new ChunkWriter(['varchar', 'varchar', 'bigint', 'uuid', 'varchar']);
      for (const batch of batches) {
        for (const r of batch) {
          if (w.rows === 0) w.constant(0, r.tenant);
          w.string(1, r.s);
          w.bigint(2, r.n);
          if (r.u === null) w.null(3);
          else w.uuid(3, r.u);
          if (r.t === null) w.null(4);
          else w.string(4, r.t);
          if (w.endRow()) w.flush(a);
        }
        w.flush(a);
      }
    });
    const read = async (table: string) => (await c.runAndReadAll(
      `SELECT tenant, s, length(s) AS len, n, CAST(u AS VARCHAR) AS u, t FROM ${table}`)).getRowObjectsJS();
    const want = await read('by_rows');
    assert.equal(want.length, batches.flat().length);
    assert.deepEqual(await read('by_chunks'), want);
    // And what was meant, not only what both agree on.
    const back = await c.runAndReadAll("SELECT count(*) AS n FROM by_chunks WHERE s = 'x' || chr(0) || 'y'");
    assert.ok(Number(back.getRowObjectsJS()[0]?.n) > 0);
    // DuckDB compares and hashes a short string by its whole 16 bytes: the padding must be zero, chunk after chunk.
    const grouped = async (table: string) => (await c.runAndReadAll(
      `SELECT s, t, count(*) AS n FROM ${table} GROUP BY s, t ORDER BY s, t`)).getRowObjectsJS();
    assert.deepEqual(await grouped('by_chunks'), await grouped('by_rows'));
    const matched = await c.runAndReadAll(
      'SELECT count(*) AS n FROM (SELECT s, row_number() OVER () AS i FROM by_chunks) AS a JOIN ' +
      '(SELECT s, row_number() OVER () AS i FROM by_rows) AS b ON a.i = b.i AND a.s = b.s');
    assert.equal(Number(matched.getRowObjectsJS()[0]?.n), want.length);
  });

  test('long strings that repeat down a chunk, and long strings that do not, read back row for row', async () => {
    // Column 0 repeats a few values (given one string_t each); column 1 starts unique past the look-ahead (so it
    // stops looking) and repeats its first values after that; column 2 repeats next to NULLs and short strings.
    await c.run('CREATE TABLE repeats (a VARCHAR, b VARCHAR, c VARCHAR)');
    const want = Array.from({ length: CHUNK_ROWS + 300 }, (_, i) => ({
      a: `stream {service="checkout-${i % 5}"}`,
      b: i < 200 ? `a message that is only here ${i}` : `a message that is only here ${i % 7}`,
      c: i % 3 === 0 ? null : i % 3 === 1 ? 'short' : `route /api/v2/orders/${i % 2}/éé`,
    }));
    await withAppender(c, 'repeats', (a) => {
      const w = new ChunkWriter(['varchar', 'varchar', 'varchar']);
      for (const r of want) {
        w.string(0, r.a);
        w.string(1, r.b);
        if (r.c === null) w.null(2);
        else w.string(2, r.c);
        if (w.endRow()) w.flush(a);
      }
      w.flush(a);
    });
    const got = (await c.runAndReadAll('SELECT a, b, c FROM repeats ORDER BY rowid')).getRowObjectsJS();
    assert.deepEqual(got, want);
  });

  test('strings given as bytes read back row for row: inline and long, lowercased, beside JS strings and repeats in the same column', async () => {
    // Column a mixes bytes and JS strings (long ones that repeat, long ones that do not, short ones); column b is
    // bytes only, lowercased, with NULLs; several chunks, so every chunk's run points into its own copy.
    await c.run('CREATE TABLE from_bytes (a VARCHAR, b VARCHAR)');
    const body = Buffer.from('xx{"msg":"GET /api/v2/orders/17 completed in 12 ms","id":"0A1B2C3D4E5F60718293A4B5C6D7E8F9","s":"short"}é');
    const span = (text: string): [number, number] => {
      const at = body.indexOf(text);
      return [at, at + Buffer.byteLength(text)];
    };
    const msg = span('GET /api/v2/orders/17 completed in 12 ms');
    const id = span('0A1B2C3D4E5F60718293A4B5C6D7E8F9');
    const short = span('short');
    const twelve = span('GET /api/v2/');
    const thirteen = span('GET /api/v2/o');
    const nonAscii = [body.length - 2, body.length] as const;
    const want: { a: string; b: string | null }[] = [];
    await withAppender(c, 'from_bytes', (a) => {
      const w = new ChunkWriter(['varchar', 'varchar']);
      for (let i = 0; i < 2 * CHUNK_ROWS + 100; i++) {
        const pick = i % 6;
        if (pick === 0) {
          w.bytes(0, body, msg[0], msg[1]);
          want.push({ a: 'GET /api/v2/orders/17 completed in 12 ms', b: null });
        } else if (pick === 1) {
          w.string(0, `a long string that repeats ${i % 3}`);
          want.push({ a: `a long string that repeats ${i % 3}`, b: null });
        } else if (pick === 2) {
          w.bytes(0, body, twelve[0], twelve[1]);
          want.push({ a: 'GET /api/v2/', b: null });
        } else if (pick === 3) {
          w.bytes(0, body, thirteen[0], thirteen[1]);
          want.push({ a: 'GET /api/v2/o', b: null });
        } else if (pick === 4) {
          w.string(0, `a long string only here ${i}`);
          want.push({ a: `a long string only here ${i}`, b: null });
        } else {
          w.bytes(0, body, nonAscii[0], nonAscii[1]);
          want.push({ a: 'é', b: null });
        }
        const row = want[want.length - 1] as { a: string; b: string | null };
        if (i % 4 === 0) w.null(1);
        else if (i % 4 === 1) {
          w.bytes(1, body, short[0], short[1], true);
          row.b = 'short';
        } else {
          w.bytes(1, body, id[0], id[1], true);
          row.b = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
        }
        if (w.endRow()) w.flush(a);
      }
      w.flush(a);
    });
    const got = (await c.runAndReadAll('SELECT a, b FROM from_bytes ORDER BY rowid')).getRowObjectsJS();
    assert.deepEqual(got, want);
    // DuckDB compares by the prefix in the string_t first: equality, ordering and grouping must all see the strings.
    const grouped = (await c.runAndReadAll('SELECT a, count(*) AS n FROM from_bytes GROUP BY a ORDER BY a LIMIT 3')).getRowObjectsJS();
    assert.deepEqual(grouped.map((r) => r.a), ['GET /api/v2/', 'GET /api/v2/o', 'GET /api/v2/orders/17 completed in 12 ms']);
    const equal = await c.runAndReadAll("SELECT count(*) AS n FROM from_bytes WHERE b = '0a1b2c3d4e5f60718293a4b5c6d7e8f9' AND a LIKE 'GET%'");
    assert.ok(Number(equal.getRowObjectsJS()[0]?.n) > 0);
  });

  test('spans of a body read back row for row: beside bytes, JS strings, NULLs, a second body and a constant column', async () => {
    // Column a mixes spans of one body with copies of the same bytes, long JS strings and spans of a second body (which
    // are copied); column b holds lowercased ids, copied when they have an upper-case letter and pointed to when not.
    await c.run('CREATE TABLE from_spans (k VARCHAR, a VARCHAR, b VARCHAR)');
    const first = Buffer.from('{"msg":"GET /api/v2/orders/17 completed in 12 ms","id":"0A1B2C3D4E5F60718293A4B5C6D7E8F9","lower":"00f067aa0ba902b700f067aa0ba902b7","s":"short"}');
    const second = Buffer.from('{"msg":"a message of another body, long enough"}');
    const at = (body: Buffer, text: string): [number, number] => {
      const start = body.indexOf(text);
      return [start, start + text.length];
    };
    const msg = at(first, 'GET /api/v2/orders/17 completed in 12 ms');
    const upper = at(first, '0A1B2C3D4E5F60718293A4B5C6D7E8F9');
    const lower = at(first, '00f067aa0ba902b700f067aa0ba902b7');
    const short = at(first, 'short');
    const other = at(second, 'a message of another body, long enough');
    const want: { k: string; a: string | null; b: string }[] = [];
    await withAppender(c, 'from_spans', (a) => {
      const w = new ChunkWriter(['varchar', 'varchar', 'varchar']);
      for (let i = 0; i < 2 * CHUNK_ROWS + 100; i++) {
        if (w.rows === 0) w.constant(0, 'tenant');
        const row: { k: string; a: string | null; b: string } = { k: 'tenant', a: null, b: '' };
        const pick = i % 6;
        if (pick === 0) {
          w.span(1, first, msg[0], msg[1]);
          row.a = 'GET /api/v2/orders/17 completed in 12 ms';
        } else if (pick === 1) {
          w.span(1, first, short[0], short[1]);
          row.a = 'short';
        } else if (pick === 2) {
          w.bytes(1, first, msg[0], msg[1]);
          row.a = 'GET /api/v2/orders/17 completed in 12 ms';
        } else if (pick === 3) {
          w.string(1, `a long string only here ${i}`);
          row.a = `a long string only here ${i}`;
        } else if (pick === 4) {
          w.span(1, second, other[0], other[1]);
          row.a = 'a message of another body, long enough';
        } else {
          w.null(1);
        }
        if (i % 3 === 0) {
          w.span(2, first, upper[0], upper[1], true);
          row.b = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
        } else if (i % 3 === 1) {
          w.span(2, first, lower[0], lower[1], true);
          row.b = '00f067aa0ba902b700f067aa0ba902b7';
        } else {
          w.span(2, first, msg[0] + 4, msg[1]);
          row.b = '/api/v2/orders/17 completed in 12 ms';
        }
        want.push(row);
        if (w.endRow()) w.flush(a);
      }
      w.flush(a);
    });
    const got = (await c.runAndReadAll('SELECT k, a, b FROM from_spans ORDER BY rowid')).getRowObjectsJS();
    assert.deepEqual(got, want);
    const grouped = (await c.runAndReadAll('SELECT b, count(*) AS n FROM from_spans GROUP BY b ORDER BY b')).getRowObjectsJS();
    assert.deepEqual(grouped.map((r) => [r.b, Number(r.n)]), [
      ['/api/v2/orders/17 completed in 12 ms', Math.floor(want.length / 3)],
      ['00f067aa0ba902b700f067aa0ba902b7', Math.ceil((want.length - 1) / 3)],
      ['0a1b2c3d4e5f60718293a4b5c6d7e8f9', Math.ceil(want.length / 3)],
    ]);
  });

  test('integral numbers go into BIGINT as the BigInt of them would: both ends of int32 and of safe integers, 2^63 wrapping', async () => {
    await c.run('CREATE TABLE ints (by_number BIGINT, by_bigint BIGINT)');
    const values = [0, 1, -1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32, 2 ** 32 + 7, -(2 ** 32) - 1,
      1_714_564_800_123, -1_714_564_800_123, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 62, 2 ** 63, -(2 ** 63), 2 ** 64 + 2 ** 12];
    await withAppender(c, 'ints', (a) => {
      const w = new ChunkWriter(['bigint', 'bigint']);
      for (const v of values) {
        w.int(0, v);
        w.bigint(1, BigInt.asIntN(64, BigInt(v)));
        w.endRow();
      }
      w.flush(a);
    });
    const rows = (await c.runAndReadAll('SELECT by_number, by_bigint FROM ints ORDER BY rowid')).getRowObjectsJS();
    assert.equal(rows.length, values.length);
    for (const [i, r] of rows.entries()) assert.equal(r.by_number, r.by_bigint, `value ${values[i]}`);
    assert.equal(rows[12]?.by_number, BigInt(Number.MAX_SAFE_INTEGER));
    assert.equal(rows[15]?.by_number, -(2n ** 63n));
  });

  test('a value of the wrong type is refused before anything reaches DuckDB', () => {
    const w = new ChunkWriter(['varchar', 'bigint']);
    assert.throws(() => w.string(0, null as unknown as string), TypeError);
    assert.throws(() => w.int(1, 1.5), RangeError);
    assert.throws(() => w.int(1, Number.NaN), RangeError);
    assert.throws(() => w.int(0, 1), TypeError);
  });
});
