// Metrics end to end in a real Chromium (issue 8 item 5; DESIGN §7 Metrics): series written with the InfluxDB
// line protocol on the app door, then in the app: the tenant's metric names, completion of a metric name in the
// PromQL editor (its requests go through the session), the graph of query_range with a legend that isolates a
// series, the instant table with the stored values, the URL holding expr/range/tab across a reload, and a bad
// expression shown with the API's own error text. Screenshots of the graph (dark) and the table (light).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { call } from '../support/service.js';
import { addUser, hasChromium, screenshot, signedIn, startWorld, type AppUser, type AppWorld } from './support.js';

const skip = hasChromium() ? false : 'Chromium is not installed (/usr/bin/chromium)';
let world: AppWorld;
let member: AppUser;
const BUCKET = 'shop';
const now = Date.now();

/** The tenant's Prometheus API with the account key (what the page should agree with). */
async function prom(path: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await call(`${world.svc.app}/api/v1/tenants/${world.account.tenantId}/prometheus/api/v1/${path}`, { headers: { 'X-API-Key': world.account.key } });
  return { status: r.status, json: JSON.parse(r.text) as Record<string, unknown> };
}

before(async () => {
  if (skip !== false) return;
  world = await startWorld();
  member = await addUser(world, 'member');
  // 50 points a minute apart per host, the last a minute ago: host a counts up by 2, host b down by 3.
  const lines: string[] = [];
  for (let i = 0; i < 50; i++) {
    const t = now - (50 - i) * 60_000;
    lines.push(`web,host=a requests=${i * 2},latency=${(0.1 + i / 100).toFixed(2)} ${t}`);
    lines.push(`web,host=b requests=${500 - i * 3},latency=0.5 ${t}`);
  }
  const r = await call(`${world.svc.app}/api/v2/write?org=o&bucket=${BUCKET}&precision=ms`, {
    method: 'POST', headers: { Authorization: `Token ${world.account.key}`, 'Content-Type': 'text/plain; charset=utf-8' }, body: lines.join('\n'),
  });
  assert.equal(r.status, 204, r.text);
  const end = Date.now() + 10_000;
  for (;;) {
    const { json } = await prom('query?query=count(web_requests)');
    const result = (json.data as { result: { value: [number, string] }[] } | undefined)?.result ?? [];
    if (result[0]?.value[1] === '2') break;
    if (Date.now() > end) throw new Error(`series not queryable: ${JSON.stringify(json)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
});
after(async () => {
  if (skip === false) await world.stop();
});

/** Puts the app in `mode` (the toggle names the current theme). */
async function useTheme(page: Page, mode: 'dark' | 'light'): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Toggle theme' });
  if (!(await toggle.innerText()).toLowerCase().includes(mode)) await toggle.click();
  await page.waitForFunction(`document.documentElement.dataset.theme === '${mode}'`);
}

const editor = (page: Page) => page.getByRole('textbox', { name: 'Query' });

async function runQuery(page: Page, expr: string): Promise<void> {
  await editor(page).click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(expr);
  await page.keyboard.press('Escape'); // close completion so Enter runs
  await page.keyboard.press('Enter');
}

describe('Metrics', { skip, timeout: 240_000 }, () => {
  test('metric names, completion of a name, graph with an isolating legend, instant table, URL state', async () => {
    const { context, page } = await signedIn(world, member, 'metrics?start=now-1h&end=now');
    // Every Prometheus API request of the page (its own and the completion's) goes same-origin with the header.
    const promRequests: { url: string; header: string | undefined }[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/prometheus/api/v1/')) promRequests.push({ url: r.url(), header: r.headers()['x-requested-with'] });
    });
    try {
      await useTheme(page, 'dark');
      // With no expression: the tenant's metric names, one click from a graph.
      const names = page.getByRole('list', { name: 'Metric names' });
      await names.getByRole('button', { name: 'web_requests' }).waitFor();
      assert.deepEqual((await names.getByRole('button').allInnerTexts()).sort(), ['web_latency', 'web_requests']);
      await screenshot(page, 'metrics-names-dark');

      // Completion offers the metric name from the tenant's series (codemirror-promql → the Prometheus API).
      await editor(page).click();
      await page.keyboard.type('web_req');
      const option = page.getByRole('option', { name: /web_requests/ });
      await option.waitFor();
      assert.equal(await page.getByRole('option', { name: /web_latency/ }).count(), 0, 'only names matching what is typed');
      await page.waitForTimeout(150); // CodeMirror ignores an Enter within 75 ms of the list opening (interactionDelay)
      await page.keyboard.press('Enter'); // picks the completion
      assert.equal((await editor(page).innerText()).trim(), 'web_requests');
      await page.keyboard.press('Enter'); // runs
      await page.waitForURL(/expr=web_requests/);
      const completion = promRequests.filter((r) => !/\/(query|query_range)\?/.test(r.url));
      // The picker reads label/__name__/values; only the editor's completion reads metadata.
      assert.ok(completion.some((r) => r.url.includes('/prometheus/api/v1/metadata')), JSON.stringify(promRequests));
      for (const r of promRequests) {
        assert.ok(r.url.startsWith(`${world.svc.app}/api/v1/tenants/${world.account.tenantId}/prometheus/api/v1/`), r.url);
        assert.equal(r.header, 'sightline', r.url);
      }

      // The graph: two series, each in the legend with its labels and last value.
      const status = page.getByRole('status').filter({ hasText: /series · step/ });
      await status.waitFor();
      assert.match(await status.innerText(), /^2 series · step 15s/);
      await page.getByRole('img', { name: 'Graph' }).waitFor();
      const legend = page.getByRole('list', { name: 'Graph legend' });
      const a = legend.getByRole('button', { name: `web_requests{db="${BUCKET}", host="a"}` });
      const b = legend.getByRole('button', { name: `web_requests{db="${BUCKET}", host="b"}` });
      await a.waitFor();
      assert.equal(await legend.getByRole('listitem').count(), 2);
      assert.match(await legend.getByRole('listitem').nth(0).innerText(), /\b98$/, 'host a\'s last value');
      assert.match(await legend.getByRole('listitem').nth(1).innerText(), /\b353$/, 'host b\'s last value');
      await screenshot(page, 'metrics-graph-dark');
      // Click isolates a series; clicking it again shows them all.
      await a.click();
      assert.equal(await a.getAttribute('aria-pressed'), 'true');
      assert.equal(await b.getAttribute('aria-pressed'), 'false');
      assert.match(await legend.getByRole('listitem').nth(1).getAttribute('class') ?? '', /dim/);
      await screenshot(page, 'metrics-graph-isolated');
      await a.click();
      assert.equal(await a.getAttribute('aria-pressed'), 'false');
      assert.equal(await legend.getByRole('listitem').nth(1).getAttribute('class'), '');

      // The table: the instant query's labels and the values last written.
      await page.getByRole('tab', { name: 'Table' }).click();
      await page.waitForURL(/tab=table/);
      const table = page.getByRole('table', { name: 'Instant values' });
      await table.waitFor();
      assert.deepEqual(await table.getByRole('columnheader').allInnerTexts(), ['__name__', 'db', 'host', 'Value']);
      const rows = (await table.getByRole('row').allInnerTexts()).slice(1).map((r) => r.split('\t').map((c) => c.trim()));
      assert.deepEqual(rows, [['web_requests', BUCKET, 'a', '98'], ['web_requests', BUCKET, 'b', '353']]);

      // The URL holds the expression, the range and the tab.
      await page.reload();
      await page.getByRole('table', { name: 'Instant values' }).waitFor();
      assert.equal((await editor(page).innerText()).trim(), 'web_requests');
      assert.equal(await page.getByRole('tab', { name: 'Table' }).getAttribute('aria-selected'), 'true');
      assert.match(await page.getByRole('button', { name: 'Time range' }).innerText(), /Last 1 hour/);

      // An aggregation in the light theme.
      await runQuery(page, 'sum by (db) (web_requests)');
      await page.waitForURL(/expr=sum/);
      await page.getByRole('table', { name: 'Instant values' }).getByRole('cell', { name: '451' }).waitFor();
      await useTheme(page, 'light');
      await runQuery(page, 'web_requests');
      await page.getByRole('table', { name: 'Instant values' }).getByRole('cell', { name: '353' }).waitFor();
      await screenshot(page, 'metrics-table-light');
      await page.getByRole('tab', { name: 'Graph' }).click();
      await page.getByRole('list', { name: 'Graph legend' }).getByRole('listitem').nth(1).waitFor();
      await screenshot(page, 'metrics-graph-light');
    } finally {
      await context.close();
    }
  });

  test('a bad expression shows the API\'s error text; a range vector has no graph but a table', async () => {
    const bad = 'rate(web_requests)';
    const api = await prom(`query?query=${encodeURIComponent(bad)}`);
    assert.equal(api.status, 400);
    const apiText = String(api.json.error);
    assert.match(apiText, /expected type range vector/);
    const { context, page } = await signedIn(world, member, 'metrics?start=now-1h&end=now');
    try {
      await runQuery(page, bad);
      const alert = page.getByRole('alert').filter({ hasText: apiText });
      await alert.waitFor();
      assert.equal((await alert.innerText()).replace(/\s+/g, ' ').trim(), `400 ${apiText}`);
      await page.getByRole('tab', { name: 'Table' }).click();
      await page.getByRole('alert').filter({ hasText: apiText }).waitFor();
      await screenshot(page, 'metrics-error');

      // `x[5m]` is a range vector: query_range refuses it (the API's words), the instant table lists its samples.
      await runQuery(page, 'web_requests{host="a"}[3m]');
      const table = page.getByRole('table', { name: 'Instant values' });
      await table.waitFor();
      assert.match(await table.innerText(), /98 @ /);
      await page.getByRole('tab', { name: 'Graph' }).click();
      await page.getByRole('alert').filter({ hasText: /range vector/ }).waitFor();
    } finally {
      await context.close();
    }
  });
});
