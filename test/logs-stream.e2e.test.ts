// No silent cap on results (issue 12 item 5) on the real service: `select/logsql/query` with `limit=0` streams every
// matching row — far past the old 100,000-row ceiling — as chunked NDJSON, an explicit limit of any size is honoured,
// the default stays DESIGN §4's 1000, the server's memory stays bounded while a client reads slowly, and a client
// that hangs up stops the query. Figures are printed; nothing fails on a time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { admin, newAccount, sleep, startService, type RunningService, type TestAccount } from './support/service.js';
import { ingest, Later, ndjson, query, show, uid } from './support/load.js';

const ROWS = 250_000;
const PER_BODY = 25_000;
const started = new Later(() => startService({ env: { SIGHTLINE_MAX_BODY_SIZE_MB: '32', SIGHTLINE_PLATFORM_RATE: '10000000' } }));
let svc: RunningService;
let acct: TestAccount;
const tag = uid('strm');
const t0 = Date.now() - 3_600_000;

before(async () => {
  svc = await started.get();
  acct = await newAccount(svc, { tier: 'custom' });
  const patched = await admin(svc, 'PATCH', `/admin/v1/accounts/${acct.accountId}`, { limits: { ingest_rate: 10_000_000 } });
  assert.equal(patched.status, 200, show(patched));
  const began = Date.now();
  for (let from = 0; from < ROWS; from += PER_BODY) {
    const body = ndjson(Array.from({ length: PER_BODY }, (_, k) => {
      const i = from + k;
      return { _time: new Date(t0 + Math.floor(i / 100)).toISOString(), _msg: `${tag} request ${i} served`, service: `svc${i % 7}`, i: String(i), host: `h${i % 13}` };
    }));
    const r = await ingest(svc.ingest, acct.key, body);
    assert.equal(r.status, 200, show(r));
  }
  // Stored once the drain caught up: count them.
  for (let n = 0; n !== ROWS;) {
    const r = await query(svc, acct.tenantId, acct.key, `${tag} | stats count() n`);
    n = Number(r.rows[0]?.n ?? 0);
    if (n !== ROWS) await sleep(250);
  }
  console.log(`ingested and stored ${ROWS} rows in ${Date.now() - began} ms`);
});

after(async () => {
  await started.stop();
});

