// Promoted field columns, the pure part (field-columns.ts): what a column of each kind may hold, and that splitting a
// row's fields over the columns and joining them back gives the very object written — keys, values, types and order.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { FieldValue } from '../../../model/log-entry.js';
import { fits, FieldSplitter, joinFields, type FieldColumn } from './field-columns.js';

const COLUMNS: FieldColumn[] = [
  { key: 'host', column: 'field_1', kind: 'text' },
  { key: 'status', column: 'field_2', kind: 'int' },
  { key: 'request_id', column: 'field_3', kind: 'uuid' },
  { key: '__proto__', column: 'field_4', kind: 'text' },
];

/** What DuckDB hands back for a stored value: BIGINT as bigint, text and UUIDs as strings, NULL as null. */
function stored(kind: FieldColumn['kind'], v: string | number | undefined): unknown {
  if (v === undefined) return null;
  return kind === 'int' ? BigInt(v) : v;
}

function roundTrip(fields: Record<string, FieldValue>, columns = COLUMNS): Record<string, unknown> {
  const s = new FieldSplitter(columns).split(fields);
  // The JSON text goes through DuckDB as text: what comes back is JSON.parse-able and equal.
  return joinFields(s.json, columns, columns.map((c, i) => stored(c.kind, s.values[i])), s.order);
}

/** deepStrictEqual ignores key order; the order is part of what must come back. */
function assertSame(got: Record<string, unknown>, want: Record<string, FieldValue>): void {
  assert.deepStrictEqual(got, want);
  assert.deepStrictEqual(Object.keys(got), Object.keys(want));
}

