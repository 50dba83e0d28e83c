// absence end to end: it fires on a gap only once the whole window has passed without data (half-open windows);
// per group, only the group that stopped; a group gone before the lookback is forgotten; PromQL series go absent
// five minutes (the lookback delta) after their last sample, as Prometheus' `absent()` sees them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KINDS } from './index.js';
import type { DetectorKind } from '../model.js';
import { MemoryDetectorData, type MemoryLog } from '../testing/memory-data.js';
import { activeLabels, evaluateAt } from '../testing/evaluate.js';
import { HOUR, MIN } from '../testing/generate.js';

const absence = KINDS.get('absence') as DetectorKind;
const T = Date.UTC(2024, 0, 10, 12);

/** An entry every 30 s for `host` over [from, to]. */
function heartbeat(host: string, from: number, to: number): MemoryLog[] {
  const out: MemoryLog[] = [];
  for (let t = from; t <= to; t += 30_000) out.push({ timeMs: t, msg: 'heartbeat', fields: { service: 'agent', 'host.name': host } });
  return out;
}

void test('a gap fires only after a whole window without data: quiet at the last entry + 5 m, active 1 ms later', async () => {
  const data = new MemoryDetectorData().addLogs(heartbeat('a', T - HOUR, T));
  const at = async (end: number) => (await evaluateAt(absence, { query: 'service:agent' }, data, end)).observations[0];
  assert.equal((await at(T + 2 * MIN))?.active, false);
  assert.equal((await at(T + 5 * MIN))?.active, false, 'the window [T, T+5m) still holds the entry at T');
  const fired = await at(T + 5 * MIN + 1);
  assert.equal(fired?.nodata, undefined, 'absence is the condition, not no-data');
  assert.deepEqual(fired, { labels: {}, value: 0, active: true, summary: 'no data for 5m' });
});

void test('per host: only the host that stopped is absent; one gone before the lookback is not reported', async () => {
  const data = new MemoryDetectorData().addLogs([
    ...heartbeat('a', T - HOUR, T + 20 * MIN), ...heartbeat('b', T - HOUR, T), ...heartbeat('old', T - 5 * HOUR, T - 3 * HOUR),
  ]);
  const r = await evaluateAt(absence, { query: 'service:agent', group_by: ['host.name'] }, data, T + 10 * MIN);
  assert.deepEqual(activeLabels(r), ['host.name=b']);
  assert.deepEqual(r.observations.map((o) => o.labels['host.name']).sort(), ['a', 'b']);
  assert.match(r.observations.find((o) => o.active)?.summary ?? '', /no data for 5m \(had \d+ in the 1h before\)/);
});

void test('PromQL: a target that stops reporting is absent once the lookback delta and the window have passed', async () => {
  const scrape = (from: number, to: number): [number, number][] => {
    const out: [number, number][] = [];
    for (let t = from; t <= to; t += 15_000) out.push([t, 1]);
    return out;
  };
  const data = new MemoryDetectorData()
    .addSeries('up', { job: 'api', instance: 'a:9100' }, scrape(T - HOUR, T + HOUR))
    .addSeries('up', { job: 'api', instance: 'b:9100' }, scrape(T - HOUR, T));
  const raw = { expr: 'up{job="api"}' };
  assert.deepEqual(activeLabels(await evaluateAt(absence, raw, data, T + 8 * MIN)), [], 'instants still see b until T + 5m');
  const r = await evaluateAt(absence, raw, data, T + 11 * MIN);
  assert.deepEqual(activeLabels(r), ['instance=b:9100,job=api']);
  assert.match(r.observations.find((o) => o.active)?.summary ?? '', /last at /);
  const none = await evaluateAt(absence, { expr: 'up{job="never"}' }, data, T);
  assert.deepEqual(activeLabels(none), ['']);
});
