// The rates a closed-loop run sustains once its backlog has reached its bound (issue 12 item 1: "the stored rate keeps
// up with the acked rate under sustained load (the backlog stays bounded …)"). A run's first seconds acknowledge
// faster than the store writes, until the backlog reaches the WAL's watermark; from then on the service acknowledges
// only as fast as the store takes rows. The whole-run figures (acked over the run, stored over the run and its
// drain) weigh that first burst and the drain after the run; these weigh neither.
import type { WalSample } from './drain.js';
import type { LoadResult } from './load.js';

export interface SustainedRates {
  /** Seconds from the backlog first reaching its bound to the run's end. */
  seconds: number;
  ackedPerSecond: number;
  storedPerSecond: number;
  /**
   * The backlog, in entries, where the window starts and ends. Stores land in whole writes (a quarter million rows on
   * the bench), so over a window of seconds the two rates differ by what the backlog moved between its ends.
   */
  backlogFrom: number;
  backlogTo: number;
}

/** A backlog within this share of the run's peak has reached its bound. */
const AT_BOUND = 0.9;

/**
 * The acked and stored rates from the first reading whose backlog was within 10 % of the run's peak to the last
 * reading within the run; null when that leaves under a quarter of the run (the backlog never settled at a bound).
 * Stored entries come from WAL bytes (appended − unflushed), at the run's own WAL bytes an acknowledged entry.
 */
export function sustainedRates(run: LoadResult, samples: readonly WalSample[]): SustainedRates | null {
  const inRun = samples.filter((s) => s.at >= run.startedAt && s.at <= run.endedAt);
  const first = inRun[0];
  const last = inRun[inRun.length - 1];
  if (first === undefined || last === undefined || last.appendedBytes <= first.appendedBytes) return null;
  const peak = inRun.reduce((most, s) => Math.max(most, s.unflushedBytes), 0);
  const from = inRun.find((s) => s.unflushedBytes >= AT_BOUND * peak);
  if (from === undefined || last.at - from.at < ((run.endedAt - run.startedAt) / 4)) return null;
  const ackedBetween = (a: number, b: number) => run.acks.reduce((n, ack) => (ack.at > a && ack.at <= b ? n + ack.entries : n), 0);
  const entriesPerWalByte = ackedBetween(first.at, last.at) / (last.appendedBytes - first.appendedBytes);
  const storedBytes = (last.appendedBytes - last.unflushedBytes) - (from.appendedBytes - from.unflushedBytes);
  const seconds = (last.at - from.at) / 1000;
  return {
    seconds,
    ackedPerSecond: ackedBetween(from.at, last.at) / seconds,
    storedPerSecond: (storedBytes * entriesPerWalByte) / seconds,
    backlogFrom: from.unflushedBytes * entriesPerWalByte,
    backlogTo: last.unflushedBytes * entriesPerWalByte,
  };
}
