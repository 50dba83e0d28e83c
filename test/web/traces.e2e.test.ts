// Traces end to end in a real Chromium (issue 8 item 4; DESIGN §7 Traces): spans sent over OTLP/HTTP JSON to the
// ingest door, then in the app: search by service, span name and minimum duration, the results table, one trace
// as a waterfall (nesting, shared time axis, errors, folding), a span's attributes, resource and events in the
// side panel, the span → logs link into Explore and Explore's `View trace` back, and a 404 shown with its detail.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { call, eventually } from '../support/service.js';
import { addUser, hasChromium, screenshot, signedIn, startWorld, waitForRows, type AppUser, type AppWorld, postIngest } from './support.js';

const skip = hasChromium() ? false : 'Chromium is not installed (/usr/bin/chromium)';
let world: AppWorld;
let member: AppUser;

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const checkoutTrace = hex(16);
const healthTrace = hex(16);
const searchTrace = hex(16);
const ids = { root: hex(8), cart: hex(8), db: hex(8), pay: hex(8) };
const t0 = BigInt(Date.now() - 120_000) * 1_000_000n;
const MS = 1_000_000n;

type Attr = { key: string; value: { stringValue: string } | { intValue: number } };
const attrs = (o: Record<string, string | number>): Attr[] =>
  Object.entries(o).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: v } : { stringValue: v } }));

interface SpanIn { traceId: string; spanId: string; parent?: string; name: string; at: bigint; ms: bigint; kind?: number; error?: string; attributes?: Record<string, string | number>; events?: unknown[] }

const span = (s: SpanIn) => ({
  traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parent ?? '', name: s.name, kind: s.kind ?? 1,
  startTimeUnixNano: String(t0 + s.at * MS), endTimeUnixNano: String(t0 + (s.at + s.ms) * MS),
  attributes: attrs(s.attributes ?? {}), events: s.events ?? [],
  status: s.error === undefined ? { code: 0 } : { code: 2, message: s.error },
});
const resource = (service: string, spans: ReturnType<typeof span>[]) => ({
  resource: { attributes: attrs({ 'service.name': service, 'deployment.environment': 'e2e' }) },
  scopeSpans: [{ scope: { name: 'e2e' }, spans }],
});

const post = (path: string, body: unknown): Promise<void> => postIngest(world, path, body);

before(async () => {
  if (skip !== false) return;
  world = await startWorld();
  member = await addUser(world, 'member');
  // checkout → cart → postgres, and checkout → payments (an error with an exception event); a fast health check;
  // a search request from another service.
  await post('/v1/traces', {
    resourceSpans: [
      resource('checkout', [
        span({ traceId: checkoutTrace, spanId: ids.root, name: 'POST /checkout', at: 0n, ms: 240n, kind: 2, attributes: { 'http.method': 'POST', 'http.route': '/checkout' } }),
        span({ traceId: healthTrace, spanId: hex(8), name: 'GET /health', at: 1000n, ms: 3n, kind: 2 }),
      ]),
      resource('cart', [span({ traceId: checkoutTrace, spanId: ids.cart, parent: ids.root, name: 'cart.load', at: 10n, ms: 40n })]),
      resource('postgres', [span({ traceId: checkoutTrace, spanId: ids.db, parent: ids.cart, name: 'SELECT cart_items', at: 15n, ms: 25n, kind: 3, attributes: { 'db.system': 'postgresql' } })]),
      resource('payments', [span({
        traceId: checkoutTrace, spanId: ids.pay, parent: ids.root, name: 'payment.charge', at: 60n, ms: 150n, kind: 3, error: 'card declined',
        attributes: { 'payment.provider': 'stripe-test', 'payment.amount_cents': 4200 },
        events: [{ timeUnixNano: String(t0 + 200n * MS), name: 'exception', attributes: attrs({ 'exception.type': 'CardError', 'exception.message': 'card declined' }) }],
      })]),
      resource('search', [span({ traceId: searchTrace, spanId: hex(8), name: 'GET /search', at: 2000n, ms: 80n, kind: 2 })]),
    ],
  });
  // Logs of the trace over OTLP, tied to their spans by trace and span id.
  const log = (spanId: string, at: bigint, body: string, severityText: string) => ({
    timeUnixNano: String(t0 + at * MS), severityText, body: { stringValue: body }, traceId: checkoutTrace, spanId,
  });
  await post('/v1/logs', {
    resourceLogs: [
      { resource: { attributes: attrs({ 'service.name': 'checkout' }) }, scopeLogs: [{ logRecords: [log(ids.root, 1n, 'checkout started', 'INFO')] }] },
      { resource: { attributes: attrs({ 'service.name': 'payments' }) }, scopeLogs: [{ logRecords: [log(ids.pay, 190n, 'charging card ending 4242 declined', 'ERROR')] }] },
    ],
  });
  const stored = await eventually(async () => {
    const r = await call(`${world.svc.app}/api/v1/tenants/${world.account.tenantId}/traces?limit=10`, { headers: { 'X-API-Key': world.account.key } });
    return (r.json as { traces?: unknown[] } | undefined)?.traces?.length === 3;
  }, 10_000);
  assert.ok(stored, 'three traces are stored');
  await waitForRows(world, `trace_id:${checkoutTrace}`, 2);
});
after(async () => {
  if (skip === false) await world.stop();
});

