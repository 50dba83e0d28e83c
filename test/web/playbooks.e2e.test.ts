// Playbooks beside alerts in a real Chromium (issue 10 item 4; DESIGN §7 Pages, §9 `ai/playbooks`): a runbook
// imported through the real POST …/ai/playbooks makes a detector that fires; its alert on the Alerts page links to
// the playbook; the Playbooks tab lists it and shows its steps — the LogsQL query as a link to Explore, the PromQL one
// to Metrics, the shell command as text to run by hand, the bound with a link to its detector, which the Detectors
// tab then marks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, call } from '../support/service.js';
import { addUser, hasChromium, ingestLogs, screenshot, signedIn, startWorld, waitForRows, type AppUser, type AppWorld } from './support.js';

const skip = hasChromium() ? false : 'Chromium is not installed (/usr/bin/chromium)';
let world: AppWorld;
let member: AppUser;
let playbook: { id: string; title: string };
let detectorId: string;

const RUNBOOK = [
  '# Payments failing',
  '',
  'What to do when card payments fail.',
  '',
  '## Look at the failures',
  '',
  '```logsql',
  'service:payments failed',
  '```',
  '',
  'Alert if there are more than 2 failures in 1 hour.',
  '',
  '## Check the request rate',
  '',
  '```promql',
  'sum(rate(http_requests_total{service="payments"}[5m]))',
  '```',
  '',
  '## Restart the payments pods',
  '',
  '```bash',
  'kubectl -n shop rollout restart deployment/payments',
  '```',
  '',
].join('\n');

before(async () => {
  if (skip !== false) return;
  world = await startWorld();
  member = await addUser(world, 'member');
  await ingestLogs(world, Array.from({ length: 5 }, (_, i) => ({ _msg: `payment failed for order ${i}`, service: 'payments' })));
  await waitForRows(world, 'failed', 5);
  const r = await call(`${world.svc.app}/api/v1/tenants/${world.account.tenantId}/ai/playbooks`, {
    method: 'POST', headers: { 'X-API-Key': world.account.key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ content: RUNBOOK }),
  });
  assert.equal(r.status, 200, r.text);
  const j = r.json as { playbook: { id: string; title: string }; created: { detectors: { id: string }[]; saved_searches: unknown[] } };
  assert.equal(j.created.detectors.length, 1, r.text);
  assert.equal(j.created.saved_searches.length, 1, r.text);
  playbook = j.playbook;
  detectorId = j.created.detectors[0]?.id ?? '';
  // The window ends 10 s before the pass (ingest lag): move service time past the entries, then evaluate.
  assert.equal((await admin(world.svc, 'PUT', '/admin/v1/clock', { now: new Date(Date.now() + 60_000).toISOString() })).status, 200);
  const pass = await admin(world.svc, 'POST', '/admin/v1/detectors/evaluate', { tenant_id: world.account.tenantId });
  assert.equal(pass.status, 200, pass.text);
  assert.equal((pass.json as { firing: number }).firing, 1, pass.text);
});
after(async () => {
  if (skip === false) await world.stop();
});

describe('Playbooks', { skip }, () => {
  test('an alert links to its playbook; the playbook shows its steps, query links and its detector', async () => {
    const { context, page } = await signedIn(world, member, 'alerts');
    try {
      const row = page.getByRole('table', { name: 'Alert list' }).getByRole('row', { name: /Payments failing/ });
      await row.waitFor();
      await screenshot(page, 'alerts-with-playbook-link');
      await row.getByRole('link', { name: `Playbook: ${playbook.title}` }).click();
      await page.waitForURL(new RegExp(`/app/alerts/playbooks/${playbook.id}$`));
      await page.getByRole('tab', { name: 'Playbooks', selected: true }).waitFor();
      await page.getByRole('heading', { level: 2, name: 'Payments failing' }).waitFor();

      const steps = page.getByRole('list', { name: 'Steps' });
      assert.deepEqual(await steps.getByRole('heading', { level: 3 }).allInnerTexts(),
        ['Look at the failures', 'Check the request rate', 'Restart the payments pods']);
      const logs = steps.getByRole('link', { name: 'Open in Explore: service:payments failed' });
      assert.match(await logs.getAttribute('href') ?? '', /^\/app\/explore\?query=service%3Apayments\+failed$/);
      const metrics = steps.getByRole('link', { name: /^Open in Metrics: sum\(rate/ });
      assert.match(await metrics.getAttribute('href') ?? '', /^\/app\/metrics\?expr=sum%28rate/);
      assert.equal(await steps.getByLabel('Manual command').innerText(), 'kubectl -n shop rollout restart deployment/payments');
      await steps.getByText('Alert if there are more than 2 failures in 1 hour.').waitFor();
      await steps.getByText('log_threshold > 2 · window 1 h').waitFor();
      assert.equal(await page.getByRole('alert').count(), 0, 'no error shown');
      await screenshot(page, 'alerts-playbook');

      await steps.getByRole('link', { name: 'Detector for: Alert if there are more than 2 failures in 1 hour.' }).click();
      await page.waitForURL(new RegExp(`/app/alerts/detectors\\?detector=${detectorId}$`));
      const marked = page.getByRole('table', { name: 'Detectors' }).locator('tr[aria-current="true"]');
      await marked.waitFor();
      assert.match(await marked.innerText(), /Payments failing: Look at the failures/);

      await page.getByRole('tab', { name: 'Playbooks' }).click();
      await page.waitForURL(/\/app\/alerts\/playbooks$/);
      const listed = page.getByRole('table', { name: 'Playbook list' }).getByRole('row', { name: /Payments failing/ });
      await listed.waitFor();
      assert.match(await listed.innerText(), /markdown\s+3\s+1\s+1/);
      await screenshot(page, 'alerts-playbooks');
      // Deep links reload to the same view (DESIGN §7).
      await page.goto(`${world.svc.app}/app/alerts/playbooks/${playbook.id}`);
      await page.getByRole('heading', { level: 2, name: 'Payments failing' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
