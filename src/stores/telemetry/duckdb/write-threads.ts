// DuckDB's thread count while writes keep coming (issue 12 item 1). With background threads, the thread that runs a
// write's statements spins in DuckDB's executor (`pthread_mutex_lock`, `ExecuteTask`) while a background thread
// compresses the row groups, and the background threads call `malloc_trim` after their tasks, which hands the free
// pages of every glibc arena back to the system, the request thread's freed bodies among them (each refaulted at
// ~17 µs on the bench's VM). On 2 cores, with one DuckDB thread during writes: 11.5 → 9.0 µs of CPU a stored NDJSON
// entry, stored 135-138k → 160-163k entries/s; OTLP logs 12.3 → 9.0 µs, 126k → 169k.
//
// So while the store is taking writes, DuckDB keeps the cores the service's two busy JS threads (the request thread and
// the store worker's) leave it, at least one; once no write has started for `idleMs`, queries get every thread back.
// `SET threads` is DuckDB's global setting: a query running under load scans with fewer threads, which on such a
// machine it would have had to share with the writes anyway.

export interface WriteThreadsOptions {
  /** DuckDB's thread count when no write is coming (its default: the machine's cores). */
  normal: number;
  /** The machine's cores. */
  cores: number;
  /** Runs `SET threads = n` in turn with the writes: queued on the writer's lane. */
  set: (threads: number) => Promise<void>;
  /**
   * How long without a write before the threads come back. Default 1 s: under sustained load the next write starts
   * as the last one commits (wal-drain.ts keeps two in flight).
   */
  idleMs?: number;
}

/** The two JS threads busy under ingest: each keeps a core. */
const JS_THREADS = 2;

export class WriteThreads {
  private current: number;
  private readonly busy: number;
  private restoreTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: WriteThreadsOptions) {
    this.current = options.normal;
    // A thread count DuckDB did not report as a positive integer is left alone.
    this.busy = Number.isInteger(options.normal) && options.normal >= 1
      ? Math.max(1, Math.min(options.normal, options.cores - JS_THREADS)) : options.normal;
  }

  /** Threads while writing; the same as `normal` when the machine has cores to spare. */
  get writingThreads(): number {
    return this.busy;
  }

  /**
   * Before a write, from inside the writer's lane: DuckDB down to the writing thread count, set through `setHere` (the
   * lane's connection; queuing on the lane from inside it would wait for itself).
   */
  async writing(setHere: (threads: number) => Promise<void>): Promise<void> {
    clearTimeout(this.restoreTimer);
    this.restoreTimer = undefined;
    if (this.current === this.busy) return;
    await setHere(this.busy);
    this.current = this.busy;
  }

  /** After a write: the threads come back once no other write starts within `idleMs`. */
  written(): void {
    if (this.closed || this.current === this.options.normal) return;
    clearTimeout(this.restoreTimer);
    this.restoreTimer = setTimeout(() => { void this.restore(); }, this.options.idleMs ?? 1000);
    this.restoreTimer.unref();
  }

  /** No restore from now on; resolves once every thread is back (through `set`, behind the writes queued before). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restoreTimer);
    if (this.current !== this.options.normal) await this.backToNormal();
  }

  private async restore(): Promise<void> {
    this.restoreTimer = undefined;
    if (!this.closed) await this.backToNormal();
  }

  private async backToNormal(): Promise<void> {
    try {
      await this.options.set(this.options.normal);
      this.current = this.options.normal;
    } catch {
      // The writing thread count stays: it only makes queries slower, and the next write's restore tries again (at
      // close, the count only matters to a DuckDB that is closing).
    }
  }
}
