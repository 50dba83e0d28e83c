// new_log_pattern end to end: a day of baseline lines from five templates, then windows. A sixth template fires once
// it reaches min_count, per group; known templates never do; a template unseen for days is not "new" when it comes
// back (the Loki LRU case); the state survives a JSON round trip (the control store) and, when full, keeps the
// oldest-seen templates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KINDS } from './index.js';
import type { DetectorKind, EvaluateResult, KindState } from '../model.js';
import { MemoryDetectorData, type MemoryLog } from '../testing/memory-data.js';
import { activeLabels, evaluateAt } from '../testing/evaluate.js';
import { DAY, HOUR, MIN, pick, rng } from '../testing/generate.js';

const kind = KINDS.get('new_log_pattern') as DetectorKind;
const END = Date.UTC(2024, 0, 10, 12);
const r = rng(99);
const n = (max: number): number => Math.floor(r() * max);

const TEMPLATES: readonly (() => string)[] = [
  () => `user ${pick(r, ['alice', 'bob', 'carol'])} logged in from 10.0.${n(255)}.${n(255)}`,
  () => `GET /api/orders/${n(99999)} returned 200 in ${n(900)}ms`,
  () => `connection to ${pick(r, ['db-1.internal', 'db-2.internal'])} failed: ${pick(r, ['timeout', 'refused'])}`,
  () => `cache miss for key ${n(1e9).toString(16)}ab12`,
  () => `job ${n(1e6)} finished with ${n(5000)} items`,
];
const panic = (): string => `panic: nil map write in ${pick(r, ['handleOrder', 'applyCoupon'])}`;

function lines(from: number, to: number, every: number, make: (i: number) => string, service = 'checkout'): MemoryLog[] {
  const out: MemoryLog[] = [];
  for (let t = from, i = 0; t < to; t += every, i++) out.push({ timeMs: t, msg: make(i), fields: { service } });
  return out;
}

const baseline = (): MemoryLog[] => lines(END - DAY - 5 * MIN, END - 5 * MIN, 20_000, (i) => (TEMPLATES[i % 5] ?? panic)());
const json = (s: KindState | undefined): KindState => JSON.parse(JSON.stringify(s ?? {})) as KindState;
const templatesOf = (res: EvaluateResult): string[] => ((res.state?.templates ?? []) as { t: string }[]).map((e) => e.t);

void test('a day of five templates is the baseline; the same five in the window report nothing', async () => {
  const data = new MemoryDetectorData().addLogs([...baseline(), ...lines(END - 5 * MIN, END, 1000, (i) => (TEMPLATES[i % 5] ?? panic)())]);
  const res = await evaluateAt(kind, {}, data, END);
  assert.deepEqual(res.observations, []);
  assert.equal(templatesOf(res).length, 5);
  assert.equal(data.calls.filter((c) => c.method === 'logLines').length, 25, '24 hourly slices of the baseline, then the window');
});

void test('a sixth template fires at min_count, carries a stable pattern id, and resolves after new_for', async () => {
  const data = new MemoryDetectorData().addLogs([
    ...baseline(), ...lines(END - 5 * MIN, END, 1000, (i) => (TEMPLATES[i % 5] ?? panic)()),
    ...lines(END - 4 * MIN, END - 3 * MIN, 20_000, panic), // 3 in the first window
    ...lines(END + MIN, END + 3 * MIN, 20_000, panic), // 6 more in the next
  ]);
  const first = await evaluateAt(kind, {}, data, END);
  assert.equal(first.observations.length, 1);
  assert.equal(first.observations[0]?.active, false, 'three occurrences are under min_count 5');
  assert.match(first.observations[0].summary ?? '', /^new log pattern "panic: nil map write in <\*>": 3 times since /);
  const second = await evaluateAt(kind, {}, data, END + 5 * MIN, { state: json(first.state) });
  assert.equal(second.observations[0]?.active, true);
  assert.equal(second.observations[0].value, 9);
  assert.equal(second.observations[0].labels.pattern_id, first.observations[0].labels.pattern_id);
  const later = await evaluateAt(kind, {}, data, END + 2 * HOUR, { state: json(second.state) });
  assert.deepEqual(later.observations, [], 'an hour after its first occurrence it is no longer new');
});

