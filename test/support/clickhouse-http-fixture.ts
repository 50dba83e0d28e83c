// A ClickHouse that several service processes can share in tests (issue 11 item 5): a small HTTP server speaking
// enough of ClickHouse's HTTP interface (https://clickhouse.com/docs/interfaces/http) for @clickhouse/client, running
// every statement on one in-process chdb engine. The engine is the real one; only the HTTP layer is ours.
//
//   GET  /ping                                  → "Ok.\n"
//   POST /?query=…&database=…&query_id=…&param_x=…&<setting>=…   body: the query, or (with ?query=) insert data after it
//   GET  /?query=…                              → the same without a body
//
// Answers carry X-ClickHouse-Query-Id, -Format, -Timezone and -Summary; an error is status 500 (400 for a syntax
// error) with X-ClickHouse-Exception-Code and ClickHouse's own "Code: N. DB::Exception: …" text. Request bodies may be
// gzip/deflate-encoded. Users and passwords are accepted, not checked (chdb has none, clickhouse.md).
//
// One chdb engine holds session state (the current database, SETs, query parameters), so requests run one at a time,
// each as one multi-statement call that names its database, its settings and its parameters — parameters through
// `SET param_x = '<text>'`, so the engine parses the HTTP text form exactly as a server parses `param_x` — and the
// settings it changed are put back to their defaults afterwards.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGunzip, createInflate } from 'node:zlib';
import { Readable } from 'node:stream';
import { Session } from 'chdb';

export interface ClickhouseHttpFixture {
  /** `http://127.0.0.1:<port>`: give it to @clickhouse/client or SIGHTLINE_TELEMETRY_DB (with a /database path). */
  readonly url: string;
  /** Statements answered so far (each HTTP request is one). */
  requests(): number;
  close(): Promise<void>;
}

/** URL keys that are the HTTP interface's own, not settings. */
const NOT_SETTINGS = new Set([
  'query', 'database', 'query_id', 'default_format', 'user', 'password', 'session_id', 'session_timeout', 'session_check',
  'compress', 'decompress', 'quota_key', 'buffer_size', 'role',
]);

/** Settings that only shape the HTTP exchange (the answer is always whole and uncompressed here). */
const HTTP_ONLY = /^(wait_end_of_query|send_progress_in_http_headers|enable_http_compression|http_.*|output_format_parallel_formatting)$/;

const VERSION = '26.7';

/** Where chdb's defaults differ from a server's, each request starts from the server's (before its own settings). */
const SERVER_DEFAULTS = ['SET output_format_json_quote_64bit_integers = 1'];

/** A ClickHouse string literal. */
function literal(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function ident(name: string): string {
  return '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}

async function body(req: IncomingMessage): Promise<string> {
  const enc = (req.headers['content-encoding'] ?? '').toLowerCase();
  const source: Readable = enc === 'gzip' ? req.pipe(createGunzip()) : enc === 'deflate' ? req.pipe(createInflate()) : req;
  const chunks: Buffer[] = [];
  for await (const c of source) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface Request {
  sql: string;
  format: string;
  reset: string[];
}

/** The one multi-statement call a request becomes, and the settings to put back after it. */
function statementOf(params: URLSearchParams, text: string): Request {
  const query = params.get('query');
  const sql = query === null ? text : text === '' ? query : `${query}\n${text}`;
  if (sql.trim() === '') throw Object.assign(new Error('Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)'), { clickhouseCode: 62 });
  const pre: string[] = [`USE ${ident(params.get('database') ?? 'default')}`, ...SERVER_DEFAULTS];
  const reset: string[] = [];
  for (const [k, v] of params) {
    if (k.startsWith('param_')) {
      pre.push(`SET ${ident(k)} = ${literal(v)}`);
    } else if (!NOT_SETTINGS.has(k) && !HTTP_ONLY.test(k)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw Object.assign(new Error(`Code: 115. DB::Exception: Unknown setting ${k}. (UNKNOWN_SETTING)`), { clickhouseCode: 115 });
      pre.push(`SET ${k} = ${/^-?\d+(\.\d+)?$/.test(v) ? v : literal(v)}`);
      reset.push(`SET ${k} = DEFAULT`);
    }
  }
  return { sql: `${pre.join('; ')}; ${sql}`, format: params.get('default_format') ?? 'TabSeparated', reset };
}

function contentType(format: string): string {
  return /^JSON/i.test(format) ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8';
}

function errorCode(e: unknown): number {
  const code = (e as { clickhouseCode?: unknown }).clickhouseCode;
  if (typeof code === 'number') return code;
  const m = /Code: (\d+)\./.exec(String((e as { message?: unknown }).message ?? e));
  return m ? Number(m[1]) : 1001;
}

/** Starts the server on a free port of 127.0.0.1, its engine in `path` (a directory chdb owns while it runs). */
export async function startClickhouseHttpFixture(path: string): Promise<ClickhouseHttpFixture> {
  process.env.TZ = 'UTC'; // DateTime renders in the host zone (clickhouse.md)
  const session = new Session(path);
  let tail: Promise<unknown> = Promise.resolve();
  let count = 0;
  /** One request at a time on the engine (its session state is shared). */
  const run = (r: Request) => {
    const p = tail.then(async () => {
      try {
        return await session.queryAsync(r.sql, { format: r.format });
      } finally {
        if (r.reset.length > 0) await session.queryAsync(r.reset.join('; ')).catch(() => undefined);
      }
    });
    tail = p.catch(() => undefined);
    return p;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    if (url.pathname === '/ping') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    const queryId = url.searchParams.get('query_id') ?? randomUUID();
    const base = { 'X-ClickHouse-Query-Id': queryId, 'X-ClickHouse-Timezone': 'UTC', 'X-ClickHouse-Server-Display-Name': 'clickhouse-http-fixture' };
    try {
      if (req.method !== 'GET' && req.method !== 'POST') throw Object.assign(new Error(`Code: 1001. DB::Exception: method ${req.method} is not allowed. (UNKNOWN_EXCEPTION)`), { clickhouseCode: 1001 });
      const r = statementOf(url.searchParams, await body(req));
      count++;
      const result = await run(r);
      const bytes = result.bytes();
      const summary = {
        read_rows: String(result.rowsRead), read_bytes: String(result.bytesRead), written_rows: '0', written_bytes: '0',
        total_rows_to_read: '0', result_rows: '0', result_bytes: String(bytes.byteLength), elapsed_ns: String(Math.round(result.elapsed * 1e9)),
      };
      res.writeHead(200, {
        ...base, 'Content-Type': contentType(r.format), 'X-ClickHouse-Format': r.format, 'X-ClickHouse-Summary': JSON.stringify(summary),
      }).end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    } catch (e) {
      const code = errorCode(e);
      const message = String((e as { message?: unknown }).message ?? e);
      const text = message.startsWith('Code: ') ? message : `Code: ${code}. DB::Exception: ${message}.`;
      res.writeHead(code === 62 ? 400 : 500, { ...base, 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(code) })
        .end(`${text} (version ${VERSION})\n`);
    }
  };

  const server: Server = createServer((req, res) => { void handle(req, res); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tail;
      session.close();
    },
  };
}
