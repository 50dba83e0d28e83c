// Service time. Day boundaries, trial and key expiry, token buckets and sweeps all read it (DESIGN §3:
// PUT /admin/v1/clock moves it when SIGHTLINE_TEST_CLOCK is on). Tests inject their own.

export interface Clock {
  /** Milliseconds since the epoch, service time. */
  now(): number;
}

/** Wall time plus an offset that the test-clock endpoint may set; runs on from the jump. */
export class ServiceClock implements Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Jump service time to `ms` (PUT /admin/v1/clock). */
  set(ms: number): void {
    this.offsetMs = ms - Date.now();
  }
}

/** A clock that moves only when told: for unit tests, no sleeps. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.ms;
  }

  set(ms: number): void {
    this.ms = ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}

/** `YYYY-MM-DD` of the UTC day containing `ms` (the daily counter's key). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Milliseconds at the next 00:00 UTC after `ms`. */
export function nextUtcMidnight(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}
