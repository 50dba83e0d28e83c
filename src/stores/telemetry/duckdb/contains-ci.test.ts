// The shortcuts of duckdbContainsCi (contains-ci.ts) never change an answer: on a real DuckDB, every needle finds
// exactly the values that contains(lower(v), lower(needle)) finds — with letters whose lowercase is ASCII (the Kelvin
// sign, dotted capital I), letters that change byte length, and every kind of caseless run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import type { ParamSink, SqlParam } from '../sql/dialect.js';
import { duckdbContainsCi } from './contains-ci.js';

/** ASCII letters, caseless ASCII, and letters whose lowercase is ASCII or of another byte length. */
const UNITS = ['a', 'A', 'e', 'E', 'k', 'K', 'i', 'I', 's', 'S', '0', '1', '7', ' ', '-', '.', ':', '/', '_', '#', '\u212a', '\u0130', 'ß', '\u1e9e', 'É', 'é', 'Σ', 'ς'];
const text = (maxLength: number) => fc.string({ unit: fc.constantFrom(...UNITS), maxLength });

class Params implements ParamSink {
  readonly values: SqlParam[] = [];
  add(v: SqlParam): string {
    return `$${this.values.push(v)}`;
  }
}

let instance: DuckDBInstance;
let c: DuckDBConnection;
before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  c = await instance.connect();
  await c.run('CREATE TABLE t (i INTEGER, v VARCHAR)');
});
after(() => {
  c.closeSync();
  instance.closeSync();
});

async function matches(where: string, params: SqlParam[]): Promise<number[]> {
  const rows = (await c.runAndReadAll(`SELECT i FROM t WHERE ${where} ORDER BY i`, params)).getRowObjectsJS();
  return rows.map((r) => Number(r.i));
}

test('every needle finds exactly what contains(lower(v), lower(needle)) finds', async () => {
  const needles = fc.oneof(text(8), fc.stringMatching(/^[0-9 ._:/#-]{1,8}$/));
  await fc.assert(fc.asyncProperty(fc.array(text(24), { maxLength: 12 }), fc.array(needles, { minLength: 1, maxLength: 6 }),
    async (values, needleList) => {
      await c.run('DELETE FROM t');
      for (const [i, v] of values.entries()) await c.run('INSERT INTO t VALUES ($1, $2)', [i, v]);
      // Needles cut from the values themselves (then case-flipped) as well as random ones, so that many match.
      const cut = values.filter((v) => v.length > 2).map((v, i) => flipCase(v.slice(i % 2, v.length - 1)));
      for (const needle of [...needleList, ...cut]) {
        const p = new Params();
        const got = await matches(duckdbContainsCi('v', needle, p), p.values);
        assert.deepEqual(got, await matches('contains(lower(v), lower($1))', [needle]), `needle ${JSON.stringify(needle)}`);
      }
    }), { numRuns: 60 });
});

function flipCase(s: string): string {
  return Array.from(s).map((ch, i) => (i % 2 === 0 ? ch.toUpperCase() : ch)).join('');
}

test('a needle without letters is matched without lower(); one with a caseless run is looked for by it first', () => {
  const cases: [string, string, SqlParam[]][] = [
    ['10.0.3.4:5432', 'contains(v, $1)', ['10.0.3.4:5432']],
    ['needle049140a0e076', '(contains(v, $2) AND contains(lower(v), lower($1)))', ['needle049140a0e076', '049140']],
    ['a1b', 'contains(lower(v), lower($1))', ['a1b']],
    ['timeout', 'contains(lower(v), lower($1))', ['timeout']],
    ['', 'contains(lower(v), lower($1))', ['']],
  ];
  for (const [needle, sql, params] of cases) {
    const p = new Params();
    assert.equal(duckdbContainsCi('v', needle, p), sql, needle);
    assert.deepEqual(p.values, params, needle);
  }
});
