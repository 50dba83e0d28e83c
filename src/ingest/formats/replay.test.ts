import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../errors.js';
import type { ReplayChunk } from '../../model/replay.js';
import { replayFormat } from './replay.js';
import { NOW_NS, fakeContext, fixture, formatRequest } from './shipper-test-support.js';

const badRequest = (detail: RegExp) => (e: unknown) => e instanceof ServiceError && e.status === 400 && detail.test(e.detail);

async function parse(body: Buffer | string | object): Promise<ReplayChunk[]> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const parsed = await replayFormat.parse(bytes, formatRequest({ path: '/v1/rum/replay' }));
  assert.equal(parsed.signal, 'replay');
  return parsed.batch.replay ?? [];
}

const ev = (type: number, timestamp: number, data: object = {}) => ({ type, data, timestamp });

void test('a chunk recorded by rrweb in Chromium becomes one ReplayChunk with its events as sent', async () => {
  const body = fixture('replay/chunk.json');
  const sent = JSON.parse(body.toString()) as { session_id: string; seq: number; page: string; events: { timestamp: number }[] };
  const [chunk, more] = await parse(body);
  assert.equal(more, undefined);
  assert.ok(chunk);
  const times = sent.events.map((e) => e.timestamp);
  assert.deepEqual(
    [chunk.sessionId, chunk.seq, chunk.page, chunk.eventCount, chunk.startNs, chunk.endNs],
    [sent.session_id, sent.seq, sent.page, sent.events.length, BigInt(Math.min(...times)) * 1_000_000n, BigInt(Math.max(...times)) * 1_000_000n],
  );
  assert.deepEqual(JSON.parse(chunk.eventsJson), sent.events);
});

void test('start and end are the earliest and latest event times, whatever the order; fractions of a ms are kept', async () => {
  const [c] = await parse({ session_id: 's-1', seq: 3, events: [ev(3, 1700000000500), ev(2, 1700000000100.25), ev(3, 1700000000900)], page: 'https://shop.example/cart', user: 'u42' });
  assert.deepEqual(
    [c?.seq, c?.startNs, c?.endNs, c?.eventCount, c?.page, c?.user],
    [3, 1700000000100250000n, 1700000000900000000n, 3, 'https://shop.example/cart', 'u42'],
  );
});

void test('page and user are optional: absent or null store as empty strings', async () => {
  const [a, b] = await parse([{ session_id: 'a', seq: 0, events: [ev(4, 1)] }, { session_id: 'b', seq: 0, events: [ev(4, 1)], page: null, user: null }]);
  assert.deepEqual([a?.page, a?.user, b?.page, b?.user], ['', '', '', '']);
});

void test('an empty events array is a chunk of 0 events timed at receipt', async () => {
  const [c] = await parse({ session_id: 'idle', seq: 7, events: [] });
  assert.deepEqual([c?.eventCount, c?.eventsJson, c?.startNs, c?.endNs], [0, '[]', NOW_NS, NOW_NS]);
});

void test('an array body carries several chunks, in the order sent', async () => {
  const chunks = await parse([
    { session_id: 'x', seq: 0, events: [ev(4, 10), ev(2, 11)] },
    { session_id: 'x', seq: 1, events: [ev(3, 12)] },
    { session_id: 'y', seq: 0, events: [ev(4, 13)] },
  ]);
  assert.deepEqual(chunks.map((c) => [c.sessionId, c.seq, c.eventCount]), [['x', 0, 2], ['x', 1, 1], ['y', 0, 1]]);
});

void test('unknown top-level fields and extra event fields are tolerated; event data is kept whole', async () => {
  const event = { type: 3, timestamp: 5, data: { source: 2, type: 2, id: 14, x: 10, y: 20 }, delay: 1 };
  const [c] = await parse({ session_id: 'k', seq: 0, events: [event], sdk: 'sightline-replay/0.1' });
  assert.deepEqual(JSON.parse(c?.eventsJson ?? ''), [event]);
});

void test('a UTF-8 BOM before the JSON is tolerated', async () => {
  const [c] = await parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ session_id: 'b', seq: 0, events: [] }))]));
  assert.equal(c?.sessionId, 'b');
});

