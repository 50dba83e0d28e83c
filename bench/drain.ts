// Waits for the service's WAL drain to catch up (sightline_wal_unflushed_records on /metrics back to 0), so each
// figure starts on an idle store and the time the backlog took to land can be reported beside the ack rate.
import { admin, type RunningService } from '../test/support/service.js';

/** Seconds until nothing acknowledged is waiting for the telemetry store (gives up after `limitS`). */
export async function waitForDrain(svc: RunningService, limitS = 600): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const text = (await admin(svc, 'GET', '/metrics')).text;
    const m = /^sightline_wal_unflushed_records (\d+)$/m.exec(text);
    if (!m) throw new Error('/metrics has no sightline_wal_unflushed_records');
    const seconds = (performance.now() - t0) / 1000;
    if (m[1] === '0' || seconds > limitS) return seconds;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Samples what is acknowledged but not yet in the store every `everyMs` until stopped: the backlog's peak, in bytes
 * of WAL records (issue 12 item 1: "the backlog stays bounded; report … the backlog's peak").
 */
export function watchBacklog(svc: RunningService, everyMs = 250): { stop(): Promise<number> } {
  let peak = 0;
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      const text = (await admin(svc, 'GET', '/metrics')).text;
      const m = /^sightline_wal_unflushed_bytes (\d+)$/m.exec(text);
      if (m) peak = Math.max(peak, Number(m[1]));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      state.running = false;
      await loop;
      return peak;
    },
  };
}
