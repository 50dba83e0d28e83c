// An OTLP protobuf record written from its bytes (otlp-logs-plain.ts read in place, plain-row-writer.ts) gives the row
// its decoded entry gives (protoLogEntries, FieldSplitter): every column's value, the `fields` text byte for byte, the
// field order, the promoted columns of each kind. Over generated requests of every shape (records the in-place reader
// must leave to the entry among them) and over plain ones like an exporter's, which it must read in place.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OtlpTypes, encodeMessage } from '../../../ingest/formats/otlp-proto.js';
import { protoLogEntries } from '../../../ingest/formats/otlp-logs-proto.js';
import { wireLogLines } from '../../../ingest/formats/otlp-logs-plain.js';
import { otlpLogWindows } from '../../../ingest/formats/otlp-logs.js';
import { logsRequests } from '../../../ingest/formats/otlp-test-requests.js';
import type { PlainLines } from '../../../model/plain-row.js';
import { mulberry32 } from '../../../testing/prng.js';
import type { FieldColumn } from './field-columns.js';
import { EntryRows } from './log-appender.js';
import { RecordingSink } from './row-sink.fixtures.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { LOGS_MIGRATION_SQL, LOGS_TABLE_SQL } from './schema.js';
import { addFieldColumns } from './field-catalog.js';
import { appendLogs } from './log-appender.js';
import { ChunkInserter } from './chunk-insert.js';
import type { TenantBatch } from '../../../model/batch.js';
import { TenantRefs } from './sample-tenants.js';

const NOW = 1_800_000_000_000_000_000n;
const { ExportLogsServiceRequest: Request } = OtlpTypes;

const COLUMNS: FieldColumn[] = [
  { key: 'host.name', column: 'field_0', kind: 'text' },
  { key: 'http.status_code', column: 'field_1', kind: 'int' },
  { key: 'request.id', column: 'field_2', kind: 'uuid' },
  { key: 'otel.scope.name', column: 'field_3', kind: 'text' },
  { key: 'a', column: 'field_4', kind: 'text' },
  { key: 'otel.severity_number', column: 'field_5', kind: 'int' },
  { key: 'cloud.region', column: 'field_6', kind: 'text' },
];

/** Each record's row both ways, with `writable` of COLUMNS promoted; returns how many were read in place. */
function compare(body: Buffer, writable: number, what: string): number {
  const lines = wireLogLines(body, NOW, false, (e) => { throw e; });
  assert.ok(lines, `${what}: a body protobufjs decodes has records to read`);
  const entries = protoLogEntries(Request.decode(body), NOW);
  assert.equal(lines.count, entries.length, `${what}: one line a record`);
  let inPlace = 0;
  const counted: PlainLines = { count: lines.count, entry: (k) => lines.entry(k), read: (k, row) => lines.read(k, row) && ++inPlace > 0 };
  const rows = new EntryRows(COLUMNS, writable);
  entries.forEach((entry, k) => {
    const viaBytes = new RecordingSink();
    assert.ok(rows.line(viaBytes, counted, k), `${what}, record ${k}: written`);
    const parsed = new RecordingSink();
    rows.entry(parsed, entry);
    assert.deepEqual(viaBytes.row, parsed.row, `${what}, record ${k}`);
  });
  return inPlace;
}

const str = (stringValue: string) => ({ stringValue });

/** Requests of the plain shapes exporters send, with the values that must be escaped or kept as text. */
function plainRequests(seed: number): () => Buffer {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const maybe = (p: number) => rnd() < p;
  const texts = ['GET', '/api/v2/orders/:id', '', 'say "hi"', 'back\\slash', 'tab\there', 'line\nbreak', 'é中😀', '\u007f', '{}',
    '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', '0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D', 'x'.repeat(40)];
  const value = (): Record<string, unknown> => pick([
    () => str(pick(texts)), () => ({ intValue: pick(['200', '-1', '0', '9007199254740993', '-9223372036854775808']) }),
    () => ({ doubleValue: pick([1.5, -0, 1e21, 5e-324, Number.NaN, Number.NEGATIVE_INFINITY]) }), () => ({ boolValue: maybe(0.5) }),
    () => ({ bytesValue: Buffer.from('raw') }), () => ({}),
  ])();
  const keys = ['host.name', 'http.status_code', 'request.id', 'a', 'http.method', 'x y', 'ключ', 'q"uote', 'otel.scope.name', 'cloud.region'];
  const attributes = (n: number) => {
    const chosen = [...keys].sort(() => rnd() - 0.5).slice(0, n);
    return chosen.map((key) => (maybe(0.95) ? { key, value: value() } : { key }));
  };
  const body = () => pick([
    () => str(`GET /api/v2/orders/${Math.floor(rnd() * 1e6)} completed`), () => str('naïve "quoted"\n'), () => str(''),
    () => ({ intValue: '42' }), () => ({ kvlistValue: { values: [{ key: 'k', value: str('v') }] } }), () => ({}),
  ])();
  return () => encodeMessage(Request, {
    resourceLogs: Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => ({
      ...(maybe(0.9) ? { resource: { attributes: [{ key: 'service.name', value: str(pick(['checkout', 'é'])) }, ...attributes(Math.floor(rnd() * 2))] } } : {}),
      scopeLogs: [{
        ...(maybe(0.7) ? { scope: { name: 'bench', ...(maybe(0.3) ? { version: '1.0' } : {}) } } : {}),
        logRecords: Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => ({
          ...(maybe(0.9) ? { timeUnixNano: pick(['0', '1700000000000000001', '18446744073709551615']) } : {}),
          ...(maybe(0.3) ? { observedTimeUnixNano: '1700000000000000002' } : {}),
          ...(maybe(0.8) ? { severityNumber: pick([0, 9, 13, 17]) } : {}),
          ...(maybe(0.5) ? { severityText: pick(['', 'INFO', 'warn', 'Ünïcode']) } : {}),
          ...(maybe(0.95) ? { body: body() } : {}),
          attributes: attributes(Math.floor(rnd() * 5)),
          ...(maybe(0.8) ? { traceId: pick([Buffer.alloc(16, 0xab), Buffer.alloc(16), Buffer.alloc(15, 1), Buffer.from('00112233445566778899AABBCCDDEEFF', 'hex')]) } : {}),
          ...(maybe(0.6) ? { spanId: pick([Buffer.alloc(8, 0xcd), Buffer.alloc(8), Buffer.alloc(0)]) } : {}),
          ...(maybe(0.2) ? { eventName: pick(['', 'click']) } : {}),
        })),
      }],
    })),
  });
}

