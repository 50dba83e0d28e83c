// The part of the control-store contract that notification channels and the delivery outbox need (DESIGN §8
// "Notifications"): channel records, and the outbox's claim / lease / retry / finish cycle that makes delivery
// at-least-once and in order. Registered by control-store.contract.ts inside its suite, so it runs on every backend.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ControlStore } from './control-store.js';
import type { NewChannel, NewDelivery } from './notification-records.js';
import type { AlertNotice } from '../../detectors/notify-model.js';

const T0 = Date.UTC(2026, 0, 1);

type TenantOf = () => Promise<{ accountId: string; tenantId: string }>;

function notice(tenantId: string, detectorId: string, status: 'firing' | 'resolved', fingerprint = '0123456789abcdef'): AlertNotice {
  return {
    tenantId, detectorId, channelIds: [], status, generatorUrl: 'http://sightline.test/alerts',
    alert: {
      fingerprint, detectorId, tenantId, state: status, labels: { alertname: 'Errors high', service: 'api' },
      annotations: { summary: '12 errors' }, startsAtMs: T0, endsAtMs: status === 'resolved' ? T0 + 60_000 : null, value: 12,
    },
  };
}

export function notifyContract(s: () => ControlStore, tenantOf: TenantOf): void {
  const newChannel = (t: { accountId: string; tenantId: string }, over: Partial<NewChannel> = {}): NewChannel => ({
    tenantId: t.tenantId, accountId: t.accountId, type: 'webhook', name: 'on-call', url: 'http://127.0.0.1:9/hook',
    headers: { Authorization: 'Bearer x' }, sendResolved: true, ...over,
  });
  const delivery = (tenantId: string, channelId: string, detectorId: string, over: Partial<NewDelivery> = {}): NewDelivery => ({
    tenantId, channelId, detectorId, notices: [notice(tenantId, detectorId, 'firing')], intervalS: 60, repeatIntervalS: 14_400,
    createdAt: T0, nextAttemptAt: T0, ...over,
  });

  void it('channels: one reads back as created under an nch_ id, lists per tenant, updates and deletes', async () => {
    const t = await tenantOf();
    const c = await s().createChannel(newChannel(t));
    assert.match(c.id, /^nch_[0-9a-f]{24}$/);
    assert.deepEqual({ ...c, id: '', createdAt: 0, updatedAt: 0 }, { ...newChannel(t), id: '', createdAt: 0, updatedAt: 0 });
    assert.deepEqual(await s().getChannel(c.id), c);
    await s().createChannel(newChannel(await tenantOf(), { name: 'elsewhere' }));
    assert.deepEqual((await s().listChannels(t.tenantId)).map((x) => x.id), [c.id]);
    const u = await s().updateChannel(c.id, { type: 'slack', url: 'https://hooks.example/x', headers: {}, sendResolved: false });
    assert.ok(u);
    assert.deepEqual([u.type, u.name, u.url, u.headers, u.sendResolved], ['slack', 'on-call', 'https://hooks.example/x', {}, false]);
    assert.equal(await s().updateChannel('nch_missing', { name: 'x' }), null);
    assert.equal(await s().deleteChannel(c.id), true);
    assert.equal(await s().deleteChannel(c.id), false);
    assert.equal(await s().getChannel(c.id), null);
  });

  void it('detectorsUsingChannel names the detectors whose channel_ids hold it', async () => {
    const t = await tenantOf();
    const c = await s().createChannel(newChannel(t));
    const base = {
      tenantId: t.tenantId, accountId: t.accountId, name: 'd', kind: 'log_threshold', params: {}, windowS: 60, intervalS: 60,
      forS: 0, keepFiringForS: 0, labels: {}, annotations: {}, repeatIntervalS: 14_400, enabled: true,
    };
    const d = await s().createDetector({ ...base, channelIds: ['nch_other', c.id] });
    await s().createDetector({ ...base, channelIds: ['nch_other'] });
    assert.deepEqual(await s().detectorsUsingChannel(c.id), [d.id]);
  });

  void it('outbox: enqueued rows come back whole, claimed once under a lease, and again only after it lapses', async () => {
    const t = await tenantOf();
    const ch = `nch_${t.tenantId}`;
    const row = delivery(t.tenantId, ch, 'det_a');
    await s().enqueueDeliveries([row]);
    const [claimed, ...rest] = (await s().claimDeliveries(T0, 30_000, 100)).filter((d) => d.channelId === ch);
    assert.ok(claimed);
    assert.deepEqual(rest, []);
    assert.deepEqual(claimed, { ...row, id: claimed.id, state: 'pending', attempts: 1, leaseUntil: T0 + 30_000, lastError: null, doneAt: null });
    assert.deepEqual((await s().claimDeliveries(T0 + 29_999, 30_000, 100)).filter((d) => d.channelId === ch), [], 'leased');
    // The worker died between the post and the mark: the row is claimed again once the lease lapses.
    const again = (await s().claimDeliveries(T0 + 30_000, 30_000, 100)).filter((d) => d.channelId === ch);
    assert.deepEqual(again.map((d) => [d.id, d.attempts]), [[claimed.id, 2]]);
    await s().finishDelivery(claimed.id, 'sent', T0 + 31_000, null);
    assert.deepEqual((await s().claimDeliveries(T0 + 90_000, 30_000, 100)).filter((d) => d.channelId === ch), []);
    const last = await s().lastDelivery(ch);
    assert.deepEqual([last?.id, last?.state, last?.doneAt, last?.leaseUntil], [claimed.id, 'sent', T0 + 31_000, null]);
  });

  void it('outbox: a retry waits for its next attempt, and holds back later rows of its channel and detector only', async () => {
    const t = await tenantOf();
    const ch = `nch_${t.tenantId}`;
    const first = delivery(t.tenantId, ch, 'det_a');
    const resolve = delivery(t.tenantId, ch, 'det_a', { notices: [notice(t.tenantId, 'det_a', 'resolved')] });
    const otherDetector = delivery(t.tenantId, ch, 'det_b');
    await s().enqueueDeliveries([first, resolve, otherDetector]);
    const mine = async (at: number) => (await s().claimDeliveries(at, 30_000, 100)).filter((d) => d.channelId === ch);
    const claimed = await mine(T0);
    assert.deepEqual(claimed.map((d) => d.detectorId), ['det_a', 'det_b'], 'the resolve waits behind its firing');
    const [a, b] = claimed;
    assert.ok(a && b);
    await s().finishDelivery(b.id, 'sent', T0, null);
    await s().retryDelivery(a.id, T0 + 5000, 'HTTP 500');
    assert.deepEqual(await mine(T0 + 4999), [], 'neither the retry before its time nor the row behind it');
    const retried = await mine(T0 + 5000);
    assert.deepEqual(retried.map((d) => [d.id, d.attempts, d.lastError]), [[a.id, 2, 'HTTP 500']]);
    await s().finishDelivery(a.id, 'failed', T0 + 6000, 'gave up');
    const next = await mine(T0 + 6000);
    assert.deepEqual(next.map((d) => d.notices[0]?.status), ['resolved'], 'a failed row no longer holds the next back');
    assert.equal((await s().listDeliveries(ch, 10)).length, 3);
  });

  void it('outbox: rows roll back with the transaction that enqueued them', async () => {
    const t = await tenantOf();
    const ch = `nch_${t.tenantId}`;
    await assert.rejects(s().withAccountLock(t.accountId, async (store) => {
      await store.enqueueDeliveries([delivery(t.tenantId, ch, 'det_a')]);
      throw new Error('engine failed');
    }), /engine failed/);
    assert.deepEqual(await s().listDeliveries(ch, 10), []);
  });

  void it('outbox: concurrent claims never hand one row to two workers', async () => {
    const t = await tenantOf();
    const ch = `nch_${t.tenantId}`;
    await s().enqueueDeliveries(Array.from({ length: 12 }, (_, i) => delivery(t.tenantId, ch, `det_${i}`)));
    const claims = await Promise.all(Array.from({ length: 4 }, () => s().claimDeliveries(T0, 30_000, 5)));
    const ids = claims.flat().filter((d) => d.channelId === ch).map((d) => d.id);
    assert.equal(ids.length, 12);
    assert.equal(new Set(ids).size, 12);
  });

  void it('outbox: finished rows are deleted after their time, pending ones never', async () => {
    const t = await tenantOf();
    const ch = `nch_${t.tenantId}`;
    await s().enqueueDeliveries([delivery(t.tenantId, ch, 'det_a'), delivery(t.tenantId, ch, 'det_b')]);
    const [done] = (await s().claimDeliveries(T0, 30_000, 100)).filter((d) => d.channelId === ch);
    assert.ok(done);
    await s().finishDelivery(done.id, 'sent', T0 + 1000, null);
    assert.ok(await s().deleteFinishedDeliveries(T0 + 1001) >= 1);
    assert.deepEqual((await s().listDeliveries(ch, 10)).map((d) => d.state), ['pending']);
  });
}
