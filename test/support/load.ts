// Helpers shared by the end-to-end tests (test/*.e2e.test.ts): raw HTTP with full control over headers and
// framing (repeated headers, chunked uploads, early close), ingest and LogsQL read-back, keys, codecs, and a
// load generator whose every acknowledged entry is known (for the crash and shutdown tests).
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { compress as snappyCompress } from 'snappyjs';
import { admin, call, type Reply, type RunningService } from './service.js';

/**
 * Something started now and needed later: a second service starts while the first one's tests run (starts are
 * the slow part of these files). stop() is safe whether or not the start succeeded.
 */
export class Later<T extends { stop(): Promise<unknown> }> {
  private readonly started: Promise<T>;

  constructor(start: () => Promise<T>) {
    this.started = start();
    this.started.catch(() => undefined); // reported by get(), not as an unhandled rejection
  }

  get(): Promise<T> {
    return this.started;
  }

  async stop(): Promise<void> {
    let it: T;
    try {
      it = await this.started;
    } catch {
      return; // it never started
    }
    await it.stop();
  }
}

export const uid = (prefix = 'u'): string => `${prefix}${randomBytes(6).toString('hex')}`;

export function basic(user: string, pass = 'ignored'): string {
  return 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
}

export interface RawReply extends Reply {
  /** Set when the connection failed before any reply arrived. */
  error?: string;
}

export interface RawOptions {
  method?: string;
  /** Array values go out as repeated header lines. */
  headers?: http.OutgoingHttpHeaders;
  body?: Buffer | string;
  /** Send the body with Transfer-Encoding: chunked in pieces of this size, without Content-Length. */
  chunkBytes?: number;
  timeoutMs?: number;
}

/**
 * One request over node:http on a fresh connection. Unlike fetch it keeps repeated headers apart, can send
 * chunked, and still reports a reply that the server sent before closing the connection mid-upload.
 */
