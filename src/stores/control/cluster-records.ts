// What split roles share through the control store (DESIGN §10 "Limits stay correct across processes"; issue 11
// item 6): process heartbeats (who is live, so a tenant's token bucket can be split among the live ingest
// processes), the daily byte total reserved atomically against its cap, the rolling 60 s query window of each
// tenant (DESIGN §6 "Query rate"), and the open live-tail sessions of each account. Liveness is judged on the
// database's clock, so processes on machines whose clocks disagree still agree on who is live.
// ControlStore extends ClusterStore (control-store.ts); sql-cluster.ts implements it.

export const PROCESS_ROLES = ['ingest', 'app'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

/** Live processes per role, as the heartbeat table says now. */
export type LiveProcesses = Readonly<Record<ProcessRole, number>>;

/** `totalBytes`: the day's total after the reservation when it passed, before the request when it was refused. */
export interface ByteReservation {
  ok: boolean;
  totalBytes: number;
}

export type QueryAdmission = { ok: true } | { ok: false; oldestMs: number };

export type TailOpening = { ok: true; id: string } | { ok: false; open: number };

export interface ClusterStore {
  /**
   * Records that `processId` is alive now (database time) and returns the processes seen within `liveWithinMs`,
   * per role. Rows unseen for an hour are deleted on the way.
   */
  heartbeat(processId: string, role: ProcessRole, startedAt: number, liveWithinMs: number): Promise<LiveProcesses>;
  /** A clean stop: the process's row and its live-tail sessions go at once, so its share returns at once. */
  leaveCluster(processId: string): Promise<void>;

  /**
   * The account's bytes for the UTC day over all signals and processes, including bytes reserved by requests still
   * in flight. The first read of a day seeds it from the day's flushed `bytes:*` counters (a deployment that ran
   * as one process earlier that day keeps what it counted).
   */
  dailyBytes(accountId: string, day: string): Promise<number>;
  /**
   * Adds `bytes` to the day's total only if the total stays within `capBytes`, in one statement: two processes
   * cannot both pass the check.
   */
  reserveDailyBytes(accountId: string, day: string, bytes: number, capBytes: number): Promise<ByteReservation>;
  /** A reserved request failed before its 200: its bytes come off the total. */
  releaseDailyBytes(accountId: string, day: string, bytes: number): Promise<void>;

  /**
   * One request at `nowMs` against at most `limit` in any rolling `windowMs`, in one statement over the tenant's
   * window (its admitted timestamps, at most `limit` kept). Refused → the oldest timestamp still deciding.
   */
  admitQuery(tenantId: string, nowMs: number, limit: number, windowMs: number): Promise<QueryAdmission>;

  /**
   * Opens a live-tail session for the account if fewer than `limit` are open in live processes (a process unseen
   * within `liveWithinMs` no longer holds its sessions). `limit` Infinity opens without a check.
   */
  openTailSession(accountId: string, processId: string, limit: number, liveWithinMs: number): Promise<TailOpening>;
  closeTailSession(id: string): Promise<void>;
  /** Sessions the account holds in live processes. */
  countTailSessions(accountId: string, liveWithinMs: number): Promise<number>;
}