void test('a template not seen for days is not new when it comes back: first-seen is kept, not an LRU', async () => {
  const data = new MemoryDetectorData().addLogs([...baseline(), ...lines(END - 5 * MIN, END, 1000, (i) => (TEMPLATES[i % 4] ?? panic)())]);
  let state = json((await evaluateAt(kind, {}, data, END)).state);
  // Three days of windows where only templates 0–3 occur; template 4 (the job line) is absent throughout.
  for (let at = END + 6 * HOUR; at < END + 3 * DAY; at += 6 * HOUR) {
    data.addLogs(lines(at - 5 * MIN, at, 1000, (i) => (TEMPLATES[i % 4] ?? panic)()));
    const res = await evaluateAt(kind, {}, data, at, { state });
    assert.deepEqual(res.observations, []);
    state = json(res.state);
  }
  const back = END + 3 * DAY + MIN;
  data.addLogs(lines(back - 5 * MIN, back, 10_000, () => (TEMPLATES[4] ?? panic)()));
  assert.deepEqual((await evaluateAt(kind, {}, data, back, { state })).observations, []);
});

void test('templates are mined per group: the same new line in two services is two alerts', async () => {
  const data = new MemoryDetectorData().addLogs([
    ...baseline(), ...baseline().map((e) => ({ ...e, fields: { service: 'cart' } })),
    ...lines(END - 5 * MIN, END, 10_000, panic, 'checkout'), ...lines(END - 5 * MIN, END, 10_000, panic, 'cart'),
  ]);
  const res = await evaluateAt(kind, { group_by: ['service'] }, data, END);
  assert.deepEqual(res.observations.filter((o) => o.active).map((o) => o.labels.service).sort(), ['cart', 'checkout']);
});

void test('a full state keeps the oldest-seen templates; the newest overflow is counted and reported again', async () => {
  // Four equal tokens per line: two words share one token in five, far under the similarity threshold.
  const word = (i: number): string => `k${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
  const line = (w: string): string => `${w} ${w} ${w} ${w} happened`;
  const data = new MemoryDetectorData().addLogs([
    ...lines(END - DAY, END - HOUR, 60_000, (i) => line(word(i % 100))),
    ...lines(END - 5 * MIN, END, 5_000, (i) => line(word(100 + (i % 50)))),
  ]);
  const raw = { max_templates: 100, min_count: 1 };
  const first = await evaluateAt(kind, raw, data, END);
  assert.equal(first.observations.filter((o) => o.active).length, 50);
  assert.deepEqual(templatesOf(first).sort(), Array.from({ length: 100 }, (_, i) => line(word(i))).sort(), 'the state holds the baseline');
  assert.equal((first.state as { dropped?: number }).dropped, 50);
  data.addLogs(lines(END, END + 5 * MIN, 5_000, (i) => line(word(i % 2 === 0 ? i % 100 : 100 + (i % 10)))));
  const second = await evaluateAt(kind, raw, data, END + 5 * MIN, { state: json(first.state) });
  assert.deepEqual(second.observations.map((o) => /"(.*)"/.exec(o.summary ?? '')?.[1]).sort(), Array.from({ length: 5 }, (_, i) => line(word(101 + 2 * i))).sort(),
    'the baseline is still known; the forgotten newest are new again');
});

void test('no entries at all: nothing to report, and the state is still primed', async () => {
  const res = await evaluateAt(kind, { query: 'service:none' }, new MemoryDetectorData(), END);
  assert.deepEqual(res.observations, []);
  assert.equal((res.state as { primed_ms?: number }).primed_ms, END - 5 * MIN);
  assert.deepEqual(activeLabels(res), []);
});
