// Session replay end to end in a real browser (issue: /v1/rum/replay + web/sdk): headless Chromium opens a
// page served from 127.0.0.1, the SDK records it with rrweb and uploads chunks, and the tenant API must give
// back the very events the page recorded. The page server forwards /v1/rum/replay to the service's app
// door (same origin, so no CORS is needed), or answers from a script to check the SDK's retry rules.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import ts from 'typescript';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { call, eventually, newAccount, startService, type RunningService, type TestAccount } from './support/service.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..'); // the compiled file sits in dist*/test/
const RRWEB_DIR = dirname(fileURLToPath(import.meta.resolve('rrweb'))); // node_modules/rrweb/dist

interface RrwebEvent { type: number; timestamp: number; data?: { source?: number; type?: number; text?: string } }
interface Failure { seq: number; status: number; detail: string; action: 'retry' | 'drop' | 'halt'; retryInMs?: number }
/** What test/fixtures/replay/page.html puts on window. */
interface PageGlobals {
  recorded: RrwebEvent[];
  failures: Failure[];
  recorder: { sessionId: string; recording: boolean; flush(): Promise<void>; stop(): Promise<void> };
  startReplay(opts: Record<string, unknown>): string;
}
interface Chunk { session_id: string; seq: number; page: string; user: string; events: RrwebEvent[] }
interface Upload { at: number; headers: IncomingHttpHeaders; raw: Buffer; chunk: Chunk }
interface Answer { status: number; headers?: Record<string, string>; body: string }
type UploadHandler = (u: Upload) => Promise<Answer>;

/** The SDK as a page loads it: web/sdk/src/*.ts compiled to ES modules, as `tsc -p web/sdk` emits them. */
function compileSdk(): Map<string, string> {
  const dir = join(ROOT, 'web', 'sdk', 'src');
  const out = new Map<string, string>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const js = ts.transpileModule(readFileSync(join(dir, name), 'utf8'), {
      compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ES2020 },
    }).outputText;
    out.set(name.replace(/\.ts$/, '.js'), js);
  }
  return out;
}

