// The scheduler's spread and timing (issue 9 item 8): a thousand detectors with one period are spread evenly over
// it by their ids; each is evaluated at the slots of its own grid on service time; a jump of the clock evaluates it
// once, not once per missed slot; a deferred evaluation is retried when the query rate frees up.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../clock.js';
import type { Detector } from '../../stores/control/detector-records.js';
import type { EvaluationReport } from './evaluate.js';
import { DetectorScheduler, latestSlot, offsetMs, periodOf } from './scheduler.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 5, 12);

const detector = (id: string, intervalS = 60): Detector => ({
  id, tenantId: 't', accountId: 'a', name: id, kind: 'log_threshold', params: {}, windowS: 60, intervalS, forS: 0,
  keepFiringForS: 0, labels: {}, annotations: {}, channelIds: [], repeatIntervalS: 14_400, enabled: true, createdAt: 0, updatedAt: 0,
});

const report = (id: string, over: Partial<EvaluationReport> = {}): EvaluationReport => ({
  detectorId: id, skipped: false, outcome: 'ok', error: null, retryAfterMs: null, firing: 0, pending: 0, resolved: 0,
  notices: { firing: 0, resolved: 0 }, transitions: [], ...over,
});

const settle = () => new Promise((r) => setImmediate(r));

void describe('detector scheduling', () => {
  void it('a thousand detectors spread evenly over the interval: every tenth of it holds 100 ± 40', () => {
    const counts = Array.from({ length: 10 }, () => 0);
    for (let i = 0; i < 1000; i++) {
      const o = offsetMs(`det_${i.toString(16).padStart(24, '0')}`, MIN);
      assert.ok(o >= 0 && o < MIN);
      const k = Math.floor(o / (MIN / 10));
      counts[k] = (counts[k] ?? 0) + 1;
    }
    for (const c of counts) assert.ok(c >= 60 && c <= 140, `uneven spread: ${counts.join(' ')}`);
  });

  void it('the offset is fixed per id; slots are period apart; the period is at least the service interval', () => {
    assert.equal(offsetMs('det_a', MIN), offsetMs('det_a', MIN));
    const o = offsetMs('det_a', MIN);
    const s = latestSlot(o, MIN, T0);
    assert.ok(s <= T0 && T0 - s < MIN && (s - o) % MIN === 0);
    assert.equal(latestSlot(o, MIN, s), s);
    assert.equal(periodOf({ intervalS: 30 }, MIN), MIN);
    assert.equal(periodOf({ intervalS: 300 }, MIN), 5 * MIN);
  });

  void it('each detector is evaluated at its own slots on service time; a jump evaluates once, at the latest slot', async () => {
    const clock = new ManualClock(T0);
    const calls: [string, number][] = [];
    const ds = [detector('det_x'), detector('det_y'), detector('det_slow', 300)];
    const s = new DetectorScheduler({
      clock, intervalMs: MIN, log: () => undefined, listDetectors: () => Promise.resolve(ds),
      evaluate: (d, at) => { calls.push([d.id, at]); return Promise.resolve(report(d.id)); },
    });
    const take = (): [string, number][] => calls.splice(0).sort((a, b) => a[0].localeCompare(b[0]));
    await s.tick();
    assert.equal(take().length, 0, 'a new detector waits for its first slot');
    clock.advance(MIN);
    await s.tick();
    await settle();
    const slot = (id: string, period = MIN) => latestSlot(offsetMs(id, period), period, clock.now());
    // det_slow (every 5 min) is due in this minute only if its offset put its first slot there.
    const slowDue = slot('det_slow', 5 * MIN) > T0;
    assert.deepEqual(take(), [...(slowDue ? [['det_slow', slot('det_slow', 5 * MIN)] as [string, number]] : []), ['det_x', slot('det_x')], ['det_y', slot('det_y')]]);
    await s.tick();
    await settle();
    assert.equal(take().length, 0, 'not again before the next slot');
    clock.advance(3 * 3_600_000);
    await s.tick();
    await settle();
    assert.deepEqual(take(), [['det_slow', slot('det_slow', 5 * MIN)], ['det_x', slot('det_x')], ['det_y', slot('det_y')]], 'once each after a 3 h jump, at the latest slot');
  });

  void it('a detector saved just before the clock jumps is evaluated once the slot after its saving has passed', async () => {
    const clock = new ManualClock(T0);
    const calls: number[] = [];
    const saved = { ...detector('det_new'), updatedAt: T0 };
    let list: Detector[] = [];
    const s = new DetectorScheduler({
      clock, intervalMs: MIN, log: () => undefined, listDetectors: () => Promise.resolve(list), reloadMs: 0,
      evaluate: (d, at) => { calls.push(at); return Promise.resolve(report(d.id)); },
    });
    await s.tick();
    list = [saved];
    clock.advance(2 * MIN); // the jump lands before the scheduler's first look at the new detector
    await s.tick();
    await settle();
    assert.deepEqual(calls, [latestSlot(offsetMs('det_new', MIN), MIN, clock.now())]);
  });

  void it('a deferred evaluation is tried again when the query rate frees up, before its next slot', async () => {
    const clock = new ManualClock(T0);
    const calls: number[] = [];
    let deferred = true;
    const s = new DetectorScheduler({
      clock, intervalMs: 10 * MIN, log: () => undefined, listDetectors: () => Promise.resolve([detector('det_d')]),
      evaluate: (d, at) => {
        calls.push(at);
        return Promise.resolve(report(d.id, deferred ? { outcome: 'deferred', retryAfterMs: 20_000 } : {}));
      },
    });
    await s.tick();
    clock.advance(10 * MIN);
    await s.tick();
    await settle();
    assert.equal(calls.length, 1);
    deferred = false;
    clock.advance(19_000);
    await s.tick();
    await settle();
    assert.equal(calls.length, 1, 'not before retry_after');
    clock.advance(1_000);
    await s.tick();
    await settle();
    assert.equal(calls.length, 2, 'retried once the rate frees up');
  });

  void it('detectors that are gone stop being evaluated; stop() waits for evaluations in flight', async () => {
    const clock = new ManualClock(T0);
    let list = [detector('det_a'), detector('det_b')];
    let release: () => void = () => undefined;
    const calls: string[] = [];
    const s = new DetectorScheduler({
      clock, intervalMs: MIN, log: () => undefined, listDetectors: () => Promise.resolve(list), reloadMs: 0,
      evaluate: (d) => {
        calls.push(d.id);
        return new Promise((resolve) => { release = () => resolve(report(d.id)); });
      },
    });
    await s.tick();
    list = [detector('det_a')];
    clock.advance(MIN);
    await s.tick();
    assert.deepEqual(calls, ['det_a']);
    let stopped = false;
    const stopping = s.stop().then(() => { stopped = true; });
    await settle();
    assert.equal(stopped, false);
    release();
    await stopping;
    assert.equal(stopped, true);
  });
});
