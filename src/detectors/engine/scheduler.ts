// When each detector is evaluated (issue 9 item 8): every detector has its own grid of instants, one per period,
// shifted by an offset taken from a hash of its id, so a thousand detectors with one period spread evenly over it
// instead of all querying at its start. The grid is on service time (DESIGN §3: the test clock moves it); the
// scheduler looks at the clock every second, so a jump of the test clock is seen within a second, and after a jump
// (or a long stall) a detector is evaluated once, at its latest slot, not once per slot missed. A deferred
// evaluation (query rate spent) is tried again when the rate frees up, or at its next slot if that is sooner.
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Detector } from '../../stores/control/detector-records.js';
import type { EvaluationReport } from './evaluate.js';

/** The detector's offset in [0, periodMs): the first 48 bits of SHA-256 of its id, modulo the period. */
export function offsetMs(id: string, periodMs: number): number {
  const h = createHash('sha256').update(id).digest().readUIntBE(0, 6);
  return h % periodMs;
}

/** The latest instant of the detector's grid at or before `atMs`. */
export function latestSlot(offset: number, periodMs: number, atMs: number): number {
  const k = Math.floor((atMs - offset) / periodMs);
  return k * periodMs + offset;
}

export interface SchedulerOptions {
  clock: Clock;
  /** The floor of every detector's period (SIGHTLINE_EVAL_INTERVAL_MS). */
  intervalMs: number;
  listDetectors(): Promise<Detector[]>;
  evaluate(detector: Detector, atMs: number): Promise<EvaluationReport>;
  log(line: string): void;
  /** Evaluations in flight at once (the DuckDB store has two read connections). */
  concurrency?: number;
  /** Wall ms between looks at the clock. */
  tickMs?: number;
  /** Wall ms between reloads of the detector list (creations, edits and deletions are also seen at once via refresh()). */
  reloadMs?: number;
}

interface Entry {
  detector: Detector;
  periodMs: number;
  offset: number;
  /** Service time of the next evaluation. */
  dueAt: number;
}

export function periodOf(d: Pick<Detector, 'intervalS'>, floorMs: number): number {
  return Math.max(d.intervalS * 1000, floorMs);
}

export class DetectorScheduler {
  private readonly entries = new Map<string, Entry>();
  private readonly running = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private lastReload = -Infinity;
  /** The detector list has been read once (start-up is over). */
  private loaded = false;
  private reloading: Promise<void> | null = null;
  private active = 0;
  private readonly idle: (() => void)[] = [];

  constructor(private readonly o: SchedulerOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops looking at the clock and waits for the evaluations in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.active > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  /** Reload the detector list at the next look (a detector was created, changed or deleted). */
  refresh(): void {
    this.lastReload = -Infinity;
  }

  /** One look at the clock: reload when due, then start every due detector that is not running (tests call it). */
  async tick(): Promise<void> {
    if (Date.now() - this.lastReload >= (this.o.reloadMs ?? 10_000)) await this.reload();
    const now = this.o.clock.now();
    for (const e of this.entries.values()) {
      // Service time moved back (the test clock): put the grid back in reach.
      if (e.dueAt - now > e.periodMs) e.dueAt = latestSlot(e.offset, e.periodMs, now) + e.periodMs;
      if (e.dueAt > now || this.running.has(e.detector.id)) continue;
      if (this.active >= (this.o.concurrency ?? 4)) break;
      this.run(e, latestSlot(e.offset, e.periodMs, now));
    }
  }

  private run(e: Entry, slot: number): void {
    const id = e.detector.id;
    this.running.add(id);
    this.active++;
    e.dueAt = slot + e.periodMs;
    void this.o.evaluate(e.detector, slot).then((r) => {
      // Deferred: try again when the query rate frees up (never later than the next slot).
      if (r.outcome === 'deferred' && r.retryAfterMs !== null) e.dueAt = Math.min(e.dueAt, this.o.clock.now() + r.retryAfterMs);
    }, (err: unknown) => {
      this.o.log(`detector ${id}: evaluation failed: ${err instanceof Error ? err.message : String(err)}`);
    }).finally(() => {
      this.running.delete(id);
      this.active--;
      if (this.active === 0) for (const f of this.idle.splice(0)) f();
    });
  }

  private reload(): Promise<void> {
    this.reloading ??= (async () => {
      try {
        const list = await this.o.listDetectors();
        const now = this.o.clock.now();
        const seen = new Set<string>();
        for (const d of list) {
          seen.add(d.id);
          const periodMs = periodOf(d, this.o.intervalMs);
          const prev = this.entries.get(d.id);
          if (prev && prev.periodMs === periodMs) {
            prev.detector = d;
            continue;
          }
          const offset = offsetMs(d.id, periodMs);
          // At start-up every detector waits for its first slot after now, so a restart with a thousand of them keeps
          // their spread. One that appears later (created or re-enabled) is due at the first slot after it was saved,
          // so one saved just before a jump of the clock is evaluated, once, at its latest slot.
          const from = this.loaded && d.updatedAt <= now ? d.updatedAt : now;
          this.entries.set(d.id, { detector: d, periodMs, offset, dueAt: latestSlot(offset, periodMs, from) + periodMs });
        }
        for (const id of this.entries.keys()) if (!seen.has(id)) this.entries.delete(id);
        this.lastReload = Date.now();
        this.loaded = true;
      } catch (err) {
        this.o.log(`detector scheduler: cannot list detectors: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        this.reloading = null;
      }
    })();
    return this.reloading;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule(this.o.tickMs ?? 1000));
    }, delayMs);
    this.timer.unref();
  }
}
