// WAL record framing and the TenantBatch codec (DESIGN §1, "WAL before ack").
// A record is [u32 LE payload length][u32 LE CRC-32][u32 LE row count][payload], the CRC covering the row
// count and the payload; it lets open() find a torn tail after a crash. The row count lets the drain size
// its store batches for records it has not decoded (replay, spilled records). The payload is JSON of positional arrays with ns as decimal strings: V8's
// JSON.stringify/parse beat a hand-rolled binary encoder here because most bytes are strings and the
// `fields` maps are JSON-shaped anyway (measured: see the commit message / report).
import { crc32 as simdCrc32 } from '@node-rs/crc32';
import type { TenantBatch } from '../model/batch.js';
import type { FieldValue, LogEntry } from '../model/log-entry.js';
import type { Span, SpanEvent, SpanLink } from '../model/span.js';
import type { MetricMetadata, MetricSample } from '../model/metric.js';
import type { ReplayChunk } from '../model/replay.js';
import { isStaleMarker, staleMarker } from '../model/metric.js';

export const RECORD_HEADER_BYTES = 12;
const CRC_FROM = 8;
/**
 * Payload version, first element of the array; bump when the layout changes. Version 1 held logs and
 * spans only; version 2 adds metric samples, metric metadata and replay chunks. Both decode.
 */
const VERSION = 2;

/**
 * CRC-32 (IEEE 802.3, as gzip) of buf[start, end), by `@node-rs/crc32` (the `crc32fast` crate, carry-less multiply):
 * ~8.7 GB/s on the bench's VM against 2.6 for `zlib.crc32`, which cost the request thread ~6 % of its time under NDJSON
 * load (every acknowledged body is summed once; issue 12 item 1). The same values: wal.test.ts checks known sums.
 */
export function crc32(buf: Uint8Array, start = 0, end = buf.length, previous = 0): number {
  return simdCrc32(start === 0 && end === buf.length ? buf : buf.subarray(start, end), previous);
}

/** One framed record, ready to be written. */
export function encodeRecord(tb: TenantBatch): Buffer {
  const b = tb.batch;
  const json = JSON.stringify([VERSION, tb.tenantId, tb.format, b.logs.map(logToArray), b.spans.map(spanToArray),
    (b.samples ?? []).map(sampleToArray), (b.metadata ?? []).map(metadataToArray), (b.replay ?? []).map(replayToArray)]);
  const len = Buffer.byteLength(json);
  const buf = Buffer.allocUnsafe(RECORD_HEADER_BYTES + len);
  buf.write(json, RECORD_HEADER_BYTES, 'utf8');
  buf.writeUInt32LE(len, 0);
  buf.writeUInt32LE(rowCount(tb), CRC_FROM);
  buf.writeUInt32LE(crc32(buf, CRC_FROM, RECORD_HEADER_BYTES + len), 4);
  return buf;
}

export interface FramedRecord {
  /** Offset of the header in the scanned buffer. */
  start: number;
  /** Offset just past the payload: the next record's start. */
  end: number;
  rows: number;
  payload: Buffer;
}

/**
 * The valid records of `buf` from `from` on, stopping at the first short or corrupt one. After a crash
 * only the tail can be torn (records are written in order and acked after fsync), so everything past
 * the first bad header is the torn write.
 */
export function scanRecords(buf: Buffer, from = 0): { records: FramedRecord[]; validEnd: number } {
  const records: FramedRecord[] = [];
  let at = from;
  while (at + RECORD_HEADER_BYTES <= buf.length) {
    const len = buf.readUInt32LE(at);
    const end = at + RECORD_HEADER_BYTES + len;
    // len 0 never occurs (the payload is a JSON array) and would otherwise accept zero-filled tails.
    if (len === 0 || end > buf.length) break;
    if (crc32(buf, at + CRC_FROM, end) !== buf.readUInt32LE(at + 4)) break;
    records.push({ start: at, end, rows: buf.readUInt32LE(at + CRC_FROM), payload: buf.subarray(at + RECORD_HEADER_BYTES, end) });
    at = end;
  }
  return { records, validEnd: at };
}

