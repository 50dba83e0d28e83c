// The alert lifecycle as tables of evaluations (STYLE habit 9): each case is a series of evaluations of one
// detector with one group, and the state, notices and alert fields expected after each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredAlert } from '../../stores/control/detector-records.js';
import { advance, RESOLVED_KEPT_MS, retire, type GroupVerdict, type LifecycleRules, type Outcome } from './lifecycle.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2026, 0, 1);
const IDS = { detectorId: 'det_1', tenantId: 'ten_1' };
const FP = 'aaaaaaaaaaaaaaaa';

type Verdict = 'active' | 'quiet' | 'nodata' | 'absent' | 'error';
/** [minutes after T0, what the evaluation says, the state expected after it, notices enqueued by it]. */
type Row = [number, Verdict, string, string?];

const rules = (over: Partial<LifecycleRules> = {}): LifecycleRules => ({ forMs: 0, keepFiringForMs: 0, repeatIntervalMs: 4 * HOUR, ...over });

function outcome(v: Verdict, value: number): Outcome {
  const identity = { fingerprint: FP, labels: { alertname: 'x' }, annotations: { summary: `v=${value}` } };
  if (v === 'error') return { ok: false, reason: 'query rate spent', identity };
  if (v === 'absent') return { ok: true, groups: [] };
  const group: GroupVerdict = { ...identity, value: v === 'nodata' ? null : value, active: v === 'active', nodata: v === 'nodata' };
  return { ok: true, groups: [group] };
}

/** Runs the rows; returns the alert row after each. */
function run(r: LifecycleRules, rows: readonly Row[]): (StoredAlert | undefined)[] {
  let table = new Map<string, StoredAlert>();
  const after: (StoredAlert | undefined)[] = [];
  rows.forEach(([min, verdict, state, notices], i) => {
    const res = advance(IDS, r, [...table.values()], outcome(verdict, i), T0 + min * MIN);
    table = new Map(table);
    for (const fp of res.deletes) table.delete(fp);
    for (const a of res.upserts) table.set(a.fingerprint, a);
    const a = table.get(FP);
    assert.equal(a?.state ?? 'inactive', state, `row ${i} (${min} min, ${verdict}): state`);
    assert.equal(res.notices.map((n) => n.status).join(',') || undefined, notices, `row ${i} (${min} min, ${verdict}): notices`);
    for (const n of res.notices) assert.deepEqual(n.alert, a, 'a notice carries the row as stored');
    after.push(a);
  });
  return after;
}