const resultRows = (page: Page) => page.getByRole('table', { name: 'Traces' }).getByRole('row');
const waterfallRows = (page: Page) => page.getByRole('treegrid', { name: 'Waterfall' }).locator('[role=row][aria-level]');

const theme = (page: Page): Promise<string> => page.evaluate<string>('document.documentElement.dataset.theme ?? ""');

/** The waterfall's rows: tree level, text (without the fold glyph) and the bar's left offset on the time axis. */
async function readWaterfall(page: Page): Promise<{ level: string | null; text: string; left: string }[]> {
  const out = [];
  for (const row of await waterfallRows(page).all()) {
    const style = (await row.locator('.wf-bar').getAttribute('style')) ?? '';
    out.push({
      level: await row.getAttribute('aria-level'),
      text: (await row.innerText()).replace(/[▾▸]/g, '').replace(/\s+/g, ' ').trim(),
      left: /left:\s*([\d.]+)%/.exec(style)?.[1] ?? '',
    });
  }
  return out;
}

/** Waits until the results table holds `n` traces (its header row aside). */
async function tracesBecome(page: Page, n: number): Promise<string[]> {
  const end = Date.now() + 15_000;
  for (;;) {
    const busy = await page.getByRole('status').filter({ hasText: 'Searching' }).count();
    const rows = Math.max(0, (await resultRows(page).count()) - 1);
    if (busy === 0 && rows === n) return (await resultRows(page).allInnerTexts()).slice(1);
    if (Date.now() > end) assert.fail(`expected ${n} traces, the table holds ${rows}`);
    await page.waitForTimeout(100);
  }
}

async function search(page: Page, fields: { service?: string; name?: string; min?: string }): Promise<void> {
  await page.getByLabel('Service', { exact: true }).fill(fields.service ?? '');
  await page.getByLabel('Span name').fill(fields.name ?? '');
  await page.getByLabel('Min duration (ms)').fill(fields.min ?? '');
  await page.getByRole('button', { name: 'Search' }).click();
}

