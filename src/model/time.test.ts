import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { msToNs, nsToRfc3339 } from './time.js';

describe('time', () => {
  it('formats nanoseconds as RFC 3339 with nine fraction digits', () => {
    assert.equal(nsToRfc3339(1_700_000_000_123_456_789n), '2023-11-14T22:13:20.123456789Z');
    assert.equal(nsToRfc3339(0n), '1970-01-01T00:00:00.000000000Z');
  });
  it('keeps a positive fraction before 1970', () => {
    assert.equal(nsToRfc3339(-1n), '1969-12-31T23:59:59.999999999Z');
    assert.equal(nsToRfc3339(-1_500_000_000n), '1969-12-31T23:59:58.500000000Z');
  });
  it('converts fractional milliseconds exactly', () => {
    assert.equal(msToNs(1.5), 1_500_000n);
  });
});
