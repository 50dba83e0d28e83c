// The WAL's writer: drains acked records into the telemetry store in large batches (DESIGN §1, "A
// background writer drains the WAL into the telemetry store in large batches and checkpoints").
// Each store.write carries the position after its last record, so the store's commit is the checkpoint.
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import type { TenantBatch } from '../model/batch.js';
import type { WalTarget } from '../stores/telemetry/telemetry-store.js';

/** One fsynced record waiting for the store. */
export interface Queued {
  /** The decoded batch, or undefined when it must be read back from its segment (replay, memory cap). */
  tb: TenantBatch | undefined;
  /** WAL position just past the record. */
  end: bigint;
  /** Framed record size: its share of the WAL's unflushed bytes. */
  bytes: number;
  rows: number;
  /** performance.now() when it became durable; starts the batching window. */
  readyAt: number;
}

export interface DrainDeps {
  store: WalTarget;
  /** Position the store has committed (records up to here are in it). */
  committed: bigint;
  batchRows: number;
  intervalMs: number;
  /** Decodes the records of `entries` that are not in memory; same order and length as `entries`. */
  load: (entries: Queued[]) => Promise<TenantBatch[]>;
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
  private urgent = 0;
  private stopping = false;
  /** performance.now() past which a stopping drain starts no new write. */
  private stopBy = Infinity;
  private wake: (() => void) | undefined;
  private waiters: { pos: bigint; resolve: () => void }[] = [];
  private readonly loop: Promise<void>;

  constructor(private readonly deps: DrainDeps) {
    this.committed = deps.committed;
    this.loop = this.run();
  }

  push(q: Queued): void {
    this.queue.push(q);
    this.queuedRows += q.rows;
    // The loop sleeps without a timer on an empty queue: the first record starts the batching window.
    if (this.queue.length === 1 || this.queuedRows >= this.deps.batchRows) this.poke();
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
   * Ends the loop once the queue is empty, or once `forMs` have passed (the write under way finishes; the rest stays
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
      const first = this.queue[0];
      if (this.stopping && performance.now() >= this.stopBy) return;
      if (first === undefined) {
        if (this.stopping) return;
        await this.nap(undefined);
        continue;
      }
      // Batch up to batchRows or intervalMs, whichever first: big writes are what DuckDB is fast at, and
      // the window keeps an ack queryable well inside DESIGN §1's 2 s.
      const full = this.queuedRows >= this.deps.batchRows;
      const wait = full || this.urgent > 0 || this.stopping ? 0 : this.deps.intervalMs - (performance.now() - first.readyAt);
      if (wait > 0) {
        await this.nap(wait);
        continue;
      }
      await this.writeOnce();
      // DESIGN §1: back-to-back appends starve concurrent queries; a turn of the event loop lets them in.
      await yieldToLoop();
    }
  }

  private async writeOnce(): Promise<void> {
    let n = 0;
    let rows = 0;
    for (const q of this.queue) {
      if (n > 0 && rows + q.rows > this.deps.batchRows) break;
      rows += q.rows;
      n++;
    }
    const take = this.queue.slice(0, n);
    const last = take[take.length - 1];
    if (last === undefined) return;
    try {
      const batches = await this.deps.load(take);
      await this.deps.store.write(batches, last.end);
    } catch (e) {
      // Never drop (DESIGN §1): the same records are retried, with backoff so a sick store can recover.
      this.failing = true;
      this.failures++;
      this.deps.onError(e);
      await sleep(Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(this.failures - 1, 16)));
      return;
    }
    this.queue.splice(0, n);
    this.queuedRows -= rows;
    this.committed = last.end;
    this.failing = false;
    this.failures = 0;
    try {
      await this.deps.committedTo(last.end, take);
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
