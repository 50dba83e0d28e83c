// Notification delivery end to end over a real (PGlite) control store and real HTTP (DESIGN §8, issue 9 item 5):
// a webhook receiver started here gets the Alertmanager v4 payload of a firing and then a resolved notice; a
// receiver that answers 500 twice gets the payload a third time; and a worker SIGKILLed after posting but before
// marking leaves the row to be posted again by the next one (at-least-once, nothing lost). The Notifier is driven
// directly, in the engine's transaction (withDetectorLock), as the engine does.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { ControlStore } from '../src/stores/control/control-store.js';
import type { Delivery } from '../src/stores/control/notification-records.js';
import { openControlStore } from '../src/stores/control/open-control-store.js';
import type { AlertNotice } from '../src/detectors/notify-model.js';
import { OutboxNotifier } from '../src/detectors/notify/outbox-notifier.js';
import { DeliveryWorker } from '../src/detectors/notify/delivery-worker.js';
import { NotificationMetrics } from '../src/detectors/notify/metrics.js';
import { httpSender } from '../src/detectors/notify/sender.js';
import { fingerprint as labelsFingerprint } from '../src/detectors/engine/labels.js';
import type { WebhookPayload } from '../src/detectors/notify/formats/webhook.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const CHILD = fileURLToPath(new URL('./support/notify-crash-child.js', import.meta.url));
const wall = { now: () => Date.now() };

interface Fixture { store: ControlStore; tenantId: string; detectorId: string; channelId: string }

async function fixture(store: ControlStore, url: string): Promise<Fixture> {
  const acc = await store.createAccount({ name: 'notify', tier: 'team', signupAt: Date.now(), trialEndsAt: null });
  const ten = await store.createTenant({ accountId: acc.id, name: 'notify' });
  const ch = await store.createChannel({
    tenantId: ten.id, accountId: acc.id, type: 'webhook', name: 'pager', url, headers: { Authorization: 'Bearer hook-secret' }, sendResolved: true,
  });
  const det = await store.createDetector({
    tenantId: ten.id, accountId: acc.id, name: 'Errors high', kind: 'log_threshold', params: {}, windowS: 300, intervalS: 60,
    forS: 0, keepFiringForS: 0, labels: {}, annotations: {}, channelIds: [ch.id], repeatIntervalS: 14_400, enabled: true,
  });
  return { store, tenantId: ten.id, detectorId: det.id, channelId: ch.id };
}

function notice(f: Fixture, status: 'firing' | 'resolved', startsAtMs: number): AlertNotice {
  const labels = { alertname: 'Errors high', detector: f.detectorId, tenant: f.tenantId, service: 'checkout' };
  const fingerprint = labelsFingerprint(labels);
  return {
    tenantId: f.tenantId, detectorId: f.detectorId, channelIds: [f.channelId], status,
    generatorUrl: `http://sightline.test/app/alerts?detector=${f.detectorId}&fingerprint=${fingerprint}`,
    alert: {
      fingerprint, detectorId: f.detectorId, tenantId: f.tenantId, state: status, labels,
      annotations: { summary: '42 errors in 5m on checkout' }, startsAtMs,
      endsAtMs: status === 'resolved' ? startsAtMs + 120_000 : null, value: 42,
    },
  };
}

/** The channel's newest outbox row once it is no longer pending (or after 5 s). */
async function settled(store: ControlStore, channelId: string): Promise<Delivery | undefined> {
  let row = (await store.listDeliveries(channelId, 1))[0];
  for (let i = 0; i < 100 && row?.state === 'pending'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    row = (await store.listDeliveries(channelId, 1))[0];
  }
  return row;
}

/** Enqueues as the engine does: inside the transaction that locks the detector. */
async function enqueue(f: Fixture, notices: AlertNotice[], onEnqueued?: () => void): Promise<void> {
  await f.store.withDetectorLock(f.detectorId, (tx) => new OutboxNotifier(wall, onEnqueued).enqueue(tx, notices));
}

