// Dashboards end to end in a real Chromium (issue 8 item 6; DESIGN §7 Dashboards): logs through /api/v1/ingest
// and metrics through the InfluxDB line protocol, then in the app a member builds a dashboard (a PromQL panel,
// a LogsQL hits panel, a LogsQL stats panel as bars) in the panel editor with its preview, arranges it by
// keyboard, saves (PUT), reloads to the same panels, renames it, exports the JSON, imports it back (after the
// import shows what is wrong with bad JSON) and deletes the copy. A viewer sees the panels and Export but no
// write control; an account at its plan's dashboard ceiling sees the API's words. Screenshots of each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { call, newAccount } from '../support/service.js';
import { addUser, hasChromium, ingestLogs, screenshot, signedIn, startWorld, waitForRows, type AppUser, type AppWorld } from './support.js';

const skip = hasChromium() ? false : 'Chromium is not installed (/usr/bin/chromium)';
let world: AppWorld;
let member: AppUser;
const now = Date.now();
const levels: string[] = [];
/** The dashboard the member builds (its id once created). */
let built = '';

before(async () => {
  if (skip !== false) return;
  world = await startWorld();
  member = await addUser(world, 'member');
  const entries: Record<string, unknown>[] = [];
  for (let i = 0; i < 60; i++) {
    const level = i % 10 === 0 ? 'error' : i % 7 === 0 ? 'warn' : 'info';
    levels.push(level);
    entries.push({ _time: new Date(now - (60 - i) * 30_000).toISOString(), _msg: `request ${i} ${level}`, service: 'checkout', level });
  }
  await ingestLogs(world, entries);
  await waitForRows(world, '*', 60);
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    const t = now - (40 - i) * 60_000;
    lines.push(`web,host=a requests=${i * 2} ${t}`, `web,host=b requests=${300 - i} ${t}`);
  }
  const r = await call(`${world.svc.app}/api/v2/write?org=o&bucket=shop&precision=ms`, {
    method: 'POST', headers: { Authorization: `Token ${world.account.key}`, 'Content-Type': 'text/plain; charset=utf-8' }, body: lines.join('\n'),
  });
  assert.equal(r.status, 204, r.text);
  const end = Date.now() + 10_000;
  while (!(await api('GET', 'prometheus/api/v1/query?query=count(web_requests)')).text.includes('"2"')) {
    if (Date.now() > end) throw new Error('metrics not queryable');
    await new Promise((res) => setTimeout(res, 100));
  }
});
after(async () => {
  if (skip === false) await world.stop();
});

