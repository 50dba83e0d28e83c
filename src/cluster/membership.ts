// Who is live in a split-role deployment (DESIGN §10; issue 11 item 6). Each process beats into the control store
// every second and reads back how many processes of its role were seen within the last few seconds; that count is
// the N of "each holds rate/N". A process that dies stops beating and drops out of everyone's count within
// LIVE_WITHIN_MS, so its share of each tenant's bucket returns within seconds; a clean stop leaves at once.
//
// A failed beat keeps the last count: N never jumps because the database blinked, and a process that cannot reach
// the control store is refusing ingest on authentication anyway (spec rule 11).
import { randomBytes } from 'node:crypto';
import type { ClusterStore, LiveProcesses, ProcessRole } from '../stores/control/cluster-records.js';

/** How often a process beats. */
export const HEARTBEAT_EVERY_MS = 1000;
/** A process unseen this long is no longer live: four missed beats, so one slow beat does not change N. */
export const LIVE_WITHIN_MS = 4000;

export interface MembershipOptions {
  everyMs?: number;
  liveWithinMs?: number;
  log: (line: string) => void;
}

export class Membership {
  readonly processId = `${process.pid}-${randomBytes(6).toString('hex')}`;
  readonly liveWithinMs: number;
  private readonly everyMs: number;
  private readonly startedAt = Date.now();
  private live: LiveProcesses = { ingest: 0, app: 0 };
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private failing = false;
  private announced = 0;

  constructor(private readonly store: Pick<ClusterStore, 'heartbeat' | 'leaveCluster'>, readonly role: ProcessRole, private readonly options: MembershipOptions) {
    this.everyMs = options.everyMs ?? HEARTBEAT_EVERY_MS;
    this.liveWithinMs = options.liveWithinMs ?? LIVE_WITHIN_MS;
  }

  /** Live processes of this process's role, itself included: never less than 1. */
  share(): number {
    return Math.max(1, this.live[this.role]);
  }

  /** The first beat is awaited, so the first request already sees the right N; then one beat per interval. */
  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.everyMs);
    this.timer.unref();
  }

  /** Stops beating and leaves: the others see this share return on their next beat. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    try {
      await this.store.leaveCluster(this.processId);
    } catch (e) {
      this.options.log(`cluster: leave failed (the others see this process gone within ${this.liveWithinMs} ms): ${String(e)}`);
    }
  }

  /** One beat; beats never overlap (a slow database makes them later, not more). */
  beat(): Promise<void> {
    this.beating ??= this.beatOnce().finally(() => { this.beating = null; });
    return this.beating;
  }

  private async beatOnce(): Promise<void> {
    try {
      const live = await this.store.heartbeat(this.processId, this.role, this.startedAt, this.liveWithinMs);
      if (this.failing) this.options.log('cluster: heartbeats reach the control store again');
      this.failing = false;
      this.live = live;
      // One line per change of N, so an operator (and the split-role tests) can see the shares move.
      if (this.share() !== this.announced) {
        this.announced = this.share();
        this.options.log(`cluster: ${this.announced} live ${this.role} process(es); each holds 1/${this.announced} of every tenant's ingest rate`);
      }
    } catch (e) {
      if (!this.failing) this.options.log(`cluster: heartbeat failed, keeping ${this.share()} live ${this.role} process(es): ${String(e)}`);
      this.failing = true;
    }
  }
}