export function raw(url: string, opts: RawOptions = {}): Promise<RawReply> {
  const u = new URL(url);
  const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
  const headers: http.OutgoingHttpHeaders = { ...opts.headers };
  if (body !== undefined && opts.chunkBytes === undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) {
    headers['Content-Length'] = String(body.length);
  }
  if (opts.chunkBytes !== undefined) headers['Transfer-Encoding'] = 'chunked';
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: RawReply): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(r);
    };
    const req = http.request({
      host: u.hostname, port: u.port, path: u.pathname + u.search, method: opts.method ?? 'GET', headers, agent: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      const finish = (): void => {
        const text = Buffer.concat(chunks).toString('utf8');
        done({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
        req.destroy(); // the reply is all we wanted: do not leave a half-sent upload holding the socket
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => undefined);
      res.on('end', finish);
      res.on('close', finish);
    });
    const deadline = setTimeout(() => {
      req.destroy();
      done({ status: 0, headers: {}, text: '', json: undefined, error: 'deadline' });
    }, opts.timeoutMs ?? 30_000);
    // A server that answers early and closes makes the upload fail; the reply, when it came, still wins.
    req.on('error', (e) => setTimeout(() => done({ status: 0, headers: {}, text: '', json: undefined, error: e.message }), 100));
    if (body !== undefined && opts.chunkBytes !== undefined) {
      const size = opts.chunkBytes;
      let off = 0;
      const pump = (): void => {
        while (off < body.length && !req.destroyed) {
          const piece = body.subarray(off, off + size);
          off += size;
          if (!req.write(piece)) {
            req.once('drain', pump);
            return;
          }
        }
        if (!req.destroyed) req.end();
      };
      pump();
    } else {
      if (body !== undefined) req.write(body);
      req.end();
    }
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The reply's JSON as an object (for property checks), or {} when it is not one. */
export function obj(r: Reply): Record<string, unknown> {
  return typeof r.json === 'object' && r.json !== null && !Array.isArray(r.json) ? r.json as Record<string, unknown> : {};
}

export function show(r: Reply): string {
  return `${r.status} ${r.text.slice(0, 300)}`;
}

export interface Entry {
  _msg: string;
  service?: string;
  [field: string]: unknown;
}

export function entries(n: number, tag: string, extra: Record<string, unknown> = {}): Entry[] {
  return Array.from({ length: n }, (_, i) => ({ _msg: `${tag} entry ${i}`, service: 'e2e', tag, i: String(i), ...extra }));
}

export const ndjson = (list: readonly unknown[]): string => list.map((e) => JSON.stringify(e)).join('\n') + '\n';

export function ingest(base: string, key: string | null, body: Buffer | string, headers: Record<string, string> = {}, path = '/api/v1/ingest'): Promise<Reply> {
  return call(base + path, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/json', ...(key === null ? {} : { 'X-API-Key': key }), ...headers },
  });
}

export interface QueryResult {
  reply: Reply;
  rows: Record<string, unknown>[];
}

/** LogsQL search on the tenant's path; `extra` is appended to the query string (`&limit=…`). */
export async function query(svc: RunningService, tenantId: string, key: string, q: string, extra = ''): Promise<QueryResult> {
  const reply = await call(`${svc.app}/api/v1/tenants/${tenantId}/select/logsql/query?query=${encodeURIComponent(q)}${extra}`, {
    headers: { 'X-API-Key': key },
  });
  const rows = reply.status === 200
    ? reply.text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
  return { reply, rows };
}

/** Polls a query until it returns `want` rows (or `ms` pass); returns the last result. */
export async function waitForRows(svc: RunningService, tenantId: string, key: string, q: string, want: number, ms = 5000, extra = ''): Promise<QueryResult> {
  const end = Date.now() + ms;
  let last = await query(svc, tenantId, key, q, extra);
  while (last.rows.length !== want && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    last = await query(svc, tenantId, key, q, extra);
  }
  return last;
}

export interface IssuedKey {
  id: string;
  key: string;
  scopes: string[];
  expires_at: string | null;
  tenant_id: string;
}

export async function newKey(svc: RunningService, tenantId: string, scopes: string[], extra: Record<string, unknown> = {}): Promise<IssuedKey> {
  const r = await admin(svc, 'POST', `/admin/v1/tenants/${tenantId}/keys`, { scopes, ...extra });
  if (r.status !== 201) throw new Error(`key creation failed: ${show(r)}`);
  return (r.json as { api_key: IssuedKey }).api_key;
}

export async function usageBytes(svc: RunningService, tenantId: string, key: string): Promise<number> {
  const r = await call(`${svc.app}/api/v1/tenants/${tenantId}/usage`, { headers: { 'X-API-Key': key } });
  if (r.status !== 200) throw new Error(`usage failed: ${show(r)}`);
  return Number(obj(r).bytes_accepted);
}

// --- codecs -------------------------------------------------------------------------------------------

export const gzip = (b: Buffer | string): Buffer => gzipSync(b);

/** The real zstd tool (/usr/bin/zstd): frames as real clients make them. */
export function zstd(b: Buffer | string, args: string[] = ['-3']): Buffer {
  return execFileSync('zstd', ['-q', '-c', ...args], { input: b, maxBuffer: 512 * 1024 * 1024 });
}

/** snappy block format (what Prometheus and Loki clients send). */
export const snappy = (b: Buffer | string): Buffer => Buffer.from(snappyCompress(Buffer.from(b)));

/** snappy framing format (stream identifier, then uncompressed chunks with masked CRC-32C), as framed clients send. */
export function snappyFramed(b: Buffer | string): Buffer {
  const data = Buffer.from(b);
  const parts = [Buffer.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59])];
  for (let off = 0; off < data.length; off += 65_536) {
    const chunk = data.subarray(off, off + 65_536);
    const head = Buffer.alloc(8);
    head.writeUInt8(0x01, 0);
    head.writeUIntLE(chunk.length + 4, 1, 3);
    head.writeUInt32LE(maskedCrc32c(chunk), 4);
    parts.push(head, chunk);
  }
  return Buffer.concat(parts);
}

/** CRC-32C (Castagnoli), masked as the snappy framing format stores it. */
function maskedCrc32c(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0x82f63b78 ^ (crc >>> 1) : crc >>> 1;
  }
  crc = (crc ^ 0xffffffff) >>> 0;
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

