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

/** One reading of the WAL's counters on /metrics. */
export interface WalSample {
  /** performance.now() when the reading came back. */
  at: number;
  /** Bytes of WAL records acknowledged but not yet in the store. */
  unflushedBytes: number;
  /** Bytes of WAL records written since the service started. */
  appendedBytes: number;
}

/**
 * Samples what is acknowledged but not yet in the store every `everyMs` until stopped: the backlog's peak, in bytes
 * of WAL records (issue 12 item 1: "the backlog stays bounded; report … the backlog's peak"), and every reading, from
 * which sustained.ts takes the rate things reach the store at.
 */
export function watchBacklog(svc: RunningService, everyMs = 250): { stop(): Promise<{ peakBytes: number; samples: WalSample[] }> } {
  const samples: WalSample[] = [];
  const state = { running: true };
  const read = async () => {
    const text = (await admin(svc, 'GET', '/metrics')).text;
    const unflushed = /^sightline_wal_unflushed_bytes (\d+)$/m.exec(text);
    const appended = /^sightline_wal_appended_bytes_total (\d+)$/m.exec(text);
    if (unflushed && appended) samples.push({ at: performance.now(), unflushedBytes: Number(unflushed[1]), appendedBytes: Number(appended[1]) });
  };
  const loop = (async () => {
    while (state.running) {
      await read();
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      state.running = false;
      await loop;
      await read();
      return { peakBytes: samples.reduce((peak, s) => Math.max(peak, s.unflushedBytes), 0), samples };
    },
  };
}
