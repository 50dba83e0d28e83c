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

  void it('shows the WAL: appended records count up, and the drain brings the unflushed ones back to 0', async () => {
    const acct = await newAccount(svc, { tier: 'custom' });
    const gauge = async (name: string): Promise<number> => {
      const text = (await admin(svc, 'GET', '/metrics')).text;
      const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
      assert.ok(m?.[1] !== undefined, `${name} is on /metrics`);
      assert.match(text, new RegExp(`^# TYPE ${name} (gauge|counter)$`, 'm'));
      return Number(m[1]);
    };
    const before = await gauge('sightline_wal_appended_records_total');
    const fsyncsBefore = await gauge('sightline_wal_fsyncs_total');
    const r = await call(`${svc.ingest}/api/v1/ingest`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': acct.key }, body: '[{"_msg":"a"},{"_msg":"b"}]',
    });
    assert.equal(r.status, 200);
    assert.ok(await gauge('sightline_wal_appended_records_total') > before, 'the acknowledged batch was appended');
    assert.ok(await gauge('sightline_wal_fsyncs_total') > fsyncsBefore, 'and fsynced');
    const deadline = Date.now() + 10_000;
    while (await gauge('sightline_wal_unflushed_records') !== 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    assert.equal(await gauge('sightline_wal_unflushed_records'), 0);
    assert.equal(await gauge('sightline_wal_unflushed_bytes'), 0);
    assert.equal(await gauge('sightline_wal_store_failures'), 0);
  });
});
