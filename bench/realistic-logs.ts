// Realistic, mostly unique NDJSON log lines for the benchmarks (issue 12 item 3): the RCA incident generator's quiet
// traffic (services, pods, hosts, versions and levels that repeat, templated messages, unique trace, span and request
// ids) written as the native ingest format takes it. One generator, so that the store comparison (backends-bench) and
// the search bench (search-bench) measure the same kind of data.
import { incidentLogs } from '../src/ai/testing/log-incidents.js';
import type { LogEntry } from '../src/model/log-entry.js';

const SEED = 20261124;

/** One entry as a native NDJSON line (no newline). */
function ndjsonLine(e: LogEntry): string {
  return JSON.stringify({
    _time: new Date(Number(e.timeNs / 1_000_000n)).toISOString(), _msg: e.msg, service: e.service, level: e.severity,
    trace_id: e.traceId, span_id: e.spanId, ...e.fields,
  });
}

/**
 * `entries` lines over the last hour, in chunks of at most `chunk` (so ten million never sit in memory at once).
 * Deterministic apart from the times, which end at the start of the call.
 */
export function* realisticLines(entries: number, chunk = 20_000): Generator<string[]> {
  // The generator makes a baseline and an incident window of `eventsPerWindow` each; 'none' keeps both ordinary.
  const spec = { kind: 'none' as const, seed: SEED, incidentStartMs: Date.now() - 30 * 60_000, windowMs: 30 * 60_000, eventsPerWindow: Math.ceil(entries / 2) };
  let left = entries;
  for (const part of incidentLogs(spec, chunk)) {
    const lines = part.slice(0, left).map(ndjsonLine);
    left -= lines.length;
    if (lines.length > 0) yield lines;
    if (left === 0) return;
  }
}

/** One request body and how many entries it holds. */
export interface Body {
  body: Buffer;
  entries: number;
}

/** `count` NDJSON bodies of about `bytes` each (the last line may overshoot). */
export function realisticBodies(count: number, bytes: number): Body[] {
  const out: Body[] = [];
  let lines: string[] = [];
  let size = 0;
  // Lines are ~390 bytes: planning for 300 means the generator never runs out before `count` bodies are full.
  for (const chunk of realisticLines(Math.ceil((count * bytes) / 300))) {
    for (const line of chunk) {
      lines.push(line);
      size += line.length + 1;
      if (size >= bytes) {
        out.push({ body: Buffer.from(lines.join('\n') + '\n'), entries: lines.length });
        if (out.length === count) return out;
        lines = [];
        size = 0;
      }
    }
  }
  return out;
}
