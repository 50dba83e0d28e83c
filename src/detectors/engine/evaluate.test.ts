// One detector evaluated and recorded over a real control store (PGlite in memory) with the real log_threshold kind
// and the kinds' data double: the lifecycle lands in the store, notices go to the notifier inside the transaction
// that records them (and a notifier failure rolls the evaluation back), a second evaluation at the same instant is
// skipped, and a deferred evaluation keeps a firing alert firing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../clock.js';
import type { ControlStore } from '../../stores/control/control-store.js';
import type { Detector } from '../../stores/control/detector-records.js';
import { migrate } from '../../stores/control/migrations.js';
import { openPglite } from '../../stores/control/pglite-driver.js';
import { SqlControlStore } from '../../stores/control/sql-control-store.js';
import { KINDS } from '../kinds/index.js';
import type { DetectorData } from '../model.js';
import type { AlertNotice, Notifier } from '../notify-model.js';
import { MemoryDetectorData, type MemoryLog } from '../testing/memory-data.js';
import { EvaluationDeferred } from './data.js';
import { evaluateDetector, type EvaluatorDeps } from './evaluate.js';
import { EngineMetrics } from './metrics.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 5, 12);

/** Records what it is given, and on which store; fails when told to. */
class RecordingNotifier implements Notifier {
  readonly batches: { store: ControlStore; notices: readonly AlertNotice[] }[] = [];
  failNext = false;
  enqueue(store: ControlStore, notices: readonly AlertNotice[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('outbox unavailable'));
    }
    this.batches.push({ store, notices });
    return Promise.resolve();
  }
  get statuses(): string[] {
    return this.batches.flatMap((b) => b.notices.map((n) => n.status));
  }
}

const errors = (n: number, from: number): MemoryLog[] =>
  Array.from({ length: n }, (_, i) => ({ timeMs: from + i * 1000, msg: 'payment failed', fields: { service: 'api' } }));

