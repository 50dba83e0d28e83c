// Replays end to end in a real Chromium (issue 8 item 7; DESIGN §7 Replays). A checkout page is recorded in the
// browser with rrweb (the UMD build the SDK uses): typing a name, then an order click that updates the page and
// throws. The events go up as replay chunks (`POST /v1/rum/replay`), and the thrown error as a browser RUM log
// over OTLP (`telemetry.sdk.language` webjs, `session.id` = the session), the way a page's OpenTelemetry SDK sends
// it. In the app: the session list with its error count, the player rebuilding the recorded DOM in its iframe,
// play/pause/speed, and `Jump to` on the error seeking the replay to the moment the order was placed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { call, eventually } from '../support/service.js';
import { addUser, hasChromium, screenshot, signedIn, startWorld, type AppUser, type AppWorld, postIngest } from './support.js';

const skip = hasChromium() ? false : 'Chromium is not installed (/usr/bin/chromium)';
const RRWEB_UMD = join(dirname(fileURLToPath(import.meta.resolve('rrweb'))), 'rrweb.umd.min.cjs');
const SHOP = 'http://shop.test/checkout';
const SHOP_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop checkout</title>
<style>body { font-family: sans-serif; margin: 2em; } #status { color: #226; }</style></head>
<body><h1>Checkout</h1><p id="status">Nothing ordered yet.</p>
<label>Name <input id="name" type="text" autocomplete="off"></label> <button id="order" type="button">Place order</button>
<script>
  window.caught = [];
  window.addEventListener('error', (e) => window.caught.push({ at: Date.now(), type: e.error && e.error.name, message: e.error && e.error.message }));
  document.getElementById('order').addEventListener('click', () => {
    document.getElementById('status').textContent = 'Order placed for ' + document.getElementById('name').value;
    const cart = undefined;
    return cart.total;
  });
