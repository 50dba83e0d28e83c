// Raw WAL records (wal-raw.ts, issue 12 item 1): the body as received plus the request facts a format reads decode
// to the very batch the request thread parsed, credentials never reach the log, and a store that decodes records
// itself (WalTarget.writeRecords, as the DuckDB worker does) gets every record exactly once, from memory or from disk.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { compress } from 'snappyjs';
import { emptyBatch, logWindowsOf, type TenantBatch } from '../model/batch.js';
import type { WalTarget } from '../stores/telemetry/telemetry-store.js';
import type { FormatRequest, IngestFormat } from './format.js';
import { nativeFormat } from './formats/native-format.js';
import { otlpLogsFormat } from './formats/otlp-logs.js';
import { OtlpTypes, encodeMessage } from './formats/otlp-proto.js';
import { otlpMetricsFormat, remoteWriteFormat } from './metrics/metrics-formats.js';
import { encodeExportMetricsRequest } from './metrics/otlp-metrics-proto.js';
import { encodeRemoteWrite } from './metrics/remote-write-proto.js';
import { replayFormats } from './replay-formats.js';
import { scanRecords } from './wal-codec.js';
import { decodeAnyPayload, decodeRecordParts, encodeRawRecord, setUnparseableReporter, type RecordParts } from './wal-raw.js';
import { openWal } from './wal.js';

const NOW = 1_764_000_000_000_000_000n;

function request(headers: Record<string, string> = {}, path = '/api/v1/ingest'): FormatRequest {
  return { path, query: new URLSearchParams('_stream_fields=service'), headers, nowNs: NOW };
}

/** A batch as parsed up front: log windows and deferred samples read out (what the DuckDB worker reads of them). */
function readOut(tb: TenantBatch): TenantBatch {
  const { logWindows, deferredSamples, ...batch } = tb.batch;
  if (logWindows) batch.logs = [...logWindows.windows()].flat();
  if (deferredSamples) Object.assign(batch, deferredSamples.read());
  return { ...tb, batch };
}

/**
 * Frames `body` as the WAL would and decodes it back, up front and also as the DuckDB worker does (parsed when read:
 * the same batch either way).
 */
async function roundTrip(format: IngestFormat, body: Buffer, req: FormatRequest): Promise<{ framed: Buffer; back: TenantBatch; parsed: TenantBatch }> {
  const parsed = await format.parse(body, req);
  const walKey = format.walKey ?? assert.fail('the format has no walKey');
  const rows = format.count ? (await format.count(body, req)).rows : parsed.batch.logs.length;
  const rec = encodeRawRecord('t1', { ...format, walKey }, req, body, rows);
  const framed = Buffer.concat(rec.pieces);
  assert.equal(framed.length, rec.length);
  const { records, validEnd } = scanRecords(framed);
  assert.equal(validEnd, framed.length, 'the CRC covers the pieces as if joined');
  const [only, ...more] = records;
  assert.ok(only !== undefined && more.length === 0, 'one record');
  assert.equal(only.rows, rows);
  const back = await decodeAnyPayload(only.payload, replayFormats);
  const deferred = await decodeAnyPayload(only.payload, replayFormats, only.rows);
  assert.ok(deferred.batch.logWindows ?? deferred.batch.deferredSamples, 'the worker parses it only when it reads it');
  assert.deepEqual(readOut(deferred), back);
  return { framed, back, parsed: { tenantId: 't1', format: format.name, batch: parsed.batch } };
}

