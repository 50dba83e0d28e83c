import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compress } from 'snappyjs';
import { snappyDeclaredLength, uncompressSnappyBlock } from './snappy-block.js';
import { mulberry32 } from '../testing/prng.js';

void test('the declared length is the leading varint, and none past 32 bits or without its last byte', () => {
  assert.equal(snappyDeclaredLength(Uint8Array.from([0x00])), 0);
  assert.equal(snappyDeclaredLength(Uint8Array.from([0x7f, 0xff])), 127);
  assert.equal(snappyDeclaredLength(Uint8Array.from([0x80, 0x01])), 128);
  assert.equal(snappyDeclaredLength(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x0f])), 0xffffffff);
  assert.equal(snappyDeclaredLength(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x1f])), null);
  assert.equal(snappyDeclaredLength(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])), null);
  assert.equal(snappyDeclaredLength(Uint8Array.from([0x80])), null);
  assert.equal(snappyDeclaredLength(new Uint8Array(0)), null);
});

void test('blocks of another encoder decode byte for byte: literals, copies, runs, long and empty inputs', () => {
  const rnd = mulberry32(9);
  const samples = [Buffer.alloc(0), Buffer.from('a'), Buffer.alloc(100_000, 0x61), Buffer.from('abc'.repeat(30_000))];
  for (let n = 0; n < 200; n++) {
    // Text with repeats at every distance, as remote-write and Loki bodies have (label names, metric names).
    const words = ['job', 'instance', 'http_requests_total', '200', 'GET', '/api/v2/orders', 'é中'];
    const parts: string[] = [];
    for (let k = Math.floor(rnd() * 400); k > 0; k--) parts.push(rnd() < 0.2 ? String(Math.floor(rnd() * 1e9)) : words[Math.floor(rnd() * words.length)] ?? '');
    samples.push(Buffer.from(parts.join(rnd() < 0.5 ? ' ' : '')));
  }
  for (const [i, input] of samples.entries()) {
    const block = Buffer.from(compress(input));
    assert.equal(snappyDeclaredLength(block), input.length, `sample ${i}: declared`);
    assert.ok(uncompressSnappyBlock(block).equals(input), `sample ${i}`);
  }
});

void test('a corrupt block throws, whatever is wrong with it', () => {
  const block = Buffer.from(compress(Buffer.from('hello hello hello hello world '.repeat(50))));
  const corrupt = [
    block.subarray(0, block.length - 3), // cut short: fewer bytes than declared
    Buffer.concat([block, Buffer.from([0x00, 0x61])]), // more than declared
    Buffer.from([0x0a, 0xff, 0xff]), // a copy before anything is decoded
    Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), // no valid length
    Buffer.alloc(0),
  ];
  const wrongLength = Buffer.from(block);
  wrongLength[0] = (wrongLength[0] ?? 0) + 1; // declares one byte more than it holds
  corrupt.push(wrongLength);
  for (const [i, bad] of corrupt.entries()) assert.throws(() => uncompressSnappyBlock(bad), /snappy/, `case ${i}`);
});
