// Series the wire readers have read before (remote-write-wire.ts, otlp-metrics-wire.ts), kept by the bytes their
// labels came in (issue 12 item 2). A Prometheus server or an OTel exporter sends every series again with each scrape
// or interval; reading its labels afresh (strings, pairs, a labels object) and the store then sorting, serialising and
// hashing them (samples-sql.ts SeriesIndex) was most of the store worker's time under OTLP metrics, where each point
// is a series of its own. A series kept here hands out the same labels object, whose identity the store keeps. The
// same bytes read as the same labels (and pass the same checks), so a hit needs no reading at all; a prefix says which
// reader made it, and what outside the fields went into the labels.
//
// Found first as the series that came after the one found last, the time before (a sender sends its series in the
// same order each time), then by a hash of the bytes; either way compared with a copy of them. A key string made of
// the fields (one latin1 string a field, joined, then hashed by V8) took ~1.9 µs a series, 13 % of the store worker's
// time under remote write.
//
// Bounded: past the limit it starts again empty, which costs only the reading it saved. A series kept here and its
// identity in the store take ~950 bytes of the worker's heap (the bench's OTLP series), so ~95 MB at the limit.
import type { SampleColumns } from '../../model/metric.js';
import type { Wire } from '../formats/otlp-wire.js';

export type Series = SampleColumns['series'][number];

const MAX_KNOWN_SERIES = 100_000;

/**
 * A kept series: the prefix and field bytes it was read from (`bytes`, `length` of them); `next`, another kept series
 * of the same hash; `after`, the series found right after this one last time, of the same generation.
 */
interface Kept {
  prefix: string;
  bytes: DataView;
  length: number;
  series: Series;
  generation: number;
  next: Kept | undefined;
  after: Kept | undefined;
}

const known = new Map<number, Kept>();
let keptCount = 0;
/** Counts the times `known` started again: a series of an earlier generation is no one's `after`, and is let go. */
let generation = 0;
/** The series found last. */
let lastFound: Kept | undefined;
/** The buffer read last and a view of it, for reading it four bytes at a time. */
let viewed: Uint8Array | null = null;
let view: DataView = new DataView(new ArrayBuffer(0));

function viewOf(buf: Uint8Array): DataView {
  if (buf !== viewed) {
    viewed = buf;
    view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  return view;
}

/** FNV-1a (32 bits) over the prefix's UTF-16 units, then the fields' bytes. */
function hashOf(prefix: string, buf: Uint8Array, fields: readonly number[]): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < prefix.length; i++) h = Math.imul(h ^ prefix.charCodeAt(i), 0x01000193);
  for (let i = 0; i < fields.length; i += 2) {
    const end = fields[i + 1] ?? 0;
    for (let j = fields[i] ?? 0; j < end; j++) h = Math.imul(h ^ (buf[j] ?? 0), 0x01000193);
  }
  return h;
}

/** Whether `kept` was read from these fields' bytes (in `body`) under this prefix. */
function isKept(kept: Kept, prefix: string, body: DataView, fields: readonly number[]): boolean {
  if (kept.prefix !== prefix) return false;
  const { bytes } = kept;
  let at = 0;
  for (let i = 0; i < fields.length; i += 2) {
    const start = fields[i] ?? 0;
    const length = (fields[i + 1] ?? 0) - start;
    if (at + length > kept.length) return false;
    let k = 0;
    for (; k + 4 <= length; k += 4) if (bytes.getInt32(at + k) !== body.getInt32(start + k)) return false;
    for (; k < length; k++) if (bytes.getUint8(at + k) !== body.getUint8(start + k)) return false;
    at += length;
  }
  return at === kept.length;
}

/** The fields' bytes, one after the other, in a copy of their own. */
function copyOf(buf: Uint8Array, fields: readonly number[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (let i = 0; i < fields.length; i += 2) length += (fields[i + 1] ?? 0) - (fields[i] ?? 0);
  const bytes = new Uint8Array(length);
  let at = 0;
  for (let i = 0; i < fields.length; i += 2) {
    const start = fields[i] ?? 0;
    const end = fields[i + 1] ?? 0;
    bytes.set(buf.subarray(start, end), at);
    at += end - start;
  }
  return bytes;
}

/** Notes `kept` as found now, after the one found before. */
function found(kept: Kept): Series {
  if (lastFound !== undefined && lastFound.generation === kept.generation) lastFound.after = kept;
  lastFound = kept;
  return kept.series;
}

/**
 * The series whose labels lie in the message fields at `fields` (start at the tag, then end, for each): the one kept
 * under `prefix` and those fields' bytes, else `make` of the pairs `readField` reads from them, then kept. `make` may
 * throw (a refused label set), and nothing is kept. The cursor is left where it was.
 */
export function seriesOfFields(
  wire: Wire, prefix: string, fields: readonly number[], readField: (wire: Wire, end: number) => [string, string],
  make: (pairs: [string, string][]) => Series,
): Series {
  const body = viewOf(wire.buf);
  const guess = lastFound?.after;
  if (guess !== undefined && isKept(guess, prefix, body, fields)) return found(guess);
  const hash = hashOf(prefix, wire.buf, fields);
  const first = known.get(hash);
  for (let kept = first; kept !== undefined; kept = kept.next) if (isKept(kept, prefix, body, fields)) return found(kept);
  const after = wire.pos;
  const pairs: [string, string][] = [];
  for (let i = 0; i < fields.length; i += 2) {
    wire.pos = fields[i] ?? 0;
    wire.tag();
    pairs.push(readField(wire, wire.end()));
  }
  wire.pos = after;
  const series = make(pairs);
  // Its labels object is never changed after.
  if (keptCount >= MAX_KNOWN_SERIES) {
    known.clear();
    keptCount = 0;
    generation++;
    lastFound = undefined;
  }
  const bytes = copyOf(wire.buf, fields);
  const kept: Kept = {
    prefix, bytes: new DataView(bytes.buffer), length: bytes.length, series, generation, next: known.get(hash), after: undefined,
  };
  known.set(hash, kept);
  keptCount++;
  return found(kept);
}
