// OTLP traces (wire-formats.md §3.2): the spec's JSON example, a browser span with events, links and
// status, the same data as protobuf, rejected spans, replies and malformed bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countOtlpTraces, otlpTracesFormat, parseOtlpTraces, tracesFromTree } from './otlp-traces.js';
import { wireTraces } from './otlp-traces-wire.js';
import { tracesRequests } from './otlp-test-requests.js';
import { mulberry32 } from '../../testing/prng.js';
import { OtlpTypes, encodeMessage } from './otlp-proto.js';
import { fixture, json, NOW_NS, outcome, rejects400, replyOf } from '../../../test/fixtures/ingest-formats/kit.js';

const JSON_CT = { 'content-type': 'application/json' };
const PROTO_CT = { 'content-type': 'application/protobuf' };

/** OTLP/JSON → protobufjs input: ids (hex, or base64 as some encoders send) become bytes. */
function protoReady(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(protoReady);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => {
    if (/^(traceId|spanId|parentSpanId)$/.test(k) && typeof x === 'string') {
      return [k, Buffer.from(x, /^[0-9a-fA-F]+$/.test(x) ? 'hex' : 'base64')];
    }
    return [k, protoReady(x)];
  }));
}

const protoBody = (tree: unknown) =>
  encodeMessage(OtlpTypes.ExportTraceServiceRequest, protoReady(tree) as Record<string, unknown>);

const EXAMPLE_SPAN = {
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: 'eee19b7ec3c1b174',
  parentSpanId: 'eee19b7ec3c1b173',
  name: "I'm a server span",
  kind: 2,
  startNs: 1544712660000000000n,
  durationNs: 1000000000n,
  statusCode: 0,
  statusMessage: '',
  service: 'my.service',
  attributes: {
    'otel.scope.name': 'my.library',
    'otel.scope.version': '1.0.0',
    'otel.scope.attributes.my.scope.attribute': 'some scope attribute',
    'my.span.attr': 'some value',
  },
  resource: { 'service.name': 'my.service' },
  events: [],
  links: [],
};

void test('the OTLP spec JSON trace example becomes one span', () => {
  const parsed = parseOtlpTraces(fixture('otlp-traces.json'), JSON_CT, NOW_NS);
  assert.deepEqual(parsed.batch.spans, [EXAMPLE_SPAN]);
  assert.equal(parsed.batch.logs.length, 0);
  assert.equal(parsed.signal, 'traces');
});

void test('the same trace as protobuf gives the same span', () => {
  const body = protoBody(json(fixture('otlp-traces.json')));
  assert.deepEqual(parseOtlpTraces(body, PROTO_CT, NOW_NS).batch.spans, [EXAMPLE_SPAN]);
});

void test('a browser span keeps events, links, status, kind names and trace state, and is metered as rum', () => {
  const parsed = parseOtlpTraces(fixture('otlp-traces-browser.json'), JSON_CT, NOW_NS);
  assert.equal(parsed.signal, 'rum');
  const [s] = parsed.batch.spans;
  assert.ok(s);
  assert.equal(s.kind, 3);
  assert.equal(s.statusCode, 2);
  assert.equal(s.statusMessage, 'Service Unavailable');
  assert.equal(s.durationNs, 250000000n);
  assert.equal(s.parentSpanId, '');
  assert.equal(s.service, 'shop-frontend');
  assert.equal(s.attributes['http.status_code'], 503);
  assert.equal(s.attributes['w3c.tracestate'], 'vendor=abc');
  assert.equal(s.attributes['otel.scope.name'], '@opentelemetry/instrumentation-fetch');
  assert.equal(s.resource['telemetry.sdk.language'], 'webjs');
  assert.deepEqual(s.events, [
    { timeNs: 1700000000100000000n, name: 'fetchStart', attributes: {} },
    { timeNs: 1700000000000000000n, name: 'exception', attributes: { 'exception.message': 'Service Unavailable' } },
  ]);
  assert.deepEqual(s.links, [
    { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', attributes: { 'link.kind': 'follows' } },
  ]);
  // The same through protobuf (enum names become numbers in fromObject).
  const viaProto = parseOtlpTraces(protoBody(json(fixture('otlp-traces-browser.json'))), PROTO_CT, NOW_NS);
  assert.deepEqual(viaProto.batch.spans, parsed.batch.spans);
});

void test('spans without readable ids are rejected in partial_success; the others are stored', async () => {
  const good = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'ok' };
  const body = Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [
    good, { ...good, traceId: 'xyz' }, { ...good, spanId: '' }, 'nope',
  ] }] }] }));
  const parsed = parseOtlpTraces(body, JSON_CT, NOW_NS);
  assert.deepEqual(parsed.batch.spans.map((s) => s.name), ['ok']);
  assert.equal(parsed.batch.spans[0]?.startNs, NOW_NS, 'no start time: the time of receipt');
  assert.equal(parsed.batch.spans[0].durationNs, 0n);
  const r = await replyOf(otlpTracesFormat, parsed);
  assert.deepEqual(json(r.body), {
    partialSuccess: { rejectedSpans: '3', errorMessage: '3 spans rejected; first: a span has an unreadable traceId (want 32 hex chars)' },
    status: 'ok', accepted: 1,
  });
});

