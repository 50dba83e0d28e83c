// error_ratio end to end, for a 99.9% SLO with the workbook's paging pairs: request logs per service (LogsQL) and
// request counters per service and code (PromQL through the real engine). A fast burn pages through the 1 h pair for
// the burning service only; a slow burn only through the 6 h pair; a blip and a quiet service stay quiet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KINDS } from './index.js';
import type { DetectorKind } from '../model.js';
import { MemoryDetectorData, type MemoryLog } from '../testing/memory-data.js';
import { activeLabels, evaluateAt } from '../testing/evaluate.js';
import { HOUR, MIN, rng } from '../testing/generate.js';

const errorRatio = KINDS.get('error_ratio') as DetectorKind;
const END = Date.UTC(2024, 0, 10, 12);

/** 120 requests a minute per service over the 7 h before END (+10 min), each failing with `ratio(service, t)`. */
function requestLogs(ratio: (service: string, t: number) => number): MemoryLog[] {
  const r = rng(17);
  const out: MemoryLog[] = [];
  for (let t = END - 7 * HOUR; t < END + 10 * MIN; t += 500) {
    for (const service of ['api', 'web']) {
      const failed = r() < ratio(service, t);
      out.push({ timeMs: t, msg: `GET /x ${failed ? 503 : 200}`, fields: { service, status: failed ? '503' : '200' } });
    }
  }
  return out;
}

const LOGS_RAW = { errors_query: 'status:>=500', total_query: '*', group_by: ['service'] };

void test('LogsQL: api burning at 3% (30×) for the last hour pages through the 1 h pair; web at 0.02% does not', async () => {
  const data = new MemoryDetectorData().addLogs(requestLogs((s, t) => (s === 'api' && t >= END - HOUR ? 0.03 : 0.0002)));
  const r = await evaluateAt(errorRatio, LOGS_RAW, data, END);
  assert.deepEqual(activeLabels(r), ['service=api']);
  const api = r.observations.find((o) => o.labels.service === 'api');
  assert.match(api?.summary ?? '', /^burn \d+(\.\d+)?× over 1h and \d+(\.\d+)?× over 5m \(factor 14.4, SLO 99.9%/);
  assert.ok((api?.value ?? 0) > 14.4);
  assert.equal(r.observations.find((o) => o.labels.service === 'web')?.active, false);
});

void test('LogsQL: a slow burn (1% for 6 h, 10×) pages only through the 6 h / 30 m pair', async () => {
  const data = new MemoryDetectorData().addLogs(requestLogs((s, t) => (s === 'api' && t >= END - 6 * HOUR ? 0.01 : 0.0002)));
  const r = await evaluateAt(errorRatio, LOGS_RAW, data, END);
  assert.deepEqual(activeLabels(r), ['service=api']);
  assert.match(r.observations.find((o) => o.labels.service === 'api')?.summary ?? '', /over 6h and .* over 30m \(factor 6,/);
  const fastOnly = await evaluateAt(errorRatio, { ...LOGS_RAW, windows: ['1h:5m:14.4'] }, data, END);
  assert.deepEqual(activeLabels(fastOnly), []);
});

void test('LogsQL: a two-minute blip at 10% and the minute after a burst stay quiet once the short window forgets', async () => {
  const blip = new MemoryDetectorData().addLogs(requestLogs((s, t) => (s === 'api' && t >= END - 3 * MIN && t < END - MIN ? 0.1 : 0.0002)));
  assert.deepEqual(activeLabels(await evaluateAt(errorRatio, LOGS_RAW, blip, END)), []);
  const burst = new MemoryDetectorData().addLogs(requestLogs((s, t) => (s === 'api' && t >= END - 4 * MIN && t < END ? 1 : 0.0002)));
  assert.deepEqual(activeLabels(await evaluateAt(errorRatio, { ...LOGS_RAW, windows: ['1h:5m:14.4'] }, burst, END)), ['service=api']);
  assert.deepEqual(activeLabels(await evaluateAt(errorRatio, { ...LOGS_RAW, windows: ['1h:5m:14.4'] }, burst, END + 6 * MIN)), []);
});

void test('LogsQL: no requests at all is nodata; a trickle under min_requests is not judged', async () => {
  assert.equal((await evaluateAt(errorRatio, LOGS_RAW, new MemoryDetectorData(), END)).observations[0]?.nodata, true);
  const trickle = new MemoryDetectorData().addLogs([
    { timeMs: END - 2 * MIN, msg: 'GET /x 503', fields: { service: 'cron', status: '503' } },
    { timeMs: END - MIN, msg: 'GET /x 200', fields: { service: 'cron', status: '200' } },
  ]);
  const r = await evaluateAt(errorRatio, LOGS_RAW, trickle, END);
  assert.deepEqual(activeLabels(r), []);
  assert.deepEqual(activeLabels(await evaluateAt(errorRatio, { ...LOGS_RAW, min_requests: 0 }, trickle, END)), ['service=cron']);
});

void test('PromQL: request counters by code through rate(); the fast burn pages, with a restart in the middle ignored', async () => {
  const data = new MemoryDetectorData();
  for (const service of ['api', 'web']) {
    const ok: [number, number][] = [];
    const bad: [number, number][] = [];
    let okCount = 0;
    let badCount = 0;
    for (let t = END - 7 * HOUR; t < END + 10 * MIN; t += 15_000) {
      const ratio = service === 'api' && t >= END - HOUR ? 0.03 : 0.0002;
      // A restart of web 30 minutes ago zeroes both of its counters.
      if (service === 'web' && t === END - 30 * MIN) [okCount, badCount] = [0, 0];
      okCount += 30 * (1 - ratio);
      badCount += 30 * ratio;
      ok.push([t, okCount]);
      bad.push([t, badCount]);
    }
    data.addSeries('http_requests_total', { service, code: '200' }, ok).addSeries('http_requests_total', { service, code: '500' }, bad);
  }
  const raw = {
    errors_expr: 'sum by (service) (rate(http_requests_total{code=~"5.."}[5m]))',
    total_expr: 'sum by (service) (rate(http_requests_total[5m]))',
  };
  const r = await evaluateAt(errorRatio, raw, data, END);
  assert.deepEqual(activeLabels(r), ['service=api']);
  const api = r.observations.find((o) => o.labels.service === 'api');
  assert.ok((api?.value ?? 0) > 25 && (api?.value ?? 0) < 35, `burn ${api?.value ?? 'none'}`);
  assert.ok((r.observations.find((o) => o.labels.service === 'web')?.value ?? 99) < 1);
});
