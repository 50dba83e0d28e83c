// Raw WAL records (issue 12 item 1: "write the WAL from the bytes you already have"). For a format whose parse is a
// pure function of the body and a few request facts (IngestFormat.walKey), the record holds the body as the pipeline
// decoded it plus those facts, instead of the parsed batch re-serialized: the request thread then writes bytes it
// already has, and whoever stores the record (the DuckDB worker) parses it again off the request thread.
//
// Payload layout: [u8 RAW_KIND][u32 LE meta length][meta: JSON][body]. JSON payloads (wal-codec.ts) start with `[`,
// so the first byte tells the two apart.
import type { IncomingHttpHeaders } from 'node:http';
import { emptyBatch, type TenantBatch } from '../model/batch.js';
import type { FormatRequest, IngestFormat } from './format.js';
import { RECORD_HEADER_BYTES, crc32, decodePayload, scanRecords } from './wal-codec.js';

const RAW_KIND = 0x03;
const META_AT = 5;

/**
 * The headers a replayable format may read (IngestFormat.walKey promises it reads no other): the body's media type
 * and encoding (OTLP JSON or protobuf, remote write's optional snappy) and remote write's version. Credentials and
 * everything else stay out of the WAL.
 */
export const REPLAY_HEADERS = ['content-type', 'content-encoding', 'x-prometheus-remote-write-version'] as const;

/** A framed record as the pieces written one after the other (no copy into one buffer on the request path). */
export interface RecordPieces {
  pieces: Buffer[];
  length: number;
}

export function encodeRawRecord(tenantId: string, format: IngestFormat & { walKey: string }, req: FormatRequest, body: Buffer, rows: number): RecordPieces {
  const headers: Record<string, string> = {};
  for (const h of REPLAY_HEADERS) {
    const v = req.headers[h];
    if (v !== undefined) headers[h] = Array.isArray(v) ? v.join(', ') : v;
  }
  const facts = [tenantId, format.name, format.walKey, req.nowNs.toString(), req.path, req.query.toString(), headers];
  // An eighth fact only when set: records without it read as they always have (FormatRequest.bodyWalked).
  const meta = Buffer.from(JSON.stringify(req.bodyWalked === true ? [...facts, 1] : facts));
  const head = Buffer.allocUnsafe(RECORD_HEADER_BYTES + META_AT);
  const payloadLength = META_AT + meta.length + body.length;
  head.writeUInt32LE(payloadLength, 0);
  head.writeUInt32LE(rows, 8);
  head.writeUInt8(RAW_KIND, RECORD_HEADER_BYTES);
  head.writeUInt32LE(meta.length, RECORD_HEADER_BYTES + 1);
  // A CRC continues from a previous value: the CRC of row count + payload without joining them.
  const crc = crc32(body, 0, body.length, crc32(meta, 0, meta.length, crc32(head, 8)));
  head.writeUInt32LE(crc, 4);
  return { pieces: [head, meta, body], length: head.length + meta.length + body.length };
}

/** How a raw record's format is found again: every format with a walKey, by that key. */
export type ReplayFormats = ReadonlyMap<string, IngestFormat>;

/**
 * The batch a payload holds: JSON payloads decode as they are; raw ones are parsed again by their format with the
 * request facts they were received with, which gives the batch the request thread acknowledged.
 */
export async function decodeAnyPayload(payload: Uint8Array, formats: ReplayFormats, windowRows?: number): Promise<TenantBatch> {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (buf[0] !== RAW_KIND) return decodePayload(buf);
  const metaEnd = META_AT + buf.readUInt32LE(1);
  return replayRaw(buf.subarray(META_AT, metaEnd), buf.subarray(metaEnd), formats, windowRows);
}

/**
 * Framed WAL records as a store that decodes them itself is handed them (WalTarget.writeRecords), in order: each
 * element is either a run of whole records back to back (read back from a segment) or the pieces of one record as
 * the WAL wrote them (RecordPieces.pieces). Nothing is joined, so a body crosses to the worker by transfer.
 */
export type RecordParts = Uint8Array[][];

/**
 * The batches of `parts`, in order; a run of records must hold whole, CRC-checked records and nothing else. With
 * `windows`, a format that can leaves its log entries to be parsed as the store reads them (IngestFormat.logWindows).
 */
