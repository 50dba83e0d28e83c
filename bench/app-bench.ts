// The web app's speed (DESIGN §7 Speed; issue 8 item 11), measured in Debian's Chromium against the real
// service: per page, the time from navigation to the page being usable (its main control on screen) on a cold
// cache, and the compressed script it pulled to get there; then a 10,000-row result scrolled end to end with
// the frames it took. Figures only: nothing here passes or fails on a time.
import { chromium, type Browser, type Page } from 'playwright-core';
import { call, newAccount, startService } from '../test/support/service.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PAGES = ['explore', 'traces', 'metrics', 'dashboards', 'replays', 'alerts', 'settings/keys', 'settings/usage'];
/** What "usable" means: the loading bar gone and the page's first control or heading shown. */
const READY = 'main :is(input, select, button, table, h1, h2, [role="textbox"], [role="table"])';
const RUNS = 3;

async function coldLoad(page: Page, url: string): Promise<{ ms: number; scriptBytes: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const scripts = new Map<string, number>();
  let scriptBytes = 0;
  cdp.on('Network.responseReceived', (e: { requestId: string; type: string }) => { if (e.type === 'Script') scripts.set(e.requestId, 0); });
  cdp.on('Network.loadingFinished', (e: { requestId: string; encodedDataLength: number }) => {
    if (scripts.has(e.requestId)) scriptBytes += e.encodedDataLength;
  });
  const t0 = Date.now();
  await page.goto(url);
  await page.locator(READY).first().waitFor({ timeout: 30_000 });
  await page.getByRole('progressbar', { name: 'Loading page' }).waitFor({ state: 'detached' });
  const ms = Date.now() - t0;
  await cdp.detach();
  return { ms, scriptBytes };
}

async function main(): Promise<void> {
  const svc = await startService();
  // Launched inside the try: a machine without Chromium must not leave the service running once the bench exits.
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    const acct = await newAccount(svc, { tier: 'custom' });
    const email = 'bench@example.com';
    const password = 'bench-password-1';
    const made = await call(`${svc.app}/api/v1/account/users`, {
      method: 'POST', headers: { 'X-API-Key': acct.key, 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password, role: 'admin' }),
    });
    if (made.status !== 201) throw new Error(`user: ${made.status} ${made.text}`);
    const signin = await call(`${svc.app}/api/v1/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }) });
    const cookie = /sightline_session=([^;]+)/.exec(String(signin.headers['set-cookie']))?.[1];
    if (cookie === undefined) throw new Error(`sign-in: ${signin.status} ${signin.text}`);
    const host = new URL(svc.app).hostname;
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addCookies([{ name: 'sightline_session', value: cookie, domain: host, path: '/', httpOnly: true, sameSite: 'Strict' }]);

    console.log('web app, cold cache, Debian Chromium headless (median of 3 loads)');
    console.log(`${'page'.padEnd(16)} ${'usable after'.padStart(12)} ${'script (gzip)'.padStart(14)}`);
    for (const name of PAGES) {
      const runs: { ms: number; scriptBytes: number }[] = [];
      for (let i = 0; i < RUNS; i++) {
        const page = await context.newPage();
        runs.push(await coldLoad(page, `${svc.app}/app/${name}`));
        await page.close();
      }
      runs.sort((a, b) => a.ms - b.ms);
      const mid = runs[Math.floor(runs.length / 2)] ?? { ms: 0, scriptBytes: 0 };
      console.log(`${name.padEnd(16)} ${`${mid.ms} ms`.padStart(12)} ${`${(mid.scriptBytes / 1000).toFixed(1)} kB`.padStart(14)}`);
    }

    // 10,000 rows in Explore, scrolled top to bottom in steps of one screen per frame.
    const rows = Array.from({ length: 10_000 }, (_, i) => JSON.stringify({ _msg: `scroll line ${i} ${'x'.repeat(i % 80)}`, service: 'scroll', level: i % 9 === 0 ? 'error' : 'info' })).join('\n');
    const sent = await call(`${svc.ingest}/api/v1/ingest`, { method: 'POST', headers: { 'X-API-Key': acct.key, 'Content-Type': 'application/x-ndjson' }, body: rows });
    if (sent.status !== 200) throw new Error(`ingest: ${sent.status} ${sent.text}`);
    const q = encodeURIComponent('service:scroll');
    const countUrl = `${svc.app}/api/v1/tenants/${acct.tenantId}/select/logsql/query?query=${encodeURIComponent('service:scroll | stats count() as n')}`;
    for (let tries = 0; tries < 300; tries++) {
      const r = await call(countUrl, { headers: { 'X-API-Key': acct.key } });
      if (r.text.includes('"10000"')) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const page = await context.newPage();
    await page.goto(`${svc.app}/app/explore?query=${q}&start=now-1h&end=now&limit=10000`);
    const list = page.getByRole('table', { name: 'Log entries' });
    await list.waitFor();
    for (let tries = 0; tries < 300 && (await list.getAttribute('aria-rowcount')) !== '10000'; tries++) await page.waitForTimeout(100);
    const frames = await page.evaluate<number[]>(`new Promise((resolve) => {
      const el = document.querySelector('[aria-label="Log entries"]');
      const times = [];
      let last = performance.now();
      const step = () => {
        const now = performance.now();
        times.push(now - last);
        last = now;
        el.scrollTop += el.clientHeight;
        if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) resolve(times);
        else requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    })`);
    frames.sort((a, b) => a - b);
    const p = (q2: number) => frames[Math.min(frames.length - 1, Math.floor(frames.length * q2))] ?? 0;
    const slow = frames.filter((f) => f > 1000 / 60 * 1.5).length;
    console.log(`10,000 rows scrolled in ${frames.length} frames: frame p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, ${slow} over 25 ms`);
  } finally {
    await browser?.close();
    await svc.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
