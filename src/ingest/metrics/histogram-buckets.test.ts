import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cumulativeLe, expBound, nativeExpBuckets, otlpExpBuckets } from './histogram-buckets.js';

void test('base = 2^(2^-scale): scale 0 doubles, scale 1 steps by √2, scale -1 quadruples', () => {
  assert.equal(expBound(0, 3), 8);
  assert.equal(expBound(1, 2), 2);
  assert.equal(expBound(1, 1), Math.SQRT2);
  assert.equal(expBound(-1, 2), 16);
  assert.equal(expBound(3, -8), 0.5);
});

void test('OTLP bucket offset+i has upper bound base^(offset+i+1); negative buckets mirror it', () => {
  assert.deepEqual(otlpExpBuckets(0, -1, [1, 2, 3], 1), [
    { upper: 1, count: 1 }, { upper: 2, count: 2 }, { upper: 4, count: 3 },
  ]);
  assert.deepEqual(otlpExpBuckets(0, 1, [5], -1), [{ upper: -2, count: 5 }], 'index 1 covers [-4, -2)');
});

void test('native bucket i has upper bound base^i, one less than OTLP', () => {
  assert.deepEqual(nativeExpBuckets(0, [[0, 1], [1, 2]], 1), [{ upper: 1, count: 1 }, { upper: 2, count: 2 }]);
  assert.deepEqual(nativeExpBuckets(0, [[2, 4]], -1), [{ upper: -2, count: 4 }], 'index 2 covers [-4, -2)');
});

void test('cumulative le buckets are sorted, merged on equal bounds and end with +Inf = count', () => {
  assert.deepEqual(cumulativeLe([{ upper: 2, count: 3 }, { upper: -1, count: 1 }, { upper: 0, count: 2 }], 6), [
    { le: '-1', count: 1 }, { le: '0', count: 3 }, { le: '2', count: 6 }, { le: '+Inf', count: 6 },
  ]);
  assert.deepEqual(cumulativeLe([{ upper: 1, count: 1 }, { upper: 1, count: 2 }], 3), [
    { le: '1', count: 3 }, { le: '+Inf', count: 3 },
  ]);
  assert.deepEqual(cumulativeLe([{ upper: 1, count: 1 }, { upper: Infinity, count: 9 }], 10), [
    { le: '1', count: 1 }, { le: '+Inf', count: 10 },
  ], 'an overflowing bound falls into +Inf');
  assert.deepEqual(cumulativeLe([], 4), [{ le: '+Inf', count: 4 }]);
});