export async function decodeRecordParts(parts: RecordParts, formats: ReplayFormats, windows = false): Promise<TenantBatch[]> {
  const out: TenantBatch[] = [];
  for (const pieces of parts) {
    const raw = rawRecordPieces(pieces);
    if (raw) {
      out.push(await replayRaw(raw.meta, raw.body, formats, windows ? raw.rows : undefined));
      continue;
    }
    const [only] = pieces;
    const framed = pieces.length === 1 && only ? Buffer.from(only.buffer, only.byteOffset, only.byteLength) : Buffer.concat(pieces);
    const { records, validEnd } = scanRecords(framed);
    if (validEnd !== framed.length) throw new Error(`wal: records damaged after byte ${validEnd} of ${framed.length}`);
    for (const r of records) out.push(await decodeAnyPayload(r.payload, formats, windows ? r.rows : undefined));
  }
  return out;
}

/**
 * The meta and body of a record still in the pieces encodeRawRecord gave, else null. Those pieces never left memory,
 * so there is no torn write for the CRC to catch; the lengths are checked all the same.
 */
function rawRecordPieces(pieces: Uint8Array[]): { meta: Buffer; body: Buffer; rows: number } | null {
  const [head, meta, body] = pieces;
  if (pieces.length !== 3 || !head || !meta || !body || head.byteLength !== RECORD_HEADER_BYTES + META_AT) return null;
  const h = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const fits = h[RECORD_HEADER_BYTES] === RAW_KIND && h.readUInt32LE(RECORD_HEADER_BYTES + 1) === meta.byteLength
    && h.readUInt32LE(0) === META_AT + meta.byteLength + body.byteLength;
  if (!fits) return null;
  return {
    meta: Buffer.from(meta.buffer, meta.byteOffset, meta.byteLength),
    body: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    rows: h.readUInt32LE(8),
  };
}

/**
 * The batch of a raw record. With `windowRows` (the record's row count), a format that can leaves its log entries or
 * metric samples to be parsed as the store reads them (IngestFormat.logWindows, deferSamples).
 */
async function replayRaw(metaBytes: Buffer, body: Buffer, formats: ReplayFormats, windowRows?: number): Promise<TenantBatch> {
  const [tenantId, name, walKey, nowNs, path, query, headers, walked] = JSON.parse(metaBytes.toString('utf8')) as
    [string, string, string, string, string, string, IncomingHttpHeaders, 1 | undefined];
  const format = formats.get(walKey);
  if (format === undefined) throw new Error(`wal: no format ${walKey} to replay a raw record with`);
  const req: FormatRequest = { path, query: new URLSearchParams(query), headers, nowNs: BigInt(nowNs), ...(walked === 1 ? { bodyWalked: true } : {}) };
  const logWindows = windowRows === undefined ? null : format.logWindows?.(body, req, windowRows, (why) => {
    onUnparseable(`wal: a ${walKey} record of tenant ${tenantId} no longer parses whole (${why}); that entry is skipped`);
  });
  if (logWindows) return { tenantId, format: name, batch: { logs: [], spans: [], logWindows } };
  const deferredSamples = windowRows === undefined ? undefined : format.deferSamples?.(body, req, windowRows, (why) => {
    onUnparseable(`wal: a ${walKey} record of tenant ${tenantId} no longer parses (${why}); its rows are skipped`);
  });
  if (deferredSamples) return { tenantId, format: name, batch: { logs: [], spans: [], deferredSamples } };
  try {
    const parsed = await format.parse(body, req);
    return { tenantId, format: name, batch: parsed.batch };
  } catch (e) {
    // count() accepts only what parse() does, so this takes a parser that changed since the record was acknowledged.
    // Throwing would stop the drain on this record for good (every later write waits behind it, and the WAL fills
    // for every tenant); the record's rows are given up instead, loudly, and the drain goes on.
    const why = e instanceof Error ? e.message : String(e);
    onUnparseable(`wal: a ${walKey} record of tenant ${tenantId} no longer parses (${why}); its rows are skipped`);
    return { tenantId, format: name, batch: emptyBatch() };
  }
}

/** Where a raw record that no longer parses is reported: stderr, which the service's log goes to. */
let onUnparseable = (message: string): void => {
  console.error(message);
};

/** For tests: collects the reports instead. Returns the previous reporter. */
export function setUnparseableReporter(report: (message: string) => void): (message: string) => void {
  const previous = onUnparseable;
  onUnparseable = report;
  return previous;
}
