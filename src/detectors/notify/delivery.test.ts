// The Notifier and the delivery worker over a real (PGlite) control store, with a scripted sender and a manual
// clock: enqueue commits with the caller's transaction, grouping per detector and channel, retries with backoff,
// giving up, permanent refusals, deleted channels, order per detector, a crash between post and mark, metrics.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../clock.js';
import type { ControlStore } from '../../stores/control/control-store.js';
import { openControlStore } from '../../stores/control/open-control-store.js';
import type { AlertNotice } from '../notify-model.js';
import { DeliveryWorker } from './delivery-worker.js';
import { NotificationMetrics } from './metrics.js';
import { OutboxNotifier } from './outbox-notifier.js';
import type { OutgoingRequest } from './request.js';
import type { SendResult, Sender } from './sender.js';

const T0 = Date.UTC(2026, 0, 1);
const dataDir = mkdtempSync(join(tmpdir(), 'sightline-notify-'));
let store: ControlStore | undefined;
const s = (): ControlStore => {
  if (!store) throw new Error('store not open');
  return store;
};
before(async () => { store = await openControlStore({ dataDir }); });
after(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A sender that records the requests to `url` and answers them from a script (then 200). The tests share one
 * store, so a worker also meets other tests' rows: those are answered 200 and not recorded.
 */
function scripted(url: string, answers: SendResult[] = []): Sender & { seen: OutgoingRequest[] } {
  const seen: OutgoingRequest[] = [];
  const fn = (req: OutgoingRequest): Promise<SendResult> => {
    if (req.url !== url) return Promise.resolve({ ok: true, status: 200 });
    seen.push(req);
    return Promise.resolve(answers.shift() ?? { ok: true, status: 200 });
  };
  return Object.assign(fn, { seen });
}

async function setup(channelOver: { type?: 'webhook' | 'alertmanager' | 'slack'; sendResolved?: boolean } = {}) {
  const acc = await s().createAccount({ name: 'n', tier: 'team', signupAt: T0, trialEndsAt: null });
  const ten = await s().createTenant({ accountId: acc.id, name: 't' });
  const ch = await s().createChannel({
    tenantId: ten.id, accountId: acc.id, type: channelOver.type ?? 'webhook', name: 'pager', url: `http://127.0.0.1:9/hook/${ten.id}`,
    headers: {}, sendResolved: channelOver.sendResolved ?? true,
  });
  const det = await s().createDetector({
    tenantId: ten.id, accountId: acc.id, name: 'Errors high', kind: 'log_threshold', params: {}, windowS: 300, intervalS: 60,
    forS: 0, keepFiringForS: 0, labels: {}, annotations: {}, channelIds: [ch.id], repeatIntervalS: 3600, enabled: true,
  });
  const notice = (status: 'firing' | 'resolved', service = 'api', channelIds = [ch.id]): AlertNotice => ({
    tenantId: ten.id, detectorId: det.id, channelIds, status, generatorUrl: 'http://app.test/alerts',
    alert: {
      fingerprint: `fp-${service}`, detectorId: det.id, tenantId: ten.id, state: status,
      labels: { alertname: 'Errors high', service }, annotations: { summary: 's' }, startsAtMs: T0,
      endsAtMs: status === 'resolved' ? T0 + 60_000 : null, value: 1,
    },
  });
  return { tenantId: ten.id, channel: ch, detector: det, notice };
}

function worker(sender: Sender, clock: ManualClock, metrics = new NotificationMetrics()) {
  return new DeliveryWorker({
    store: s(), clock, send: sender, metrics, log: () => undefined, requestTimeoutMs: 1000, random: () => 0,
    retry: { baseMs: 1000, maxMs: 8000, giveUpMs: 60_000 },
  });
}

void describe('notifier and delivery worker', () => {
  void it('enqueue commits with the engine\'s transaction: one payload per detector and channel; a rollback sends nothing', async () => {
    const clock = new ManualClock(T0);
    const x = await setup();
    const notifier = new OutboxNotifier(clock);
    await s().withDetectorLock(x.detector.id, (tx) => notifier.enqueue(tx, [x.notice('firing', 'api'), x.notice('firing', 'web')]));
    await assert.rejects(s().withDetectorLock(x.detector.id, async (tx) => {
      await notifier.enqueue(tx, [x.notice('firing', 'db')]);
      throw new Error('alert update failed');
    }));
    const sender = scripted(x.channel.url);
    await worker(sender, clock).runOnce();
    assert.equal(sender.seen.length, 1);
    const body = sender.seen[0]?.body as { alerts: { labels: Record<string, string> }[] };
    assert.deepEqual(body.alerts.map((a) => a.labels.service), ['api', 'web']);
    await worker(sender, clock).runOnce();
    assert.equal(sender.seen.length, 1, 'sent rows are not sent again');
  });

  void it('retries after failures with backoff, then delivers; metrics count each outcome', async () => {
    const clock = new ManualClock(T0);
    const x = await setup();
    await new OutboxNotifier(clock).enqueue(s(), [x.notice('firing')]);
    const sender = scripted(x.channel.url, [{ ok: false, retryable: true, status: 500, error: 'HTTP 500' }, { ok: false, retryable: true, error: 'ECONNREFUSED' }]);
    const metrics = new NotificationMetrics();
    const w = worker(sender, clock, metrics);
    await w.runOnce();
    await w.runOnce();
    assert.equal(sender.seen.length, 1, 'not due before its backoff (500 ms with no jitter)');
    clock.advance(500);
    await w.runOnce();
    clock.advance(999);
    await w.runOnce();
    assert.equal(sender.seen.length, 2);
    clock.advance(1);
    await w.runOnce();
    assert.equal(sender.seen.length, 3);
    assert.deepEqual([metrics.get('webhook', 'retry'), metrics.get('webhook', 'sent'), metrics.get('webhook', 'failed')], [2, 1, 0]);
    const [last] = await s().listDeliveries(x.channel.id, 1);
    assert.deepEqual([last?.state, last?.attempts, last?.lastError], ['sent', 3, null]);
    assert.match(metrics.render(), /^sightline_notifications_total\{channel="webhook",outcome="sent"\} 1$/m);
    assert.match(metrics.render(), /^sightline_notifications_total\{channel="slack",outcome="failed"\} 0$/m);
  });

  void it('gives up at the give-up time with the failure recorded; a 4xx is given up at once', async () => {
    const clock = new ManualClock(T0);
    const x = await setup();
    await new OutboxNotifier(clock).enqueue(s(), [x.notice('firing')]);
    const down: SendResult = { ok: false, retryable: true, status: 503, error: 'HTTP 503' };
    const sender = scripted(x.channel.url, Array.from({ length: 100 }, () => ({ ...down })));
    const metrics = new NotificationMetrics();
    const w = worker(sender, clock, metrics);
    for (let i = 0; i < 12; i++) {
      await w.runOnce();
      clock.advance(8000);
    }
    const [row] = await s().listDeliveries(x.channel.id, 1);
    assert.equal(row?.state, 'failed');
    assert.match(row.lastError ?? '', /^gave up after \d+ attempt\(s\) over 1 min: HTTP 503$/);
    assert.equal(metrics.get('webhook', 'failed'), 1);

    const y = await setup();
    await new OutboxNotifier(clock).enqueue(s(), [y.notice('firing')]);
    await worker(scripted(y.channel.url, [{ ok: false, retryable: false, status: 404, error: 'HTTP 404: no_service' }]), clock).runOnce();
    const [refused] = await s().listDeliveries(y.channel.id, 1);
    assert.deepEqual([refused?.state, refused?.attempts, refused?.lastError], ['failed', 1, 'refused by the receiver: HTTP 404: no_service']);
  });

  void it('keeps one detector\'s payloads in order: the resolve waits until its firing is delivered', async () => {
    const clock = new ManualClock(T0);
    const x = await setup();
    const notifier = new OutboxNotifier(clock);
    await notifier.enqueue(s(), [x.notice('firing')]);
    await notifier.enqueue(s(), [x.notice('resolved')]);
    const sender = scripted(x.channel.url, [{ ok: false, retryable: true, error: 'HTTP 502' }]);
    const w = worker(sender, clock);
    await w.runOnce();
    clock.advance(5000);
    await w.runOnce();
    const statuses = sender.seen.map((r) => (r.body as { status: string }).status);
    assert.deepEqual(statuses, ['firing', 'firing', 'resolved']);
  });

  void it('send_resolved false: no row for a resolve; unknown and deleted channels: nothing sent, the row failed', async () => {
    const clock = new ManualClock(T0);
    const x = await setup({ sendResolved: false });
    const notifier = new OutboxNotifier(clock);
    await notifier.enqueue(s(), [x.notice('resolved'), x.notice('firing', 'api', ['nch_unknown'])]);
    assert.deepEqual(await s().listDeliveries(x.channel.id, 10), []);
    await notifier.enqueue(s(), [x.notice('firing')]);
    await s().deleteChannel(x.channel.id);
    const sender = scripted(x.channel.url);
    await worker(sender, clock).runOnce();
    assert.equal(sender.seen.length, 0);
    const [row] = await s().listDeliveries(x.channel.id, 1);
    assert.deepEqual([row?.state, row?.lastError], ['failed', 'channel deleted']);
  });

  void it('a worker that dies between the post and the mark: the next one sends again after the lease (at-least-once)', async () => {
    const clock = new ManualClock(T0);
    const x = await setup();
    await new OutboxNotifier(clock).enqueue(s(), [x.notice('firing')]);
    // The first worker claims and posts, and "dies" before marking: its claim is all that is left of it.
    const [claimed] = (await s().claimDeliveries(clock.now(), 7000, 100)).filter((d) => d.channelId === x.channel.id);
    assert.ok(claimed);
    const sender = scripted(x.channel.url);
    const w = worker(sender, clock);
    await w.runOnce();
    assert.equal(sender.seen.length, 0, 'leased to the dead worker');
    clock.advance(7000);
    await w.runOnce();
    assert.equal(sender.seen.length, 1);
    const [row] = await s().listDeliveries(x.channel.id, 1);
    assert.deepEqual([row?.state, row?.attempts], ['sent', 2]);
  });

  void it('stop aborts a post in flight and hands its row back, due at once', async () => {
    const clock = new ManualClock(T0);
    const x = await setup();
    await new OutboxNotifier(clock).enqueue(s(), [x.notice('firing')]);
    const hanging: Sender = (req, signal) => (req.url !== x.channel.url ? Promise.resolve({ ok: true, status: 200 })
      : new Promise<SendResult>((resolve) => {
        const aborted = (): void => resolve({ ok: false, retryable: true, error: 'aborted' });
        if (signal?.aborted) aborted();
        else signal?.addEventListener('abort', aborted);
      }));
    const w = worker(hanging, clock);
    const pass = w.runOnce();
    for (let i = 0; i < 500 && (await s().listDeliveries(x.channel.id, 1))[0]?.leaseUntil === null; i++) await new Promise((r) => setTimeout(r, 10));
    await w.stop();
    await pass;
    const [row] = await s().listDeliveries(x.channel.id, 1);
    assert.deepEqual([row?.state, row?.leaseUntil, row?.nextAttemptAt], ['pending', null, T0]);
  });
});
