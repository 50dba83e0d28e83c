// Every refusal reason is counted per tenant on the app door's /metrics (issue 3 item 9; STYLE.md habit 5).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, call, admin, newAccount, type RunningService } from './support/service.js';

void describe('refusal counters on /metrics', () => {
  let svc: RunningService;
  before(async () => { svc = await startService(); });
  after(async () => { await svc.stop(); });

  void it('counts refusals by tenant and reason, behind the admin token', async () => {
    const acct = await newAccount(svc, { tier: 'trial_expired' });
    const ingest = (headers: Record<string, string>) => call(`${svc.ingest}/api/v1/ingest`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '[{"_msg":"x"}]',
    });
    assert.equal((await ingest({})).status, 401);
    assert.equal((await ingest({ 'X-API-Key': 'sl_unknown' })).status, 403);
    assert.equal((await ingest({ 'X-API-Key': acct.key })).status, 429);
    assert.equal((await ingest({ 'X-API-Key': acct.key })).status, 429);

    assert.equal((await call(`${svc.app}/metrics`)).status, 401, 'no admin token');
    const r = await admin(svc, 'GET', '/metrics');
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /text\/plain/);
    assert.match(r.text, /^# TYPE sightline_refusals_total counter$/m);
    assert.match(r.text, /^sightline_refusals_total\{tenant="",reason="no_credential"\} [1-9]\d*$/m);
    assert.match(r.text, /^sightline_refusals_total\{tenant="",reason="invalid_key"\} [1-9]\d*$/m);
    assert.match(r.text, new RegExp(`^sightline_refusals_total\\{tenant="${acct.tenantId}",reason="trial_expired"\\} 2$`, 'm'));
  });
});
