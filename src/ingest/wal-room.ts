// Past the backpressure watermark a request waits a little for room before it is refused (issue 12 item 1).
//
// DESIGN §6 checks the WAL last, after the body is read and parsed, so a refusal costs all of that work. A shipper
// that retries at once (the bench's closed loop does) then sends the next body straight into another refusal: with
// the store behind, the request thread refused ~3.5 bodies for each one it took, ~3.5 µs of CPU per stored entry on
// a machine where the store needed that CPU. Holding a parsed body until a store commit makes room turns that work
// into an acknowledgement, and the client slows to the store's pace by itself (TCP backpressure, as VictoriaMetrics
// holds inserts up to -insert.maxQueueDuration). The wait is bounded in time and in the bytes held, so memory stays
// bounded; past either bound, or while the store is failing, the answer is the DESIGN §1 `backpressure` 429 as before.
import type { WalPressure } from './wal.js';

export interface RoomOptions {
  /** Longest a request waits for room before its 429. */
  waitMs: number;
  /** Bytes of bodies that may wait at once; a body past this is refused at once. */
  maxWaitingBytes: number;
}

export class RoomWaiters {
  private waitingBytes = 0;
  private readonly wakers = new Set<() => void>();

  /** `mayWait`: false while waiting cannot help (the store is failing, the WAL is closing). */
  constructor(
    private readonly pressure: () => WalPressure,
    private readonly mayWait: () => boolean,
    private readonly opts: RoomOptions,
  ) {}

  /** The pressure once a body of `bytes` may go in, or when waiting for that ends without room. */
  async waitFor(bytes: number): Promise<WalPressure> {
    let p = this.pressure();
    if (p !== 'backpressure' || !this.mayWait() || this.waitingBytes + bytes > this.opts.maxWaitingBytes) return p;
    this.waitingBytes += bytes;
    const deadline = performance.now() + this.opts.waitMs;
    try {
      for (let left = this.opts.waitMs; p === 'backpressure' && this.mayWait() && left > 0; left = deadline - performance.now()) {
        await this.nextWake(left);
        p = this.pressure();
      }
      return p;
    } finally {
      this.waitingBytes -= bytes;
    }
  }

  /** Every waiter looks at the pressure again: called when a store commit has freed bytes, or when waiting ends. */
  wake(): void {
    for (const wake of [...this.wakers]) wake();
  }

  private nextWake(withinMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, withinMs);
      this.wakers.add(done);
    });
  }
}
