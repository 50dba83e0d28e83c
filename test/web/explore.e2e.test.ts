// Explore end to end in a real Chromium (issue 8 items 3, 10, 12; DESIGN §7): sign in, run a LogsQL query from
// the editor, the URL holding the view, facets, a row's JSON, context and trace link, live tail with pause and
// resume, saved searches, drag-to-zoom, errors with the API's detail, 10,000 rows in a virtualized list, and a
// session that ages out returning to sign-in with the URL kept.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { admin } from '../support/service.js';
import { addUser, hasChromium, ingestLogs, screenshot, signedIn, startWorld, waitForRows, type AppUser, type AppWorld } from './support.js';

const skip = hasChromium() ? false : 'Chromium is not installed (/usr/bin/chromium)';
let world: AppWorld;
let member: AppUser;
const now = Date.now();
const iso = (ms: number): string => new Date(ms).toISOString();

before(async () => {
  if (skip !== false) return;
  world = await startWorld();
  member = await addUser(world, 'member');
  const entries: Record<string, unknown>[] = [];
  const services = ['checkout', 'cart', 'search'];
  for (let i = 0; i < 60; i++) {
    const service = services[i % 3] ?? 'checkout';
    const level = i % 10 === 0 ? 'error' : i % 7 === 0 ? 'warn' : 'info';
    entries.push({
      _time: iso(now - (60 - i) * 30_000), _msg: `${level === 'error' ? 'payment failed for order' : 'request served'} ${i}`,
      service, level, host: `pod-${i % 4}`, order: `o-${i}`, ...(i === 10 ? { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', 'session.id': 'sess-10' } : {}),
    });
  }
  await ingestLogs(world, entries);
  await waitForRows(world, '*', 60);
});
after(async () => {
  if (skip === false) await world.stop();
});

const results = (page: Page) => page.getByRole('region', { name: 'Results' });
const rowCount = async (page: Page): Promise<number> => results(page).getByRole('row').count();

/** Waits until Results holds exactly `n` rows (or `ms` pass, then says how many it holds). */
async function rowsBecome(page: Page, n: number, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  let seen = await rowCount(page);
  while (seen !== n && Date.now() < end) {
    await page.waitForTimeout(100);
    seen = await rowCount(page);
  }
  assert.equal(seen, n, `rows in Results`);
}

async function runQuery(page: Page, query: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'Query' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(query);
  await page.keyboard.press('Escape'); // close completion so Enter runs
  await page.keyboard.press('Enter');
}

describe('Explore', { skip }, () => {
  test('a query from the editor runs on Enter, fills Results, and the URL reloads to the same view', async () => {
    const { context, page } = await signedIn(world, member, 'explore?start=now-1h&end=now');
    try {
      await results(page).getByRole('row').first().waitFor();
      assert.equal(await rowCount(page), 60);
      await screenshot(page, 'explore');
      await runQuery(page, 'service:checkout level:error');
      await page.waitForURL(/query=service%3Acheckout/);
      await rowsBecome(page, 2);
      const texts = await results(page).getByRole('row').allInnerTexts();
      assert.ok(texts.every((t) => t.includes('checkout') && t.includes('payment failed')), texts.join('\n'));
      await page.reload();
      await rowsBecome(page, 2);
      assert.match(await page.getByRole('textbox', { name: 'Query' }).innerText(), /service:checkout level:error/);
    } finally {
      await context.close();
    }
  });

  test('`/` focuses the query; a facet value adds field:value; an invalid query shows the API detail', async () => {
    const { context, page } = await signedIn(world, member, 'explore?start=now-1h&end=now');
    try {
      await results(page).getByRole('row').first().waitFor();
      await page.locator('body').click({ position: { x: 700, y: 5 } });
      await page.keyboard.press('/');
      assert.equal(await page.evaluate('document.activeElement?.getAttribute("aria-label")'), 'Query');
      const fields = page.getByRole('complementary', { name: 'Fields' });
      await fields.getByRole('button', { name: /^▸ host$/ }).click();
      await fields.getByRole('button', { name: /pod-1/ }).click();
      await page.waitForURL(/host%3Apod-1/);
      await rowsBecome(page, 15);
      await runQuery(page, '* | nosuchpipe 1');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.innerText(), /^400\s+invalid query: unknown pipe 'nosuchpipe' at position 4/);
      await screenshot(page, 'explore-error');
    } finally {
      await context.close();
    }
  });

  test('a row opens its JSON, the lines around it in its stream, and its trace', async () => {
    const { context, page } = await signedIn(world, member, `explore?query=${encodeURIComponent('order:o-10')}&start=now-1h&end=now`);
    try {
      await results(page).getByRole('row').first().click();
      const drawer = page.getByRole('dialog', { name: 'Log entry' });
      assert.match(await drawer.getByLabel('JSON').innerText(), /"order": "o-10"/);
      assert.equal(await drawer.getByRole('link', { name: 'View trace' }).getAttribute('href'), '/app/traces?trace=4bf92f3577b34da6a3ce929d0e0e4736');
      const replay = new URL(await drawer.getByRole('link', { name: 'View replay' }).getAttribute('href') ?? '', 'http://x');
      assert.equal(replay.pathname, '/app/replays');
      assert.equal(replay.searchParams.get('session'), 'sess-10');
      assert.match(replay.searchParams.get('at') ?? '', /^\d{4}-\d\d-\d\dT/);
      await drawer.getByRole('tab', { name: 'Context' }).click();
      const context2 = drawer.getByRole('table', { name: 'Context' });
      await context2.getByRole('row').nth(3).waitFor();
      const lines = await context2.getByRole('row').allInnerTexts();
      assert.ok(lines.length > 3, 'neighbours are shown');
      assert.ok(lines.some((l) => l.includes('payment failed for order 10')), 'the row itself is among them');
      await screenshot(page, 'explore-row');
      await page.keyboard.press('Escape');
      await drawer.waitFor({ state: 'detached' });
    } finally {
      await context.close();
    }
  });

  test('live tail shows new entries, holds them while paused and shows them on resume', async () => {
    const { context, page } = await signedIn(world, member, `explore?query=${encodeURIComponent('service:tailsvc')}`);
    try {
      await page.getByRole('button', { name: 'Live tail' }).click();
      await page.getByRole('button', { name: 'Pause' }).waitFor();
      await ingestLogs(world, [{ _msg: 'tail one', service: 'tailsvc' }]);
      await results(page).getByRole('row').filter({ hasText: 'tail one' }).waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: 'Pause' }).click();
      await ingestLogs(world, [{ _msg: 'tail two', service: 'tailsvc' }]);
      await waitForRows(world, 'service:tailsvc', 2);
      await new Promise((r) => setTimeout(r, 2500)); // several tail polls while paused
      assert.equal(await results(page).getByRole('row').filter({ hasText: 'tail two' }).count(), 0, 'paused: held back');
      await page.getByRole('button', { name: 'Resume' }).click();
      await results(page).getByRole('row').filter({ hasText: 'tail two' }).waitFor({ timeout: 15_000 });
      await screenshot(page, 'explore-tail');
      await page.getByRole('button', { name: 'Live tail' }).click();
      await page.getByRole('button', { name: 'Run query' }).waitFor({ state: 'visible' });
      assert.equal(await page.getByRole('button', { name: 'Pause' }).count(), 0);
    } finally {
      await context.close();
    }
  });

  test('save search stores the query and the list loads it back', async () => {
    const { context, page } = await signedIn(world, member, `explore?query=${encodeURIComponent('level:warn')}&start=now-1h&end=now`);
    try {
      await page.getByRole('button', { name: 'Save search' }).click();
      await page.getByRole('form', { name: 'Save search' }).getByLabel('Name').fill('Warnings');
      await page.getByRole('form', { name: 'Save search' }).getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved “Warnings”' }).waitFor();
      await runQuery(page, '*');
      await page.waitForURL(/query=\*/);
      await page.getByLabel('Saved searches').selectOption({ label: 'Warnings' });
      await page.waitForURL(/query=level%3Awarn/);
    } finally {
      await context.close();
    }
  });

  test('dragging across the histogram zooms the time range into the URL', async () => {
    const { context, page } = await signedIn(world, member, 'explore?start=now-1h&end=now');
    try {
      const chart = page.getByRole('img', { name: 'Hits over time' });
      await chart.waitFor();
      const box = await chart.locator('.u-over').boundingBox();
      assert.ok(box);
      await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2, { steps: 8 });
      await page.mouse.up();
      await page.waitForURL(/start=\d{4}-/);
      const url = new URL(page.url());
      const span = Date.parse(url.searchParams.get('end') ?? '') - Date.parse(url.searchParams.get('start') ?? '');
      assert.ok(span > 15 * 60_000 && span < 35 * 60_000, `zoomed span ${span} ms`);
      assert.match(await page.getByRole('button', { name: 'Time range' }).innerText(), /→/);
    } finally {
      await context.close();
    }
  });

  test('10,000 rows: every one is in the list, only those in view are in the page', async () => {
    const bulk = Array.from({ length: 10_000 }, (_, i) => ({ _time: iso(now - 600_000 + i), _msg: `bulk line ${i}`, service: 'bulk' }));
    for (let i = 0; i < bulk.length; i += 2500) await ingestLogs(world, bulk.slice(i, i + 2500));
    await waitForRows(world, 'service:bulk', 10_000, 30_000);
    const { context, page } = await signedIn(world, member, `explore?query=${encodeURIComponent('service:bulk')}&start=now-1h&end=now&limit=10000`);
    try {
      const list = results(page).getByRole('table', { name: 'Log entries' });
      const end = Date.now() + 30_000;
      while ((await list.getAttribute('aria-rowcount')) !== '10000' && Date.now() < end) await page.waitForTimeout(200);
      assert.equal(await list.getAttribute('aria-rowcount'), '10000');
      assert.ok(await rowCount(page) < 200, 'virtualized');
      await list.hover();
      for (let i = 0; i < 20 && (await results(page).getByRole('row').filter({ hasText: 'bulk line 0' }).count()) === 0; i++) {
        await page.mouse.wheel(0, 400_000);
        await page.waitForTimeout(100);
      }
      await results(page).getByRole('row').filter({ hasText: 'bulk line 0' }).first().waitFor();
      assert.ok(await rowCount(page) < 200, 'still virtualized at the bottom');
    } finally {
      await context.close();
    }
  });

  test('a viewer sees no Save search; an aged-out session returns to sign-in keeping the URL (rule 10)', async () => {
    const viewer = await addUser(world, 'viewer');
    const { context, page } = await signedIn(world, viewer, `explore?query=${encodeURIComponent('service:cart')}&start=now-1h&end=now`);
    try {
      await results(page).getByRole('row').first().waitFor();
      assert.equal(await page.getByRole('button', { name: 'Save search' }).count(), 0);
      const before = page.url();
      // Service time moves past the idle age (12 h default); the next request is refused with 401 Token expired.
      const r = await admin(world.svc, 'PUT', '/admin/v1/clock', { now: iso(Date.now() + 13 * 3_600_000) });
      assert.equal(r.status, 200, r.text);
      await page.getByRole('button', { name: 'Run query' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      assert.equal(page.url(), before, 'the URL is kept');
      await screenshot(page, 'signin-after-expiry');
      await page.getByLabel('Email').fill(viewer.email);
      await page.getByLabel('Password').fill(viewer.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      assert.equal(page.url(), before);
    } finally {
      await context.close();
    }
  });
});
