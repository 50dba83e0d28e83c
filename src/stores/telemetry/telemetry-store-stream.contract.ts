// The streamed log search (issue 12 item 5: no silent cap on results): streamLogs gives searchLogs' rows, in its order,
// a bounded chunk at a time; the consumer (or a signal) can stop it; `limit` still caps. Registered by
// telemetry-store.contract.ts inside its suite, so every backend runs it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLogsql } from '../../query/logsql/parser.js';
import type { LogRow, TelemetryStore } from './telemetry-store.js';
import { STREAM_CHUNK_ROWS } from './sql/dialect.js';
import { log, logsBatch } from './telemetry-store.contract.js';

type WithStore = (fn: (s: TelemetryStore) => Promise<void>) => Promise<void>;

const T0 = 1_700_000_000_000_000_000n;
/** Two full chunks and a part: the read has to come back for more than once. */
const N = 2 * STREAM_CHUNK_ROWS + 321;

/** N entries, one µs apart (so newest-first is one order), alternating two services; plus one of another tenant. */
async function fill(s: TelemetryStore): Promise<void> {
  const logs = Array.from({ length: N }, (_, i) => log({
    timeNs: T0 + BigInt(i) * 1000n, msg: `entry ${i}`, service: i % 2 === 0 ? 'api' : 'web',
    stream: `{service="${i % 2 === 0 ? 'api' : 'web'}"}`, fields: { i, parity: i % 2 === 0 ? 'even' : 'odd' },
  }));
  await s.write([logsBatch('t1', logs), logsBatch('t2', [log({ msg: 'other tenant' })])], 1n);
}

/** Every chunk streamLogs hands over, each answered with `more(chunkIndex)`. */
async function collect(
  s: TelemetryStore, text: string, limit: number, more: (i: number) => boolean = () => true, signal?: AbortSignal,
): Promise<LogRow[][]> {
  const chunks: LogRow[][] = [];
  await s.streamLogs('t1', parseLogsql(text, T0), {}, limit, (rows) => {
    chunks.push(rows);
    return Promise.resolve(more(chunks.length - 1));
  }, signal);
  return chunks;
}

export function streamContract(withStore: WithStore): void {
  void test('streamLogs: every row of a result larger than a chunk, in searchLogs\' order, chunks bounded', () => withStore(async (s) => {
    await fill(s);
    for (const text of ['*', 'parity:odd', '* | sort by (i)', '* | fields _msg, i']) {
      const chunks = await collect(s, text, 0);
      assert.ok(chunks.length > 1, `${text}: more than one chunk`);
      assert.ok(chunks.every((c) => c.length > 0 && c.length <= STREAM_CHUNK_ROWS), `${text}: chunks of 1..${STREAM_CHUNK_ROWS} rows`);
      assert.deepEqual(chunks.flat(), await s.searchLogs('t1', parseLogsql(text, T0), {}, 0), text);
    }
    const all = (await collect(s, '*', 0)).flat();
    assert.equal(all.length, N, 'limit 0: every row, the other tenant\'s none');
    assert.equal(all[0]?._msg, `entry ${N - 1}`, 'newest first');
    assert.deepEqual((await collect(s, '* | stats by (service) count() n', 0)).flat(),
      await s.searchLogs('t1', parseLogsql('* | stats by (service) count() n', T0), {}, 0), 'a stats result streams too');
    assert.deepEqual(await collect(s, 'nosuchword', 0), [], 'no rows: no chunk');
  }));

  void test('streamLogs: limit caps the rows, whatever their number', () => withStore(async (s) => {
    await fill(s);
    const capped = (await collect(s, '*', STREAM_CHUNK_ROWS + 5)).flat();
    assert.equal(capped.length, STREAM_CHUNK_ROWS + 5);
    assert.deepEqual(capped, await s.searchLogs('t1', parseLogsql('*', T0), {}, STREAM_CHUNK_ROWS + 5));
    assert.equal((await collect(s, '*', N * 10)).flat().length, N, 'a limit past the result: every row');
  }));

  void test('streamLogs: the consumer saying stop, or the signal, ends the read without error', () => withStore(async (s) => {
    await fill(s);
    const first = await collect(s, '*', 0, () => false);
    assert.equal(first.length, 1, 'no chunk after a stop');
    assert.equal(first[0]?.length, STREAM_CHUNK_ROWS);
    const stop = new AbortController();
    const aborted = await collect(s, '*', 0, () => {
      stop.abort();
      return true;
    }, stop.signal);
    assert.equal(aborted.length, 1, 'the signal stops it between chunks');
    assert.deepEqual(await collect(s, '*', 0, () => true, AbortSignal.abort()), [], 'an aborted signal reads nothing');
    // The store answers on after the stops (their statements were released).
    assert.equal((await s.searchLogs('t1', parseLogsql('* | stats count() n', T0), {}, 1))[0]?.n, String(N));
    await assert.rejects(s.streamLogs('t1', parseLogsql('*', T0), {}, 0, () => Promise.reject(new Error('sink failed'))),
      /sink failed/, 'a failing consumer fails the read with its error');
    assert.equal((await collect(s, '*', 0)).flat().length, N);
  }));
}
