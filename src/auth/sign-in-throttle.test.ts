// The wrong-password throttle (DESIGN §7): per email and per address, over a rolling window of service time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { SignInThrottle } from './sign-in-throttle.js';

const limits = { windowMs: 15 * 60_000, perEmail: 5, perAddress: 20, maxKeys: 1000 };
const refusedAfter = (f: () => void): number => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof ServiceError && e.status === 429 && e.slug === 'rate_limited', String(e));
    return e.retryAfter ?? -1;
  }
  return 0;
};

void describe('sign-in throttle', () => {
  void it('five failures of one email within 15 minutes refuse the sixth attempt until the first leaves the window', () => {
    const clock = new ManualClock();
    const t = new SignInThrottle(clock, limits);
    for (let i = 0; i < 5; i++) {
      assert.equal(refusedAfter(() => t.check('a@x', '1.1.1.1')), 0, `attempt ${i + 1}`);
      t.failed('a@x', '1.1.1.1');
      clock.advance(60_000);
    }
    // First failure at 0, now at 5 min: it leaves the window at 15 min, 600 s from now.
    assert.equal(refusedAfter(() => t.check('a@x', '2.2.2.2')), 600, 'from any address');
    assert.equal(refusedAfter(() => t.check('b@x', '1.1.1.1')), 0, 'another email from the same address is fine');
    clock.advance(600_000);
    assert.equal(refusedAfter(() => t.check('a@x', '1.1.1.1')), 0, 'free again once the oldest failure is out');
  });

  void it('a success clears the email\'s count, not the address\'s', () => {
    const clock = new ManualClock();
    const t = new SignInThrottle(clock, { ...limits, perAddress: 6 });
    for (let i = 0; i < 4; i++) t.failed('a@x', '1.1.1.1');
    t.succeeded('a@x');
    for (let i = 0; i < 2; i++) t.failed('a@x', '1.1.1.1');
    assert.equal(refusedAfter(() => t.check('a@x', '9.9.9.9')), 0, 'only two failures count for the email now');
    assert.ok(refusedAfter(() => t.check('z@x', '1.1.1.1')) > 0, 'the address has six');
  });

  void it('an address guessing at many emails is refused at its own limit', () => {
    const clock = new ManualClock();
    const t = new SignInThrottle(clock, limits);
    for (let i = 0; i < 20; i++) t.failed(`user${i}@x`, '6.6.6.6');
    assert.ok(refusedAfter(() => t.check('new@x', '6.6.6.6')) > 0);
    assert.equal(refusedAfter(() => t.check('new@x', '7.7.7.7')), 0);
  });

  void it('memory stays bounded under a flood of made-up emails', () => {
    const t = new SignInThrottle(new ManualClock(), { ...limits, maxKeys: 50 });
    for (let i = 0; i < 1000; i++) t.failed(`flood${i}@x`, `10.0.${i >> 8}.${i & 255}`);
    assert.ok((t as unknown as { failures: Map<string, number[]> }).failures.size <= 50);
  });
});
