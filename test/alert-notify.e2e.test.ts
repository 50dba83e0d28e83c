// Alerts to notifications through the real service (DESIGN §8, issue 9 item 5): a log_threshold detector that names a
// webhook channel fires in a real evaluation pass (POST /admin/v1/detectors/evaluate on the test clock) and the
// receiver started here gets the Alertmanager v4 payload with the alert's own labels and fingerprint; the resolve
// follows. A channel a detector names is not deleted. And a service SIGKILLed while the firing post is in flight
// posts it again after the restart, without a second notice from the engine (at-least-once, no loss).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, newAccount, startService, type RunningService, type TestAccount } from './support/service.js';
import { ingest, show, waitForRows } from './support/load.js';
import { alertsOf, clockTo, createDetector, detectorApi, evaluate, logsAt, MIN } from './support/detectors.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import type { WebhookPayload } from '../src/detectors/notify/formats/webhook.js';

const BASE = Math.floor((Date.now() - 7 * 86_400_000) / MIN) * MIN;
const ENV = { SIGHTLINE_EVAL_INTERVAL_MS: '0', SIGHTLINE_NOTIFY_TIMEOUT_MS: '1000', SIGHTLINE_NOTIFY_RETRY_BASE_MS: '200' };

async function channel(svc: RunningService, acct: TestAccount, url: string): Promise<string> {
  const r = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/notification-channels`, {
    method: 'POST', headers: { 'X-API-Key': acct.key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: 'webhook', name: 'pager', url }),
  });
  assert.equal(r.status, 201, show(r));
  return (r.json as { notification_channel: { id: string } }).notification_channel.id;
}

/** Logs over [t − 3 min, t) with 30 `payment failed` lines of service api, and a detector on them naming the channel. */
async function failingPayments(svc: RunningService, acct: TestAccount, t: number, channelId: string): Promise<string> {
  await clockTo(svc, t);
  const logs = logsAt(30, t - 3 * MIN, 3 * MIN, { _msg: 'payment failed', service: 'api' });
  assert.equal((await ingest(svc.ingest, acct.key, JSON.stringify(logs))).status, 200);
  assert.equal((await waitForRows(svc, acct.tenantId, acct.key, 'failed', 30, 10_000, '&limit=100')).rows.length, 30);
  const d = await createDetector(svc, acct, {
    name: 'Payments failing', kind: 'log_threshold', params: { query: 'failed', group_by: ['service'], threshold: 10 },
    window_s: 300, channel_ids: [channelId], annotations: { summary: '{{ $value }} failures on {{ $labels.service }}' },
  });
  return d.id;
}

void describe('alert notifications through the evaluation pass', () => {
  let svc: RunningService | undefined;
  let rx: WebhookReceiver | undefined;
  const S = (): RunningService => { if (!svc) throw new Error('no service'); return svc; };
  const R = (): WebhookReceiver => { if (!rx) throw new Error('no receiver'); return rx; };
  before(async () => {
    svc = await startService({ env: ENV });
    rx = await startReceiver();
  });
  after(async () => {
    await rx?.close();
    await svc?.stop();
  });

  void it('a firing alert and its resolve reach the webhook as v4 payloads with the alert\'s labels and fingerprint', async () => {
    const acct = await newAccount(S(), { tier: 'team' });
    const ch = await channel(S(), acct, `${R().url}/pass`);
    const t = BASE;
    const detectorId = await failingPayments(S(), acct, t, ch);
    await clockTo(S(), t + 10_000);
    assert.equal((await evaluate(S(), acct.tenantId)).firing, 1);
    const [alert] = await alertsOf(S(), acct, 'firing');
    assert.ok(alert);
    const firing = (await R().waitFor(1))[0]?.body as WebhookPayload;
    assert.equal(firing.version, '4');
    assert.equal(firing.status, 'firing');
    assert.equal(firing.receiver, 'pager');
    assert.deepEqual(firing.groupLabels, { alertname: 'Payments failing' });
    assert.equal(firing.groupKey, `{}/{detector="${detectorId}"}:{alertname="Payments failing"}`);
    const [a] = firing.alerts;
    assert.ok(a);
    assert.deepEqual(a.labels, alert.labels);
    assert.equal(a.fingerprint, alert.fingerprint);
    assert.equal(a.annotations.summary, '30 failures on api');
    assert.equal(a.endsAt, '0001-01-01T00:00:00Z');
    assert.match(a.generatorURL, /^http:\/\/127\.0\.0\.1:\d+\//);
    assert.equal(firing.externalURL, `${new URL(a.generatorURL).origin}/`);

    // The channel is in use: it is not deleted.
    const del = await call(`${S().app}/api/v1/tenants/${acct.tenantId}/notification-channels/${ch}`, { method: 'DELETE', headers: { 'X-API-Key': acct.key } });
    assert.equal(del.status, 409, show(del));
    assert.match(del.text, new RegExp(`used by detector\\(s\\) ${detectorId}`));

    // Ten minutes on, the window holds no failures: resolved.
    await clockTo(S(), t + 10 * MIN);
    await evaluate(S(), acct.tenantId);
    const resolved = (await R().waitFor(2))[1]?.body as WebhookPayload;
    assert.equal(resolved.status, 'resolved');
    const [r] = resolved.alerts;
    assert.ok(r);
    assert.equal(r.fingerprint, alert.fingerprint);
    assert.notEqual(r.endsAt, '0001-01-01T00:00:00Z');
    const detail = await detectorApi(S(), acct, 'GET', `/alerts/${alert.fingerprint}`);
    assert.equal((detail.json as { alert: { notified_count: number } }).alert.notified_count, 2, show(detail));
  });
});

void describe('at-least-once through a SIGKILL of the service', () => {
  void it('a firing post in flight when the service is killed is posted again after the restart, and the engine does not notify twice', async () => {
    let svc = await startService({ env: ENV });
    const rx = await startReceiver();
    rx.respond = (n) => (n === 0 ? 'hold' : 200);
    try {
      const acct = await newAccount(svc, { tier: 'team' });
      const ch = await channel(svc, acct, `${rx.url}/kill`);
      const t = BASE + 6 * 3_600_000;
      await failingPayments(svc, acct, t, ch);
      await clockTo(svc, t + 10_000);
      assert.equal((await evaluate(svc, acct.tenantId)).firing, 1);
      await rx.waitFor(1);
      await svc.kill(); // the post is unanswered: claimed, not marked
      svc = await startService({ dataDir: svc.dataDir, adminToken: svc.adminToken, env: ENV });
      const [again] = (await rx.waitFor(2, 30_000)).slice(1);
      assert.deepEqual(again?.body, rx.received[0]?.body, 'the same payload, posted again once the lease lapsed');
      const [alert] = await alertsOf(svc, acct, 'firing');
      assert.equal(alert?.notified_count, 1, 'one notice from the engine; the resend is the outbox\'s');
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(rx.received.length, 2, 'delivered once more, then marked: no third post');
    } finally {
      await rx.close();
      await svc.stop();
    }
  });
});
