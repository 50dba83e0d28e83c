// trace_latency and rum_error_spike end to end. Latency: only the (service, name) whose p99 slowed fires, against its
// baseline or a fixed bound; few spans and fast spans that double stay quiet. RUM: errors from browser (webjs) logs
// per page against the page's own baseline; server errors and browser info logs do not count; a session with many
// errors fires on the count alone; a new page under min_count stays quiet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KINDS } from './index.js';
import type { DetectorKind } from '../model.js';
import { MemoryDetectorData, type MemoryLog, type MemorySpan } from '../testing/memory-data.js';
import { activeLabels, evaluateAt } from '../testing/evaluate.js';
import { DAY, HOUR, MIN, rng } from '../testing/generate.js';

const traceLatency = KINDS.get('trace_latency') as DetectorKind;
const rumErrorSpike = KINDS.get('rum_error_spike') as DetectorKind;
const END = Date.UTC(2024, 0, 10, 12);

/** Spans every `every` ms over [from, to), durations log-normal-ish around `ms`. */
function spans(service: string, name: string, from: number, to: number, every: number, ms: number, seed: number): MemorySpan[] {
  const r = rng(seed);
  const out: MemorySpan[] = [];
  for (let t = from; t < to; t += every) out.push({ timeMs: t, service, name, durationMs: ms * Math.exp(0.3 * (r() + r() + r() - 1.5)) });
  return out;
}

function latencyData(): MemoryDetectorData {
  return new MemoryDetectorData().addSpans([
    ...spans('checkout', 'GET /cart', END - DAY, END - 5 * MIN, 2000, 200, 1), ...spans('checkout', 'GET /cart', END - 5 * MIN, END, 2000, 900, 2),
    ...spans('checkout', 'POST /pay', END - DAY, END, 2000, 300, 3),
    ...spans('search', 'GET /q', END - DAY, END, 1000, 80, 4),
    ...spans('search', 'GET /health', END - DAY, END - 5 * MIN, 5000, 1, 5), ...spans('search', 'GET /health', END - 5 * MIN, END, 5000, 2.5, 6),
    ...spans('batch', 'nightly', END - DAY, END - 5 * MIN, 3 * HOUR, 100, 7), ...spans('batch', 'nightly', END - 5 * MIN, END, 60_000, 5000, 8),
  ]);
}

void test('trace_latency: only the (service, name) whose p99 slowed against its own baseline fires', async () => {
  const r = await evaluateAt(traceLatency, {}, latencyData(), END);
  assert.deepEqual(activeLabels(r), ['service=checkout,span_name=GET /cart']);
  const cart = r.observations.find((o) => o.active);
  assert.match(cart?.summary ?? '', /^p99 of checkout\/GET \/cart 1\.\d+ s vs 2\d\d ms baseline \(×\d/);
  const health = r.observations.find((o) => o.labels.span_name === 'GET /health');
  assert.equal(health?.active, false, 'a 1 ms span that more than doubles is under min_delta_ms');
  const nightly = r.observations.find((o) => o.labels.span_name === 'nightly');
  assert.match(nightly?.summary ?? '', /over only 5 spans \(needs 20\)/);
});

void test('trace_latency: a fixed bound, filtered to one service; no spans is nodata', async () => {
  const data = latencyData();
  assert.deepEqual(activeLabels(await evaluateAt(traceLatency, { threshold_ms: 500 }, data, END)), ['service=checkout,span_name=GET /cart']);
  assert.deepEqual(activeLabels(await evaluateAt(traceLatency, { threshold_ms: 500, service: 'search' }, data, END)), []);
  const p50 = await evaluateAt(traceLatency, { threshold_ms: 250, quantile: 0.5, service: 'checkout' }, data, END);
  assert.deepEqual(activeLabels(p50), ['service=checkout,span_name=GET /cart', 'service=checkout,span_name=POST /pay']);
  assert.equal((await evaluateAt(traceLatency, {}, new MemoryDetectorData(), END)).observations[0]?.nodata, true);
  assert.equal(data.calls.filter((c) => c.method === 'spanDurations').length, 3, 'a fixed bound reads no baseline');
});

const browser = (t: number, page: string, extra: Record<string, string> = {}, severity = 'ERROR'): MemoryLog =>
  ({ timeMs: t, msg: 'TypeError: cart is undefined', fields: { 'telemetry.sdk.language': 'webjs', service: 'shop-web', severity, 'url.full': page, ...extra } });

function every(from: number, to: number, step: number, make: (t: number, i: number) => MemoryLog): MemoryLog[] {
  const out: MemoryLog[] = [];
  for (let t = from, i = 0; t < to; t += step, i++) out.push(make(t, i));
  return out;
}

function rumData(): MemoryDetectorData {
  const checkout = 'https://shop.test/checkout';
  const home = 'https://shop.test/';
  return new MemoryDetectorData().addLogs([
    ...every(END - DAY - 5 * MIN, END - 5 * MIN, HOUR, (t) => browser(t, checkout)), // 1 an hour
    ...every(END - DAY - 5 * MIN, END - 5 * MIN, 6 * MIN, (t) => browser(t, home)), // 10 an hour
    ...every(END - 5 * MIN, END, 20_000, (t) => browser(t, checkout)), // 15 in the window
    ...every(END - 5 * MIN, END, 150_000, (t) => browser(t, home)), // 2 in the window
    ...every(END - 5 * MIN, END, 1000, (t) => browser(t, checkout, {}, 'INFO')), // browser info logs
    ...every(END - 5 * MIN, END, 1000, (t) => ({ timeMs: t, msg: 'db down', fields: { service: 'api', severity: 'ERROR', 'url.full': checkout } })),
    ...every(END - 4 * MIN, END - 3 * MIN, 20_000, (t) => browser(t, 'https://shop.test/new', { 'exception.type': 'TypeError' }, '')), // 3
  ]);
}

void test('rum_error_spike: per page, only the page erring far over its own baseline fires; server errors and info logs do not count', async () => {
  const r = await evaluateAt(rumErrorSpike, {}, rumData(), END);
  assert.deepEqual(activeLabels(r), ['url.full=https://shop.test/checkout']);
  const checkout = r.observations.find((o) => o.active);
  assert.equal(checkout?.value, 15);
  assert.match(checkout.summary ?? '', /^15 browser errors in 5m vs 0\.0\d+ expected from the last 1d/);
  assert.equal(r.observations.find((o) => o.labels['url.full'] === 'https://shop.test/new')?.active, false, 'a new page under min_count');
  assert.deepEqual(activeLabels(await evaluateAt(rumErrorSpike, { min_count: 3 }, rumData(), END)).length, 2, 'a new page at min_count fires');
});

void test('rum_error_spike: per session, a session with many errors fires on the count; the whole app vs its baseline', async () => {
  const data = rumData().addLogs(every(END - 5 * MIN, END, 30_000, (t, i) => browser(t, 'https://shop.test/', { 'session.id': i < 6 ? 's-noisy' : `s-${i}` })));
  const r = await evaluateAt(rumErrorSpike, { group_by: ['session.id'] }, data, END);
  assert.ok(activeLabels(r).includes('session.id=s-noisy'));
  assert.ok(!activeLabels(r).some((l) => /s-\d/.test(l)));
  const app = await evaluateAt(rumErrorSpike, { group_by: [] }, data, END);
  assert.equal(app.observations.length, 1);
  assert.equal(app.observations[0]?.active, true);
  assert.deepEqual((await evaluateAt(rumErrorSpike, { query: 'service:other-web' }, data, END)).observations, []);
});
