// Request bodies: read them bounded in memory and time, then undo the Content-Encoding with the output
// counted as it streams (spec, Limits "Body caps" and "Content-Encoding on ingest bodies"; DESIGN §6
// "413 on logs/traces" and "Order of checks": size as received → … → Content-Encoding (400) →
// decompress (400 / 413) → parse). Codecs and their dialects: wire-formats.md §2.
import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
import { crc32c } from '@node-rs/crc32';
import { Decompress } from 'fzstd';
import { ServiceError, errors } from '../errors.js';
import { snappyDeclaredLength, uncompressSnappyBlock } from './snappy-block.js';

/** Body caps count in MiB (DESIGN §6, Units): 2 MB = 2,097,152 bytes. */
export const MIB = 1024 * 1024;
/** Past this many decoded bytes counting stops and the 413 says "more than 67108864" (DESIGN §6). */
export const MAX_COUNTED_BYTES = 64 * MIB;
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/**
 * The body as received passed its cap while streaming (chunked bodies carry no Content-Length, and OTel
 * exporters send chunked: wire-formats.md §6). The ingest pipeline answers it with the plain-text 413 and
 * closes the connection (DESIGN §6); elsewhere it is an ordinary JSON 413.
 */
export class BodyTooLargeError extends ServiceError {
  constructor(readonly limitBytes: number) {
    super(413, 'payload_too_large', `Request body is over the limit of ${limitBytes} bytes`, 'payload_too_large');
    this.name = 'BodyTooLargeError';
  }
}

/** The client stopped sending mid-body for longer than the idle timeout. */
export class BodyTimeoutError extends ServiceError {
  constructor(readonly idleTimeoutMs: number) {
    super(408, 'request_timeout', `Request body stalled: nothing received for ${idleTimeoutMs} ms`, 'bad_request');
    this.name = 'BodyTimeoutError';
  }
}

/**
 * The client went away before the body ended, or before it was stored; nobody reads the reply, but the request must
 * not hang.
 */
export class ClientAbortedError extends ServiceError {
  constructor(message = 'Client aborted the request before the body ended') {
    super(400, 'client_aborted', message, 'bad_request');
    this.name = 'ClientAbortedError';
  }
}

export interface ReadBodyOptions {
  /** Longest silence between two chunks before the read fails with BodyTimeoutError. Default 30 s. */
  idleTimeoutMs?: number;
}

/** Collects the body as received, refusing it as soon as it passes `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number, options: ReadBodyOptions = {}): Promise<Buffer> {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(new ClientAbortedError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const timer = setTimeout(() => { fail(new BodyTimeoutError(idleTimeoutMs)); }, idleTimeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('aborted', onAbort).off('close', onClose);
    };
    const fail = (e: ServiceError): void => {
      cleanup();
      chunks.length = 0; // let what was collected go now, not when the request object does
      reject(e);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buf.length;
      if (total > maxBytes) {
        fail(new BodyTooLargeError(maxBytes));
        return;
      }
      chunks.push(buf);
      timer.refresh();
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, total));
    };
    const onAbort = (): void => { fail(new ClientAbortedError()); };
    // 'close' before 'end' is how an abort shows on Node 20 when 'aborted' is not emitted.
    const onClose = (): void => { if (!req.readableEnded) onAbort(); };
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('aborted', onAbort).on('close', onClose);
  });
}

export interface DecodeLimits {
  maxDecodedBytes: number;
  /** Builds the plane's 413 from the decoded byte count text (an exact number, or "more than 67108864"). */
  tooLarge: (decodedBytesText: string) => ServiceError;
}

export type ContentCoding = 'identity' | 'gzip' | 'zstd' | 'snappy';

/**
 * The one coding a body carries. Accepted: gzip (and its alias x-gzip), zstd, snappy (and the newer OTel
 * Collector name x-snappy-framed; the framing is sniffed either way). deflate, br and anything else are
 * refused by name (spec, "Content-Encoding on ingest bodies"); a stack of codings is refused too.
 */