// --- load ---------------------------------------------------------------------------------------------

export interface LoadResult {
  /** Entry ids whose request got 200. */
  acked: string[];
  /** Entry ids whose request got a reply other than 200 (refused: must not be stored). */
  refused: string[];
  /** Entry ids whose request got no reply (connection failed): may or may not be stored. */
  unknown: string[];
  /** Body bytes of the 200'd requests. */
  ackedBytes: number;
  /** Body bytes of the requests that got no reply. */
  unknownBytes: number;
  /** When each 200 arrived (ms since the epoch) and its body bytes. */
  acks: { at: number; bytes: number }[];
  statuses: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  key: string;
  clients: number;
  perRequest: number;
  /** Field `run` on every entry, to find them again. */
  run: string;
  /** Stop when this resolves (or after `maxRequests` per client). */
  until: Promise<unknown>;
  maxRequests?: number;
}

/**
 * Several clients, each posting batches of uniquely numbered entries one after another until told to stop or
 * the server goes away. Every id is sorted into acked / refused / unknown by what its request got back.
 */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const result: LoadResult = { acked: [], refused: [], unknown: [], ackedBytes: 0, unknownBytes: 0, acks: [], statuses: {} };
  let stop = false;
  void opts.until.then(() => { stop = true; });
  const client = async (c: number): Promise<void> => {
    for (let r = 0; !stop && r < (opts.maxRequests ?? Infinity); r++) {
      const ids = Array.from({ length: opts.perRequest }, (_, i) => `${opts.run}-c${c}-r${r}-e${i}`);
      const body = ndjson(ids.map((id) => ({ _msg: `load ${id}`, service: 'load', run: opts.run, id })));
      const reply = await raw(opts.url + '/api/v1/ingest', {
        method: 'POST', body, headers: { 'X-API-Key': opts.key, 'Content-Type': 'application/x-ndjson' }, timeoutMs: 20_000,
      });
      const label = reply.error === undefined ? String(reply.status) : 'no reply';
      result.statuses[label] = (result.statuses[label] ?? 0) + 1;
      if (reply.status === 200) {
        result.acked.push(...ids);
        result.ackedBytes += Buffer.byteLength(body);
        result.acks.push({ at: Date.now(), bytes: Buffer.byteLength(body) });
      } else if (reply.status === 0) {
        result.unknown.push(...ids);
        result.unknownBytes += Buffer.byteLength(body);
        return; // the server is gone
      } else {
        result.refused.push(...ids);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.clients }, (_, c) => client(c)));
  return result;
}

/**
 * Every stored value of `field` for entries matching `q`, counted (for exactly-once checks). `limit=0` streams every
 * matching row (issue 12 item 5), so no count is cut short however fast the load ran: a 100,000-row page was once
 * enough for one client of the shutdown test, until ingest got faster.
 */
export async function countByField(svc: RunningService, tenantId: string, key: string, q: string, field: string): Promise<Map<string, number>> {
  const { reply, rows } = await query(svc, tenantId, key, `${q} | fields ${field}`, '&limit=0');
  if (reply.status !== 200) throw new Error(`query failed: ${show(reply)}`);
  const counts = new Map<string, number>();
  for (const row of rows) {
    const v = row[field];
    const id = typeof v === 'string' ? v : JSON.stringify(v);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/**
 * How many times each id of a load run is stored (the SIGKILL tests): one query per round and client prefix, so no
 * answer nears the API's row default, plus anything of the tenant outside those prefixes (a stranger).
 */
export async function countRunIds(
  svc: RunningService, tenantId: string, key: string, run: string, rounds: number, clients: number,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    for (let client = 0; client < clients; client++) {
      const part = await countByField(svc, tenantId, key, `id:"${run}r${round}-c${client}-"*`, 'id');
      for (const [id, n] of part) counts.set(id, (counts.get(id) ?? 0) + n);
    }
  }
  for (const [id, n] of await countByField(svc, tenantId, key, `NOT id:"${run}"*`, 'id')) counts.set(id, n);
  return counts;
}