describe('raw WAL records', () => {
  test('native NDJSON decodes to the batch the request thread parsed, without the credential', async () => {
    const body = Buffer.from('{"_msg":"héllo","service":"api","level":"warn","user":{"id":7}}\n{"msg":"plain ascii","_time":"2026-11-24T10:00:00Z"}\n');
    const { framed, back, parsed } = await roundTrip(nativeFormat, body, request({ 'x-api-key': 'sk_secret_value', 'content-type': 'application/x-ndjson' }));
    assert.deepEqual(back, parsed);
    assert.equal(framed.includes('sk_secret_value'), false, 'headers outside REPLAY_HEADERS stay out of the WAL');
    const [first, second] = back.batch.logs;
    assert.equal(first?.msg, 'héllo');
    assert.equal(second?.timeNs, 1_795_514_400_000_000_000n);
    assert.equal(second.observedNs, NOW, 'the receipt time travels with the record');
  });

  test('OTLP protobuf logs: the content type decides the decoding on replay too', async () => {
    const body = encodeMessage(OtlpTypes.ExportLogsServiceRequest, {
      resourceLogs: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
        scopeLogs: [{ logRecords: [{ body: { stringValue: 'paid' }, severityText: 'INFO', timeUnixNano: '1764000000000000001' }] }],
      }],
    });
    const { back, parsed } = await roundTrip(otlpLogsFormat, body, request({ 'content-type': 'application/x-protobuf' }, '/v1/logs'));
    assert.deepEqual(back, parsed);
    assert.equal(back.batch.logs[0]?.service, 'checkout');
  });

  test('a body the count walked is marked so in its record, and the worker reads it without walking it again', async () => {
    const body = encodeMessage(OtlpTypes.ExportLogsServiceRequest, {
      resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'walked' } }, { body: { stringValue: 'twice' } }] }] }],
    });
    const req = request({ 'content-type': 'application/x-protobuf' }, '/v1/logs');
    const counted = await (otlpLogsFormat.count ?? assert.fail('otlp logs count'))(body, req);
    assert.equal(counted.bodyWalked, true);
    const seen: FormatRequest[] = [];
    const spy = new Map([['otlp-logs', { ...otlpLogsFormat, logWindows: (b: Buffer, r: FormatRequest, rows: number, bad: (why: string) => void) => {
      seen.push(r);
      return otlpLogsFormat.logWindows?.(b, r, rows, bad) ?? null;
    } }]]);
    const payloadOf = (r: FormatRequest) => scanRecords(Buffer.concat(encodeRawRecord('t1', { ...otlpLogsFormat, walKey: 'otlp-logs' }, r, body, 2).pieces)).records[0]?.payload
      ?? assert.fail('one record');
    const walked = readOut(await decodeAnyPayload(payloadOf({ ...req, bodyWalked: true }), spy, 2));
    const plain = readOut(await decodeAnyPayload(payloadOf(req), spy, 2));
    assert.deepEqual(seen.map((r) => r.bodyWalked), [true, undefined], 'only the walked record says so');
    assert.deepEqual(walked, plain);
    assert.deepEqual(walked.batch.logs.map((e) => e.msg), ['walked', 'twice']);
    // A JSON body is not walked.
    const json = Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'j' } }] }] }] }));
    assert.notEqual((await otlpLogsFormat.count?.(json, request({ 'content-type': 'application/json' }, '/v1/logs')))?.bodyWalked, true);
  });

  test('OTLP protobuf metrics: counted from the wire, the record marked walked, the worker\'s columns the parse\'s samples', async () => {
    const body = encodeExportMetricsRequest({ resourceMetrics: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }, { key: 'host.name', value: { stringValue: 'a' } }] },
      scopeMetrics: [{ metrics: [{ name: 'queue.depth', gauge: { dataPoints: [
        { attributes: [{ key: 'queue', value: { stringValue: 'emails' } }], timeUnixNano: '1764000000000000001', asDouble: 3 },
        { asInt: '4' }, // no time: the receipt time, which travels with the record
      ] } }] }],
    }] });
    const req = request({ 'content-type': 'application/x-protobuf' }, '/v1/metrics');
    const counted = await (otlpMetricsFormat.count ?? assert.fail('otlp metrics count'))(body, req);
    assert.deepEqual({ rows: counted.rows, walked: counted.bodyWalked }, { rows: 5, walked: true }, 'three samples (target_info too), two families');
    const { back, parsed } = await roundTrip(otlpMetricsFormat, body, req);
    assert.deepEqual(back, parsed);
    const record = encodeRawRecord('t1', { ...otlpMetricsFormat, walKey: 'otlp-metrics' }, { ...req, bodyWalked: true }, body, counted.rows);
    const payload = scanRecords(Buffer.concat(record.pieces)).records[0]?.payload ?? assert.fail('one record');
    const columns = (await decodeAnyPayload(payload, replayFormats, counted.rows)).batch.deferredSamples?.readColumns?.() ?? assert.fail('columns');
    const samples = Array.from({ length: columns.count }, (_, k) => ({
      name: columns.series[columns.seriesOf[k] ?? -1]?.name, labels: columns.series[columns.seriesOf[k] ?? -1]?.labels,
      timeMs: columns.timeMs[k], value: columns.values[k],
    }));
    assert.deepEqual(samples, parsed.batch.samples);
    assert.equal(samples[1]?.timeMs, 1_764_000_000_000, 'the receipt time of the record');
    // A JSON body is parsed whole to count it, and read by the parser.
    const json = Buffer.from(JSON.stringify({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'g', gauge: { dataPoints: [{ asDouble: 1 }] } }] }] }] }));
    const jsonReq = request({ 'content-type': 'application/json' }, '/v1/metrics');
    const jsonCount = await otlpMetricsFormat.count?.(json, jsonReq);
    assert.deepEqual({ rows: jsonCount?.rows, walked: jsonCount?.bodyWalked }, { rows: 2, walked: undefined });
    assert.equal('readColumns' in (otlpMetricsFormat.deferSamples?.(json, jsonReq, 2, () => undefined) ?? {}), false);
  });

  test('remote write sent without Content-Encoding is still snappy-decoded once on replay', async () => {
    const raw = encodeRemoteWrite(1, {
      timeseries: [{ labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'api' }], samples: [{ value: 1, timestamp: 1_764_000_000_000 }] }],
    });
    const body = Buffer.from(compress(raw));
    const { back, parsed } = await roundTrip(remoteWriteFormat, body, request({ 'content-type': 'application/x-protobuf' }, '/api/v1/write'));
    assert.deepEqual(back, parsed);
    assert.equal(back.batch.samples?.[0]?.name, 'up');
  });
});

