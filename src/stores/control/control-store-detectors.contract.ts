// The part of the control-store contract that detectors and alerts need (DESIGN §8): definitions, evaluation
// state, alert rows, and the detector lock that makes an evaluation's alert updates and its notices one
// transaction. Registered by control-store.contract.ts inside its suite, so it runs on every backend.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ControlStore } from './control-store.js';
import type { NewDetector, StoredAlert } from './detector-records.js';

const T0 = Date.UTC(2026, 0, 1);

export function detectorsContract(s: () => ControlStore, tenantOf: () => Promise<{ accountId: string; tenantId: string }>): void {
  const newDetector = (tenant: { accountId: string; tenantId: string }, over: Partial<NewDetector> = {}): NewDetector => ({
    tenantId: tenant.tenantId, accountId: tenant.accountId, name: 'Errors high', kind: 'log_threshold',
    params: { query: 'error', op: '>', threshold: 10, nested: { by: ['service'] } }, windowS: 300, intervalS: 60,
    forS: 120, keepFiringForS: 0, labels: { team: 'pay' }, annotations: { summary: '{{ $value }} errors' },
    channelIds: ['ch_1', 'ch_2'], repeatIntervalS: 14_400, enabled: true, ...over,
  });
  const alert = (detectorId: string, tenantId: string, over: Partial<StoredAlert> = {}): StoredAlert => ({
    detectorId, fingerprint: '0123456789abcdef', tenantId, state: 'pending', priorState: null,
    labels: { alertname: 'Errors high', service: 'api' }, annotations: { summary: '12 errors' }, value: 12.5,
    activeAt: T0, firedAt: null, endsAt: null, lastActiveAt: T0, keepFiringSince: null, lastEvalAt: T0, lastSentAt: null, lastSentStatus: null,
    sentCount: 0, reason: null, ...over,
  });

  void it('detectors: one reads back as created under a det_ id, lists per tenant, updates and deletes', async () => {
    const t = await tenantOf();
    const other = await tenantOf();
    const d = await s().createDetector(newDetector(t));
    assert.match(d.id, /^det_[0-9a-f]{24}$/);
    assert.deepEqual({ ...d, id: '', createdAt: 0, updatedAt: 0 }, { ...newDetector(t), id: '', createdAt: 0, updatedAt: 0 });
    assert.equal(d.createdAt, d.updatedAt);
    assert.deepEqual(await s().getDetector(d.id), d);
    await s().createDetector(newDetector(other, { name: 'elsewhere' }));
    assert.deepEqual((await s().listDetectors(t.tenantId)).map((x) => x.id), [d.id]);

    const u = await s().updateDetector(d.id, { name: 'renamed', params: { query: '*' }, channelIds: [], enabled: false, forS: 0 });
    assert.ok(u);
    assert.deepEqual([u.name, u.params, u.channelIds, u.enabled, u.forS, u.windowS], ['renamed', { query: '*' }, [], false, 0, 300]);
    assert.equal(await s().updateDetector('det_missing', { name: 'x' }), null);
    assert.equal(await s().deleteDetector(d.id), true);
    assert.equal(await s().deleteDetector(d.id), false);
    assert.equal(await s().getDetector(d.id), null);
  });

  void it('listEnabledDetectors leaves out disabled detectors and those of disabled tenants', async () => {
    const t = await tenantOf();
    const on = await s().createDetector(newDetector(t));
    const off = await s().createDetector(newDetector(t, { enabled: false }));
    const quiet = await tenantOf();
    const ofDisabled = await s().createDetector(newDetector(quiet));
    await s().setTenantDisabled(quiet.tenantId, true);
    const ids = new Set((await s().listEnabledDetectors()).map((d) => d.id));
    assert.ok(ids.has(on.id));
    assert.ok(!ids.has(off.id));
    assert.ok(!ids.has(ofDisabled.id));
  });

  void it('run state: kind state as JSON, last evaluation and error; replaced on save', async () => {
    const t = await tenantOf();
    const d = await s().createDetector(newDetector(t));
    assert.equal(await s().getDetectorRunState(d.id), null);
    const first = { detectorId: d.id, kindState: { seen: ['a <*>'], n: 3 }, lastEvalAt: T0, lastError: null, lastDurationMs: 12.5 };
    await s().saveDetectorRunState(first);
    assert.deepEqual(await s().getDetectorRunState(d.id), first);
    const second = { ...first, lastEvalAt: T0 + 60_000, lastError: 'query rate spent' };
    await s().saveDetectorRunState(second);
    assert.deepEqual(await s().getDetectorRunState(d.id), second);
    assert.deepEqual(await s().listDetectorRunStates(t.tenantId), [second]);
  });

  void it('alerts: upserted in one call, filtered by state, detector and fingerprint; gone with their detector', async () => {
    const t = await tenantOf();
    const d = await s().createDetector(newDetector(t));
    const a = alert(d.id, t.tenantId);
    const b = alert(d.id, t.tenantId, {
      fingerprint: 'fedcba9876543210', state: 'firing', firedAt: T0 + 60_000, keepFiringSince: T0 + 120_000, lastSentAt: T0 + 60_000,
      lastSentStatus: 'firing', sentCount: 1, labels: { alertname: 'Errors high', service: 'web' }, value: null, lastEvalAt: T0 + 60_000,
    });
    await s().upsertAlerts([a, b]);
    assert.deepEqual(await s().listAlerts(t.tenantId), [b, a], 'newest evaluation first');
    assert.deepEqual(await s().listAlerts(t.tenantId, { states: ['firing'] }), [b]);
    assert.deepEqual(await s().listAlerts(t.tenantId, { states: ['firing', 'pending'], fingerprint: a.fingerprint }), [a]);
    assert.deepEqual(await s().listAlerts(t.tenantId, { detectorId: 'det_other' }), []);
    assert.deepEqual(await s().listAlerts((await tenantOf()).tenantId), [], 'another tenant sees none');

    const errored = { ...a, state: 'error' as const, priorState: 'pending' as const, reason: 'query rate spent', value: Number.NaN };
    await s().upsertAlerts([errored]);
    assert.deepEqual(await s().listAlerts(t.tenantId, { fingerprint: a.fingerprint }), [{ ...errored, value: null }], 'NaN is stored as null');
    await s().deleteAlerts(d.id, [b.fingerprint]);
    assert.deepEqual((await s().listAlerts(t.tenantId)).map((x) => x.fingerprint), [a.fingerprint]);
    await s().saveDetectorRunState({ detectorId: d.id, kindState: {}, lastEvalAt: T0, lastError: null, lastDurationMs: null });
    await s().deleteDetector(d.id);
    assert.deepEqual(await s().listAlerts(t.tenantId), []);
    assert.equal(await s().getDetectorRunState(d.id), null);
  });

  void it('withDetectorLock: one transaction with the row locked; rolled back when fn throws; null when gone', async () => {
    const t = await tenantOf();
    const d = await s().createDetector(newDetector(t));
    // Concurrent read-modify-writes of one counter under the lock lose no update.
    await Promise.all(Array.from({ length: 6 }, () => s().withDetectorLock(d.id, async (store, locked) => {
      assert.equal(locked.id, d.id);
      const current = (await store.getDetectorRunState(d.id))?.kindState.n;
      const n = typeof current === 'number' ? current : 0;
      await store.saveDetectorRunState({ detectorId: d.id, kindState: { n: n + 1 }, lastEvalAt: T0, lastError: null, lastDurationMs: null });
    })));
    assert.deepEqual((await s().getDetectorRunState(d.id))?.kindState, { n: 6 });

    await assert.rejects(s().withDetectorLock(d.id, async (store) => {
      await store.upsertAlerts([alert(d.id, t.tenantId)]);
      throw new Error('notifier refused');
    }), /notifier refused/);
    assert.deepEqual(await s().listAlerts(t.tenantId), [], 'the alert row went with the failed transaction');
    assert.equal(await s().withDetectorLock('det_missing', () => Promise.resolve('ran')), null);
  });
}
