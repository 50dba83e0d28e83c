// recordToEntry, the rule every shipper format (Fluent Bit, Vector, Firehose, drains) turns a flat record by.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordToEntry, type FlatRecord, type RecordKeys } from './shipper-records.js';

const NOW = 1_700_000_000_000_000_000n;
const KEYS: RecordKeys = { msg: ['message', 'log'], time: ['ts'], service: ['app'], serviceHints: ['k8s.container'], severity: ['level'] };

void test('the keys that become columns leave the fields; the rest stay in their order, and the record is left as it was', () => {
  const flat: FlatRecord = {
    'k8s.container': 'api', message: 'hello', level: 'warn', ts: '2024-05-01T12:00:00Z', n: 1, app: 'checkout', ok: true,
    trace_id: '0123456789ABCDEF0123456789ABCDEF', span_id: '0123456789abcdef', z: null,
  };
  const before = structuredClone(flat);
  const e = recordToEntry(flat, KEYS, NOW);
  assert.equal(e.msg, 'hello');
  assert.equal(e.severity, 'warn');
  assert.equal(e.service, 'checkout');
  assert.equal(e.timeNs, 1_714_564_800_000_000_000n);
  assert.equal(e.traceId, '0123456789abcdef0123456789abcdef');
  assert.equal(e.spanId, '0123456789abcdef');
  assert.deepEqual(Object.entries(e.fields), [['k8s.container', 'api'], ['n', 1], ['ok', true], ['z', null]]);
  assert.deepEqual(flat, before);
});

void test('a value that does not convert stays a field, and the next key of the list is tried', () => {
  const e = recordToEntry({ message: { toString: 1 }, log: 'from log', ts: 'yesterday', app: '', level: 'info' }, KEYS, NOW);
  assert.equal(e.msg, 'from log');
  assert.equal(e.timeNs, NOW, 'no time parsed: the time of receipt');
  assert.equal(e.service, '', 'an empty service is no service');
  assert.deepEqual(Object.keys(e.fields), ['message', 'ts', 'app']);
});

void test('a key taken by one list is not read again by another; a hint is read and left in the fields', () => {
  const keys: RecordKeys = { msg: ['a'], time: [], service: ['s'], serviceHints: ['a', 'hint'], severity: ['a', 'lvl'] };
  const e = recordToEntry({ a: 'text', lvl: 'error', hint: 'from-hint' }, keys, NOW);
  assert.equal(e.msg, 'text');
  assert.equal(e.severity, 'error');
  assert.equal(e.service, 'from-hint');
  assert.deepEqual(e.fields, { hint: 'from-hint' });
});

void test('a key named __proto__ is data; a key on Object.prototype is never read from it', () => {
  const flat = JSON.parse('{"__proto__": "p", "m": "x"}') as FlatRecord;
  const e = recordToEntry(flat, { msg: ['constructor', 'm'], time: ['toString'], service: ['__proto__'], severity: [] }, NOW);
  assert.equal(e.msg, 'x');
  assert.equal(e.timeNs, NOW);
  assert.equal(e.service, 'p');
  assert.deepEqual(Object.keys(e.fields), []);
  assert.equal(Object.getPrototypeOf(e.fields), Object.prototype);
  const kept = recordToEntry(flat, { msg: ['m'], time: [], service: [], severity: [] }, NOW);
  assert.equal(Object.getOwnPropertyDescriptor(kept.fields, '__proto__')?.value, 'p');
  assert.equal(Object.getPrototypeOf(kept.fields), Object.prototype);
});