void test('a protobuf request gets an ExportTraceServiceResponse in protobuf, with partial success when spans were rejected', async () => {
  const body = protoBody({ resourceSpans: [{ scopeSpans: [{ spans: [
    { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' }, { name: 'no ids' },
  ] }] }] });
  const r = await replyOf(otlpTracesFormat, parseOtlpTraces(body, PROTO_CT, NOW_NS));
  assert.equal(r.headers.get('content-type'), 'application/x-protobuf');
  const t = OtlpTypes.ExportTraceServiceResponse;
  assert.deepEqual(t.toObject(t.decode(r.body), { longs: String }),
    { partialSuccess: { rejectedSpans: '1', errorMessage: '1 spans rejected; first: a span has no traceId (want 32 hex chars)' } });
});

void test('malformed trace bodies are 400', async () => {
  await rejects400(() => parseOtlpTraces(Buffer.from('{"resourceSpans":'), JSON_CT, NOW_NS), /not valid JSON/);
  await rejects400(() => parseOtlpTraces(Buffer.from('{"resourceSpans":[{"scopeSpans":"x"}]}'), JSON_CT, NOW_NS),
    /resourceSpans\.scopeSpans must be an array/);
  await rejects400(() => parseOtlpTraces(Buffer.from([0x0a, 0x05, 0x12]), PROTO_CT, NOW_NS),
    /does not decode as ExportTraceServiceRequest/);
});

void test('countOtlpTraces (the request thread) gives what parseOtlpTraces does, or its refusal: generated and mutated bodies', () => {
  const rnd = mulberry32(21);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const id = (bytes: number) => pick([Buffer.alloc(0), Buffer.alloc(bytes), Buffer.alloc(bytes, 7), Buffer.alloc(bytes - 1, 7), Buffer.alloc(bytes + 1, 7)]);
  const span = () => ({
    ...(rnd() < 0.95 ? { traceId: id(16) } : {}), ...(rnd() < 0.95 ? { spanId: id(8) } : {}), name: 'op', kind: pick([0, 2, 9]),
    startTimeUnixNano: pick(['0', '1700000000000000000']), endTimeUnixNano: '1700000000000000001',
    attributes: [{ key: 'k', value: { intValue: 1 } }], events: [{ name: 'e', attributes: [] }],
    links: [{ traceId: id(16), spanId: id(8) }], status: { code: pick([0, 1, 2]), message: 'm' },
  });
  const resource = () => (rnd() < 0.8 ? { resource: { attributes: [{ key: 'telemetry.sdk.language', value: { stringValue: pick(['webjs', 'go']) } }] } } : {});
  const bodies: { body: Buffer; headers: Record<string, string> }[] = [];
  for (let n = 0; n < 300; n++) {
    const tree = { resourceSpans: Array.from({ length: Math.floor(rnd() * 3) }, () => ({
      ...resource(), scopeSpans: Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => ({ scope: { name: 's' }, spans: Array.from({ length: Math.floor(rnd() * 4) }, span) })),
    })) };
    const body = encodeMessage(OtlpTypes.ExportTraceServiceRequest, tree);
    bodies.push({ body, headers: PROTO_CT });
    const mutated = Buffer.from(body);
    if (mutated.length > 0) for (let k = 0; k < 1 + Math.floor(rnd() * 2); k++) mutated[Math.floor(rnd() * mutated.length)] = Math.floor(rnd() * 256);
    bodies.push({ body: mutated, headers: PROTO_CT }, { body: mutated.subarray(0, Math.floor(rnd() * mutated.length)), headers: PROTO_CT });
  }
  const seen = new Set<string>();
  for (const { body, headers } of bodies) {
    const parsed = outcome(() => {
      const p = parseOtlpTraces(body, headers, NOW_NS);
      return { entries: p.batch.spans.length, signal: p.signal, replyData: p.replyData };
    });
    assert.equal(outcome(() => countOtlpTraces(body, headers, NOW_NS)), parsed, `body ${body.toString('hex')}`);
    seen.add(parsed.startsWith('ok') ? (parsed.includes('rejected') && !parsed.includes('"rejected":0') ? 'rejections' : parsed.split(' ')[2] ?? '') : 'refused');
  }
  assert.deepEqual([...seen].sort(), ['refused', 'rejections', 'rum', 'traces'], 'every outcome is exercised');
});

void test('protobuf read from the wire gives the tree reading\'s spans, rejections and signal: 2,000 generated and 3,000 mutated requests', () => {
  const nextRequest = tracesRequests(17);
  const rnd = mulberry32(4);
  let fromWire = 0;
  for (let n = 0; n < 5_000; n++) {
    const body = Buffer.from(encodeMessage(OtlpTypes.ExportTraceServiceRequest, nextRequest()));
    if (n >= 2_000 && body.length > 0) body[Math.floor(rnd() * body.length)] = Math.floor(rnd() * 256);
    let want;
    try {
      want = tracesFromTree(body, PROTO_CT, NOW_NS);
    } catch {
      continue;
    }
    if (wireTraces(body, NOW_NS) !== null) fromWire++;
    const got = parseOtlpTraces(body, PROTO_CT, NOW_NS);
    assert.deepEqual(got, want, `request ${n}: ${body.toString('hex')}`);
    // The store writes attributes as JSON text, so their key order must match too.
    const text = (p: unknown) => JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    assert.equal(text(got), text(want), `request ${n}: key order`);
  }
  assert.ok(fromWire > 2_300, `${fromWire} requests were read from the wire`);
});