export function parseContentEncoding(header: string | undefined): ContentCoding {
  const parts = (header ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length > 1) throw errors.badRequest(`Only one Content-Encoding is supported, got: ${parts.join(', ')}`);
  const name = parts[0] ?? 'identity';
  switch (name.toLowerCase()) {
    case 'identity': return 'identity';
    case 'gzip': case 'x-gzip': return 'gzip';
    case 'zstd': return 'zstd';
    case 'snappy': case 'x-snappy-framed': return 'snappy';
    default: throw errors.unsupportedEncoding(name);
  }
}

/** Undoes the Content-Encoding; 400 when refused or corrupt, `limits.tooLarge` when over the decoded cap. */
export async function decodeBody(raw: Buffer, contentEncoding: string | undefined, limits: DecodeLimits): Promise<Buffer> {
  const coding = parseContentEncoding(contentEncoding);
  const out = new BoundedOutput(limits.maxDecodedBytes);
  if (coding === 'identity' || raw.length === 0) out.count(raw.length);
  else if (coding === 'gzip') await gunzipInto(raw, out);
  else if (coding === 'zstd') unzstdInto(raw, out);
  else if (isFramedSnappy(raw)) unframeSnappyInto(raw, out);
  else unsnappyBlockInto(raw, out);
  if (out.decoded > limits.maxDecodedBytes) throw limits.tooLarge(out.sizeText());
  return coding === 'identity' || raw.length === 0 ? raw : out.result();
}

/**
 * Decoded output, never held past the cap: once over it the chunks already kept are dropped and later
 * ones only counted, and at MAX_COUNTED_BYTES counting stops (DESIGN §6, "413 on logs/traces").
 */
class BoundedOutput {
  decoded = 0;
  private chunks: Uint8Array[] = [];

  constructor(readonly max: number) {}

  get over(): boolean { return this.decoded > this.max; }

  /** Keeps (or only counts) a chunk; false once counting has stopped and the decoder should stop too. */
  add(chunk: Uint8Array): boolean {
    if (!this.count(chunk.length)) return false;
    if (!this.over) this.chunks.push(chunk);
    return true;
  }

  /** Counts bytes known without decoding them (declared lengths); false once counting has stopped. */
  count(n: number): boolean {
    this.decoded += n;
    if (this.over) this.chunks = [];
    return this.decoded <= MAX_COUNTED_BYTES;
  }

  /** Whether `n` more bytes would pass the cap: then they are counted from their declared length. */
  wouldPass(n: number): boolean { return this.decoded + n > this.max; }

  sizeText(): string {
    return this.decoded > MAX_COUNTED_BYTES ? `more than ${MAX_COUNTED_BYTES}` : String(this.decoded);
  }

  result(): Buffer {
    const [only] = this.chunks;
    if (this.chunks.length === 1 && only) return Buffer.from(only.buffer, only.byteOffset, only.byteLength);
    return Buffer.concat(this.chunks, this.decoded);
  }
}

// gzip: node:zlib streams, so a bomb (2 MB that inflates to GBs) is stopped after 64 MiB of counting.
// Gunzip reads concatenated members (multi-member gzip) on its own.
function gunzipInto(raw: Buffer, out: BoundedOutput): Promise<void> {
  return new Promise((resolve, reject) => {
    const z = createGunzip({ chunkSize: 64 * 1024 });
    let stopped = false;
    z.on('data', (chunk: Buffer) => {
      if (stopped || out.add(chunk)) return;
      stopped = true;
      z.destroy();
      resolve();
    });
    z.on('end', () => { resolve(); });
    z.on('error', (e) => { reject(errors.corruptBody('gzip', e.message)); });
    z.end(raw);
  });
}

