import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sustainedRates } from './sustained.js';
import type { WalSample } from './drain.js';
import type { LoadResult } from './load.js';

/** 10 WAL bytes an entry; one reading every 100 ms. */
const BYTES_PER_ENTRY = 10;

/**
 * A 10 s run acknowledging 3,000 entries/s for 2 s while the store takes 1,000/s (the backlog grows to 4,000 entries),
 * then 1,000/s acknowledged and stored alike.
 */
function burstThenSteady(): { run: LoadResult; samples: WalSample[] } {
  const acks: { at: number; entries: number }[] = [];
  const samples: WalSample[] = [];
  let acked = 0;
  let stored = 0;
  for (let ms = 0; ms <= 10_000; ms += 100) {
    if (ms > 0) {
      const entries = ms <= 2_000 ? 300 : 100;
      acks.push({ at: ms, entries });
      acked += entries;
      stored += 100;
    }
    samples.push({ at: ms, unflushedBytes: (acked - stored) * BYTES_PER_ENTRY, appendedBytes: acked * BYTES_PER_ENTRY });
  }
  const run: LoadResult = {
    requests: acks.length, entries: acked, bytes: acked * BYTES_PER_ENTRY, seconds: 10, latenciesMs: [], failures: 0,
    firstFailure: '', startedAt: 0, endedAt: 10_000, acks,
  };
  return { run, samples };
}

test('the sustained rates leave out the burst before the backlog reached its bound', () => {
  const { run, samples } = burstThenSteady();
  const rates = sustainedRates(run, samples);
  assert.ok(rates);
  // From 1.8 s, where the backlog (3,600 entries) came within 10 % of its peak; two burst answers fall after it.
  assert.ok(Math.abs(rates.seconds - 8.2) < 1e-9);
  assert.equal(Math.round(rates.ackedPerSecond), Math.round(8_600 / 8.2));
  assert.equal(Math.round(rates.storedPerSecond), 1_000);
  assert.equal(Math.round(rates.backlogFrom), 3_600);
  assert.equal(Math.round(rates.backlogTo), 4_000);
  // The whole run's acked figure counts the burst.
  assert.equal(run.entries / run.seconds, 1_400);
});

test('a backlog still growing at the end of the run gives no sustained rates: the store did not keep up', () => {
  const { run, samples } = burstThenSteady();
  // From 2 s on the store takes half of what comes; the backlog still peaks at the run's end, so from 9 s.
  let lag = 0;
  const slower = samples.map((s) => {
    if (s.at > 2_000) lag += 50 * BYTES_PER_ENTRY;
    return { ...s, unflushedBytes: s.unflushedBytes + lag };
  });
  assert.equal(sustainedRates(run, slower), null, 'a backlog still growing has no bound');
});

test('readings outside the run are not counted', () => {
  const { run, samples } = burstThenSteady();
  const after = samples.concat({ at: 12_000, unflushedBytes: 0, appendedBytes: run.entries * BYTES_PER_ENTRY });
  assert.deepEqual(sustainedRates(run, after), sustainedRates(run, samples));
});