void describe('alert lifecycle', () => {
  const cases: [string, LifecycleRules, Row[]][] = [
    ['for 0: the first active evaluation fires and notifies', rules(), [[0, 'active', 'firing', 'firing'], [1, 'active', 'firing']]],
    ['for 2m: pending, then firing once the condition has held 2 minutes', rules({ forMs: 2 * MIN }), [
      [0, 'active', 'pending'], [1, 'active', 'pending'], [2, 'active', 'firing', 'firing'], [3, 'active', 'firing'],
    ]],
    ['a pending alert whose condition stops is dropped, never notified', rules({ forMs: 5 * MIN }), [
      [0, 'active', 'pending'], [1, 'quiet', 'inactive'], [2, 'active', 'pending'],
    ]],
    ['firing then quiet: resolved at once, with one resolved notice', rules(), [
      [0, 'active', 'firing', 'firing'], [1, 'quiet', 'resolved', 'resolved'], [2, 'quiet', 'resolved'],
    ]],
    ['keep_firing_for 3m: stays firing until 3 minutes after the first quiet evaluation, then resolves', rules({ keepFiringForMs: 3 * MIN }), [
      [0, 'active', 'firing', 'firing'], [1, 'quiet', 'firing'], [2, 'quiet', 'firing'], [3, 'quiet', 'firing'],
      [4, 'quiet', 'resolved', 'resolved'],
    ]],
    ['keep_firing_for one interval rides out a single quiet evaluation', rules({ keepFiringForMs: MIN }), [
      [0, 'active', 'firing', 'firing'], [1, 'quiet', 'firing'], [2, 'active', 'firing'], [3, 'quiet', 'firing'], [4, 'quiet', 'resolved', 'resolved'],
    ]],
    ['a value hovering at the bound with for 2m never fires (each dip restarts pending)', rules({ forMs: 2 * MIN }),
      Array.from({ length: 10 }, (_, i): Row => (i % 2 === 0 ? [i, 'active', 'pending'] : [i, 'quiet', 'inactive']))],
    ['a value hovering at the bound once firing, with keep_firing_for 2m, stays firing: one notice', rules({ keepFiringForMs: 2 * MIN }), [
      [0, 'active', 'firing', 'firing'],
      ...Array.from({ length: 9 }, (_, i): Row => [i + 1, i % 2 === 0 ? 'quiet' : 'active', 'firing']),
    ]],
    ['repeat_interval 4h: a still-firing alert is notified again every 4 hours', rules(), [
      [0, 'active', 'firing', 'firing'], [60, 'active', 'firing'], [239, 'active', 'firing'], [240, 'active', 'firing', 'firing'],
      [300, 'active', 'firing'], [480, 'active', 'firing', 'firing'],
    ]],
    ['no data keeps a firing alert firing (and re-sent); from quiet it is nodata, never notified', rules(), [
      [0, 'active', 'firing', 'firing'], [1, 'nodata', 'firing'], [240, 'nodata', 'firing', 'firing'], [241, 'quiet', 'resolved', 'resolved'],
      [242, 'nodata', 'nodata'], [243, 'nodata', 'nodata'], [244, 'quiet', 'inactive'], [245, 'nodata', 'nodata'], [246, 'active', 'firing', 'firing'],
    ]],
    ['an error on a firing alert: state error, re-sent per repeat_interval, never resolved by the error', rules(), [
      [0, 'active', 'firing', 'firing'], [1, 'error', 'error'], [120, 'error', 'error'], [240, 'error', 'error', 'firing'],
      [241, 'active', 'firing'], [242, 'quiet', 'resolved', 'resolved'],
    ]],
    ['an error on a pending alert keeps its start: it fires when `for` has passed since the condition first held', rules({ forMs: 3 * MIN }), [
      [0, 'active', 'pending'], [1, 'error', 'error'], [2, 'error', 'error'], [3, 'active', 'firing', 'firing'],
    ]],
    ['an error with no alert shows a detector-level error alert; the next good evaluation clears it', rules(), [
      [0, 'error', 'error'], [1, 'error', 'error'], [2, 'quiet', 'inactive'],
    ]],
    ['an error after a resolve keeps the resolved alert and shows the error; recovery restores resolved', rules(), [
      [0, 'active', 'firing', 'firing'], [1, 'quiet', 'resolved', 'resolved'], [2, 'error', 'error'], [3, 'quiet', 'resolved'],
    ]],
    ['a group that disappears from the result counts as quiet', rules({ keepFiringForMs: MIN }), [
      [0, 'active', 'firing', 'firing'], [1, 'absent', 'firing'], [2, 'absent', 'resolved', 'resolved'], [3, 'absent', 'resolved'],
    ]],
  ];
  for (const [name, r, rows] of cases) void it(name, () => { run(r, rows); });

  void it('times: startsAt is when the condition first held, firedAt when it fired, endsAt when it resolved', () => {
    const [p, , f, resolved, again] = run(rules({ forMs: 2 * MIN }), [
      [0, 'active', 'pending'], [1, 'active', 'pending'], [2, 'active', 'firing', 'firing'], [3, 'quiet', 'resolved', 'resolved'],
      [10, 'active', 'pending'],
    ]);
    assert.deepEqual([p?.activeAt, p?.firedAt, p?.endsAt], [T0, null, null]);
    assert.deepEqual([f?.activeAt, f?.firedAt, f?.lastSentAt, f?.sentCount], [T0, T0 + 2 * MIN, T0 + 2 * MIN, 1]);
    assert.deepEqual([resolved?.endsAt, resolved?.lastSentStatus, resolved?.sentCount, resolved?.lastActiveAt], [T0 + 3 * MIN, 'resolved', 2, T0 + 2 * MIN]);
    assert.deepEqual([again?.activeAt, again?.firedAt, again?.endsAt], [T0 + 10 * MIN, null, null], 'a new episode starts afresh');
  });

  void it('an error alert keeps the state it acts on and says why', () => {
    const [, e] = run(rules(), [[0, 'active', 'firing', 'firing'], [1, 'error', 'error']]);
    assert.deepEqual([e?.priorState, e?.reason, e?.firedAt, e?.endsAt], ['firing', 'query rate spent', T0, null]);
  });

  void it('a resolved alert is listed for a day, then deleted', () => {
    const kept = RESOLVED_KEPT_MS / MIN;
    run(rules(), [[0, 'active', 'firing', 'firing'], [1, 'quiet', 'resolved', 'resolved'], [kept, 'quiet', 'resolved'], [kept + 1, 'quiet', 'inactive']]);
  });

  void it('transitions name each change of shown state; annotations and value follow the latest evaluation', () => {
    const group = (value: number, active: boolean): Outcome =>
      ({ ok: true, groups: [{ fingerprint: FP, labels: { a: '1' }, annotations: { summary: `v=${value}` }, value, active, nodata: false }] });
    const r = rules({ forMs: MIN });
    const first = advance(IDS, r, [], group(5, true), T0);
    assert.deepEqual(first.transitions, [{ fingerprint: FP, labels: { a: '1' }, from: 'inactive', to: 'pending', atMs: T0, value: 5 }]);
    const second = advance(IDS, r, first.upserts, group(7, true), T0 + MIN);
    assert.deepEqual(second.transitions.map((t) => [t.from, t.to, t.value]), [['pending', 'firing', 7]]);
    assert.deepEqual(second.upserts[0]?.annotations, { summary: 'v=7' });
    const third = advance(IDS, r, second.upserts, group(8, true), T0 + 2 * MIN);
    assert.deepEqual(third.transitions, []);
    assert.equal(third.upserts[0]?.value, 8);
  });

  void it('an unchanged resolved alert is not rewritten; two groups with one fingerprint count once', () => {
    const res = advance(IDS, rules(), [], { ok: true, groups: [
      { fingerprint: FP, labels: {}, annotations: {}, value: 1, active: true, nodata: false },
      { fingerprint: FP, labels: {}, annotations: {}, value: 2, active: false, nodata: false },
    ] }, T0);
    assert.equal(res.upserts.length, 1);
    assert.equal(res.upserts[0]?.value, 1);
    const [first] = res.upserts;
    assert.ok(first);
    const resolved: StoredAlert = { ...first, state: 'resolved', endsAt: T0 };
    assert.deepEqual(advance(IDS, rules(), [resolved], { ok: true, groups: [] }, T0 + MIN), { upserts: [], deletes: [], notices: [], transitions: [] });
  });

  void it('retiring a detector resolves its firing alerts (also firing under an error) with a notice, drops the rest', () => {
    const base = advance(IDS, rules(), [], outcome('active', 1), T0).upserts[0];
    assert.ok(base);
    const alerts: StoredAlert[] = [
      base,
      { ...base, fingerprint: 'b', state: 'error', priorState: 'firing' },
      { ...base, fingerprint: 'c', state: 'pending', firedAt: null },
      { ...base, fingerprint: 'd', state: 'resolved', endsAt: T0 },
    ];
    const r = retire(alerts, 'detector deleted', T0 + MIN);
    assert.deepEqual(r.notices.map((n) => [n.alert.fingerprint, n.status, n.alert.state, n.alert.endsAt, n.alert.reason]), [
      [FP, 'resolved', 'resolved', T0 + MIN, 'detector deleted'], ['b', 'resolved', 'resolved', T0 + MIN, 'detector deleted'],
    ]);
    assert.deepEqual(r.deletes, ['c']);
    assert.deepEqual(r.transitions.map((t) => [t.fingerprint, t.from, t.to]), [[FP, 'firing', 'resolved'], ['b', 'error', 'resolved'], ['c', 'pending', 'inactive']]);
  });
});