void describe('evaluateDetector', () => {
  let control: SqlControlStore | undefined;
  const store = (): SqlControlStore => {
    if (!control) throw new Error('no store');
    return control;
  };
  const notifier = new RecordingNotifier();
  let data: DetectorData = new MemoryDetectorData();
  const deps = (): EvaluatorDeps => ({
    control: store(), kinds: KINDS, notifier, dataFor: () => Promise.resolve(data), clock: new ManualClock(),
    generatorUrl: (d, fp) => `http://app/alerts/${d.id}/${fp}`, metrics: new EngineMetrics(),
  });
  let detector: Detector | undefined;
  const det = (): Detector => {
    if (!detector) throw new Error('no detector');
    return detector;
  };

  before(async () => {
    const db = await openPglite(undefined);
    await migrate(db);
    control = new SqlControlStore(db, new ManualClock(T0));
    const a = await control.createAccount({ name: 'a', tier: 'team', signupAt: T0, trialEndsAt: null });
    const t = await control.createTenant({ accountId: a.id, name: 't' });
    detector = await control.createDetector({
      tenantId: t.id, accountId: a.id, name: 'Payments failing', kind: 'log_threshold',
      params: { query: 'failed', group_by: ['service'], threshold: 5 }, windowS: 300, intervalS: 60, forS: 120,
      keepFiringForS: 0, labels: { team: 'pay' }, annotations: { summary: '{{ $value }} failures on {{ $labels.service }}' },
      channelIds: ['ch_1'], repeatIntervalS: 3600, enabled: true,
    });
  });
  after(async () => { await control?.close(); });

  void it('pending → firing after `for`, recorded with the notice handed over in the same transaction', async () => {
    data = new MemoryDetectorData().addLogs(errors(20, T0 - 4 * MIN));
    const r1 = await evaluateDetector(deps(), det(), T0);
    assert.deepEqual([r1.outcome, r1.pending, r1.firing], ['ok', 1, 0]);
    assert.equal((await store().listAlerts(det().tenantId))[0]?.state, 'pending');
    data = new MemoryDetectorData().addLogs(errors(20, T0 - 2 * MIN));
    const r2 = await evaluateDetector(deps(), det(), T0 + 2 * MIN);
    assert.deepEqual([r2.firing, r2.notices], [1, { firing: 1, resolved: 0 }]);
    const [batch] = notifier.batches;
    assert.ok(batch);
    assert.notEqual(batch.store, store(), 'enqueued on the transaction-bound store');
    const [notice] = batch.notices;
    assert.ok(notice);
    assert.deepEqual({ ...notice, alert: { ...notice.alert, fingerprint: '' } }, {
      tenantId: det().tenantId, detectorId: det().id, channelIds: ['ch_1'], status: 'firing',
      generatorUrl: `http://app/alerts/${det().id}/${notice.alert.fingerprint}`,
      alert: {
        fingerprint: '', detectorId: det().id, tenantId: det().tenantId, state: 'firing',
        labels: { alertname: 'Payments failing', detector: det().id, service: 'api', team: 'pay', tenant: det().tenantId },
        annotations: { summary: '20 failures on api' }, startsAtMs: T0 + 2 * MIN, endsAtMs: null, value: 20,
      },
    });
    const [stored] = await store().listAlerts(det().tenantId);
    assert.deepEqual([stored?.state, stored?.lastSentAt, stored?.sentCount, stored?.activeAt], ['firing', T0 + 2 * MIN, 1, T0]);
    const run = await store().getDetectorRunState(det().id);
    assert.deepEqual([run?.lastEvalAt, run?.lastError], [T0 + 2 * MIN, null]);
  });

  void it('a second evaluation at the same instant (or earlier) is skipped: nothing twice', async () => {
    const again = await evaluateDetector(deps(), det(), T0 + 2 * MIN);
    assert.equal(again.skipped, true);
    const both = await Promise.all([evaluateDetector(deps(), det(), T0 + 3 * MIN), evaluateDetector(deps(), det(), T0 + 3 * MIN)]);
    assert.deepEqual(both.map((r) => r.skipped).sort(), [false, true]);
    assert.equal(notifier.statuses.length, 1);
  });

  void it('deferred (query rate spent): error with the reason, still firing underneath, re-sent per repeat_interval, never resolved', async () => {
    const spent = new MemoryDetectorData();
    spent.logStats = () => Promise.reject(new EvaluationDeferred(30, 300));
    data = spent;
    const r = await evaluateDetector(deps(), det(), T0 + 4 * MIN);
    assert.deepEqual([r.outcome, r.retryAfterMs, r.resolved], ['deferred', 30_000, 0]);
    const [a] = await store().listAlerts(det().tenantId);
    assert.deepEqual([a?.state, a?.priorState, a?.reason], ['error', 'firing', r.error]);
    assert.match(r.error ?? '', /query rate \(300\/min\) is spent/);
    assert.match((await store().getDetectorRunState(det().id))?.lastError ?? '', /query rate/);
    await evaluateDetector(deps(), det(), T0 + 2 * MIN + 3600_000);
    assert.deepEqual(notifier.statuses, ['firing', 'firing'], 'the last known state is re-sent after repeat_interval');
  });

  void it('a notifier failure rolls the evaluation back; the next one hands the notice over (at least once)', async () => {
    data = new MemoryDetectorData();
    notifier.failNext = true;
    const at = T0 + 2 * MIN + 3601_000;
    await assert.rejects(evaluateDetector(deps(), det(), at), /outbox unavailable/);
    const [a] = await store().listAlerts(det().tenantId);
    assert.equal(a?.state, 'error', 'nothing of the failed evaluation was recorded');
    const r = await evaluateDetector(deps(), det(), at + 1000);
    assert.deepEqual([r.outcome, r.resolved], ['ok', 1]);
    assert.deepEqual(notifier.statuses, ['firing', 'firing', 'resolved']);
    const after = await store().listAlerts(det().tenantId);
    assert.equal(after.find((x) => x.labels.service === 'api')?.state, 'resolved');
    assert.equal(after.find((x) => x.labels.service === undefined)?.state, 'nodata', 'the grouped query gave no rows at all');
  });

  void it('an evaluation of a definition changed meanwhile (a stale copy) is not recorded', async () => {
    const stale = { ...det(), updatedAt: det().updatedAt - 1 };
    assert.equal((await evaluateDetector(deps(), stale, T0 + 5 * 3600_000)).skipped, true);
    assert.equal((await evaluateDetector(deps(), det(), T0 + 5 * 3600_000)).skipped, false);
  });

  void it('a disabled or deleted detector is not evaluated', async () => {
    await store().updateDetector(det().id, { enabled: false });
    assert.equal((await evaluateDetector(deps(), det(), T0 + 10 * 3600_000)).skipped, true);
    await store().deleteDetector(det().id);
    assert.equal((await evaluateDetector(deps(), det(), T0 + 11 * 3600_000)).skipped, true);
  });
});