describe('a raw record its format no longer parses', () => {
  test('is reported and gives no rows, instead of stopping the drain on it', async () => {
    const stricter: IngestFormat = { ...nativeFormat, parse: () => { throw new Error('a rule added after the record was written'); } };
    const rec = encodeRawRecord('t9', { ...nativeFormat, walKey: 'native' }, request(), Buffer.from('{"_msg":"a"}\n'), 1);
    const { records } = scanRecords(Buffer.concat(rec.pieces));
    const reports: string[] = [];
    const previous = setUnparseableReporter((m) => reports.push(m));
    try {
      const back = await decodeAnyPayload(records[0]?.payload ?? assert.fail('no record'), new Map([['native', stricter]]));
      assert.deepEqual(back, { tenantId: 't9', format: 'native', batch: emptyBatch() });
    } finally {
      setUnparseableReporter(previous);
    }
    assert.equal(reports.length, 1);
    assert.match(reports[0] ?? '', /native record of tenant t9 no longer parses \(a rule added after the record was written\)/);
  });
});

/** The messages of a write's records, decoded as the DuckDB worker does: log lines parsed window by window (LogWindows). */
async function messagesOf(parts: RecordParts): Promise<string[]> {
  const msgs: string[] = [];
  for (const tb of await decodeRecordParts(parts, replayFormats, true)) {
    for (const logs of logWindowsOf(tb.batch)) msgs.push(...logs.map((l) => l.msg));
  }
  return msgs;
}

/** A store that takes framed records and decodes them itself, as the DuckDB worker does. */
class DecodingStore implements WalTarget {
  msgs: string[] = [];
  position = 0n;
  writes = 0;
  failNext = 0;
  /** Writes that were handed over before the one ahead of them had answered. */
  overlapped = 0;
  private busy = false;
  write(): Promise<void> {
    return Promise.reject(new Error('a decoding store is given records, never batches'));
  }
  /** Each write's rows, and whether it was handed over while the one before was still under way. */
  sizes: { rows: number; behind: boolean }[] = [];
  delayMs = 5;
  async writeRecords(parts: RecordParts, walPosition: bigint, from: bigint): Promise<void> {
    const behind = this.busy;
    if (behind) this.overlapped++;
    this.busy = true;
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    this.busy = false;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('store down');
    }
    if (walPosition <= this.position) return;
    if (from !== this.position) throw new Error(`a write from ${from} while the store is at ${this.position}`);
    const before = this.msgs.length;
    this.msgs.push(...await messagesOf(parts));
    this.sizes.push({ rows: this.msgs.length - before, behind });
    this.position = walPosition;
    this.writes++;
  }
  walPosition(): Promise<bigint> {
    return Promise.resolve(this.position);
  }
}