/** The service's resident set, MiB (Linux /proc). */
function rssMib(): number {
  const status = readFileSync(`/proc/${svc.child.pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return Math.round(Number(kb) / 1024);
}

interface Streamed {
  res: IncomingMessage;
  rows: number;
  bytes: number;
  /** The last line parsed (to check the shape). */
  first: Record<string, unknown> | null;
  peakRssMib: number;
}

/**
 * Reads a query's answer as it arrives, counting lines without keeping them, and samples the server's RSS meanwhile.
 * `stopAfterBytes`: hang up once that much arrived. `pauseAfterBytes`: stop reading there for `pauseMs`, then go on.
 */
function stream(q: string, extra: string, opts: { stopAfterBytes?: number; pauseAfterBytes?: number; pauseMs?: number; onPause?: () => void } = {}): Promise<Streamed> {
  const url = `${svc.app}/api/v1/tenants/${acct.tenantId}/select/logsql/query?query=${encodeURIComponent(q)}${extra}`;
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'X-API-Key': acct.key } }, (res) => {
      const out: Streamed = { res, rows: 0, bytes: 0, first: null, peakRssMib: rssMib() };
      const sampler = setInterval(() => { out.peakRssMib = Math.max(out.peakRssMib, rssMib()); }, 100);
      let partial = '';
      let paused = false;
      const finish = (): void => {
        clearInterval(sampler);
        resolve(out);
      };
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        out.bytes += Buffer.byteLength(text);
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        if (out.first === null && lines[0]) out.first = JSON.parse(lines[0]) as Record<string, unknown>;
        out.rows += lines.length;
        if (opts.stopAfterBytes !== undefined && out.bytes >= opts.stopAfterBytes) {
          req.destroy();
          finish();
        } else if (!paused && opts.pauseAfterBytes !== undefined && out.bytes >= opts.pauseAfterBytes) {
          paused = true;
          res.pause();
          setTimeout(() => {
            out.peakRssMib = Math.max(out.peakRssMib, rssMib());
            opts.onPause?.();
            res.resume();
          }, opts.pauseMs ?? 0);
        }
      });
      res.on('end', finish);
      res.on('error', reject);
    });
    req.on('error', (e) => (opts.stopAfterBytes !== undefined ? undefined : reject(e)));
    req.end();
  });
}

test('without a limit (limit=0) every matching row streams, past the old 100,000 cap, chunked', async () => {
  const before = rssMib();
  const began = Date.now();
  const s = await stream(tag, '&limit=0');
  assert.equal(s.res.statusCode, 200);
  assert.equal(s.res.headers['transfer-encoding'], 'chunked');
  assert.equal(s.res.headers['content-length'], undefined);
  assert.match(String(s.res.headers['content-type']), /application\/stream\+json/);
  assert.equal(s.rows, ROWS, 'every row');
  // 100 entries share each millisecond, so the newest are the last hundred, in any order among themselves.
  assert.ok(Number(s.first?.i) >= ROWS - 100, `newest first: ${String(s.first?._msg)}`);
  console.log(`limit=0: ${s.rows} rows, ${(s.bytes / 2 ** 20).toFixed(1)} MiB in ${Date.now() - began} ms; ` +
    `server RSS ${before} MiB before, peak ${s.peakRssMib} MiB during (+${s.peakRssMib - before} MiB)`);
});

test('an explicit limit of any size is honoured (no 100,000 ceiling); the default stays 1000 (DESIGN §4)', async () => {
  const began = Date.now();
  assert.equal((await stream(tag, '&limit=150000')).rows, 150_000);
  console.log(`limit=150000: 150000 rows in ${Date.now() - began} ms`);
  assert.equal((await stream(tag, '&limit=1000000')).rows, ROWS, 'a limit past the result: every row');
  assert.equal((await stream(tag, '')).rows, 1000, 'no limit parameter: DESIGN §4 "limit default 1000"');
  assert.equal((await stream(`${tag} | stats by (service) count() n`, '&limit=0')).rows, 7, 'a stats answer streams too');
  const none = await stream('nosuchwordanywhere', '&limit=0');
  assert.equal(none.res.statusCode, 200);
  assert.equal(none.rows, 0);
});

test('a slow client: the server does not buffer the answer (RSS stays bounded while the client is not reading)', async () => {
  await stream(tag, '&limit=0'); // warm: DuckDB's buffers and the heap at their working size
  const before = rssMib();
  let duringPause = 0;
  const s = await stream(tag, '&limit=0', { pauseAfterBytes: 64 * 1024, pauseMs: 3000, onPause: () => { duringPause = rssMib(); } });
  assert.equal(s.rows, ROWS);
  const answerMib = s.bytes / 2 ** 20;
  console.log(`slow client: answer ${answerMib.toFixed(1)} MiB; server RSS ${before} MiB before, ${duringPause} MiB after 3 s ` +
    `paused at 64 KiB, peak ${s.peakRssMib} MiB (+${s.peakRssMib - before} MiB)`);
  // The old reply held every row as objects plus the whole text (several times the answer); a streamed one holds a
  // chunk or two and the socket's buffers. Generous: growth under the answer's own size.
  assert.ok(duringPause - before < answerMib, `RSS grew ${duringPause - before} MiB while paused; the answer is ${answerMib.toFixed(1)} MiB`);
});

test('a client that hangs up mid-stream stops the query; the service answers on at once', async () => {
  const s = await stream(tag, '&limit=0', { stopAfterBytes: 256 * 1024 });
  assert.ok(s.rows > 0 && s.rows < ROWS, `hung up after ${s.rows} rows`);
  const began = Date.now();
  const r = await query(svc, acct.tenantId, acct.key, `${tag} | stats count() n`);
  assert.equal(r.rows[0]?.n, String(ROWS));
  console.log(`hung up after ${s.rows} rows; the next query answered in ${Date.now() - began} ms`);
  // The handler logs the stop (ndjson-stream.ts): the read was abandoned, not left running to the end.
  for (let i = 0; i < 50 && !/the client left after \d+ rows; the query was stopped/.test(svc.output()); i++) await sleep(100);
  assert.match(svc.output(), /the client left after \d+ rows; the query was stopped/);
  // Several abandoned streams in a row leave nothing behind: each still answers, and so does a full one.
  for (let i = 0; i < 5; i++) await stream(tag, '&limit=0', { stopAfterBytes: 64 * 1024 });
  assert.equal((await stream(tag, '&limit=0')).rows, ROWS);
});
