// Load generation shared by the benchmarks: a fixed set of request bodies posted over several
// keep-alive connections for a fixed time, with per-request latency recorded.
import http from 'node:http';

export interface LoadResult {
  requests: number;
  entries: number;
  bytes: number;
  seconds: number;
  latenciesMs: number[];
  failures: number;
  firstFailure: string;
  /** performance.now() when the run began and ended. */
  startedAt: number;
  endedAt: number;
  /** Each acknowledged request: performance.now() when its answer came, and the entries it carried. */
  acks: { at: number; entries: number }[];
}

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  bodies: { body: Buffer; entries: number }[];
  connections: number;
  seconds: number;
  /**
   * Open loop at this many entries/s in all (issue 12 item 1: "p99 acknowledgement at half of that load"): each
   * body goes out at its scheduled time, and a late answer does not push the schedule back. Unset: closed loop,
   * each connection sends its next body as soon as the last is answered (the most the service takes).
   */
  entriesPerSecond?: number;
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const u = new URL(opts.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections });
  const start = performance.now();
  const result: LoadResult = {
    requests: 0, entries: 0, bytes: 0, seconds: 0, latenciesMs: [], failures: 0, firstFailure: '', startedAt: start, endedAt: start, acks: [],
  };
  const deadline = start + opts.seconds * 1000;
  let next = 0;
  // Paced: body k is due at start + k × (entries per body / rate); whichever connection is free takes it.
  const meanEntries = opts.bodies.reduce((n, b) => n + b.entries, 0) / Math.max(1, opts.bodies.length);
  const intervalMs = opts.entriesPerSecond ? (meanEntries / opts.entriesPerSecond) * 1000 : 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const k = next++;
      const item = opts.bodies[k % opts.bodies.length];
      if (!item) return;
      const due = start + k * intervalMs;
      if (due > deadline) return;
      if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
      const t0 = performance.now();
      const { status, text } = await post(u, agent, opts.headers, item.body);
      const ms = performance.now() - t0;
      if (status === 200 || status === 204) {
        result.requests++;
        result.entries += item.entries;
        result.bytes += item.body.length;
        result.latenciesMs.push(ms);
        result.acks.push({ at: t0 + ms, entries: item.entries });
      } else {
        result.failures++;
        result.firstFailure ||= `${status} ${text.slice(0, 200)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
  result.endedAt = performance.now();
  result.seconds = (result.endedAt - start) / 1000;
  agent.destroy();
  return result;
}

function post(u: URL, agent: http.Agent, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = http.request({
      host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'POST', agent,
      headers: { ...headers, 'Content-Length': String(body.length) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', (e) => resolve({ status: 0, text: e.message }));
    req.end(body);
  });
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** NDJSON bodies of ~300-byte entries, sized between minBytes and maxBytes. */
export function ndjsonBodies(count: number, minBytes: number, maxBytes: number): { body: Buffer; entries: number }[] {
  const out: { body: Buffer; entries: number }[] = [];
  let id = 0;
  for (let b = 0; b < count; b++) {
    const target = minBytes + ((maxBytes - minBytes) * b) / Math.max(1, count - 1);
    const lines: string[] = [];
    let size = 0;
    while (size < target) {
      const line = JSON.stringify({
        _time: new Date(Date.now() - 1000 + (id % 1000)).toISOString(),
        _msg: `GET /api/v2/orders/${id} completed with status 200 in ${(id % 97) + 3} ms for customer ${id % 5000}`,
        service: `checkout-${id % 8}`,
        level: id % 10 === 0 ? 'warn' : 'info',
        host: `node-${id % 16}.prod.internal`,
        trace_id: (id * 2654435761).toString(16).padStart(32, '0').slice(-32),
        http: { method: 'GET', status: 200, route: '/api/v2/orders/:id' },
        region: 'eu-west-1',
      });
      lines.push(line);
      size += line.length + 1;
      id++;
    }
    out.push({ body: Buffer.from(lines.join('\n') + '\n'), entries: lines.length });
  }
  return out;
}