export function decodePayload(payload: Buffer): TenantBatch {
  const v: unknown = JSON.parse(payload.toString('utf8'));
  const known = Array.isArray(v) && ((v[0] === 1 && v.length === 5) || (v[0] === VERSION && v.length === 8));
  if (!known) throw new Error('wal: unknown record layout');
  const [, tenantId, format, logs, spans, samples = [], metadata = [], replay = []] =
    v as [number, string, string, unknown[][], unknown[][], unknown[][]?, unknown[][]?, unknown[][]?];
  const batch: TenantBatch['batch'] = { logs: logs.map(arrayToLog), spans: spans.map(arrayToSpan) };
  if (samples.length > 0) batch.samples = samples.map(arrayToSample);
  if (metadata.length > 0) batch.metadata = metadata.map(arrayToMetadata);
  if (replay.length > 0) batch.replay = replay.map(arrayToReplay);
  return { tenantId, format, batch };
}

/** Rows a batch puts into the store: what the drain counts towards its batch size. */
export function rowCount(tb: TenantBatch): number {
  const b = tb.batch;
  return b.logs.length + b.spans.length + (b.samples?.length ?? 0) + (b.metadata?.length ?? 0) + (b.replay?.length ?? 0);
}

type Fields = Record<string, FieldValue>;

function logToArray(e: LogEntry): unknown[] {
  return [e.timeNs.toString(), e.observedNs.toString(), e.service, e.severity, e.msg, e.traceId, e.spanId, e.stream, e.fields];
}

function arrayToLog(a: unknown[]): LogEntry {
  const [timeNs, observedNs, service, severity, msg, traceId, spanId, stream, fields] =
    a as [string, string, string, string, string, string, string, string, Fields];
  return { timeNs: BigInt(timeNs), observedNs: BigInt(observedNs), service, severity, msg, traceId, spanId, stream, fields };
}

function spanToArray(s: Span): unknown[] {
  return [s.traceId, s.spanId, s.parentSpanId, s.name, s.kind, s.startNs.toString(), s.durationNs.toString(),
    s.statusCode, s.statusMessage, s.service, s.attributes, s.resource,
    s.events.map((e) => [e.timeNs.toString(), e.name, e.attributes]),
    s.links.map((l) => [l.traceId, l.spanId, l.attributes])];
}

function arrayToSpan(a: unknown[]): Span {
  const [traceId, spanId, parentSpanId, name, kind, startNs, durationNs, statusCode, statusMessage, service,
    attributes, resource, events, links] = a as [string, string, string, string, number, string, string, number,
    string, string, Fields, Fields, [string, string, Fields][], [string, string, Fields][]];
  return {
    traceId, spanId, parentSpanId, name, kind, startNs: BigInt(startNs), durationNs: BigInt(durationNs), statusCode,
    statusMessage, service, attributes, resource,
    events: events.map(([t, n, attrs]): SpanEvent => ({ timeNs: BigInt(t), name: n, attributes: attrs })),
    links: links.map(([tid, sid, attrs]): SpanLink => ({ traceId: tid, spanId: sid, attributes: attrs })),
  };
}

/** JSON has no NaN or infinities: those travel as strings, the stale marker's NaN as its own word. */
function encodeValue(v: number): number | string {
  if (Number.isFinite(v)) return v;
  if (Number.isNaN(v)) return isStaleMarker(v) ? 'stale' : 'NaN';
  return v > 0 ? 'Inf' : '-Inf';
}

function decodeValue(v: number | string): number {
  if (typeof v === 'number') return v;
  if (v === 'stale') return staleMarker();
  if (v === 'Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  return NaN;
}

function sampleToArray(s: MetricSample): unknown[] {
  return [s.name, s.labels, s.timeMs, encodeValue(s.value)];
}

function arrayToSample(a: unknown[]): MetricSample {
  const [name, labels, timeMs, value] = a as [string, Record<string, string>, number, number | string];
  return { name, labels, timeMs, value: decodeValue(value) };
}

function metadataToArray(m: MetricMetadata): unknown[] {
  return [m.name, m.type, m.help, m.unit];
}

function arrayToMetadata(a: unknown[]): MetricMetadata {
  const [name, type, help, unit] = a as [string, string, string, string];
  return { name, type, help, unit };
}

function replayToArray(r: ReplayChunk): unknown[] {
  return [r.sessionId, r.seq, r.startNs.toString(), r.endNs.toString(), r.eventsJson, r.eventCount, r.page, r.user];
}

function arrayToReplay(a: unknown[]): ReplayChunk {
  const [sessionId, seq, startNs, endNs, eventsJson, eventCount, page, user] =
    a as [string, number, string, string, string, number, string, string];
  return { sessionId, seq, startNs: BigInt(startNs), endNs: BigInt(endNs), eventsJson, eventCount, page, user };
}
