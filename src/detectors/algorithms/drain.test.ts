// Drain on generated logs with a known answer: 1000 lines from 5 templates mine into exactly those 5, a 6th is new;
// templates read back from text are found again by every line they were learnt from; masking of ids and numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Drain, templateText, WILDCARD } from './drain.js';
import { maskMessage, tokenize } from './log-masking.js';
import { pick, rng } from '../testing/generate.js';

const r = rng(2024);
const hex = (n: number): string => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
const ip = (): string => `10.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}`;
const uuid = (): string => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
const int = (max: number): number => Math.floor(r() * max);

/** Five templates with their variable parts: names, ids, IPs, UUIDs, hex keys, hosts, reasons, durations. */
const FIVE: readonly (() => string)[] = [
  () => `user ${pick(r, ['alice', 'bob', 'carol', 'dave', 'erin'])} logged in from ${ip()}`,
  () => `GET /api/orders/${int(100000)} returned ${pick(r, [200, 201, 404])} in ${int(900)}ms`,
  () => `connection to ${pick(r, ['db-1.internal', 'db-2.internal', 'cache-1.internal'])} failed: ${pick(r, ['timeout', 'refused', 'reset'])}`,
  () => `cache miss for key ${hex(14)}a1`,
  () => `job ${uuid()} finished in ${(r() * 10).toFixed(2)}s with ${int(5000)} items`,
];
const FIVE_TEXTS = [
  'user <*> logged in from <IP>',
  'GET /api/orders/<NUM> returned <NUM> in <NUM>',
  'connection to <*> failed: <*>',
  'cache miss for key <HEX>',
  'job <UUID> finished in <NUM> with <NUM> items',
];

void test('1000 lines of 5 templates mine into exactly those 5, and a 6th template is new', () => {
  const drain = new Drain();
  const lines = Array.from({ length: 1000 }, (_, i) => (FIVE[i % 5] ?? (() => ''))());
  for (const line of lines) drain.add(line);
  assert.deepEqual(drain.templates().map(templateText).sort(), [...FIVE_TEXTS].sort());
  assert.deepEqual(drain.templates().map((t) => t.size), [200, 200, 200, 200, 200]);
  const sixth = (): string => `panic: nil map write in ${pick(r, ['handleOrder', 'applyCoupon'])}`;
  assert.equal(drain.match(sixth()), null, 'not matched before it is learnt');
  assert.equal(drain.add(sixth()).created, true);
  const again = drain.add(sixth());
  assert.equal(again.created, false);
  assert.equal(drain.templates().length, 6);
  for (const line of lines.slice(0, 50)) assert.notEqual(drain.match(line), null, line);
});

void test('templates read back from text are found again by every line they were learnt from', () => {
  const learn = new Drain();
  const lines = Array.from({ length: 500 }, (_, i) => (FIVE[i % 5] ?? (() => ''))());
  for (const line of lines) learn.add(line);
  const seeded = new Drain();
  for (const t of learn.templates()) seeded.seed(templateText(t));
  for (const line of lines) {
    const m = seeded.match(line);
    assert.ok(m, line);
    assert.equal(templateText(m), templateText(learn.match(line) ?? m));
  }
  // A template that is mostly wildcards is still its own lines' template (similarity counts wildcards).
  const wild = new Drain();
  wild.seed('<*> <*> <*> done');
  assert.ok(wild.match('alpha beta gamma done'));
});

void test('the similarity threshold decides: three of five tokens alike join at 0.4, not at 0.7', () => {
  const lax = new Drain({ similarity: 0.4 });
  lax.add('worker alpha started queue emails');
  assert.equal(lax.add('worker beta stopped queue emails').created, false);
  assert.deepEqual(lax.templates().map(templateText), ['worker <*> <*> queue emails']);
  const strict = new Drain({ similarity: 0.7 });
  strict.add('worker alpha started queue emails');
  assert.equal(strict.add('worker beta stopped queue emails').created, true);
});

void test('lines of different length or first token never share a template', () => {
  const drain = new Drain();
  drain.add('disk full on node');
  assert.equal(drain.add('disk full on node now').created, true);
  assert.equal(drain.add('DISK full on node').created, true);
  assert.equal(drain.templates().length, 3);
});

void test('a full layer sends further first tokens down the <*> branch, where they still mine by similarity', () => {
  const drain = new Drain({ maxChildren: 3 });
  for (const w of ['a', 'b', 'c', 'd', 'e']) drain.add(`${w} request served fine`);
  // a and b get their own branches; c, d and e share the <*> branch and join one template there.
  assert.deepEqual(drain.templates().map(templateText).sort(), ['<*> request served fine', 'a request served fine', 'b request served fine']);
  assert.equal(drain.match('zzz request served fine')?.tokens[0], WILDCARD);
});

void test('masking: times, UUIDs, IPs (v4 with port, v6), hex, numbers with units; digits inside words stay', () => {
  const cases: [string, string][] = [
    ['at 2024-05-01T12:00:00.123Z ok', 'at <TIME> ok'],
    ['req 3f2b6a1e-9c4d-4e5f-8a7b-1c2d3e4f5a6b done', 'req <UUID> done'],
    ['from 192.168.1.20:8080 and 10.0.0.1.', 'from <IP> and <IP>.'],
    ['peer fe80::1ff:fe23:4567:890a and 2001:0db8:85a3:0000:0000:8a2e:0370:7334 up', 'peer <IP> and <IP> up'],
    ['ptr 0x7ffd5e8c trace 4bf92f3577b34da6a3ce929d0e0e4736', 'ptr <HEX> trace <HEX>'],
    ['took 12ms, 1.5s, 300KB, 42% of -7 and 3e5', 'took <NUM>, <NUM>, <NUM>, <NUM> of <NUM> and <NUM>'],
    ['utf8 v2 http2 stay; at 12:30 too', 'utf8 v2 http2 stay; at <NUM>:<NUM> too'],
    ['deadbeef is a word, cafe1234 is hex', 'deadbeef is a word, <HEX> is hex'],
  ];
  for (const [line, want] of cases) assert.equal(maskMessage(line), want, line);
  assert.deepEqual(tokenize('  a \t b\nc  '), ['a', 'b', 'c']);
  const empty = new Drain();
  assert.equal(empty.add('').created, true);
  assert.equal(empty.add('   ').created, false);
});