void describe('field columns', () => {
  test('a kind holds only what it gives back exactly', () => {
    assert.ok(fits('text', 'node-1') && fits('text', '') && fits('text', 'a\u0000b') && fits('text', '😀'));
    assert.ok(!fits('text', '\ud800') && !fits('text', 'x\udc00') && !fits('text', 1) && !fits('text', null));
    assert.ok(fits('int', 0) && fits('int', -5) && fits('int', Number.MAX_SAFE_INTEGER));
    assert.ok(!fits('int', -0) && !fits('int', 1.5) && !fits('int', 2 ** 53) && !fits('int', '1') && !fits('int', true));
    assert.ok(fits('uuid', '0a1b2c3d-0000-4000-a000-00000000abcd'));
    assert.ok(!fits('uuid', '0A1B2C3D-0000-4000-A000-00000000ABCD') && !fits('uuid', '0a1b2c3d00004000a00000000000abcd'));
  });

  test('promoted keys leave the JSON; the rest stays in it, in order', () => {
    const s = new FieldSplitter(COLUMNS).split({ host: 'web-1', status: 200, region: 'eu', extra: [1, { a: null }] });
    assert.equal(s.json, '{"region":"eu","extra":[1,{"a":null}]}');
    assert.deepEqual(s.values, ['web-1', 200]);
    assert.equal(s.order, null);
  });

  test('a row whose keys are all promoted stores an empty object', () => {
    const s = new FieldSplitter(COLUMNS).split({ host: 'web-1', request_id: '0a1b2c3d-0000-4000-a000-00000000abcd' });
    assert.equal(s.json, '{}');
    assert.equal(s.order, null);
  });

  test('without columns the JSON is the whole object, as before promotion existed', () => {
    const fields = { b: 1, a: 'x' };
    assert.deepEqual(new FieldSplitter([]).split(fields), { json: JSON.stringify(fields), values: [], order: null });
  });

  test('values a column cannot hold exactly stay in the JSON with their type', () => {
    const fields: Record<string, FieldValue> = {
      host: 7, status: '200', request_id: 'NOT-A-UUID', extra: 1,
    };
    const s = new FieldSplitter(COLUMNS).split(fields);
    assert.deepEqual(s.values, []);
    assertSame(roundTrip(fields), fields);
    // -0 as JSON wrote it: 0.
    assertSame(roundTrip({ status: -0, host: '\ud800', n: 2 ** 60 }), { status: 0, host: '\ud800', n: 2 ** 60 });
  });

  test('key order comes back, also when it is not the promoted-first order', () => {
    const fields = { extra: true, status: 500, host: 'web-2' };
    const s = new FieldSplitter(COLUMNS).split(fields);
    assert.equal(s.order, '["extra","status","host"]');
    assertSame(roundTrip(fields), fields);
    assertSame(roundTrip({ status: 1, host: 'a' }), { status: 1, host: 'a' });
  });

  test('one splitter over many rows: a row in the order of the row before gets that text, any other its own', () => {
    const splitter = new FieldSplitter(COLUMNS);
    const first = splitter.split({ extra: 1, host: 'a' }).order;
    assert.equal(first, '["extra","host"]');
    assert.equal(splitter.split({ extra: 2, host: 'b' }).order, first);
    assert.equal(splitter.split({ extra: 2, status: 3 }).order, '["extra","status"]');
    assert.equal(splitter.split({ host: 'c', extra: 3 }).order, null);
    assert.equal(splitter.split({ extra: 2, host: 'b', more: 1 }).order, '["extra","host","more"]');
    assert.equal(splitter.split({ extra: 2, host: 'b' }).order, first);
    // Rows of few keys repeat orders often, and change them at any row.
    const key = fc.constantFrom('host', 'status', 'a', 'b', '1');
    fc.assert(fc.property(fc.array(fc.array(fc.tuple(key, fc.integer()), { maxLength: 5 }), { maxLength: 16 }), (rows) => {
      const one = new FieldSplitter(COLUMNS);
      for (const pairs of rows) {
        const fields = Object.fromEntries(pairs) as Record<string, FieldValue>;
        const s = one.split(fields);
        const back = joinFields(s.json, COLUMNS, COLUMNS.map((c, i) => stored(c.kind, s.values[i])), s.order);
        assertSame(back, JSON.parse(JSON.stringify(fields)) as Record<string, FieldValue>);
      }
    }));
  });

  test('a `__proto__` key is a key, in the JSON and in a column', () => {
    const inJson = JSON.parse('{"__proto__":{"polluted":1},"a":1}') as Record<string, FieldValue>;
    assertSame(roundTrip(inJson, COLUMNS.slice(0, 3)), inJson);
    const inColumn = JSON.parse('{"__proto__":"x","host":"h"}') as Record<string, FieldValue>;
    const back = roundTrip(inColumn);
    assertSame(back, inColumn);
    assert.equal(Object.getPrototypeOf(back), Object.prototype);
  });

  test('rows written before a key was promoted read back from the JSON', () => {
    const old = { host: 'web-9', status: 404 };
    assertSame(joinFields(JSON.stringify(old), COLUMNS, [null, null, null, null], null), old);
  });

  test('any fields object comes back as written (property)', () => {
    // '1' and '10' are integer-like: JavaScript orders such keys first, whatever the insertion order.
    const key = fc.constantFrom('host', 'status', 'request_id', '__proto__', 'a', 'b', '', '1', '10');
    const columns: FieldColumn[] = [...COLUMNS, { key: '10', column: 'field_5', kind: 'int' }];
    const value: fc.Arbitrary<FieldValue> = fc.oneof(
      fc.string(), fc.string({ unit: 'binary' }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(),
      fc.constant(null), fc.uuid(), fc.constant(-0), fc.array(fc.integer(), { maxLength: 2 }),
    );
    fc.assert(fc.property(fc.array(fc.tuple(key, value), { maxLength: 8 }), (pairs) => {
      const fields = Object.fromEntries(pairs) as Record<string, FieldValue>;
      // JSON is the reference: what the store gave back before promotion existed.
      const want = JSON.parse(JSON.stringify(fields)) as Record<string, FieldValue>;
      assertSame(roundTrip(fields, columns), want);
    }));
  });
});