/** A static server on 127.0.0.1 for the page, rrweb and the SDK; every upload is recorded, then handled. */
async function startPageServer() {
  const sdk = compileSdk();
  const uploads: Upload[] = [];
  let handler: UploadHandler = () => Promise.resolve({ status: 200, body: '{"status":"ok","accepted":0}' });
  const js = (body: string | Buffer) => ({ type: 'text/javascript; charset=utf-8', body });
  const files = (path: string): { type: string; body: string | Buffer } | undefined => {
    if (path === '/page.html') return { type: 'text/html; charset=utf-8', body: readFileSync(join(ROOT, 'test', 'fixtures', 'replay', 'page.html')) };
    if (path === '/vendor/rrweb.umd.min.cjs') return js(readFileSync(join(RRWEB_DIR, 'rrweb.umd.min.cjs')));
    const m = /^\/sdk\/([\w-]+\.js)$/.exec(path);
    const code = m?.[1] === undefined ? undefined : sdk.get(m[1]);
    return code === undefined ? undefined : js(code);
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST' && path === '/v1/rum/replay') {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        const raw = Buffer.concat(parts);
        const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString();
        const upload: Upload = { at: Date.now(), headers: req.headers, raw, chunk: JSON.parse(text) as Chunk };
        uploads.push(upload);
        handler(upload).then((a) => {
          res.writeHead(a.status, { 'Content-Type': 'application/json', ...a.headers }).end(a.body);
        }, (e: unknown) => res.writeHead(502).end(String(e)));
      });
      return;
    }
    const file = req.method === 'GET' ? files(path) : undefined;
    if (file === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-store' }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('page server has no port');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    uploadsOf: (sessionId: string) => uploads.filter((u) => u.chunk.session_id === sessionId),
    handle(h: UploadHandler) { handler = h; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Hands an upload to the service's app door as the browser sent it (key, Content-Encoding, bytes). */
const forwardTo = (app: string): UploadHandler => async (u) => {
  const headers: Record<string, string> = {};
  for (const h of ['content-type', 'content-encoding', 'x-api-key']) {
    const v = u.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  const res = await fetch(app + '/v1/rum/replay', { method: 'POST', headers, body: u.raw });
  const retryAfter = res.headers.get('retry-after');
  const replyHeaders: Record<string, string> = retryAfter === null ? {} : { 'Retry-After': retryAfter };
  return { status: res.status, headers: replyHeaders, body: await res.text() };
};

const newSessionId = (what: string) => `${what}-${randomBytes(6).toString('hex')}`;
const hasSource = (source: number) => (e: RrwebEvent) => e.type === 3 && e.data?.source === source;

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is absent: install Debian's chromium (apt-get install -y chromium) to run the browser tests`;

void describe('session replay recorded in Chromium', { skip }, () => {
  let svc: RunningService;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let browser: BrowserContext;
  let profile: string;
  let acct: TestAccount;
  const pageErrors: string[] = [];

  before(async () => {
    [svc, pages] = await Promise.all([startService(), startPageServer()]);
    acct = await newAccount(svc);
    profile = mkdtempSync(join(tmpdir(), 'sightline-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    await browser.close();
    await pages.close();
    await svc.stop();
    rmSync(profile, { recursive: true, force: true });
    assert.deepEqual(pageErrors, [], 'no uncaught errors in any page');
  });

  async function openPage(): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(pages.origin + '/page.html');
    await page.waitForFunction(() => typeof (globalThis as unknown as PageGlobals).startReplay === 'function');
    return page;
  }
  const start = (page: Page, opts: Record<string, unknown>) =>
    page.evaluate((o) => (globalThis as unknown as PageGlobals).startReplay(o), { flushIntervalMs: 60_000, ...opts });
  const flush = (page: Page) => page.evaluate(() => (globalThis as unknown as PageGlobals).recorder.flush());
  const recordedCount = (page: Page) => page.evaluate(() => (globalThis as unknown as PageGlobals).recorded.length);
  const failures = (page: Page) => page.evaluate(() => (globalThis as unknown as PageGlobals).failures);
  const readSession = (a: TestAccount, sessionId: string) =>
    call(`${svc.app}/api/v1/tenants/${a.tenantId}/replays/${sessionId}`, { headers: { 'X-API-Key': a.key } });

  it('a scripted page session is recorded, uploaded in seq order and read back event for event', async () => {
    pages.handle(forwardTo(svc.app));
    const page = await openPage();
    const sessionId = newSessionId('e2e');
    await start(page, { endpoint: pages.origin, apiKey: acct.key, sessionId, user: 'buyer-7', maxEventsPerChunk: 25 });
    await page.click('#order');
    await page.locator('#name').pressSequentially('Ada Lovelace', { delay: 15 });
    await page.click('#order');
    await flush(page);
    await page.mouse.move(200, 200);
    await page.mouse.wheel(0, 800);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).recorded.some((e) => e.type === 3 && e.data?.source === 3));
    // stop() uploads the rest and ends recording, so nothing is recorded after the list is read.
    const recorded = await page.evaluate(async () => {
      const g = globalThis as unknown as PageGlobals;
      await g.recorder.stop();
      return g.recorded;
    });
    assert.deepEqual(await failures(page), []);
    await page.close();

    assert.deepEqual([recorded[0]?.type, recorded[1]?.type], [4, 2], 'Meta, then FullSnapshot');
    assert.ok(recorded.some((e) => hasSource(2)(e) && e.data?.type === 2), 'a click was recorded');
    assert.ok(recorded.some((e) => hasSource(5)(e) && e.data?.text === 'Ada Lovelace'), 'the typed text was recorded');
    assert.ok(recorded.some(hasSource(0)), 'the status text mutation was recorded');
    assert.ok(recorded.some(hasSource(3)), 'the scroll was recorded');

    const uploads = pages.uploadsOf(sessionId);
    assert.ok(uploads.length >= 3, `several chunks (${uploads.length})`);
    assert.deepEqual(uploads.map((u) => u.chunk.seq), uploads.map((_, i) => i), 'seq counts up from 0');
    assert.ok(uploads.every((u) => u.headers['content-encoding'] === 'gzip' && u.headers['x-api-key'] === acct.key));
    assert.deepEqual(uploads.flatMap((u) => u.chunk.events), recorded, 'the chunks hold exactly the recorded events');

    const back = await eventually(async () => {
      const r = await readSession(acct, sessionId);
      const events = (r.json as { events?: unknown[] } | undefined)?.events;
      return r.status === 200 && events?.length === recorded.length ? r : undefined;
    });
    assert.ok(back, 'the session can be read back through the tenant API');
    const body = back.json as { session_id: string; events: RrwebEvent[] };
    assert.equal(body.session_id, sessionId);
    assert.deepEqual(body.events, recorded, 'type, timestamp and data of every event, in order');

    const list = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/replays`, { headers: { 'X-API-Key': acct.key } });
    const listed = (list.json as { sessions: { session_id: string; chunks: number; events: number; page: string; user: string }[] }).sessions
      .find((s) => s.session_id === sessionId);
    assert.deepEqual(listed && [listed.chunks, listed.events, listed.page, listed.user], [uploads.length, recorded.length, pages.origin + '/page.html', 'buyer-7']);
  });

  it('an account with replay off gets 503 Session replay not enabled: no retry, recording halts', async () => {
    pages.handle(forwardTo(svc.app));
    const off = await newAccount(svc, { features: { replay: false } });
    const page = await openPage();
    const sessionId = newSessionId('gated');
    await start(page, { endpoint: pages.origin, apiKey: off.key, sessionId });
    await page.click('#order');
    await flush(page);
    assert.deepEqual(await failures(page), [{ seq: 0, status: 503, detail: 'Session replay not enabled', action: 'halt' }]);
    assert.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).recorder.recording), false);
    const before = await recordedCount(page);
    await page.click('#order');
    await flush(page);
    assert.equal(await recordedCount(page), before, 'nothing is recorded after the halt');
    assert.equal(pages.uploadsOf(sessionId).length, 1, 'the gated chunk was sent once');
    assert.equal((await readSession(off, sessionId)).status, 404);
    await page.close();
  });

  it('retry rules: 429 waits Retry-After, 400 is dropped, 5xx backs off, a quota 429 halts', async () => {
    const json = (status: number, body: object, headers: Record<string, string> = {}): Answer => ({ status, headers, body: JSON.stringify(body) });
    const script: Record<number, Answer[]> = {
      0: [json(429, { error: 'rate_limited', detail: 'Rate limit exceeded', retry_after: 1 }, { 'Retry-After': '1' })],
      1: [json(400, { error: 'bad_request', detail: 'events[0].timestamp must be unix milliseconds (a number)' })],
      2: [{ status: 502, body: '<html>Bad Gateway</html>' }],
      3: [json(429, { error: 'rate_limited', detail: 'Daily volume limit exceeded (10 of 10 bytes)', retry_after: 60 })],
    };
    const sessionId = newSessionId('retry');
    pages.handle((u) => {
      const attempt = pages.uploadsOf(sessionId).filter((x) => x.chunk.seq === u.chunk.seq).length;
      return Promise.resolve(script[u.chunk.seq]?.[attempt - 1] ?? json(200, { status: 'ok' }));
    });
    const page = await openPage();
    await start(page, { endpoint: pages.origin, apiKey: 'k', sessionId });
    for (const act of [null, () => page.click('#order'), () => page.locator('#name').fill('x'), () => page.click('#order')]) {
      const n = await recordedCount(page);
      await act?.();
      await page.waitForFunction((k) => (globalThis as unknown as PageGlobals).recorded.length > k, act ? n : 0);
      await flush(page);
    }
    const got = await failures(page);
    assert.deepEqual(got.map((f) => [f.seq, f.status, f.action]), [[0, 429, 'retry'], [1, 400, 'drop'], [2, 502, 'retry'], [3, 429, 'halt']]);
    assert.ok((got[0]?.retryInMs ?? 0) >= 1000 && (got[2]?.retryInMs ?? 0) >= 2000, 'Retry-After, then 2^1 s of backoff');
    const sent = pages.uploadsOf(sessionId);
    assert.deepEqual(sent.map((u) => u.chunk.seq), [0, 0, 1, 2, 2, 3]);
    assert.ok((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0) >= 950, 'the retry waited for Retry-After');
    assert.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).recorder.recording), false);
    await page.close();
  });

  it('leaving the page sends what is buffered with keepalive, even while an upload is in flight; the next load continues the session', async () => {
    const forward = forwardTo(svc.app);
    const arrived = (sessionId: string, seq: number) => pages.uploadsOf(sessionId).some((u) => u.chunk.seq === seq);
    // Chunk 0 gets no answer until chunk 1 is in: the SDK must not hold the page-hide chunk behind it.
    pages.handle(async (u) => {
      if (u.chunk.seq === 0) await eventually(() => Promise.resolve(arrived(u.chunk.session_id, 1)));
      return forward(u);
    });
    const page = await openPage();
    const sessionId = await start(page, { endpoint: pages.origin, apiKey: acct.key });
    await page.click('#order');
    await page.evaluate(() => { void (globalThis as unknown as PageGlobals).recorder.flush(); });
    assert.ok(await eventually(() => Promise.resolve(arrived(sessionId, 0))), 'chunk 0 is in flight');
    await page.locator('#name').fill('before leaving');
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).recorded.some((e) => e.data?.text === 'before leaving'));
    await page.goto(pages.origin + '/page.html'); // pagehide: the SDK sends the buffer at once, uncompressed
    await page.waitForFunction(() => typeof (globalThis as unknown as PageGlobals).startReplay === 'function');
    assert.equal(await start(page, { endpoint: pages.origin, apiKey: acct.key }), sessionId, 'same tab, same session');
    await flush(page);
    await page.close();
    assert.ok(await eventually(() => Promise.resolve(arrived(sessionId, 1) && arrived(sessionId, 2))), 'chunks 1 and 2 arrive');
    const sent = pages.uploadsOf(sessionId).sort((a, b) => a.chunk.seq - b.chunk.seq);
    assert.deepEqual(sent.map((u) => u.chunk.seq), [0, 1, 2]);
    assert.equal(sent[1]?.headers['content-encoding'], undefined);
    assert.ok(sent[1]?.chunk.events.some((e) => e.data?.text === 'before leaving'));
    const back = await eventually(async () => {
      const r = await readSession(acct, sessionId);
      return r.status === 200 && (r.json as { chunks: number }).chunks === 3;
    });
    assert.ok(back, 'all three chunks are stored');
  });

  it('the retry table of the spec, as the SDK decides it', async () => {
    const page = await openPage();
    const cases: [number, string, number | undefined, number][] = [
      [200, '', undefined, 1], [400, 'bad', undefined, 1], [401, '', undefined, 1], [403, 'Invalid API key', undefined, 1],
      [413, 'too large', undefined, 1], [429, 'Rate limit exceeded', 7, 1], [429, 'Daily volume limit exceeded (1 of 1 bytes)', 60, 1],
      [429, 'daily ingest quota is 0 for this tier (trial expired)', 3600, 1], [429, 'wal_full', 10, 2],
      [503, 'Session replay not enabled', undefined, 1], [503, 'Authentication service unavailable', undefined, 3],
      [502, '', undefined, 2], [504, '', undefined, 4], [0, 'Failed to fetch', undefined, 1],
    ];
    const verdicts = await page.evaluate(async (cs) => {
      const url = '/sdk/uploader.js';
      const m = (await import(url)) as { verdict(s: number, d: string, ra: number | undefined, attempt: number, random: number): unknown };
      return cs.map(([s, d, ra, attempt]) => m.verdict(s, d, ra, attempt, 0));
    }, cases);
    await page.close();
    assert.deepEqual(verdicts, [
      { action: 'ok' }, { action: 'drop' }, { action: 'halt' }, { action: 'halt' },
      { action: 'drop' }, { action: 'retry', delayMs: 7000 }, { action: 'halt' },
      { action: 'halt' }, { action: 'retry', delayMs: 10_000 },
      { action: 'halt' }, { action: 'retry', delayMs: 8000 },
      { action: 'retry', delayMs: 4000 }, { action: 'retry', delayMs: 16_000 }, { action: 'retry', delayMs: 2000 },
    ]);
  });

  it('the SDK uploads straight to the app door across origins: the CORS preflight is answered', async () => {
    const preflight = await fetch(svc.app + '/v1/rum/replay', {
      method: 'OPTIONS',
      headers: { Origin: pages.origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-encoding,content-type,x-api-key' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-API-Key/i);
    const page = await openPage();
    const sessionId = newSessionId('cors');
    await start(page, { endpoint: svc.app, apiKey: acct.key, sessionId });
    await page.click('#order');
    const recorded = await page.evaluate(async () => {
      const g = globalThis as unknown as PageGlobals;
      await g.recorder.stop();
      return g.recorded;
    });
    assert.deepEqual(await failures(page), []);
    await page.close();
    const back = await eventually(async () => {
      const r = await readSession(acct, sessionId);
      return r.status === 200 ? (r.json as { events: RrwebEvent[] }).events : undefined;
    });
    assert.deepEqual(back, recorded);
  });
});
