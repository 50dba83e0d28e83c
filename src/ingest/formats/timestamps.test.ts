import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { nsToRfc3339 } from '../../model/time.js';
import { parseRfc3339, parseTimestamp } from './timestamps.js';

const S = 1_000_000_000n;
/** Whole seconds from Date.UTC (exact for whole seconds), plus a fraction in ns. */
const utc = (iso: string, fracNs = 0n): bigint => BigInt(Date.parse(iso) / 1000) * S + fracNs;

void test('RFC 3339 keeps every fraction digit up to the nanosecond', () => {
  const cases: [string, bigint][] = [
    ['2026-11-22T04:16:20Z', utc('2026-11-22T04:16:20Z')],
    ['2026-11-22T04:16:20.1Z', utc('2026-11-22T04:16:20Z', 100_000_000n)],
    ['2026-11-22T04:16:20.123456789Z', utc('2026-11-22T04:16:20Z', 123_456_789n)],
    ['2026-11-22T04:16:20.000000001Z', utc('2026-11-22T04:16:20Z', 1n)],
    ['2026-11-22T04:16:20.1234567891234Z', utc('2026-11-22T04:16:20Z', 123_456_789n)], // past ns: cut
  ];
  for (const [text, ns] of cases) assert.equal(parseTimestamp(text), ns, text);
});

void test('RFC 3339 offsets are applied, and the lenient spellings are read', () => {
  const base = utc('2026-01-02T03:04:05Z', 500_000_000n);
  const same = [
    '2026-01-02T03:04:05.5Z', '2026-01-02t03:04:05.5z', '2026-01-02 03:04:05.5Z', '2026-01-02T03:04:05,5Z',
    '2026-01-02T05:04:05.5+02:00', '2026-01-02T05:04:05.5+0200', '2026-01-02T00:34:05.5-02:30',
    '2026-01-02T03:04:05.5', // no offset: UTC
    '  2026-01-02T03:04:05.5Z  ',
  ];
  for (const text of same) assert.equal(parseTimestamp(text), base, text);
});

void test('impossible dates and times are not times', () => {
  for (const text of ['2026-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-04-31T00:00:00Z', '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z', '2026-01-01T00:00:00+24:00', '2026-01-01', 'yesterday', '', '2026-01-01T00:00:00Zjunk']) {
    assert.equal(parseTimestamp(text), null, text);
  }
  assert.equal(parseTimestamp('2024-02-29T00:00:00Z'), utc('2024-02-29T00:00:00Z')); // a leap year
});

void test('unix numbers are read as s, ms, µs or ns by their digit count', () => {
  const t = 1_700_000_000n;
  const cases: [unknown, bigint | null][] = [
    [1_700_000_000, t * S],
    [1_700_000_000_123, t * S + 123_000_000n],
    [1_700_000_000_123_456, t * S + 123_456_000n],
    ['1700000000123456789', t * S + 123_456_789n],
    [1_700_000_000.5, t * S + 500_000_000n],
    ['1700000000', t * S],
    ['1700000000.123456789', t * S + 123_456_789n], // text keeps what a double cannot
    ['1700000000123.456', t * S + 123_456_000n],
    ['1.7e9', t * S],
    [9_223_372_036, 9_223_372_036n * S], // seconds, up to the end of signed 64-bit ns (year 2262)
    [99_999_999_999, null], // still seconds below 1e11, so past 2262: no time, rather than a misread
    [100_000_000_000, 100_000_000_000n * 1_000_000n], // the first read as milliseconds
    [0, 0n],
    [-1.5, -1_500_000_000n],
  ];
  for (const [value, ns] of cases) assert.equal(parseTimestamp(value), ns, String(value));
});

void test('values that are no time at all give null', () => {
  for (const v of [NaN, Infinity, null, undefined, true, {}, [], 'abc', '12abc', '9'.repeat(30), 2 ** 70]) assert.equal(parseTimestamp(v), null, JSON.stringify(v));
});

void test('any nanosecond time printed as RFC 3339 parses back to itself', () => {
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), (ns) => parseRfc3339(nsToRfc3339(ns)) === ns));
});

void test('whole unix seconds are seconds, exactly, as far as 64-bit nanoseconds reach', () => {
  fc.assert(fc.property(fc.integer({ min: -9_223_372_036, max: 9_223_372_036 }), (n) => parseTimestamp(n) === BigInt(n) * S));
});
