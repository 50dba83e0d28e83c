// Root-cause hypotheses at scale (issue 10 item 1: "under 2 s on 1 M events in the window"): a million generated
// events in the incident window and a million in its baseline (src/ai/testing/log-incidents.ts, a bad version on
// some pods) written into a real DuckDB store in a temp dir, then `rootCauseHypotheses` timed over every event
// (`*`, a million selected in the window) and over the errors, median of 3 each. Figures only: nothing passes or
// fails on a time. BENCH_RCA_EVENTS changes the events per window.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Evidence } from '../src/ai/evidence.js';
import { rootCauseHypotheses } from '../src/ai/rca/rca.js';
import { incidentLogs } from '../src/ai/testing/log-incidents.js';
import { openDuckdbStore } from '../src/stores/telemetry/duckdb/duckdb-store.js';

const EVENTS = Number(process.env.BENCH_RCA_EVENTS ?? 1_000_000);
const START = Date.UTC(2025, 0, 1, 12);
const WINDOW = 60 * 60_000;
const RUNS = 3;

const dir = await mkdtemp(join(tmpdir(), 'sightline-rca-bench-'));
const store = await openDuckdbStore(join(dir, 'telemetry.duckdb'));
try {
  const t0 = performance.now();
  let pos = 1n;
  let rows = 0;
  for (const logs of incidentLogs({ kind: 'bad_version', seed: 7, incidentStartMs: START, windowMs: WINDOW, eventsPerWindow: EVENTS })) {
    await store.write([{ tenantId: 't1', format: 'native', batch: { logs, spans: [] } }], pos++);
    rows += logs.length;
  }
  console.log(`rca bench: wrote ${rows.toLocaleString('en-US')} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  for (const query of ['*', 'level:error']) {
    const times: number[] = [];
    let summary = '';
    for (let i = 0; i < RUNS; i++) {
      const evidence = new Evidence();
      const t = performance.now();
      const r = await rootCauseHypotheses({ query, startMs: START, endMs: START + WINDOW },
        { telemetry: store, tenantId: 't1', nowMs: START + 2 * WINDOW, evidence });
      times.push(performance.now() - t);
      summary = `${r.incident_count.toLocaleString('en-US')} events in the window, ${r.hypotheses.length} hypotheses, ` +
        `${evidence.queries.length} queries; first: ${r.hypotheses[0]?.summary ?? 'none'}`;
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(RUNS / 2)] ?? NaN;
    console.log(`rca bench: query ${JSON.stringify(query)}: median ${Math.round(median)} ms of ${RUNS} ` +
      `(${times.map((x) => Math.round(x)).join(', ')} ms); ${summary}`);
  }
} finally {
  await store.close();
  await rm(dir, { recursive: true, force: true });
}
