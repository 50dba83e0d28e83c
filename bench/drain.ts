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