/**
 * As the DuckDB worker takes writes (worker-host.ts): one at a time, in the order they reach it, each refused unless it
 * starts where the store is. What it is handed is recorded as it arrives; while `gated`, a write waits for release().
 */
class ArrivalOrderStore implements WalTarget {
  position = 0n;
  arrivals: bigint[] = [];
  refused: string[] = [];
  msgs: string[] = [];
  gated = false;
  private readonly gates: (() => void)[] = [];
  private queue: Promise<void> = Promise.resolve();
  write(): Promise<void> {
    return Promise.reject(new Error('a decoding store is given records, never batches'));
  }
  /** Lets the i-th write to arrive take its turn. */
  release(i: number): void {
    this.gates[i]?.();
  }
  writeRecords(parts: RecordParts, walPosition: bigint, from: bigint): Promise<void> {
    const i = this.arrivals.push(from) - 1;
    const gate = this.gated ? new Promise<void>((resolve) => { this.gates[i] = resolve; }) : Promise.resolve();
    const turn = this.queue.then(async () => {
      await gate;
      if (walPosition <= this.position) return;
      if (from !== this.position) {
        this.refused.push(`a write from ${from} while the store is at ${this.position}`);
        throw new Error(`a write from ${from} while the store is at ${this.position}`);
      }
      this.msgs.push(...await messagesOf(parts));
      this.position = walPosition;
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }
  walPosition(): Promise<bigint> {
    return Promise.resolve(this.position);
  }
}

describe('the WAL and a store that decodes records', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const ndjson = (msgs: string[]) => Buffer.from(msgs.map((m) => JSON.stringify({ _msg: m })).join('\n'));

  async function appendNative(wal: Awaited<ReturnType<typeof openWal>>, msgs: string[]): Promise<void> {
    const body = ndjson(msgs);
    const req = request();
    const parsed = nativeFormat.parse(body, req) as { batch: TenantBatch['batch'] };
    await wal.append({ tenantId: 't1', format: 'native', batch: parsed.batch }, { format: { ...nativeFormat, walKey: 'native' }, req, body });
  }

  for (const memoryBytes of [64 * 1024 * 1024, 1]) {
    test(`raw and JSON records arrive once each, in order (${memoryBytes === 1 ? 'read back from disk' : 'held in memory'})`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'wal-raw-'));
      dirs.push(dir);
      const store = new DecodingStore();
      const wal = await openWal({ dir, store, maxBytes: 1 << 30, memoryBytes, batchIntervalMs: 5 });
      await appendNative(wal, ['a1', 'a2']);
      await wal.append({ tenantId: 't1', format: 'loki', batch: { logs: [{ timeNs: NOW, observedNs: NOW, service: '', severity: '', msg: 'json-record', traceId: '', spanId: '', stream: '', fields: {} }], spans: [] } });
      await Promise.all([appendNative(wal, ['b1']), appendNative(wal, ['b2', 'b3'])]);
      await wal.flush();
      assert.deepEqual(store.msgs, ['a1', 'a2', 'json-record', 'b1', 'b2', 'b3']);
      await wal.close();
    });
  }

  test('a failed write fails the one sent behind it, and both are sent again: every record once, in order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wal-raw-'));
    dirs.push(dir);
    const store = new DecodingStore();
    const errors: unknown[] = [];
    const wal = await openWal({ dir, store, maxBytes: 1 << 30, batchRows: 2, batchIntervalMs: 1, onError: (e) => errors.push(e) });
    store.failNext = 1;
    const sent = Array.from({ length: 12 }, (_, i) => `m${i}`);
    await Promise.all(sent.map((m) => appendNative(wal, [m])));
    await wal.flush();
    assert.deepEqual(store.msgs, sent);
    assert.ok(errors.length >= 1, 'the failure was reported');
    assert.ok(store.overlapped > 0, 'writes were in flight together');
    await wal.close();
  });

  test('a write handed over behind one under way is a full one (small writes are what DuckDB is slow at)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wal-raw-'));
    dirs.push(dir);
    const store = new DecodingStore();
    store.delayMs = 30;
    const wal = await openWal({ dir, store, maxBytes: 1 << 30, batchRows: 8, batchIntervalMs: 1 });
    const sent: string[] = [];
    for (let i = 0; i < 40; i++) {
      const pair = [`p${i}a`, `p${i}b`];
      sent.push(...pair);
      await appendNative(wal, pair);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // No flush here: a flush is urgent, and an urgent write may be sent behind one under way before it is full.
    // The last rows go out on their own once the write ahead of them has answered.
    while (store.msgs.length < sent.length) await new Promise((resolve) => setTimeout(resolve, 5));
    await wal.flush();
    assert.deepEqual(store.msgs, sent);
    assert.ok(store.sizes.some((w) => w.behind), 'writes were in flight together');
    for (const w of store.sizes.filter((x) => x.behind)) assert.equal(w.rows, 8, JSON.stringify(store.sizes));
    await wal.close();
  });

  test('writes reach the store in the order they were made, when one is read back from disk and the next is held', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wal-raw-'));
    dirs.push(dir);
    const store = new ArrivalOrderStore();
    const errors: unknown[] = [];
    const oneRecord = await (async () => {
      const probeDir = await mkdtemp(join(tmpdir(), 'wal-raw-'));
      dirs.push(probeDir);
      const probe = await openWal({ dir: probeDir, store: new ArrivalOrderStore(), maxBytes: 1 << 30, batchIntervalMs: 1 });
      await appendNative(probe, ['r0']);
      await probe.close();
      return probe.stats().appendedBytes;
    })();
    // Memory for one record, one record a write: a record that comes while one is held is read back from its segment.
    const wal = await openWal({
      dir, store, maxBytes: 1 << 30, memoryBytes: oneRecord, batchRows: 1, batchIntervalMs: 1, onError: (e) => errors.push(e),
    });
    const arrived = async (n: number) => {
      while (store.arrivals.length < n) await new Promise((resolve) => setTimeout(resolve, 1));
    };
    store.gated = true;
    await appendNative(wal, ['r1']);
    await arrived(1);
    await appendNative(wal, ['r2']);
    await arrived(2); // two writes in flight, neither answered: nothing is held
    await appendNative(wal, ['r3']); // held
    await appendNative(wal, ['r4']); // read back later: memory was full
    store.release(0);
    await arrived(3); // r3's write took it out of memory
    await appendNative(wal, ['r5']); // held
    store.gated = false;
    // Both writes in flight answer at once: r4's (read back from disk) and r5's (in memory) are made together.
    store.release(1);
    store.release(2);
    await wal.flush();
    assert.deepEqual(store.refused, [], 'no write reached the store ahead of the one made before it');
    assert.deepEqual(errors, []);
    assert.deepEqual(store.msgs, ['r1', 'r2', 'r3', 'r4', 'r5']);
    assert.deepEqual(store.arrivals, [...store.arrivals].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)), 'arrived in order');
    await wal.close();
  });

  test('records past the store position are replayed into it once after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wal-raw-'));
    dirs.push(dir);
    const held = new DecodingStore();
    // Every write the first process sends hangs until it "crashes" (two may be in flight at once).
    const hanging: (() => void)[] = [];
    const blocked: WalTarget = {
      write: () => Promise.reject(new Error('unused')),
      writeRecords: () => new Promise<void>((_resolve, reject) => { hanging.push(() => reject(new Error('crashed before commit'))); }),
      walPosition: () => Promise.resolve(0n),
    };
    const wal = await openWal({ dir, store: blocked, maxBytes: 1 << 30, batchIntervalMs: 5, onError: () => undefined });
    await appendNative(wal, ['r1', 'r2']);
    await appendNative(wal, ['r3']);
    while (hanging.length === 0) await new Promise((resolve) => setTimeout(resolve, 2)); // a write is in flight
    // The acks are in; the store never committed. A new process opens the same directory.
    const reopened = await openWal({ dir, store: held, maxBytes: 1 << 30, batchIntervalMs: 5 });
    assert.deepEqual(held.msgs, ['r1', 'r2', 'r3']);
    await reopened.close();
    for (const fail of hanging) fail();
    await wal.close({ drainForMs: 0 });
  });
});