// zstd (RFC 8878). fzstd allocates each frame's whole window up front and its streaming API takes any
// window up to 2 GB, so frame headers are read here first: a window over the bound is refused, and a frame
// whose declared content size would pass the cap is counted from that size instead of being decoded.
const ZSTD_MAGIC = 0xfd2fb528;
/** RFC 8878 §3.1.1.1.2: decoders should support windows of at least 8 MiB. */
const ZSTD_MIN_WINDOW_LIMIT = 8 * MIB;
/** Thrown out of fzstd's data callback to stop decoding once counting has stopped. */
const STOP = new Error('stop counting');

interface ZstdFrame { start: number; end: number; windowSize: number; contentSize: number | null }

function unzstdInto(raw: Buffer, out: BoundedOutput): void {
  const windowLimit = Math.max(ZSTD_MIN_WINDOW_LIMIT, out.max);
  for (const frame of zstdFrames(raw)) {
    const declared = frame.contentSize;
    if (declared !== null && (out.over || out.wouldPass(declared))) {
      if (!out.count(declared)) return;
      continue;
    }
    if (frame.windowSize > windowLimit) {
      throw errors.corruptBody('zstd', `window of ${frame.windowSize} bytes is over the supported ${windowLimit}`);
    }
    const before = out.decoded;
    const d = new Decompress((chunk) => { if (!out.add(chunk)) throw STOP; });
    try {
      d.push(raw.subarray(frame.start, frame.end), true);
    } catch (e) {
      if (e === STOP) return;
      throw errors.corruptBody('zstd', e instanceof Error ? e.message : String(e));
    }
    if (declared !== null && out.decoded - before !== declared) {
      throw errors.corruptBody('zstd', `frame declared ${declared} bytes but held ${out.decoded - before}`);
    }
  }
}

