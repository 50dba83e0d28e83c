// sendNdjsonStream (issue 12 item 5) over a real HTTP server: rows arrive chunked; an error before the first row is the
// caller's to answer (the status can still say so); an error after it cuts the connection and is logged, so a client
// never takes a short answer for a complete one; a client that hangs up aborts the read.
import assert from 'node:assert/strict';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { sendNdjsonStream, type StreamedRead, type StreamOutcome } from './ndjson-stream.js';

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** A server answering every request with `read` streamed; resolves its URL and each request's outcome or error. */
async function serve(read: StreamedRead<Record<string, unknown>>, logs: string[]) {
  const outcomes: Promise<StreamOutcome | Error>[] = [];
  const server = createServer((_req, res) => {
    outcomes.push(sendNdjsonStream(res, read, (m) => logs.push(m)).catch((e: unknown) => {
      res.writeHead(500).end('caller error');
      return e instanceof Error ? e : new Error(String(e));
    }));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, outcomes };
}

/** GET, reading the whole body; `aborted` when the connection was cut before the body's end. */
function fetchAll(url: string): Promise<{ status: number; body: string; chunked: boolean; aborted: boolean }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (t: string) => { body += t; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, chunked: res.headers['transfer-encoding'] === 'chunked', aborted: false }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body, chunked: true, aborted: true }));
    }).on('error', reject);
  });
}

test('rows stream as chunked NDJSON, one entry per line; no rows is an empty 200', async () => {
  const { url } = await serve(async (onChunk) => {
    await onChunk([{ a: 1 }, { a: 2n }]);
    await onChunk([{ a: 'x' }]);
  }, []);
  assert.deepEqual(await fetchAll(url), { status: 200, body: '{"a":1}\n{"a":2}\n{"a":"x"}\n', chunked: true, aborted: false });
  const empty = await serve(() => Promise.resolve(), []);
  assert.deepEqual(await fetchAll(empty.url), { status: 200, body: '', chunked: true, aborted: false });
});

test('an error before the first row goes to the caller, whose reply keeps its status', async () => {
  const { url, outcomes } = await serve(() => Promise.reject(new Error('bad regexp')), []);
  const r = await fetchAll(url);
  assert.equal(r.status, 500);
  assert.equal(r.body, 'caller error');
  const outcome = await outcomes[0];
  assert.ok(outcome instanceof Error);
  assert.match(outcome.message, /bad regexp/);
});

test('an error after the first bytes cuts the connection (the client notices) and is logged', async () => {
  const logs: string[] = [];
  const { url } = await serve(async (onChunk) => {
    await onChunk([{ a: 1 }]);
    throw new Error('engine failed');
  }, logs);
  const r = await fetchAll(url);
  assert.equal(r.status, 200);
  assert.equal(r.aborted, true, 'the body ends in a cut, not a clean end');
  assert.match(logs.join('\n'), /failed after 1 rows and was cut off: engine failed/);
});

test('a client that hangs up aborts the read, which then stops', async () => {
  let stopped: () => void = () => undefined;
  const stoppedP = new Promise<void>((r) => { stopped = r; });
  const { url, outcomes } = await serve(async (onChunk, signal) => {
    const row = { msg: 'x'.repeat(1000) };
    // Writes until told to stop: the socket's buffer fills while the client is gone, and the signal ends the wait.
    while (await onChunk(Array.from({ length: 100 }, () => row)));
    assert.equal(signal.aborted, true);
    stopped();
  }, []);
  await new Promise<void>((resolve) => {
    const req = get(url, (res) => res.once('data', () => {
      req.destroy();
      resolve();
    }));
  });
  await stoppedP;
  const outcome = await outcomes[0];
  assert.ok(!(outcome instanceof Error) && outcome?.abandoned === true && outcome.rows > 0);
});
