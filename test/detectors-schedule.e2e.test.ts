// The scheduler and durability of alerts over the real service (DESIGN §8, issue 9 items 4 and 8): detectors are
// evaluated on their own on service time — a jump of the test clock is enough, no admin call; and a firing alert
// survives a restart and a SIGKILL on the same data directory without being lost or notified twice, counted at a
// real webhook receiver (the notice travels engine → outbox → delivery → HTTP) and on the alert's own stamps.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { admin, newAccount, sleep, startService, type RunningService, type TestAccount } from './support/service.js';
import { ingest, obj, show, waitForRows } from './support/load.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { alertsOf, clockTo, createDetector, detectorApi, evaluate, logsAt, MIN } from './support/detectors.js';

const BASE = Math.floor((Date.now() - 7 * 86_400_000) / MIN) * MIN;

let receiver: WebhookReceiver;
before(async () => { receiver = await startReceiver(); });
after(async () => { await receiver.close(); });

async function failuresOf(svc: RunningService, acct: TestAccount, t: number): Promise<void> {
  const logs = logsAt(30, t - 3 * MIN, 3 * MIN, { _msg: 'payment failed', service: 'api' });
  assert.equal((await ingest(svc.ingest, acct.key, JSON.stringify(logs))).status, 200);
  await waitForRows(svc, acct.tenantId, acct.key, 'failed', 30, 10_000, '&limit=1000');
}

/** Webhook payloads (Alertmanager v4) received for the detector, as `status` of each alert in them. */
function noticesFor(detectorId: string): string[] {
  return receiver.received.flatMap((r) => {
    const alerts = ((r.body as { alerts?: { status: string; labels: Record<string, string> }[] }).alerts ?? []);
    return alerts.filter((a) => a.labels.detector === detectorId).map((a) => a.status);
  });
}

test('the scheduler evaluates each detector on its own when service time moves (the test clock drives it)', async () => {
  const svc = await startService();
  try {
    const t = await clockTo(svc, BASE);
    const acct = await newAccount(svc);
    await failuresOf(svc, acct, t);
    const d = await createDetector(svc, acct, { name: 'Payments failing', kind: 'log_threshold', params: { query: 'failed', threshold: 10 }, window_s: 600 });
    // Two minutes on: the detector's slot (its offset in the minute) has passed at least once.
    await clockTo(svc, t + 2 * MIN);
    let alerts: Awaited<ReturnType<typeof alertsOf>> = [];
    for (let i = 0; i < 100 && alerts.length === 0; i++) {
      await sleep(100);
      alerts = await alertsOf(svc, acct, 'firing');
    }
    assert.equal(alerts.length, 1, 'fired without POST /admin/v1/detectors/evaluate');
    const status = (obj(await detectorApi(svc, acct, 'GET', `/detectors/${d.id}`)).detector as { status: { last_eval_at: string } }).status;
    const evaluatedAt = Date.parse(status.last_eval_at);
    assert.ok(evaluatedAt > t && evaluatedAt <= t + 2 * MIN + 5000, `evaluated at ${status.last_eval_at}`);
    assert.equal(evaluatedAt % 1000, Date.parse(alerts[0]?.starts_at ?? '') % 1000, 'at its slot, the instant the alert started');
  } finally {
    await svc.stop();
  }
});

test('a firing alert survives SIGTERM and SIGKILL restarts: not lost, not notified twice; repeat and resolve still follow', async () => {
  let svc = await startService({ env: { SIGHTLINE_EVAL_INTERVAL_MS: '0' } });
  const { dataDir, adminToken } = svc;
  const restart = async (how: 'stop' | 'kill'): Promise<void> => {
    if (how === 'stop') assert.equal(await svc.stop({ keepData: true }), 0);
    else await svc.kill();
    svc = await startService({ dataDir, adminToken, env: { SIGHTLINE_EVAL_INTERVAL_MS: '0' } });
  };
  try {
    const t = await clockTo(svc, BASE + 12 * 3_600_000);
    const acct = await newAccount(svc);
    await failuresOf(svc, acct, t);
    const ch = await detectorApi(svc, acct, 'POST', '/notification-channels', { type: 'webhook', name: 'pager', url: `${receiver.url}/hook` });
    assert.equal(ch.status, 201, show(ch));
    const channelId = (obj(ch).notification_channel as { id: string }).id;
    const d = await createDetector(svc, acct, {
      name: 'Payments failing', kind: 'log_threshold', params: { query: 'failed', threshold: 10 }, window_s: 7200,
      channel_ids: [channelId], repeat_interval_s: 3600,
    });
    await clockTo(svc, t + 10_000);
    assert.equal((await evaluate(svc, acct.tenantId)).firing, 1);
    const [fired] = await alertsOf(svc, acct, 'firing');
    assert.ok(fired);
    await receiver.waitFor(1, 15_000);
    assert.deepEqual(noticesFor(d.id), ['firing']);

    for (const [i, how] of (['stop', 'kill'] as const).entries()) {
      await restart(how);
      // Service time starts again from the wall clock after a restart; put it where the test was.
      await clockTo(svc, t + (i + 1) * MIN + 10_000);
      const [kept] = await alertsOf(svc, acct);
      assert.deepEqual([kept?.state, kept?.fingerprint, kept?.starts_at, kept?.notified_count], ['firing', fired.fingerprint, fired.starts_at, 1], `after ${how}`);
      assert.deepEqual(await evaluate(svc, acct.tenantId), { evaluated: 1, firing: 1, resolved: 0, pending: 0, errors: 0, deferred: 0 });
      const [again] = await alertsOf(svc, acct);
      assert.deepEqual([again?.state, again?.starts_at, again?.notified_count], ['firing', fired.starts_at, 1], `after ${how}: no second notice`);
    }
    await sleep(2000);
    assert.deepEqual(noticesFor(d.id), ['firing'], 'the receiver got one notice over both restarts');

    // repeat_interval (1 h) still runs from the stamp written before the restarts; the resolve still comes.
    await clockTo(svc, t + 10_000 + 60 * MIN);
    await evaluate(svc, acct.tenantId);
    await receiver.waitFor(2, 15_000);
    await clockTo(svc, t + 10 * 3_600_000);
    assert.equal((await evaluate(svc, acct.tenantId)).resolved, 1);
    await receiver.waitFor(3, 15_000);
    assert.deepEqual(noticesFor(d.id), ['firing', 'firing', 'resolved']);
    const m = await admin(svc, 'GET', '/metrics');
    assert.match(m.text, /sightline_alert_notices_enqueued_total\{status="resolved"\} 1/);
  } finally {
    await svc.stop();
  }
});
