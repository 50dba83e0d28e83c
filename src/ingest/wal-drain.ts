// The WAL's writer: drains acked records into the telemetry store in large batches (DESIGN §1, "A
// background writer drains the WAL into the telemetry store in large batches and checkpoints").
// Each store.write carries the position after its last record, so the store's commit is the checkpoint.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { TenantBatch } from '../model/batch.js';

/** One fsynced record waiting for the store. */
export interface Queued {
  /**
   * What is held in memory, by the store's kind (wal.ts): the decoded batch or the framed record's bytes. Neither
   * when it must be read back from its segment (replay, memory cap).
   */
  tb?: TenantBatch;
  rec?: Buffer[];
  /** WAL position just past the record. */
  end: bigint;
  /** Framed record size: its share of the WAL's unflushed bytes. */
  bytes: number;
  rows: number;
  /** performance.now() when it became durable; starts the batching window. */
  readyAt: number;
}

export interface DrainDeps {
  /** Position the store has committed (records up to here are in it). */
  committed: bigint;
  /** Most rows per write. */
  batchRows: number;
  /** The store's row group (wal.ts rowGroupRows): a write never ends in a group less than half full (writeLength). */
  rowGroupRows: number;
  intervalMs: number;
  /**
   * Longest a write waits for a row group's worth of records, from its oldest record, while they come fast enough to
   * fill one by then (Drain.windowLeft); `intervalMs` when they do not.
   */
  groupWindowMs: number;
  /**
   * Writes handed to the store before the previous one has answered (1: one at a time). More than one only for a
   * store that checks `from` — it refuses a write that does not start where its last commit ended — so a write
   * queued behind a failed one can never commit past the gap (exactly-once; issue 12 item 1).
   */
  maxInFlight: number;
  /**
   * Stores every record of `entries` and `end`, the position after the last, in one store transaction; `from` is
   * where the store must be (the end of the write before).
   */
  write: (entries: Queued[], end: bigint, from: bigint) => Promise<void>;
  /** After each successful store.write: accounting and deleting segments the store has passed. */
  committedTo: (end: bigint, entries: Queued[]) => Promise<void>;
  onError: (e: unknown) => void;
}

const BACKOFF_MIN_MS = 50;
const BACKOFF_MAX_MS = 5_000;

export class Drain {
  committed: bigint;
  /** True from a failed store.write until the next success: DESIGN §1 "store writes failing" → backpressure. */
  failing = false;
  failures = 0;
  private readonly queue: Queued[] = [];
  private queuedRows = 0;
  /** The front of `queue` handed to writes still in flight: entries, rows, and the position after them. */
  private sent = 0;
  private sentRows = 0;
  private sentEnd: bigint;
  private inFlight = 0;
  /** Set by a failed write: once every write in flight has answered, sending starts again from `committed`. */
  private rewind = false;
  /** performance.now() before which no write starts (the backoff after a failure). */
  private pausedUntil = 0;
  /** Settlements run one after another, in the order the writes were sent. */
  private settling: Promise<void> = Promise.resolve();
  private urgent = 0;
  private stopping = false;
  /** performance.now() past which a stopping drain starts no new write. */
  private stopBy = Infinity;
  private wake: (() => void) | undefined;
  private waiters: { pos: bigint; resolve: () => void }[] = [];
  private readonly loop: Promise<void>;

  constructor(private readonly deps: DrainDeps) {
    this.committed = deps.committed;
    this.sentEnd = deps.committed;
    this.loop = this.run();
  }

  push(q: Queued): void {
    const before = this.queuedRows - this.sentRows;
    this.queue.push(q);
    this.queuedRows += q.rows;
    const unsent = before + q.rows;
    // The loop sleeps without a timer on an empty queue: the first record starts the batching window. A write that
    // waits for a row group (windowLeft) starts as soon as one is there.
    const group = this.deps.rowGroupRows;
    if (this.queue.length === this.sent + 1 || unsent >= this.deps.batchRows || (before < group && unsent >= group)) this.poke();
  }

