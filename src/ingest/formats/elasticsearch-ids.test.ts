import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autoId } from './elasticsearch-ids.js';

void test('auto ids are 20 base64url characters and distinct, across many draws from the random source', () => {
  const ids = Array.from({ length: 2000 }, () => autoId());
  for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{20}$/);
  assert.equal(new Set(ids).size, ids.length);
});