describe('Traces', { skip }, () => {
  test('search by service, minimum duration and span name; the URL holds the search', async () => {
    const { context, page } = await signedIn(world, member, 'traces?start=now-1h&end=now');
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      const all = await tracesBecome(page, 3);
      assert.ok(all[0]?.includes('GET /search') && all[2]?.includes('POST /checkout'), `newest first:\n${all.join('\n')}`);
      await screenshot(page, 'traces-search');

      await search(page, { service: 'checkout', min: '100' });
      await page.waitForURL(/service=checkout.*min_ms=100|min_ms=100.*service=checkout/);
      const slow = await tracesBecome(page, 1);
      assert.match(slow[0] ?? '', /checkout\s+POST \/checkout\s+240\.0 ms\s+4\s+1/);

      // A filter holds when one span of the trace passes it: payments' 150 ms span finds the checkout trace.
      await search(page, { service: 'payments', min: '100' });
      assert.match((await tracesBecome(page, 1))[0] ?? '', /POST \/checkout/);
      await search(page, { service: 'payments', min: '200' });
      await tracesBecome(page, 0);
      await page.getByText('No traces match in this range').waitFor();

      await search(page, { name: 'GET /search' });
      assert.match((await tracesBecome(page, 1))[0] ?? '', /search\s+GET \/search\s+80\.0 ms/);
      await page.reload();
      await tracesBecome(page, 1);
      assert.equal(await page.getByLabel('Span name').inputValue(), 'GET /search');

      // The input takes numbers only; a hand-made URL gets the API's own 400 detail.
      await page.goto(`${world.svc.app}/app/traces?min_ms=fast`);
      await page.getByRole('alert').filter({ hasText: 'min_duration_ms must be a number' }).waitFor();
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the app');
    } finally {
      await context.close();
    }
  });

  test('a trace opens as a waterfall: nesting, shared time axis, errors, folding, the span panel', async () => {
    const { context, page } = await signedIn(world, member, 'traces?service=checkout&min_ms=100');
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      await tracesBecome(page, 1);
      await page.getByRole('link', { name: 'POST /checkout' }).click();
      await page.waitForURL(new RegExp(`trace=${checkoutTrace}`));
      await waterfallRows(page).first().waitFor();
      const rows = await readWaterfall(page);
      assert.deepEqual(rows.map((r) => [r.level, r.text.replace(/ [\d.]+ ms$/, '')]), [
        ['1', 'checkout POST /checkout'], ['2', 'cart cart.load'], ['3', 'postgres SELECT cart_items'], ['2', 'payments payment.charge error'],
      ]);
      // Offsets on one axis: 0, 10, 15 and 60 ms of a 240 ms trace.
      assert.deepEqual(rows.map((r) => Number.parseFloat(r.left).toFixed(2)), ['0.00', '4.17', '6.25', '25.00']);
      assert.match(await page.getByRole('group', { name: 'Trace summary' }).innerText(), /Duration\s+240\.0 ms[\s\S]*Spans\s+4[\s\S]*Errors\s+1/);
      await screenshot(page, 'traces-waterfall');

      await page.getByRole('button', { name: 'Collapse cart.load' }).click();
      assert.equal(await waterfallRows(page).count(), 3, 'the subtree folds');
      await page.getByRole('button', { name: 'Expand cart.load' }).click();
      assert.equal(await waterfallRows(page).count(), 4);

      await waterfallRows(page).filter({ hasText: 'payment.charge' }).click();
      await page.waitForURL(new RegExp(`span=${ids.pay}`));
      const panel = page.getByRole('dialog', { name: 'payment.charge' });
      const attributes = await panel.getByRole('table', { name: 'Attributes' }).innerText();
      assert.match(attributes, /payment\.amount_cents\s+4200/);
      assert.match(attributes, /payment\.provider\s+stripe-test/);
      assert.match(await panel.getByRole('table', { name: 'Resource' }).innerText(), /deployment\.environment\s+e2e[\s\S]*service\.name\s+payments/);
      assert.match(await panel.getByRole('table', { name: 'Events' }).innerText(), /\+140\.0 ms\s+exception[\s\S]*card declined/);
      assert.match(await panel.innerText(), /Status\s+error · card declined/);
      assert.match(await panel.innerText(), new RegExp(`Parent\\s+${ids.root}`));
      await screenshot(page, `traces-span-panel-${await theme(page)}`);
      await page.getByRole('button', { name: 'Toggle theme' }).click();
      await screenshot(page, `traces-span-panel-${await theme(page)}`);
      await page.getByRole('button', { name: 'Toggle theme' }).click();
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'detached' });
      assert.ok(!page.url().includes('span='), 'Esc closes the panel and the URL forgets the span');

      await page.getByRole('link', { name: '← Traces' }).click();
      await page.waitForURL(/\/app\/traces\?service=checkout&min_ms=100$/);
      await tracesBecome(page, 1);
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the app');
    } finally {
      await context.close();
    }
  });

  test('span → its logs in Explore, and a log row → its trace', async () => {
    const { context, page } = await signedIn(world, member, `traces?trace=${checkoutTrace}&span=${ids.pay}`);
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      await page.getByRole('dialog', { name: 'payment.charge' }).getByRole('link', { name: 'Logs for this span' }).click();
      await page.waitForURL(/\/app\/explore\?/);
      const url = new URL(page.url());
      assert.equal(url.searchParams.get('query'), `trace_id:${checkoutTrace} span_id:${ids.pay}`);
      const start = Date.parse(url.searchParams.get('start') ?? '');
      const end = Date.parse(url.searchParams.get('end') ?? '');
      const traceMs = Number(t0 / MS);
      assert.ok(start < traceMs && end > traceMs + 240, 'the range covers the trace');
      const results = page.getByRole('region', { name: 'Results' });
      await results.getByRole('row').first().waitFor();
      const texts = await results.getByRole('row').allInnerTexts();
      assert.equal(texts.length, 1, texts.join('\n'));
      assert.match(texts[0] ?? '', /charging card ending 4242 declined/);

      await results.getByRole('row').first().click();
      await page.getByRole('dialog', { name: 'Log entry' }).getByRole('link', { name: 'View trace' }).click();
      await page.waitForURL(new RegExp(`/app/traces\\?trace=${checkoutTrace}$`));
      await waterfallRows(page).first().waitFor();
      assert.equal(await waterfallRows(page).count(), 4);

      await page.getByRole('link', { name: 'Logs for this trace' }).click();
      await page.waitForURL(/\/app\/explore\?/);
      assert.equal(new URL(page.url()).searchParams.get('query'), `trace_id:${checkoutTrace}`);
      await eventually(async () => (await results.getByRole('row').count()) === 2, 10_000);
      assert.equal(await results.getByRole('row').count(), 2, 'both logs of the trace');
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the app');
    } finally {
      await context.close();
    }
  });

  test('an unknown trace shows the API error with its detail', async () => {
    const { context, page } = await signedIn(world, member, `traces?trace=${'f'.repeat(32)}`);
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.innerText(), /^404/);
      await page.goto(`${world.svc.app}/app/traces?trace=nothex`);
      await page.getByRole('alert').filter({ hasText: 'trace id must be 32 hex characters' }).waitFor();
      assert.deepEqual(pageErrors, [], 'no uncaught errors in the app');
    } finally {
      await context.close();
    }
  });
});
