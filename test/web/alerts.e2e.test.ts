// The Alerts page end to end in a real Chromium (issue 8 item 8; DESIGN §7 Pages, §8): reached from the main
// navigation, its tabs and state filter in the URL, a firing alert of a real detector listed with its templated
// summary and value, the tenant's detectors, and the catalog with each kind's eligibility conditions as text.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, call } from '../support/service.js';
import { addUser, hasChromium, ingestLogs, screenshot, signedIn, startWorld, waitForRows, type AppUser, type AppWorld } from './support.js';

const skip = hasChromium() ? false : 'Chromium is not installed (/usr/bin/chromium)';
let world: AppWorld;
let member: AppUser;

before(async () => {
  if (skip !== false) return;
  world = await startWorld();
  member = await addUser(world, 'member');
  await ingestLogs(world, Array.from({ length: 5 }, (_, i) => ({ _msg: `payment failed for order ${i}`, service: 'payments' })));
  await waitForRows(world, 'failed', 5);
  const created = await call(`${world.svc.app}/api/v1/tenants/${world.account.tenantId}/detectors`, {
    method: 'POST', headers: { 'X-API-Key': world.account.key, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      name: 'Payments failing', kind: 'log_threshold', params: { query: 'failed', group_by: ['service'], threshold: 2 },
      window_s: 3600, annotations: { summary: '{{ $value }} failures on {{ $labels.service }}' },
    }),
  });
  assert.equal(created.status, 201, created.text);
  // The window ends 10 s before the pass (ingest lag): move service time past the entries, then evaluate.
  assert.equal((await admin(world.svc, 'PUT', '/admin/v1/clock', { now: new Date(Date.now() + 60_000).toISOString() })).status, 200);
  const pass = await admin(world.svc, 'POST', '/admin/v1/detectors/evaluate', { tenant_id: world.account.tenantId });
  assert.equal(pass.status, 200, pass.text);
  assert.equal((pass.json as { firing: number }).firing, 1, pass.text);
});
after(async () => {
  if (skip === false) await world.stop();
});

describe('Alerts', { skip }, () => {
  test('a firing alert in the list and its state filter; the detectors and the catalog with its conditions', async () => {
    const { context, page } = await signedIn(world, member, 'explore');
    try {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click();
      await page.waitForURL(/\/app\/alerts$/);
      await page.getByRole('tab', { name: 'Alerts', selected: true }).waitFor();
      await page.getByRole('group', { name: 'State' }).getByRole('button', { name: 'firing' }).click();
      await page.waitForURL(/state=firing/);
      const row = page.getByRole('table', { name: 'Alert list' }).getByRole('row', { name: /Payments failing/ });
      await row.waitFor();
      const text = await row.innerText();
      assert.match(text, /firing/i);
      assert.match(text, /5 failures on payments/);
      await page.getByRole('group', { name: 'State' }).getByRole('button', { name: 'resolved' }).click();
      await page.waitForURL(/state=resolved/);
      await page.getByText('No resolved alerts.').waitFor();
      await page.getByRole('group', { name: 'State' }).getByRole('button', { name: 'firing' }).click();
      await row.waitFor();
      assert.equal(await page.getByRole('alert').count(), 0, 'no error shown');
      await screenshot(page, 'alerts');

      await page.getByRole('tab', { name: 'Detectors' }).click();
      await page.waitForURL(/\/app\/alerts\/detectors/);
      await page.getByText('Payments failing').first().waitFor();
      const catalogRow = page.getByRole('table', { name: 'Detector catalog' }).getByRole('row', { name: /log_threshold/ });
      await catalogRow.waitFor();
      const conditions = await catalogRow.getByRole('listitem').allInnerTexts();
      assert.ok(conditions.length >= 2, conditions.join(' | '));
      assert.ok(conditions.every((c) => !c.includes('{"id"')), `conditions as text: ${conditions.join(' | ')}`);
      assert.equal(await page.getByRole('alert').count(), 0, 'no error shown');
      await screenshot(page, 'alerts-detectors');
      await page.getByRole('button', { name: 'Toggle theme' }).click();
      await screenshot(page, 'alerts-detectors-other-theme');
      // The tab is in the URL: a reload lands on it.
      await page.reload();
      await page.getByRole('tab', { name: 'Detectors', selected: true }).waitFor();
    } finally {
      await context.close();
    }
  });
});
