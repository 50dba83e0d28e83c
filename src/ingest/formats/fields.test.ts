import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_FLATTEN_DEPTH, flattenFields } from './fields.js';

void test('nested objects become dotted keys and scalars stay as they are', () => {
  const flat = flattenFields({
    kubernetes: { pod_name: 'api-1', labels: { app: 'api' } },
    count: 3, ok: true, gone: null, text: 'x',
  });
  assert.deepEqual(flat, { 'kubernetes.pod_name': 'api-1', 'kubernetes.labels.app': 'api', count: 3, ok: true, gone: null, text: 'x' });
});

void test('arrays are kept as their JSON text', () => {
  assert.deepEqual(flattenFields({ tags: ['a', 'b'], nested: { list: [1, { x: 2 }] } }), { tags: '["a","b"]', 'nested.list': '[1,{"x":2}]' });
});

void test('a prefix goes in front of every key', () => {
  assert.deepEqual(flattenFields({ a: 1, b: { c: 2 } }, 'attrs'), { 'attrs.a': 1, 'attrs.b.c': 2 });
});

void test('an empty object is kept as "{}" rather than silently dropped', () => {
  assert.deepEqual(flattenFields({ meta: {} }), { meta: '{}' });
});

void test('values JSON cannot carry are skipped, and decoder types become text', () => {
  const flat = flattenFields({ u: undefined, big: 12345678901234567890n, bin: Buffer.from('hi'), at: new Date(0), arr: [1n] });
  assert.deepEqual(flat, { big: '12345678901234567890', bin: 'hi', at: '1970-01-01T00:00:00.000Z', arr: '["1"]' });
});

void test('nesting deeper than the bound is kept as JSON text', () => {
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < MAX_FLATTEN_DEPTH + 5; i++) deep = { d: deep };
  const flat = flattenFields(deep);
  const [key, value] = Object.entries(flat)[0] ?? [];
  assert.equal(Object.keys(flat).length, 1);
  assert.equal(key?.split('.').length, MAX_FLATTEN_DEPTH + 1);
  assert.ok(typeof value === 'string');
  assert.match(value, /"leaf":1/);
});

void test('a "__proto__" key is data, not the prototype', () => {
  const obj = JSON.parse('{"__proto__": "x", "o": {"__proto__": {"polluted": true}}}') as Record<string, unknown>;
  const flat = flattenFields(obj);
  assert.equal(Object.getPrototypeOf(flat), Object.prototype);
  assert.deepEqual(Object.keys(flat), ['__proto__', 'o.__proto__.polluted']);
  assert.equal(Object.getOwnPropertyDescriptor(flat, '__proto__')?.value, 'x');
});