</script></body></html>`;

interface Recording { events: { type: number; timestamp: number }[]; caught: { at: number; type: string; message: string }[] }

let world: AppWorld;
let member: AppUser;
const noisy = `e2e-${randomBytes(5).toString('hex')}`;
const quiet = `e2e-quiet-${randomBytes(5).toString('hex')}`;
let recording: Recording;

/** Records the shop page in Chromium with rrweb: type a name, wait, place the order (which throws), wait. */
async function recordShop(): Promise<Recording> {
  const page = await world.browser.newPage({ viewport: { width: 900, height: 600 } });
  try {
    await page.route('http://shop.test/**', (r) => r.fulfill({ contentType: 'text/html', body: SHOP_HTML }));
    await page.goto(SHOP);
    await page.addScriptTag({ path: RRWEB_UMD });
    await page.evaluate('window.events = []; window.stopRecording = rrweb.record({ emit: (e) => window.events.push(e) })');
    await page.waitForTimeout(400);
    await page.locator('#name').pressSequentially('Ada Lovelace', { delay: 40 });
    await page.waitForTimeout(1200);
    await page.click('#order');
    await page.waitForTimeout(1500);
    await page.mouse.move(300, 200);
    await page.waitForTimeout(300);
    return await page.evaluate<Recording>('window.stopRecording(); ({ events: window.events, caught: window.caught })');
  } finally {
    await page.close();
  }
}

const post = (path: string, body: unknown): Promise<void> => postIngest(world, path, body);

before(async () => {
  if (skip !== false) return;
  world = await startWorld();
  member = await addUser(world, 'member');
  recording = await recordShop();
  assert.equal(recording.caught.length, 1, 'the order click threw once');
  assert.deepEqual([recording.events[0]?.type, recording.events[1]?.type], [4, 2], 'Meta, then FullSnapshot');
  // Two chunks per session, as the SDK cuts them; the quiet session is the same recording without errors.
  const half = Math.ceil(recording.events.length / 2);
  for (const id of [noisy, quiet]) {
    await post('/v1/rum/replay', [
      { session_id: id, seq: 0, page: SHOP, user: 'buyer-7', events: recording.events.slice(0, half) },
      { session_id: id, seq: 1, page: SHOP, user: 'buyer-7', events: recording.events.slice(half) },
    ]);
  }
  const err = recording.caught[0];
  assert.ok(err);
  const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
  await post('/v1/logs', {
    resourceLogs: [{
      resource: { attributes: [attr('service.name', 'shop-web'), attr('telemetry.sdk.language', 'webjs')] },
      scopeLogs: [{
        scope: { name: 'e2e-browser' },
        logRecords: [{
          timeUnixNano: `${err.at}000000`, severityText: 'ERROR', severityNumber: 17, body: { stringValue: `${err.type}: ${err.message}` },
          attributes: [attr('session.id', noisy), attr('exception.type', err.type), attr('exception.message', err.message), attr('url.full', SHOP)],
        }],
      }],
    }],
  });
  const api = (path: string) => call(`${world.svc.app}/api/v1/tenants/${world.account.tenantId}/${path}`, { headers: { 'X-API-Key': world.account.key } });
  assert.ok(await eventually(async () => (await api('replays')).text.includes(quiet) && (await api(`select/logsql/query?query=${encodeURIComponent(`session.id:="${noisy}"`)}`)).text.includes(err.message), 10_000),
    'both sessions and the error log are stored');
});
after(async () => {
  if (skip === false) await world.stop();
});

const screen = (page: Page) => page.frameLocator('.player-screen iframe');
const seekValue = async (page: Page): Promise<number> => Number(await page.getByRole('slider', { name: 'Seek' }).inputValue());

describe('Replays', { skip }, () => {
  test('the session list shows both sessions, with the RUM error counted on the one that had it', async () => {
    const { context, page } = await signedIn(world, member, 'replays');
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      const table = page.getByRole('table', { name: 'Sessions' });
      await table.getByRole('link', { name: noisy, exact: true }).waitFor();
      const row = (id: string) => table.getByRole('row').filter({ has: page.getByRole('link', { name: id, exact: true }) });
      await eventually(async () => !(await row(noisy).innerText()).includes('…'), 10_000);
      const cells = (await row(noisy).innerText()).split('\t').map((c) => c.trim());
      assert.equal(cells[3], 'buyer-7');
      assert.equal(cells[4], SHOP);
      assert.equal(cells[5], recording.events.length.toLocaleString('en-US'));
      assert.equal(cells[6], '1', 'one RUM error');
      assert.equal((await row(quiet).innerText()).split('\t').map((c) => c.trim())[6], '0');
      await screenshot(page, 'replays-list');
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the app');
    } finally {
      await context.close();
    }
  });

  test('the player rebuilds the recorded page, plays, and Jump to seeks to the error', async () => {
    const { context, page } = await signedIn(world, member, 'replays');
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      await page.getByRole('link', { name: noisy, exact: true }).click();
      await page.waitForURL(new RegExp(`session=${noisy}`));
      await screen(page).getByRole('heading', { name: 'Checkout' }).waitFor({ timeout: 15_000 });
      assert.equal(await screen(page).locator('#status').innerText(), 'Nothing ordered yet.', 'the start of the recording');
      const errors = page.getByRole('complementary', { name: 'Errors' });
      const err = recording.caught[0];
      assert.ok(err);
      await errors.getByText(err.message).waitFor();
      assert.match(await errors.innerText(), /TypeError/);
      await screenshot(page, 'replays-player');

      await page.getByRole('button', { name: '2×' }).click();
      assert.equal(await page.getByRole('button', { name: '2×' }).getAttribute('aria-pressed'), 'true');
      await page.getByRole('button', { name: 'Play' }).click();
      await page.getByRole('button', { name: 'Pause' }).waitFor();
      await eventually(async () => (await seekValue(page)) > 500, 10_000);
      assert.ok((await seekValue(page)) > 500, 'the seek bar moves while playing');
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByRole('button', { name: 'Play' }).waitFor();
      assert.match(page.url(), /[?&]t=\d+/, 'the moment paused at is in the URL');

      // Jump to lands just after the error (100 ms, so the DOM changes of the task that threw are in).
      const target = err.at - (recording.events[0]?.timestamp ?? 0) + 100;
      await errors.getByRole('button', { name: /^Jump to/ }).click();
      await eventually(async () => Math.abs((await seekValue(page)) - target) < 50, 5000);
      assert.ok(Math.abs((await seekValue(page)) - target) < 50, `seek ${await seekValue(page)} vs error at ${target}`);
      await eventually(async () => (await screen(page).locator('#status').innerText()) === 'Order placed for Ada Lovelace', 5000);
      assert.equal(await screen(page).locator('#status').innerText(), 'Order placed for Ada Lovelace', 'the page as it was when the error happened');
      assert.equal(await screen(page).locator('#name').inputValue(), 'Ada Lovelace');
      await screenshot(page, 'replays-jump');

      // The URL keeps the moment: a reload opens the replay there.
      await page.waitForURL(/[?&]t=\d+/);
      await page.reload();
      await screen(page).getByText('Order placed for Ada Lovelace').waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: 'Toggle theme' }).click();
      await screenshot(page, `replays-player-${await page.evaluate<string>('document.documentElement.dataset.theme ?? ""')}`);
      await page.getByRole('button', { name: 'Toggle theme' }).click();

      await page.getByRole('link', { name: '← Replays' }).click();
      await page.getByRole('table', { name: 'Sessions' }).waitFor();
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the app');
    } finally {
      await context.close();
    }
  });

  test('a session without errors says so, and an unknown session shows the API error', async () => {
    const { context, page } = await signedIn(world, member, `replays?session=${quiet}`);
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      await screen(page).getByRole('heading', { name: 'Checkout' }).waitFor({ timeout: 15_000 });
      await page.getByRole('complementary', { name: 'Errors' }).getByText('No errors.').waitFor();
      await page.goto(`${world.svc.app}/app/replays?session=nope-${randomBytes(3).toString('hex')}`);
      assert.match(await page.getByRole('alert').innerText(), /^404/);
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the app');
    } finally {
      await context.close();
    }
  });
});
