// Realistic NDJSON bodies for the storage figures (issue 12 item 3): the RCA incident generator's quiet traffic —
// services, pods, hosts, versions and levels that repeat, templated messages, unique trace, span and request ids —
// as a shipper would send it. Shared by backends-bench.ts (through the service) and storage-probe.ts (the store alone).
import { incidentLogs } from '../src/ai/testing/log-incidents.js';

export interface Body {
  body: Buffer;
  entries: number;
}

/** `count` NDJSON bodies of about `bytes` each, from the generator's ordinary traffic over the last hour. */
export function realisticBodies(count: number, bytes: number): Body[] {
  const out: Body[] = [];
  let lines: string[] = [];
  let size = 0;
  const spec = { kind: 'none' as const, seed: 20261124, incidentStartMs: Date.now() - 30 * 60_000, windowMs: 30 * 60_000, eventsPerWindow: Math.ceil((count * bytes) / 600) };
  for (const chunk of incidentLogs(spec, 20_000)) {
    for (const e of chunk) {
      const line = JSON.stringify({
        _time: new Date(Number(e.timeNs / 1_000_000n)).toISOString(), _msg: e.msg, service: e.service, level: e.severity,
        trace_id: e.traceId, span_id: e.spanId, ...e.fields,
      });
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