/** Walks frame and block headers only (no decoding) to find each frame's extent and sizes. */
function zstdFrames(raw: Buffer): ZstdFrame[] {
  const frames: ZstdFrame[] = [];
  const bad = (why: string): ServiceError => errors.corruptBody('zstd', why);
  let pos = 0;
  while (pos < raw.length) {
    if (pos + 8 > raw.length) throw bad('truncated frame header');
    const magic = raw.readUInt32LE(pos);
    if ((magic & 0xfffffff0) === 0x184d2a50) { // skippable frame
      pos += 8 + raw.readUInt32LE(pos + 4);
      if (pos > raw.length) throw bad('truncated skippable frame');
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw bad('not a zstd frame (bad magic number)');
    const start = pos;
    const flags = raw.readUInt8(pos + 4);
    const singleSegment = (flags >> 5) & 1, fcsFlag = flags >> 6, dictBytes = [0, 1, 2, 4][flags & 3] ?? 0;
    if (flags & 8) throw bad('reserved frame header bit set');
    pos += 5;
    let windowSize = 0;
    if (!singleSegment) {
      const wd = raw.readUInt8(pos++);
      const base = 2 ** (10 + (wd >> 3));
      windowSize = base + (base / 8) * (wd & 7);
    }
    pos += dictBytes;
    const fcsBytes = fcsFlag ? 1 << fcsFlag : singleSegment;
    if (pos + fcsBytes > raw.length) throw bad('truncated frame header');
    let contentSize: number | null = null;
    if (fcsBytes === 1) contentSize = raw.readUInt8(pos);
    else if (fcsBytes === 2) contentSize = raw.readUInt16LE(pos) + 256;
    else if (fcsBytes === 4) contentSize = raw.readUInt32LE(pos);
    else if (fcsBytes === 8) contentSize = Number(raw.readBigUInt64LE(pos));
    pos += fcsBytes;
    if (singleSegment) windowSize = contentSize ?? 0;
    for (let last = 0; !last;) {
      if (pos + 3 > raw.length) throw bad('truncated block header');
      const header = raw.readUIntLE(pos, 3);
      last = header & 1;
      const type = (header >> 1) & 3;
      if (type === 3) throw bad('reserved block type');
      pos += 3 + (type === 1 ? 1 : header >>> 3); // an RLE block carries one byte
    }
    if ((flags >> 2) & 1) pos += 4; // content checksum (not verified: fzstd does not, and sizes are)
    if (pos > raw.length) throw bad('truncated frame');
    frames.push({ start, end: pos, windowSize, contentSize });
  }
  return frames;
}

// snappy: two dialects under one name (wire-formats.md §2). The framing format opens with the stream
// identifier chunk; without it the body is one block whose varint header declares its decoded length.
const SNAPPY_STREAM_ID = Buffer.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
/** Framing format: no chunk decodes to more than 64 KiB. */
const SNAPPY_MAX_CHUNK = 65_536;

export function isFramedSnappy(raw: Buffer): boolean {
  return raw.length >= SNAPPY_STREAM_ID.length && raw.subarray(0, SNAPPY_STREAM_ID.length).equals(SNAPPY_STREAM_ID);
}

function unsnappyBlockInto(raw: Buffer, out: BoundedOutput): void {
  const declared = blockLength(raw);
  // The declared length is known up front: an over-cap block is counted from it and never decoded.
  if (out.wouldPass(declared)) {
    out.count(declared);
    return;
  }
  out.add(decodedBlock(raw, declared));
}

function unframeSnappyInto(raw: Buffer, out: BoundedOutput): void {
  const bad = (why: string): ServiceError => errors.corruptBody('snappy', why);
  let pos = 0;
  while (pos < raw.length) {
    if (pos + 4 > raw.length) throw bad('truncated chunk header');
    const type = raw.readUInt8(pos);
    const length = raw.readUIntLE(pos + 1, 3);
    const start = pos + 4;
    pos = start + length;
    if (pos > raw.length) throw bad('truncated chunk');
    if (type === 0xff) {
      if (!raw.subarray(start - 4, pos).equals(SNAPPY_STREAM_ID)) throw bad('bad stream identifier');
    } else if (type === 0x00 || type === 0x01) {
      if (length < 4) throw bad('chunk too short for its checksum');
      const block = raw.subarray(start + 4, pos); // past the chunk's checksum
      const declared = type === 0x00 ? blockLength(block) : block.length;
      if (declared > SNAPPY_MAX_CHUNK) throw bad(`chunk of ${declared} bytes is over the 65536 allowed`);
      if (out.over || out.wouldPass(declared)) {
        if (!out.count(declared)) return;
        continue;
      }
      const data = type === 0x00 ? decodedBlock(block, declared) : block;
      if (maskedCrc32c(data) !== raw.readUInt32LE(start)) throw bad('checksum mismatch');
      out.add(data);
    } else if (type < 0x80) {
      throw bad(`reserved unskippable chunk type 0x${type.toString(16)}`);
    } // 0x80–0xfd skippable and 0xfe padding carry nothing
  }
}

/** The decoded length a snappy block declares (snappy-block.ts), else a 400. */
function blockLength(block: Buffer): number {
  const declared = snappyDeclaredLength(block);
  if (declared === null) throw errors.corruptBody('snappy', 'bad length header');
  return declared;
}

/** A snappy block (its varint header included) decoded to exactly `declared` bytes (snappy-block.ts), else a 400. */
function decodedBlock(block: Buffer, declared: number): Buffer {
  let data: Buffer;
  try {
    data = uncompressSnappyBlock(block);
  } catch {
    throw errors.corruptBody('snappy', 'invalid block data');
  }
  if (data.length !== declared) throw errors.corruptBody('snappy', 'invalid block data');
  return data;
}

/** CRC-32C (Castagnoli), by `@node-rs/crc32` as wal-codec.ts's CRC-32 is. */
export { crc32c };

/** CRC-32C masked as the snappy framing format stores it. */
export function maskedCrc32c(data: Uint8Array): number {
  const crc = crc32c(data);
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}