void describe('webhook delivery (in-process notifier, real HTTP)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-notify-e2e-'));
  let store: ControlStore | undefined;
  let rx: WebhookReceiver | undefined;
  let worker: DeliveryWorker | undefined;
  const metrics = new NotificationMetrics();
  before(async () => {
    store = await openControlStore({ dataDir });
    rx = await startReceiver();
    worker = new DeliveryWorker({
      store, clock: wall, send: httpSender(2000), metrics, log: () => undefined, requestTimeoutMs: 2000, pollMs: 100,
      retry: { baseMs: 200, maxMs: 1000, giveUpMs: 60_000 },
    });
    worker.start();
  });
  after(async () => {
    await worker?.stop();
    await rx?.close();
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  void it('a firing and then a resolved notice arrive as Alertmanager webhook payloads version 4', async () => {
    if (!store || !rx || !worker) throw new Error('not set up');
    const w = worker;
    const f = await fixture(store, `${rx.url}/hook/a`);
    const t0 = Date.UTC(2026, 5, 1, 8, 0, 0);
    await enqueue(f, [notice(f, 'firing', t0)], () => w.kick());
    const [firing] = await rx.waitFor(1);
    assert.ok(firing);
    assert.equal(firing.method, 'POST');
    assert.equal(firing.path, '/hook/a');
    assert.equal(firing.headers['content-type'], 'application/json');
    assert.equal(firing.headers.authorization, 'Bearer hook-secret');
    const p = firing.body as WebhookPayload;
    const labels = { alertname: 'Errors high', detector: f.detectorId, service: 'checkout', tenant: f.tenantId };
    assert.deepEqual(p, {
      version: '4', groupKey: `{}/{detector="${f.detectorId}"}:{alertname="Errors high"}`, truncatedAlerts: 0,
      status: 'firing', receiver: 'pager', groupLabels: { alertname: 'Errors high' }, commonLabels: labels,
      commonAnnotations: { summary: '42 errors in 5m on checkout' }, externalURL: 'http://sightline.test/',
      alerts: [{
        status: 'firing', labels, annotations: { summary: '42 errors in 5m on checkout' },
        startsAt: '2026-06-01T08:00:00.000Z', endsAt: '0001-01-01T00:00:00Z',
        generatorURL: notice(f, 'firing', t0).generatorUrl, fingerprint: labelsFingerprint(labels),
      }],
    });

    await enqueue(f, [notice(f, 'resolved', t0)], () => w.kick());
    const [, resolved] = await rx.waitFor(2);
    const r = resolved?.body as WebhookPayload;
    assert.equal(r.status, 'resolved');
    assert.deepEqual([r.alerts[0]?.status, r.alerts[0]?.startsAt, r.alerts[0]?.endsAt], ['resolved', '2026-06-01T08:00:00.000Z', '2026-06-01T08:02:00.000Z']);
    assert.equal(r.alerts[0]?.fingerprint, p.alerts[0]?.fingerprint, 'the same alert');
  });

  void it('a receiver that answers 500 twice gets the same payload a third time, after backoff', async () => {
    if (!store || !rx || !worker) throw new Error('not set up');
    const w = worker;
    const f = await fixture(store, `${rx.url}/hook/flaky`);
    const before = rx.received.length;
    rx.respond = (n, req) => (req.path === '/hook/flaky' && n - before < 2 ? 500 : 200);
    const sentBefore = metrics.get('webhook', 'sent');
    await enqueue(f, [notice(f, 'firing', Date.now())], () => w.kick());
    await rx.waitFor(before + 3);
    const tries = rx.received.slice(before).filter((r) => r.path === '/hook/flaky');
    assert.equal(tries.length, 3);
    assert.deepEqual(tries[2]?.body, tries[0]?.body, 'the very same payload');
    const gaps = tries.slice(1).map((t, i) => t.at - (tries[i]?.at ?? 0));
    assert.ok((gaps[0] ?? 0) >= 100 && (gaps[1] ?? 0) >= 200, `backoff doubles from 200 ms (half jittered): ${gaps.join(', ')} ms`);
    const row = await settled(store, f.channelId);
    assert.deepEqual([row?.state, row?.attempts], ['sent', 3]);
    assert.ok(metrics.get('webhook', 'sent') > sentBefore);
    assert.ok(metrics.get('webhook', 'retry') >= 2);
    rx.respond = () => 200;
  });
});

void describe('at-least-once across a SIGKILL', () => {
  void it('a worker killed after posting and before marking: the next worker posts the same payload again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sightline-notify-kill-'));
    const rx = await startReceiver();
    rx.respond = (n) => (n === 0 ? 'hold' : 200);
    try {
      let store = await openControlStore({ dataDir });
      const f = await fixture(store, `${rx.url}/hook/kill`);
      await enqueue({ ...f, store }, [notice(f, 'firing', Date.now())]);
      await store.close();

      const child = spawn(process.execPath, [CHILD, dataDir, '1000'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await rx.waitFor(1, 60_000).catch((e: unknown) => { throw new Error(`${String(e)}\nchild output:\n${out}`); });
      child.kill('SIGKILL'); // the post is in flight, unanswered: the row is claimed, not marked
      await exited;

      store = await openControlStore({ dataDir });
      const [leased] = await store.listDeliveries(f.channelId, 1);
      assert.deepEqual([leased?.state, leased?.attempts], ['pending', 1], 'the killed worker left its claim, not a mark');
      const worker = new DeliveryWorker({
        store, clock: wall, send: httpSender(1000), metrics: new NotificationMetrics(), log: () => undefined,
        requestTimeoutMs: 1000, pollMs: 100,
      });
      worker.start();
      try {
        await rx.waitFor(2, 30_000);
        assert.deepEqual(rx.received[1]?.body, rx.received[0]?.body, 'the same payload, sent again after the lease lapsed');
        const row = await settled(store, f.channelId);
        assert.deepEqual([row?.state, row?.attempts], ['sent', 2]);
      } finally {
        await worker.stop();
        await store.close();
      }
    } finally {
      await rx.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
