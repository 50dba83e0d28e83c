// The ChExecutor (executor.ts) over @clickhouse/client, for both ways DESIGN §10 reaches ClickHouse: a server over
// HTTP, or the engine in-process through chdb's connection plugged into the same client.
//
// In-process, one engine serves the whole process and its session state is shared (clickhouse.md, "chDB in tests"):
// `USE` and `clickhouse_settings` persist as session SETs, and the connection ignores the client's `database`. So
// here every in-process statement names its database and its settings itself, and statements of the process run one
// at a time (chdb serializes parameterized queries across the process anyway, and nearly every statement here has
// parameters), which lets several stores — each in its own database — share one engine in tests.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import type { ChExecutor, ChParams } from './executor.js';
import { STREAM_CHUNK_ROWS, type ChunkSink } from '../sql/dialect.js';

export interface ClientExecutorOptions {
  /** The database every statement runs in. */
  database: string;
  /** The client talks to chdb in-process: name the database and settings in each statement, one at a time. */
  inProcess: boolean;
}

/**
 * Read settings: 64-bit integers as JSON strings (executor.ts promises it; ns times pass 2^53, and chdb's default
 * differs from a server's).
 */
const READ_SETTINGS: ClickHouseSettings = { output_format_json_quote_64bit_integers: 1 };

/**
 * Insert settings, every one named on every insert because in-process they persist to the next statement: synchronous
 * inserts (chDB 26.x turns async_insert on, and async inserts are not deduplicated by token by default), and the
 * token — '' when none, so a previous insert's token cannot linger. `max_partitions_per_insert_block` is lifted: a
 * drained batch may span many days (a backfill, a replay after a long stop) and refusing it would stall the drain
 * forever, while the partition count stays bounded by the days the batch covers.
 */
function insertSettings(token: string): ClickHouseSettings {
  return { async_insert: 0, insert_deduplicate: 1, insert_deduplication_token: token, max_partitions_per_insert_block: '0' };
}

/** A process-wide queue for the in-process engine (one engine per process, so one queue). */
let inProcessTail: Promise<unknown> = Promise.resolve();
function inProcessTurn<T>(fn: () => Promise<T>): Promise<T> {
  const p = inProcessTail.then(fn);
  inProcessTail = p.catch(() => undefined);
  return p;
}

/** A ClickHouse identifier in backquotes. */
export function quoteIdent(name: string): string {
  return '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}

export function clientExecutor(client: ClickHouseClient, opts: ClientExecutorOptions): ChExecutor {
  const db = quoteIdent(opts.database);
  const inDb = (sql: string): string => (opts.inProcess ? `USE ${db}; ${sql}` : sql);
  const turn = <T>(fn: () => Promise<T>): Promise<T> => (opts.inProcess ? inProcessTurn(fn) : fn());
  return {
    query: (sql: string, params?: ChParams) => turn(async () => {
      const rs = await client.query({
        query: inDb(sql), format: 'JSONEachRow', clickhouse_settings: READ_SETTINGS, ...(params ? { query_params: params } : {}),
      });
      return rs.json<Record<string, unknown>>();
    }),
    stream: (sql, params, onChunk, signal) => streamQuery(client, inDb(sql), params, onChunk, turn, signal),
    command: (sql: string, params?: ChParams) => turn(async () => {
      await client.command({ query: inDb(sql), ...(params ? { query_params: params } : {}) });
    }),
    insert: (table: string, rows: readonly Record<string, unknown>[], insertOpts?: { dedupToken?: string }) => {
      if (rows.length === 0) return Promise.resolve();
      return turn(async () => {
        await client.insert({
          table: `${db}.${quoteIdent(table)}`, values: rows, format: 'JSONEachRow',
          clickhouse_settings: insertSettings(insertOpts?.dedupToken ?? ''),
        });
      });
    },
  };
}

/**
 * A streamed SELECT (issue 12 item 5). Over HTTP the response body is read as it arrives: rows are parsed a network
 * chunk at a time, the body is paused while `onChunk` runs (TCP backpressure reaches the server), and stopping aborts
 * the request, which cancels the query on the server. In-process, chdb's connection runs the statement to completion
 * before handing the result over (chdb/src/connection/AGENTS.md: "client.query() buffers the whole result"; its true
 * `queryStream` takes no bound parameters, and values here are always bound), so the engine's answer is held as bytes
 * while rows are still parsed and handed on a chunk at a time; only the statement, not the reading, takes the
 * process-wide turn, so a slow client does not hold up other statements.
 */
async function streamQuery(
  client: ClickHouseClient, sql: string, params: ChParams, onChunk: ChunkSink<Record<string, unknown>>,
  turn: <T>(fn: () => Promise<T>) => Promise<T>, signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted) return;
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const rs = await turn(() => client.query({
      query: sql, format: 'JSONEachRow', clickhouse_settings: READ_SETTINGS, query_params: params, abort_signal: abort.signal,
    }));
    try {
      let chunk: Record<string, unknown>[] = [];
      for await (const rows of rs.stream<Record<string, unknown>>()) {
        for (const row of rows) {
          chunk.push(row.json());
          if (chunk.length < STREAM_CHUNK_ROWS) continue;
          const more = await onChunk(chunk);
          chunk = [];
          if (!more || abort.signal.aborted) return;
        }
      }
      if (chunk.length > 0 && !abort.signal.aborted) await onChunk(chunk);
    } finally {
      rs.close();
    }
  } catch (e) {
    if (abort.signal.aborted) return; // the stop asked for surfaces as an abort error
    throw e;
  } finally {
    signal?.removeEventListener('abort', stop);
    if (!abort.signal.aborted) abort.abort();
  }
}
