// The OpenTelemetry JS SDK's own OTLP exporters against the real service (STYLE.md habit 7; wire-formats.md
// §3.2, §4 "OTLP exporters", §6): logs through sdk-logs, traces through sdk-trace-base, in JSON
// (`-otlp-http`) and protobuf (`-otlp-proto`), plain and gzip. The export callback must report SUCCESS —
// i.e. our 200 reply decoded in the request's encoding — and the data must read back over LogsQL and the
// trace API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { context, SpanKind, SpanStatusCode, trace, type AttributeValue } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import type { RunningService, TestAccount } from '../support/service.js';
import { startWithAccount, tenantGet, uid, usageBySignal, waitLogs, waitTrace } from './support.js';

let svc: RunningService;
let acct: TestAccount;

before(async () => {
  ({ svc, acct } = await startWithAccount());
});
after(async () => {
  await svc.stop();
});

/** Wraps an exporter and keeps every result its export callback reported. */
function recording<T>(inner: { export(items: T[], cb: (r: ExportResult) => void): void; shutdown(): Promise<void>; forceFlush?(): Promise<void> }) {
  const results: ExportResult[] = [];
  return {
    results,
    export(items: T[], cb: (r: ExportResult) => void): void {
      inner.export(items, (r) => {
        results.push(r);
        cb(r);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

function assertAllSucceeded(results: ExportResult[]): void {
  assert.ok(results.length > 0, 'the exporter was called');
  for (const r of results) assert.equal(r.code, ExportResultCode.SUCCESS, `export failed: ${String(r.error)}`);
}

// The four ways the SDK's exporters can be configured against `/v1/logs` and `/v1/traces`.
const variants = [
  { name: 'JSON (-otlp-http)', proto: false, gzip: false },
  { name: 'JSON (-otlp-http), gzip', proto: false, gzip: true },
  { name: 'protobuf (-otlp-proto)', proto: true, gzip: false },
  { name: 'protobuf (-otlp-proto), gzip', proto: true, gzip: true },
] as const;

function exporterConfig(signal: 'logs' | 'traces', gzip: boolean) {
  return {
    url: `${svc.ingest}/v1/${signal}`,
    headers: { 'X-API-Key': acct.key },
    ...(gzip ? { compression: CompressionAlgorithm.GZIP } : {}),
  };
}

function logExporter(v: (typeof variants)[number]): LogRecordExporter {
  const config = exporterConfig('logs', v.gzip);
  return v.proto ? new ProtoLogExporter(config) : new JsonLogExporter(config);
}

function traceExporter(v: (typeof variants)[number]): SpanExporter {
  const config = exporterConfig('traces', v.gzip);
  return v.proto ? new ProtoTraceExporter(config) : new JsonTraceExporter(config);
}

/** Emits `records` through a LoggerProvider + BatchLogRecordProcessor and shuts it down (which flushes). */
async function emitLogs(
  v: (typeof variants)[number], attributes: Record<string, string>,
  records: { body: string | Record<string, string | number>; severity: SeverityNumber; severityText: string; attributes: Record<string, AttributeValue | Record<string, string> | Uint8Array>; traceId?: string; spanId?: string }[],
): Promise<ExportResult[]> {
  const exporter = recording<ReadableLogRecord>(logExporter(v));
  const provider = new LoggerProvider({
    resource: resourceFromAttributes(attributes),
    processors: [new BatchLogRecordProcessor({ exporter, scheduledDelayMillis: 50 })],
  });
  const logger = provider.getLogger('client-e2e', '1.2.3');
  for (const r of records) {
    logger.emit({
      body: r.body, severityNumber: r.severity, severityText: r.severityText, attributes: r.attributes,
      ...(r.traceId && r.spanId ? { context: spanContextOf(r.traceId, r.spanId) } : {}),
    });
  }
  await provider.forceFlush();
  await provider.shutdown();
  return exporter.results;
}

/** A context carrying the given span, so that the SDK stamps trace_id/span_id on the record. */
function spanContextOf(traceId: string, spanId: string) {
  return trace.setSpanContext(context.active(), { traceId, spanId, traceFlags: 1, isRemote: false });
}
describe('OTel JS logs exporters: every encoding is accepted and reads back', () => {
  for (const v of variants) {
    test(`${v.name}: body, severity, resource service.name and attributes of every kind`, async () => {
      const service = uid('otel-logs-');
      const marker = uid('m');
      const results = await emitLogs(v, { 'service.name': service, 'host.name': 'box-1' }, [
        {
          body: `${marker} payment failed`, severity: SeverityNumber.ERROR, severityText: 'ERROR',
          attributes: {
            'str.attr': 'hello', 'int.attr': 42, 'double.attr': 1.5, 'bool.attr': true,
            'array.attr': ['a', 'b'], 'map.attr': { inner: 'x' }, 'bytes.attr': new Uint8Array([1, 2, 255]),
          },
        },
        { body: `${marker} second record`, severity: SeverityNumber.INFO, severityText: 'INFO', attributes: { 'str.attr': 'world' } },
        { body: { event: 'structured', n: 1 }, severity: SeverityNumber.DEBUG, severityText: '', attributes: { marker } },
      ]);
      assertAllSucceeded(results);

      const rows = await waitLogs(svc, acct, `service:${service}`, 3);
      assert.equal(rows.length, 3, 'every record reads back');
      const err = rows.find((r) => r._msg === `${marker} payment failed`);
      assert.ok(err, `the ERROR record is found: ${JSON.stringify(rows)}`);
      assert.equal(err.service, service);
      assert.equal(err.severity, 'ERROR');
      assert.equal(err['host.name'], 'box-1', 'resource attributes are fields');
      assert.equal(err['otel.scope.name'], 'client-e2e');
      assert.equal(err['str.attr'], 'hello');
      assert.equal(err['int.attr'], 42);
      assert.equal(err['double.attr'], 1.5);
      assert.equal(err['bool.attr'], true);
      assert.equal(err['bytes.attr'], Buffer.from([1, 2, 255]).toString('base64'), 'bytes read back as base64');
      assert.equal(err['otel.severity_number'], SeverityNumber.ERROR);
      assert.deepEqual(JSON.parse(String(err['array.attr'])), ['a', 'b']);
      assert.equal(err['map.attr.inner'], 'x', 'a kvlist attribute becomes dotted fields');
      const info = rows.find((r) => r._msg === `${marker} second record`);
      assert.equal(info?.severity, 'INFO');
      const structured = rows.find((r) => r.marker === marker);
      assert.deepEqual(JSON.parse(String(structured?._msg)), { event: 'structured', n: 1 }, 'a map body is JSON text');
      assert.equal(structured?.severity, 'DEBUG', 'no severity text: the short name of the number');
      assert.equal((await waitLogs(svc, acct, `severity:ERROR AND service:${service}`)).length, 1, 'severity is queryable');
    });
  }
});

describe('OTel JS trace exporters: a parent and child span read back whole', () => {
  for (const v of variants) {
    test(`${v.name}: ids, parent, kind, status, events and links; trace search by service; logs by trace_id`, async () => {
      const service = uid('otel-traces-');
      const exporter = recording<ReadableSpan>(traceExporter(v));
      const provider = new BasicTracerProvider({
        resource: resourceFromAttributes({ 'service.name': service }),
        spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 50 })],
      });
      const tracer = provider.getTracer('client-e2e', '1.2.3');
      const linked = { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), traceFlags: 1 };
      const parent = tracer.startSpan('GET /checkout', { kind: SpanKind.SERVER, attributes: { 'http.route': '/checkout' } });
      const child = tracer.startSpan('SELECT orders', {
        kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql', 'db.rows': 3 },
        links: [{ context: linked, attributes: { 'link.reason': 'retry-of' } }],
      }, trace.setSpan(context.active(), parent));
      child.addEvent('query.start', { 'db.statement': 'SELECT 1' });
      child.setStatus({ code: SpanStatusCode.ERROR, message: 'deadlock detected' });
      child.end();
      parent.end();
      const { traceId } = parent.spanContext();
      const parentId = parent.spanContext().spanId;
      const childId = child.spanContext().spanId;
      await provider.forceFlush();
      await provider.shutdown();
      assertAllSucceeded(exporter.results);

      const spans = await waitTrace(svc, acct, traceId, 2);
      assert.equal(spans?.length, 2, 'both spans are in the trace');
      const p = spans.find((s) => s.span_id === parentId);
      const c = spans.find((s) => s.span_id === childId);
      assert.ok(p && c, JSON.stringify(spans));
      assert.equal(p.trace_id, traceId);
      assert.equal(p.parent_span_id, '', 'the root has no parent');
      assert.equal(p.kind, 2, 'SERVER');
      assert.equal(p.name, 'GET /checkout');
      assert.equal(p.service, service);
      assert.equal(p.attributes['http.route'], '/checkout');
      assert.equal(c.parent_span_id, parentId);
      assert.equal(c.kind, 3, 'CLIENT');
      assert.deepEqual(c.status, { code: 2, message: 'deadlock detected' });
      assert.equal(c.events.length, 1);
      assert.equal(c.events[0]?.name, 'query.start');
      assert.equal(c.events[0].attributes['db.statement'], 'SELECT 1');
      assert.equal(c.links.length, 1);
      assert.equal(c.links[0]?.trace_id, linked.traceId);
      assert.equal(c.links[0].span_id, linked.spanId);
      assert.equal(c.links[0].attributes['link.reason'], 'retry-of');

      const found = await tenantGet(svc, acct, 'traces', { service });
      assert.equal(found.status, 200, found.text);
      const list = (found.json as { traces: { trace_id: string; span_count: number; error_count: number }[] }).traces;
      const hit = list.find((t) => t.trace_id === traceId);
      assert.ok(hit, `traces?service= finds the trace: ${found.text}`);
      assert.equal(hit.span_count, 2);
      assert.equal(hit.error_count, 1);

      // A log record emitted inside the child span carries its trace id.
      const logResults = await emitLogs(v, { 'service.name': service }, [
        { body: 'inside the failing query', severity: SeverityNumber.WARN, severityText: 'WARN', attributes: {}, traceId, spanId: childId },
      ]);
      assertAllSucceeded(logResults);
      const correlated = await waitLogs(svc, acct, `trace_id:${traceId}`);
      assert.equal(correlated.length, 1, 'LogsQL trace_id:<id> finds the log');
      assert.equal(correlated[0]?._msg, 'inside the failing query');
      assert.equal(correlated[0].trace_id, traceId);
      assert.equal(correlated[0].span_id, childId);
    });
  }
});

describe('browser (webjs) resources are metered as RUM', () => {
  test('logs and spans from a telemetry.sdk.language=webjs resource land in usage by_signal.rum', async () => {
    const before = await usageBySignal(svc, acct);
    const resource = { 'service.name': uid('web-'), 'telemetry.sdk.language': 'webjs', 'telemetry.sdk.name': 'opentelemetry' };
    const results = await emitLogs(variants[0], resource, [
      { body: 'button clicked', severity: SeverityNumber.INFO, severityText: 'INFO', attributes: { 'ui.element': 'buy' } },
    ]);
    assertAllSucceeded(results);
    const exporter = recording<ReadableSpan>(traceExporter(variants[2]));
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new BatchSpanProcessor(exporter)] });
    provider.getTracer('web').startSpan('documentLoad').end();
    await provider.forceFlush();
    await provider.shutdown();
    assertAllSucceeded(exporter.results);
    const after = await usageBySignal(svc, acct);
    assert.ok((after.rum ?? 0) > (before.rum ?? 0), `rum grew: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
    assert.equal(after.logs, before.logs, 'the browser logs are not metered as logs');
    assert.equal(after.traces, before.traces, 'the browser spans are not metered as traces');
  });
});
