// A body as text, fast: V8 builds the string of a pure-ASCII buffer several times faster through `latin1` than
// through `utf8` (measured 0.4 against 1.5–1.9 µs per 300-byte entry on the ingest bench's bodies; issue 12 item 1),
// and for ASCII bytes both give the same string. `isAscii` is one SIMD pass; anything else decodes as UTF-8.
import { isAscii } from 'node:buffer';

export function utf8Text(buf: Buffer): string {
  return isAscii(buf) ? buf.toString('latin1') : buf.toString('utf8');
}

/**
 * Bytes of text decoded at a time by a reader that walks a body line by line (native.ts). A string this short is
 * made in V8's young generation; one of a whole 2 MB body takes fresh pages of the large-object space every time,
 * and on the ingest bench's bodies decoding and parsing in windows ran at 393 MB/s against 175–281 whole (issue 12
 * item 1).
 */
export const TEXT_WINDOW_BYTES = 64 * 1024;

/**
 * The end of the window of `buf` that starts at `from`: just past the last newline within TEXT_WINDOW_BYTES, or past
 * the first one after it when a line is longer, or the end of the buffer. A newline byte is never part of a UTF-8
 * sequence, so every window decodes on its own.
 */
export function textWindowEnd(buf: Buffer, from: number): number {
  const limit = from + TEXT_WINDOW_BYTES;
  if (limit >= buf.length) return buf.length;
  const last = buf.lastIndexOf(0x0a, limit - 1);
  if (last >= from) return last + 1;
  const next = buf.indexOf(0x0a, limit);
  return next < 0 ? buf.length : next + 1;
}

/** `buf[from, to)` as text, decoded as utf8Text() would (`ascii`: isAscii(buf) of the whole buffer). */
export function textOf(buf: Buffer, ascii: boolean, from: number, to: number): string {
  return buf.toString(ascii ? 'latin1' : 'utf8', from, to);
}