void describe('OTLP log records written from their bytes', () => {
  test('give the decoded entry\'s row on generated requests of every shape (1,000 requests)', () => {
    const next = logsRequests(23);
    let inPlace = 0;
    for (let n = 0; n < 1_000; n++) inPlace += compare(encodeMessage(Request, next()), n % (COLUMNS.length + 1), `request ${n}`);
    assert.ok(inPlace > 100, `some are read in place (${inPlace})`);
  });

  test('read plain records in place, and give the decoded entry\'s row (1,000 requests)', () => {
    const next = plainRequests(5);
    let inPlace = 0;
    for (let n = 0; n < 1_000; n++) inPlace += compare(next(), n % (COLUMNS.length + 1), `request ${n}`);
    assert.ok(inPlace > 2_000, `most plain records are read in place (${inPlace})`);
  });

  test('leave to the entry what they cannot give exactly', () => {
    const one = (record: Record<string, unknown>, resource: Record<string, unknown>[] = []) => encodeMessage(Request, {
      resourceLogs: [{ resource: { attributes: resource }, scopeLogs: [{ logRecords: [record] }] }],
    });
    const notPlain = [
      one({ attributes: [{ key: 'a', value: str('1') }, { key: 'a', value: str('2') }] }), // a name twice
      one({ attributes: [{ key: 'a', value: str('1') }] }, [{ key: 'a', value: str('resource') }]), // resource and record
      one({ attributes: [{ key: '7up', value: str('integer-like names go first') }] }),
      one({ attributes: [{ key: '__proto__', value: str('x') }] }),
      one({ attributes: [{ key: 'list', value: { arrayValue: { values: [str('x')] } } }] }),
      one({ attributes: [{ key: 'map', value: { kvlistValue: { values: [{ key: 'k', value: str('v') }] } } }] }),
      one({ severityNumber: 9, attributes: [{ key: 'otel.severity_number', value: { intValue: '1' } }] }),
      one({}, [{ key: '1', value: str('integer-like resource name') }]),
      one({ timeUnixNano: '9223372036854775808' }), // a time past int64, which the entry clamps
      one({ observedTimeUnixNano: '18446744073709551615' }),
    ];
    notPlain.forEach((body, i) => assert.equal(compare(body, COLUMNS.length, `body ${i}`), 0, `body ${i} is not read in place`));
  });

  test('are offered for protobuf bodies only', () => {
    const body = encodeMessage(Request, { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: str('x') }] }] }] });
    const bad = (why: string) => assert.fail(why);
    assert.equal(otlpLogWindows(body, { 'content-type': 'application/x-protobuf' }, NOW, 1, bad).lines?.count, 1);
    const json = Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: str('x') }] }] }] }));
    assert.equal(otlpLogWindows(json, { 'content-type': 'application/json' }, NOW, 1, bad).lines, undefined);
  });

  test('append to DuckDB the rows the decoded entries append, the protobuf between the strings left out of them', async () => {
    const next = plainRequests(8);
    const bodies = Array.from({ length: 200 }, () => next());
    const headers = { 'content-type': 'application/x-protobuf' };
    const inPlace: TenantBatch[] = bodies.map((body) => {
      const records = protoLogEntries(Request.decode(body), NOW).length;
      const logWindows = otlpLogWindows(body, headers, NOW, records, (why) => assert.fail(why));
      return { tenantId: 't1', format: 'otlp', batch: { logs: [], spans: [], logWindows } };
    });
    const decoded: TenantBatch[] = bodies.map((body) => ({
      tenantId: 't1', format: 'otlp', batch: { logs: protoLogEntries(Request.decode(body), NOW), spans: [] },
    }));
    assert.ok(inPlace.every((b) => b.batch.logWindows?.lines !== undefined));
    const stored = async (batches: TenantBatch[]) => {
      const db = await DuckDBInstance.create(':memory:');
      const c = await db.connect();
      try {
        for (const sql of [LOGS_TABLE_SQL, ...LOGS_MIGRATION_SQL]) await c.run(sql);
        const columns = await addFieldColumns(c, [], COLUMNS.map(({ key, kind }) => ({ key, kind })));
        await appendLogs(c, new ChunkInserter(c), batches, columns, 4, new TenantRefs());
        return (await c.runAndReadAll('SELECT * FROM logs')).getRowObjectsJS();
      } finally {
        c.closeSync();
        db.closeSync();
      }
    };
    const rows = await stored(inPlace);
    assert.ok(rows.length > 500, `${rows.length} rows`);
    assert.deepEqual(rows, await stored(decoded));
  });
});