/** The tenant API with an account key. */
function api(method: string, path: string, body?: unknown, key = world.account.key, tenant = world.account.tenantId) {
  return call(`${world.svc.app}/api/v1/tenants/${tenant}/${path}`, {
    method, headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function useTheme(page: Page, mode: 'dark' | 'light'): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Toggle theme' });
  if (!(await toggle.innerText()).toLowerCase().includes(mode)) await toggle.click();
  await page.waitForFunction(`document.documentElement.dataset.theme === '${mode}'`);
}

interface PanelInput { title: string; type: 'LogsQL hits' | 'LogsQL stats' | 'PromQL'; query: string; display?: 'Table' | 'Bars' }

/** Fills the open panel editor drawer and previews the panel. */
async function fillPanel(page: Page, p: PanelInput): Promise<void> {
  const drawer = page.getByRole('dialog', { name: 'Add panel' });
  await drawer.getByLabel('Panel title').fill(p.title);
  await drawer.getByLabel('Panel type').selectOption({ label: p.type });
  await drawer.getByRole('textbox', { name: 'Panel query' }).click();
  await page.keyboard.type(p.query);
  await drawer.getByLabel('Panel title').click(); // leaves the editor, closing any completion list
  if (p.display) await drawer.getByLabel('Display').selectOption({ label: p.display });
  await drawer.getByRole('button', { name: 'Preview' }).click();
}

const gridColumn = (page: Page, title: string) => page.getByRole('region', { name: title }).evaluate((el) => (el as unknown as { style: { gridColumn: string } }).style.gridColumn);
const gridRow = (page: Page, title: string) => page.getByRole('region', { name: title }).evaluate((el) => (el as unknown as { style: { gridRow: string } }).style.gridRow);

const count = (level: string): number => levels.filter((l) => l === level).length;

describe('Dashboards', { skip, timeout: 300_000 }, () => {
  test('build a dashboard of PromQL, hits and stats panels, arrange it by keyboard, save, reload, rename', async () => {
    const { context, page } = await signedIn(world, member, 'dashboards?start=now-1h&end=now');
    try {
      await useTheme(page, 'dark');
      await page.getByText('No dashboards in this project yet.').waitFor();
      await page.getByRole('button', { name: 'New dashboard' }).click();
      await page.getByRole('form', { name: 'New dashboard' }).getByLabel('Dashboard title').fill('Checkout health');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.waitForURL(/dashboards\?id=/);
      built = new URL(page.url()).searchParams.get('id') ?? '';
      assert.match(page.url(), /start=now-1h/, 'the range carries into the dashboard');

      // A PromQL panel, seen in the editor's preview before it is added.
      await page.getByRole('button', { name: 'Add panel' }).click();
      await fillPanel(page, { title: 'Request rate', type: 'PromQL', query: 'web_requests' });
      const drawer = page.getByRole('dialog', { name: 'Add panel' });
      await drawer.getByRole('list', { name: 'Request rate legend' }).getByRole('listitem').nth(1).waitFor();
      await screenshot(page, 'dashboard-panel-editor-dark');
      await drawer.getByRole('button', { name: 'Add to dashboard' }).click();
      await page.getByRole('region', { name: 'Request rate' }).waitFor();

      await page.getByRole('button', { name: 'Add panel' }).click();
      await fillPanel(page, { title: 'Errors', type: 'LogsQL hits', query: 'level:error' });
      await drawer.getByText(`${count('error')} hits`).waitFor();
      await drawer.getByRole('button', { name: 'Add to dashboard' }).click();

      await page.getByRole('button', { name: 'Add panel' }).click();
      await fillPanel(page, { title: 'By level', type: 'LogsQL stats', query: '* | stats by (level) count() as entries', display: 'Bars' });
      await drawer.getByRole('table', { name: 'By level bars' }).waitFor();
      await drawer.getByRole('button', { name: 'Add to dashboard' }).click();

      // Placed in reading order: Request rate | Errors, then By level below.
      assert.equal(await gridColumn(page, 'Request rate'), '1 / span 6');
      assert.equal(await gridColumn(page, 'Errors'), '7 / span 6');
      assert.equal(await gridRow(page, 'By level'), '5 / span 4');
      // Arranged by keyboard: Errors trades places with Request rate, then By level moves above Errors.
      assert.equal(await page.getByRole('button', { name: 'Move Errors right' }).isDisabled(), true, 'nothing to the right');
      await page.getByRole('button', { name: 'Move Errors left' }).focus();
      await page.keyboard.press('Enter');
      assert.equal(await gridColumn(page, 'Errors'), '1 / span 6');
      assert.equal(await gridColumn(page, 'Request rate'), '7 / span 6');
      await page.getByRole('button', { name: 'Move By level up' }).click();
      assert.equal(await gridRow(page, 'By level'), '1 / span 4');
      assert.equal(await gridRow(page, 'Errors'), '5 / span 4');
      await page.getByRole('button', { name: 'Make Request rate taller' }).click();
      assert.equal(await gridRow(page, 'Request rate'), '1 / span 5');
      await page.getByRole('button', { name: 'Save dashboard' }).click();
      await page.getByRole('button', { name: 'Edit dashboard' }).waitFor();

      // Saved through PUT: the API holds the panels in the app's schema.
      const stored = (await api('GET', `dashboards/${built}`)).json as { dashboard: { title: string; panels: Record<string, unknown>[] } };
      assert.equal(stored.dashboard.title, 'Checkout health');
      assert.deepEqual(stored.dashboard.panels.map((p) => [p.title, p.type, p.query, p.x, p.y, p.w, p.h, p.version]), [
        ['By level', 'logs_stats', '* | stats by (level) count() as entries', 0, 0, 6, 4, 1],
        ['Request rate', 'promql', 'web_requests', 6, 0, 6, 5, 1],
        ['Errors', 'logs_hits', 'level:error', 0, 4, 6, 4, 1],
      ]);

      // A reload shows the same dashboard, every panel drawn from real data.
      await page.reload();
      await page.getByRole('heading', { name: 'Checkout health' }).waitFor();
      await page.getByRole('region', { name: 'Errors' }).getByText(`${count('error')} hits`).waitFor();
      await page.getByRole('list', { name: 'Request rate legend' }).getByRole('listitem').nth(1).waitFor();
      const bars = page.getByRole('table', { name: 'By level bars' });
      await bars.getByRole('row').nth(2).waitFor();
      const rows = (await bars.getByRole('row').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()).filter((c) => c !== ''));
      assert.deepEqual(rows.sort(), ['error', 'info', 'warn'].map((l) => [l, String(count(l))]));
      await page.waitForLoadState('networkidle');
      await screenshot(page, 'dashboard-panels-dark');
      await useTheme(page, 'light');
      await screenshot(page, 'dashboard-panels-light');

      // Rename in place.
      await page.getByRole('button', { name: 'Edit dashboard' }).click();
      await page.getByLabel('Dashboard title').fill('Checkout health v2');
      await page.getByRole('button', { name: 'Edit Errors' }).click();
      await page.getByRole('dialog', { name: 'Edit panel Errors' }).getByRole('img', { name: 'Errors hits over time' }).waitFor();
      await screenshot(page, 'dashboard-panel-editor-light');
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Save dashboard' }).click();
      await page.getByRole('heading', { name: 'Checkout health v2' }).waitFor();
      assert.equal(((await api('GET', `dashboards/${built}`)).json as { dashboard: { title: string } }).dashboard.title, 'Checkout health v2');
    } finally {
      await context.close();
    }
  });

  test('export downloads the JSON; import shows what is wrong, then imports the file; delete', async () => {
    assert.notEqual(built, '', 'the first test built a dashboard');
    const { context, page } = await signedIn(world, member, `dashboards?id=${built}`);
    try {
      await useTheme(page, 'dark');
      await page.getByRole('heading', { name: 'Checkout health v2' }).waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
      assert.equal(download.suggestedFilename(), 'checkout-health-v2.json');
      const file = await download.path();
      const exported = JSON.parse(readFileSync(file, 'utf8')) as { version: number; title: string; panels: unknown[] };
      const stored = (await api('GET', `dashboards/${built}`)).json as { dashboard: { panels: unknown[] } };
      assert.deepEqual(exported, { version: 1, title: 'Checkout health v2', panels: stored.dashboard.panels });

      await page.getByRole('link', { name: '← Dashboards' }).click();
      await page.getByRole('button', { name: 'Import dashboard' }).click();
      const drawer = page.getByRole('dialog', { name: 'Import dashboard' });
      const json = drawer.getByLabel('Dashboard JSON');
      await json.fill('{"title": "Broken"');
      await drawer.getByRole('alert').filter({ hasText: 'Not JSON' }).waitFor();
      await json.fill(JSON.stringify({ version: 1, title: 'Bad', panels: [{ version: 1, id: 'a', title: 'Pie', type: 'pie', query: '*', x: 0, y: 0, w: 20, h: 4 }] }));
      const problems = drawer.getByRole('alert');
      await problems.getByText('panels[0].type must be one of logs_hits, logs_stats, promql').waitFor();
      await problems.getByText('panels[0].w must be a whole number from 2 to 12').waitFor();
      assert.equal(await problems.getByRole('listitem').count(), 2, 'x is not blamed for w');
      assert.equal(await drawer.getByRole('button', { name: 'Import' }).isDisabled(), true);
      await screenshot(page, 'dashboard-import-problems');

      await drawer.getByLabel('JSON file').setInputFiles(file);
      await drawer.getByRole('status').filter({ hasText: 'Ready: “Checkout health v2” with 3 panels.' }).waitFor();
      await drawer.getByRole('button', { name: 'Import' }).click();
      await page.waitForURL((u) => u.searchParams.has('id') && u.searchParams.get('id') !== built);
      const copy = new URL(page.url()).searchParams.get('id') ?? '';
      await page.getByRole('region', { name: 'Errors' }).getByText(/\d+ hits/).waitFor();
      const copied = (await api('GET', `dashboards/${copy}`)).json as { dashboard: { panels: unknown[] } };
      assert.deepEqual(copied.dashboard.panels, stored.dashboard.panels);

      await page.getByRole('link', { name: '← Dashboards' }).click();
      const list = page.getByRole('table', { name: 'Dashboards' });
      await list.getByRole('row').nth(2).waitFor();
      assert.deepEqual((await list.getByRole('link').allInnerTexts()).sort(), ['Checkout health v2', 'Checkout health v2']);
      await screenshot(page, 'dashboards-list-dark');

      await page.goto(`${world.svc.app}/app/dashboards?id=${copy}`);
      await page.getByRole('button', { name: 'Delete dashboard' }).click();
      await page.getByRole('dialog', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
      await page.waitForURL((u) => !u.searchParams.has('id'));
      await list.getByRole('row').nth(1).waitFor();
      assert.equal(await list.getByRole('row').count(), 2, 'header and the one left');
      assert.equal((await api('GET', `dashboards/${copy}`)).status, 404);
    } finally {
      await context.close();
    }
  });

  test('a viewer sees the panels and Export, and no control that writes', async () => {
    const viewer = await addUser(world, 'viewer');
    const { context, page } = await signedIn(world, viewer, 'dashboards');
    try {
      await page.getByRole('table', { name: 'Dashboards' }).getByRole('link', { name: 'Checkout health v2' }).click();
      await page.getByRole('region', { name: 'Errors' }).getByText(/\d+ hits/).waitFor();
      await page.getByRole('button', { name: 'Export' }).waitFor();
      for (const name of ['Edit dashboard', 'Delete dashboard', 'Add panel', 'Save dashboard']) {
        assert.equal(await page.getByRole('button', { name }).count(), 0, name);
      }
      assert.equal(await page.getByRole('group', { name: /^Arrange / }).count(), 0);
      await screenshot(page, 'dashboard-viewer');
      await page.getByRole('link', { name: '← Dashboards' }).click();
      await page.getByRole('table', { name: 'Dashboards' }).waitFor();
      for (const name of ['New dashboard', 'Import dashboard']) assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    } finally {
      await context.close();
    }
  });

  test('at the plan\'s dashboard ceiling, New dashboard shows the API\'s words', async () => {
    const capped = await newAccount(world.svc, { tier: 'trial_expired' });
    let detail = '';
    for (let i = 0; detail === ''; i++) {
      const r = await api('POST', 'dashboards', { title: `d${i}`, panels: [] }, capped.key, capped.tenantId);
      if (r.status === 403) detail = (r.json as { detail: string }).detail;
      else assert.equal(r.status, 201, r.text);
      assert.ok(i < 200, 'a ceiling is reached');
    }
    assert.match(detail, /limit reached \(\d+\)/);
    const owner = await addUser({ ...world, account: capped }, 'member');
    const { context, page } = await signedIn(world, owner, 'dashboards');
    try {
      await page.getByRole('table', { name: 'Dashboards' }).waitFor();
      await page.getByRole('button', { name: 'New dashboard' }).click();
      await page.getByRole('form', { name: 'New dashboard' }).getByLabel('Dashboard title').fill('one too many');
      await page.getByRole('button', { name: 'Create' }).click();
      const alert = page.getByRole('alert').filter({ hasText: detail });
      await alert.waitFor();
      assert.equal((await alert.innerText()).replace('×', '').replace(/\s+/g, ' ').trim(), `403 ${detail}`);
    } finally {
      await context.close();
    }
  });
});
