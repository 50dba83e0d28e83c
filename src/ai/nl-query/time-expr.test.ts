// Time expressions (issue 10 item 2), in UTC against a fixed now: a table of phrases and the range each names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readTime } from './time-expr.js';
import { Ledger, tokenize } from './tokenizer.js';

/** Saturday 2026-11-21 12:00 UTC. */
const NOW = Date.UTC(2026, 10, 21, 12);
const at = (iso: string): number => Date.parse(iso);

const CASES: [string, string, string, string][] = [
  // phrase, start, end, LogsQL
  ['last 2 hours', '2026-11-21T10:00:00Z', '2026-11-21T12:00:00Z', '_time:2h'],
  ['since 30 minutes ago', '2026-11-21T11:30:00Z', '2026-11-21T12:00:00Z', '_time:30m'],
  ['in the last hour', '2026-11-21T11:00:00Z', '2026-11-21T12:00:00Z', '_time:1h'],
  ['past 15 minutes', '2026-11-21T11:45:00Z', '2026-11-21T12:00:00Z', '_time:15m'],
  ['over the past couple of days', '2026-11-19T12:00:00Z', '2026-11-21T12:00:00Z', '_time:2d'],
  ['last 30m', '2026-11-21T11:30:00Z', '2026-11-21T12:00:00Z', '_time:30m'],
  ['today', '2026-11-21T00:00:00Z', '2026-11-21T12:00:00Z', '_time:[2026-11-21T00:00:00Z, 2026-11-21T12:00:00Z)'],
  ['yesterday', '2026-11-20T00:00:00Z', '2026-11-21T00:00:00Z', '_time:[2026-11-20T00:00:00Z, 2026-11-21T00:00:00Z)'],
  ['since yesterday 9am', '2026-11-20T09:00:00Z', '2026-11-21T12:00:00Z', '_time:[2026-11-20T09:00:00Z, 2026-11-21T12:00:00Z)'],
  ['since 9:30 pm yesterday', '2026-11-20T21:30:00Z', '2026-11-21T12:00:00Z', '_time:[2026-11-20T21:30:00Z, 2026-11-21T12:00:00Z)'],
  ['between 10:00 and 10:30 UTC', '2026-11-21T10:00:00Z', '2026-11-21T10:30:00Z', '_time:[2026-11-21T10:00:00Z, 2026-11-21T10:30:00Z)'],
  ['from 23:00 to 01:00 yesterday', '2026-11-20T23:00:00Z', '2026-11-21T01:00:00Z', '_time:[2026-11-20T23:00:00Z, 2026-11-21T01:00:00Z)'],
  ['on 2026-11-20', '2026-11-20T00:00:00Z', '2026-11-21T00:00:00Z', '_time:[2026-11-20T00:00:00Z, 2026-11-21T00:00:00Z)'],
  ['this week', '2026-11-16T00:00:00Z', '2026-11-21T12:00:00Z', '_time:[2026-11-16T00:00:00Z, 2026-11-21T12:00:00Z)'],
  ['this month', '2026-11-01T00:00:00Z', '2026-11-21T12:00:00Z', '_time:[2026-11-01T00:00:00Z, 2026-11-21T12:00:00Z)'],
  ['since monday', '2026-11-16T00:00:00Z', '2026-11-21T12:00:00Z', '_time:[2026-11-16T00:00:00Z, 2026-11-21T12:00:00Z)'],
  ['since noon yesterday', '2026-11-20T12:00:00Z', '2026-11-21T12:00:00Z', '_time:[2026-11-20T12:00:00Z, 2026-11-21T12:00:00Z)'],
  ['between 2026-11-18 and 2026-11-19', '2026-11-18T00:00:00Z', '2026-11-20T00:00:00Z', '_time:[2026-11-18T00:00:00Z, 2026-11-20T00:00:00Z)'],
];

for (const [phrase, start, end, logsql] of CASES) {
  void test(`'${phrase}' is ${start} to ${end}`, () => {
    const l = new Ledger(tokenize(phrase));
    const r = readTime(l, NOW);
    assert.ok(r);
    assert.equal(r.startMs, at(start));
    assert.equal(r.endMs, at(end));
    assert.equal(r.logsql, logsql);
    assert.deepEqual(l.unplaced(), [], 'every word of the phrase is placed');
  });
}

void test('a window still ahead today is read as yesterday\'s', () => {
  const r = readTime(new Ledger(tokenize('between 14:00 and 15:00')), NOW);
  assert.ok(r);
  assert.equal(r.startMs, at('2026-11-20T14:00:00Z'));
  assert.match(r.note, /yesterday/);
});

void test('a zone other than UTC is left unplaced, never read as UTC', () => {
  const l = new Ledger(tokenize('between 10:00 and 11:00 PST'));
  readTime(l, NOW);
  assert.deepEqual(l.unplaced(), ['PST']);
});

void test('a clock without since or between is not a range', () => {
  const l = new Ledger(tokenize('yesterday 9am'));
  const r = readTime(l, NOW);
  assert.equal(r?.startMs, at('2026-11-20T00:00:00Z'));
  assert.deepEqual(l.unplaced(), ['9am']);
});

void test('no time words: no range, nothing placed', () => {
  const l = new Ledger(tokenize('errors from checkout'));
  assert.equal(readTime(l, NOW), undefined);
  assert.deepEqual(l.unplaced(), ['errors', 'from', 'checkout']);
});

void test('a second, conflicting time expression stays unplaced', () => {
  const l = new Ledger(tokenize('last hour last 2 days'));
  const r = readTime(l, NOW);
  assert.equal(r?.logsql, '_time:1h');
  assert.deepEqual(l.unplaced(), ['last', '2', 'days']);
});
