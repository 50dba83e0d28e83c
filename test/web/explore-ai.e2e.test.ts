// The AI features in Explore, in a real Chromium against the real service (DESIGN §9; issue 10): a question in
// English becomes the query and range of the view with its explanation; Explain lists what sets the current entries
// apart (a bad version first), with its shares, and "Show entries" narrows the view to it; Deep analysis shows
// suspects and a timeline; each lists the queries it ran.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addUser, hasChromium, ingestLogs, screenshot, signedIn, startWorld, waitForRows, type AppUser, type AppWorld } from './support.js';

const skip = hasChromium() ? false : 'Chromium is not installed (/usr/bin/chromium)';
let world: AppWorld;
let member: AppUser;
const MIN = 60_000;
const now = Date.now();
const iso = (ms: number): string => new Date(ms).toISOString();

before(async () => {
  if (skip !== false) return;
  world = await startWorld();
  member = await addUser(world, 'member');
  const entries: Record<string, unknown>[] = [];
  // Two quiet half hours, then a bad version's errors in the last 20 minutes.
  for (let i = 0; i < 1200; i++) {
    const t = now - 60 * MIN + Math.floor((i * 60 * MIN) / 1200);
    entries.push({
      _time: iso(t), service: ['checkout', 'cart', 'search'][i % 3], pod: `pod-${i % 4}`, version: '3.1.0',
      level: i % 40 === 0 ? 'error' : 'info', _msg: i % 40 === 0 ? `cache miss storm on shard ${i % 7}` : `request ${i} served`,
    });
  }
  for (let i = 0; i < 150; i++) {
    entries.push({
      _time: iso(now - 20 * MIN + i * 7000), service: 'checkout', pod: 'pod-9', version: '3.2.0-rc1', level: 'error',
      _msg: `card authorization declined by upstream after ${200 + i} ms`,
    });
  }
  await ingestLogs(world, entries);
  await waitForRows(world, '*', entries.length, 20_000);
});
after(async () => {
  if (skip === false) await world.stop();
});

describe('Explore with AI', { skip }, () => {
  test('Ask: an English question sets the query and range, and says how it read the words', async () => {
    const { context, page } = await signedIn(world, member, 'explore?start=now-1h&end=now');
    try {
      await page.getByRole('searchbox', { name: 'Question' }).fill('errors from checkout in the last 30 minutes');
      await page.getByRole('button', { name: 'Ask' }).click();
      await page.waitForURL(/query=.*checkout/);
      const url = new URL(page.url());
      assert.match(url.searchParams.get('query') ?? '', /service:"?checkout"?/);
      assert.match(url.searchParams.get('query') ?? '', /(level|severity):"?error"?/);
      const status = page.getByRole('form', { name: 'Ask in English' }).getByRole('status');
      assert.match(await status.innerText(), /checkout/);
      assert.match(await status.innerText(), /AI credit/);
      await screenshot(page, 'explore-ask');
    } finally {
      await context.close();
    }
  });

  test('Explain: the bad version ranks first with its shares; Show entries narrows the view to it', async () => {
    const { context, page } = await signedIn(world, member, `explore?query=${encodeURIComponent('level:error')}&start=${iso(now - 30 * MIN)}&end=${iso(now)}`);
    try {
      await page.getByRole('button', { name: 'Explain' }).click();
      const drawer = page.getByRole('dialog', { name: 'Root-cause hypotheses' });
      const list = drawer.getByRole('list', { name: 'Hypotheses' });
      await list.getByRole('listitem').first().waitFor({ timeout: 20_000 });
      const first = await list.getByRole('listitem').first().innerText();
      assert.match(first, /3\.2\.0-rc1/, first);
      assert.match(first, /of the window vs 0(\.0)?% before/);
      await drawer.getByText(/Queries this analysis ran/).click();
      await screenshot(page, 'explore-explain');
      await list.getByRole('listitem').first().getByRole('button', { name: /^Show entries/ }).click();
      await page.waitForURL(/3\.2\.0-rc1/);
      // The view narrows from the 165 errors of the window to the 150 of the new version.
      const rows = page.getByRole('region', { name: 'Results' }).getByRole('row');
      const end = Date.now() + 15_000;
      while ((await rows.count()) !== 150 && Date.now() < end) await page.waitForTimeout(100);
      assert.equal(await rows.count(), 150);
    } finally {
      await context.close();
    }
  });

  test('Deep analysis: suspects and a timeline for the range', async () => {
    const { context, page } = await signedIn(world, member, `explore?start=${iso(now - 30 * MIN)}&end=${iso(now)}`);
    try {
      await page.getByRole('button', { name: 'Deep analysis' }).click();
      const drawer = page.getByRole('dialog', { name: 'Deep analysis' });
      await drawer.getByRole('heading', { name: 'Timeline' }).waitFor({ timeout: 30_000 });
      assert.match(await drawer.innerText(), /10 AI credits/);
      const suspects = drawer.getByRole('list', { name: 'Suspects' });
      assert.match(await suspects.getByRole('listitem').first().innerText(), /checkout/);
      await screenshot(page, 'explore-deep');
    } finally {
      await context.close();
    }
  });
});