  /** Resolves once the store has committed through `pos`; writes right away instead of waiting out the window. */
  async waitCommitted(pos: bigint): Promise<void> {
    if (this.committed >= pos) return;
    this.urgent++;
    this.poke();
    try {
      await new Promise<void>((resolve) => this.waiters.push({ pos, resolve }));
    } finally {
      this.urgent--;
    }
  }

  /**
   * Ends the loop once the queue is empty, or once `forMs` have passed (the writes under way finish; the rest stays
   * in the WAL for the next start's replay).
   */
  async stop(forMs = Infinity): Promise<void> {
    this.stopping = true;
    this.stopBy = performance.now() + forMs;
    this.poke();
    await this.loop;
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private nap(ms: number | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = ms === undefined ? undefined : setTimeout(() => { this.wake = undefined; resolve(); }, ms);
      this.wake = () => { if (t) clearTimeout(t); resolve(); };
    });
  }

  private async run(): Promise<void> {
    for (;;) {
      const now = performance.now();
      const next = this.queue[this.sent];
      const timeUp = this.stopping && now >= this.stopBy;
      if (timeUp || (this.stopping && next === undefined && !this.rewind)) {
        if (this.inFlight === 0) return;
        await this.nap(undefined); // woken as each write in flight answers
        continue;
      }
      if (next === undefined || this.inFlight >= this.deps.maxInFlight || this.rewind || now < this.pausedUntil) {
        await this.nap(now < this.pausedUntil && this.inFlight === 0 ? this.pausedUntil - now : undefined);
        continue;
      }
      // Batch up to batchRows or intervalMs, whichever first: big writes are what DuckDB is fast at, and
      // the window keeps an ack queryable well inside DESIGN §1's 2 s.
      const full = this.queuedRows - this.sentRows >= this.deps.batchRows;
      if (this.inFlight > 0 && !full && this.urgent === 0 && !this.stopping) {
        // A write behind one still under way starts only when it is full: sent at the window's end it would hold
        // what came in 200 ms (a few ten thousand rows) and wait in the store all the same, while the queue grew.
        // Such small writes went through DuckDB's own WAL and its checkpoints, and left free blocks in the file.
        await this.nap(undefined); // woken when the queue fills or the write under way answers
        continue;
      }
      const wait = full || this.urgent > 0 || this.stopping ? 0 : this.windowLeft(now - next.readyAt, this.queuedRows - this.sentRows);
      if (wait > 0) {
        await this.nap(wait);
        continue;
      }
      this.send();
      // DESIGN §1: back-to-back appends starve concurrent queries; a turn of the event loop lets them in.
      await yieldToLoop();
    }
  }

  /**
   * How much longer the next write may gather records, its oldest having waited `ageMs` and `unsent` rows being there:
   * `intervalMs` from the oldest, and past it, while records keep coming at a rate that fills a row group within
   * `groupWindowMs`, until one is there. A write under a row group goes through DuckDB's own WAL, and a later checkpoint
   * compresses its rows again and rewrites the group it joined; when a heavy load starts on a drain that had caught up,
   * the 200 ms windows made a run of such writes (40-120k rows at 190k entries/s), and one of them paid a 1.8 s
   * checkpoint (issue 12 item 1). A trickle still goes at `intervalMs`, well inside DESIGN §1's 2 s.
   */
  private windowLeft(ageMs: number, unsent: number): number {
    const interval = this.deps.intervalMs - ageMs;
    if (interval > 0) return interval;
    const group = this.deps.rowGroupRows;
    // Under a quarter of a group by then is no heavy load, whatever a burst of bodies suggests: at half the bench's
    // load (~72,000 entries/s), bursts made a few writes wait and the acks' p99 rose.
    if (unsent >= group || unsent < group / 4 || ageMs >= this.deps.groupWindowMs) return 0;
    // At the rate the unsent rows came in since the oldest of them.
    const untilGroup = ((group - unsent) * ageMs) / unsent;
    return ageMs + untilGroup <= this.deps.groupWindowMs ? untilGroup : 0;
  }

  /** Hands the next batch of unsent records to the store; its answer is settled in send order. */
  private send(): void {
    const n = writeLength(this.queue, this.sent, this.deps.batchRows, this.deps.rowGroupRows);
    let rows = 0;
    for (let i = this.sent; i < this.sent + n; i++) rows += (this.queue[i] as Queued).rows;
    const take = this.queue.slice(this.sent, this.sent + n);
    const last = take[take.length - 1];
    if (last === undefined) return;
    const from = this.sentEnd;
    this.sent += n;
    this.sentRows += rows;
    this.sentEnd = last.end;
    this.inFlight++;
    const answered = this.deps.write(take, last.end, from).then(() => true, (e: unknown) => {
      this.deps.onError(e);
      return false;
    });
    this.settling = this.settling.then(async () => {
      if (await answered) await this.committedThrough(last.end);
      else this.failed();
      this.inFlight--;
      if (this.inFlight === 0 && this.rewind) {
        // Every write sent after the failed one has answered: send again from what the store holds.
        this.rewind = false;
        this.sent = 0;
        this.sentRows = 0;
        this.sentEnd = this.committed;
      }
      this.poke();
    });
  }

  /** Never drop (DESIGN §1): the same records are sent again, after a backoff so a sick store can recover. */
  private failed(): void {
    this.failing = true;
    this.failures++;
    this.rewind = true;
    this.pausedUntil = performance.now() + Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(this.failures - 1, 16));
  }

  /**
   * The store has committed through `end`. Everything queued up to it is in the store — written by this write, or,
   * after a failure whose commit had in fact gone through, by the one before it.
   */
  private async committedThrough(end: bigint): Promise<void> {
    let n = 0;
    let rows = 0;
    while (n < this.queue.length && (this.queue[n] as Queued).end <= end) rows += (this.queue[n++] as Queued).rows;
    const done = this.queue.splice(0, n);
    this.queuedRows -= rows;
    this.sent = Math.max(0, this.sent - n);
    this.sentRows = Math.max(0, this.sentRows - rows);
    if (end > this.committed) this.committed = end;
    this.failing = false;
    this.failures = 0;
    try {
      await this.deps.committedTo(end, done);
    } catch (e) {
      this.deps.onError(e); // a segment that could not be deleted goes on the next open (it is behind the store)
    }
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.pos <= this.committed) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }
}

/**
 * How many records from `start` the next write takes: as many as fit in `maxRows` (at least one), then, if that ends
 * past a whole number of row groups in a group less than half full, only those that fit in the whole groups (when
 * any do). A write of a row group or more goes into DuckDB as compressed row groups (its "merge" path), a smaller
 * one through DuckDB's own WAL and a later checkpoint that compresses it again; and a group left nearly empty is
 * merged by a later checkpoint, which leaves its old blocks free in the file (issue 12 items 1 and 3).
 */
export function writeLength(queue: readonly { rows: number }[], start: number, maxRows: number, groupRows: number): number {
  let n = 0;
  let rows = 0;
  for (let i = start; i < queue.length; i++) {
    const r = (queue[i] as { rows: number }).rows;
    if (n > 0 && rows + r > maxRows) break;
    rows += r;
    n++;
  }
  const partial = rows % groupRows;
  if (rows <= groupRows || partial === 0 || partial >= groupRows / 2) return n;
  const whole = rows - partial;
  let cut = n;
  let cutRows = rows;
  while (cut > 1 && cutRows > whole) cutRows -= (queue[start + --cut] as { rows: number }).rows;
  return cutRows <= whole ? cut : n;
}