const refusals: [string, unknown, RegExp][] = [
  ['an empty body', '', /^Body is empty/],
  ['bytes that are not JSON', '{"session_id":', /^Body is not valid JSON/],
  ['a JSON scalar', '42', /^Body must be a replay chunk object/],
  ['an empty array', [], /^Body is an empty array/],
  ['an array element that is not an object', [{ session_id: 'a', seq: 0, events: [] }, 'x'], /^chunk 2: must be an object/],
  ['a missing session_id', { seq: 0, events: [] }, /^session_id must be a string of 1-128 characters/],
  ['an empty session_id', { session_id: '', seq: 0, events: [] }, /^session_id must be/],
  ['a session_id with a slash', { session_id: 'a/b', seq: 0, events: [] }, /^session_id must be/],
  ['a session_id of 129 characters', { session_id: 'a'.repeat(129), seq: 0, events: [] }, /^session_id must be/],
  ['a numeric session_id', { session_id: 12, seq: 0, events: [] }, /^session_id must be/],
  ['a missing seq', { session_id: 's', events: [] }, /^seq must be a non-negative integer$/],
  ['a negative seq', { session_id: 's', seq: -1, events: [] }, /^seq must be a non-negative integer$/],
  ['a fractional seq', { session_id: 's', seq: 1.5, events: [] }, /^seq must be a non-negative integer$/],
  ['a seq given as a string', { session_id: 's', seq: '1', events: [] }, /^seq must be a non-negative integer$/],
  ['a missing events array', { session_id: 's', seq: 0 }, /^events must be an array of rrweb events$/],
  ['events as an object', { session_id: 's', seq: 0, events: {} }, /^events must be an array/],
  ['an event that is not an object', { session_id: 's', seq: 0, events: [ev(4, 1), [1]] }, /^events\[1\] must be an object$/],
  ['an event without a timestamp', { session_id: 's', seq: 0, events: [{ type: 4, data: {} }] }, /^events\[0\]\.timestamp must be unix milliseconds/],
  ['a timestamp given as a string', { session_id: 's', seq: 0, events: [ev(4, 1), { type: 3, timestamp: '2024-01-01' }] }, /^events\[1\]\.timestamp/],
  ['a negative timestamp', { session_id: 's', seq: 0, events: [ev(4, -1)] }, /^events\[0\]\.timestamp/],
  ['a timestamp past the year 2262', { session_id: 's', seq: 0, events: [ev(4, 1e16)] }, /^events\[0\]\.timestamp/],
  ['an event without a type', { session_id: 's', seq: 0, events: [{ timestamp: 1 }] }, /^events\[0\]\.type must be a non-negative integer/],
  ['a type given as a string', { session_id: 's', seq: 0, events: [{ type: 'FullSnapshot', timestamp: 1 }] }, /^events\[0\]\.type/],
  ['a page that is not a string', { session_id: 's', seq: 0, events: [], page: { href: '/' } }, /^page must be a string$/],
  ['a user that is not a string', { session_id: 's', seq: 0, events: [], user: 42 }, /^user must be a string$/],
  ['a bad field in the second chunk of an array', [{ session_id: 's', seq: 0, events: [] }, { session_id: 's', seq: 1, events: [ev(4, 1), { type: 3 }] }], /^chunk 2: events\[1\]\.timestamp/],
];

for (const [what, body, detail] of refusals) {
  void test(`${what} is a 400 naming the field`, async () => {
    await assert.rejects(parse(typeof body === 'string' ? body : JSON.stringify(body)), badRequest(detail));
  });
}

void test('the reply is 200 with the spec fields: accepted counts events, chunks counts chunks', async () => {
  const parsed = await replayFormat.parse(
    Buffer.from(JSON.stringify([{ session_id: 'r', seq: 0, events: [ev(4, 1), ev(2, 2)] }, { session_id: 'r', seq: 1, events: [ev(3, 3)] }])),
    formatRequest(),
  );
  const { ctx, out } = fakeContext('POST', '/v1/rum/replay');
  replayFormat.reply?.(ctx, 0, parsed);
  assert.deepEqual([out.status, out.json()], [200, { status: 'ok', accepted: 3, chunks: 2 }]);
});
