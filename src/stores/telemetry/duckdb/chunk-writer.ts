// Rows into a DuckDB appender a vector (2,048 rows) at a time, written straight into the vectors of a data chunk
// (issue 12 item 3). DuckDB's row appender costs a native call per value and per row, and turns a UUID's text into
// its value through a generic cast (~1.2 µs a value). Here numbers and UUIDs go into typed arrays copied once per
// vector, NULLs are bits of a mask copied once, a value the whole chunk shares is one constant vector, and a string
// of up to 12 UTF-8 bytes is written in place: DuckDB keeps such a string inside its 16-byte `duckdb_string_t`
// (length, then the bytes, zero-padded: duckdb.h, and how @duckdb/node-api reads them back), so a VARCHAR vector's
// short strings are one copy too. Longer strings take a native call each, once per chunk for a value that repeats
// down it (repeats()): in-process, that built the bench's NDJSON chunks in 3.0-3.7 µs a row against 3.6-4.4, and a
// remote-write sample's row (its metric name repeats) in 0.32-0.38 µs against 0.50-0.55. On the realistic logs
// (bench/storage-probe.ts data, single-threaded) a row of the promoted layout took ~5.3 µs to append through the row
// appender and takes ~4.5 µs this way.
//
// The vectors are written through @duckdb/node-bindings (the C API under @duckdb/node-api), which checks little:
// every row of a chunk must get a value or a NULL in every column before the chunk is appended.
import { endianness } from 'node:os';
import duckdb from '@duckdb/node-bindings';
import { BIGINT, BOOLEAN, DOUBLE, DuckDBDataChunk, UUID, VARCHAR, type DuckDBAppender, type DuckDBType } from '@duckdb/node-api';

export type ColumnKind = 'varchar' | 'bigint' | 'uuid' | 'double' | 'boolean';

/** Rows per chunk: DuckDB's vector size. */
export const CHUNK_ROWS = duckdb.vector_size();

const TYPES: Record<ColumnKind, DuckDBType> = { varchar: VARCHAR, bigint: BIGINT, uuid: UUID, double: DOUBLE, boolean: BOOLEAN };
/** Bytes per value of the fixed-width kinds, as DuckDB lays out their vectors. */
const WIDTH: Record<ColumnKind, number> = { varchar: 16, bigint: 8, uuid: 16, double: 8, boolean: 1 };
/** DuckDB keeps a UUID as a 128-bit integer with the top bit flipped (so that UUIDs sort as their text does). */
const UUID_TOP_BIT = 0x80000000;
/** Bytes of a `duckdb_string_t`, and the most of them a string may have to be kept inside it. */
const STRING_T = 16;
const INLINE = 12;
/** 32-bit words of a `duckdb_string_t`. */
const WORDS = STRING_T / 4;
/** A column looks for repeats in its first LOOK_ROWS distinct long strings of a chunk, and goes on if one in LOOK_HITS repeated. */
const LOOK_ROWS = 64;
const LOOK_HITS = 4;
const utf8 = new TextEncoder();
/** The first room a column's run of long strings gets (bytes()): a chunk of log messages needs a few hundred KB. */
const RUN_START_BYTES = 64 * 1024;
/** Which 32-bit word of a 64-bit integer comes first in memory: typed arrays use the platform's byte order. */
const LOW_WORD = endianness() === 'LE' ? 0 : 1;

/** The 8 hex digits of a canonical UUID from `at`, stepping over a dash (at 8, 13, 18 or 23). */
function hex32(s: string, at: number): number {
  let n = 0;
  for (let i = at, digits = 0; digits < 8; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2d) continue;
    n = n * 16 + (c <= 0x39 ? c - 0x30 : c - 0x57);
    digits++;
  }
  return n;
}

/** `src[start, end)` to `to` at `at`, ASCII letters lowercased when `lower`. */
function copyBytes(src: Uint8Array, start: number, end: number, to: Uint8Array, at: number, lower: boolean): void {
  if (lower) {
    for (let i = start; i < end; i++) {
      const c = src[i] ?? 0;
      to[at + i - start] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
    }
  } else if (end - start > 128) {
    // A plain view: a Buffer's subarray() is a Buffer, whose construction cost more than a copy loop of a few dozen bytes.
    to.set(new Uint8Array(src.buffer, src.byteOffset + start, end - start), at);
  } else {
    for (let i = start; i < end; i++) to[at + i - start] = src[i] ?? 0;
  }
}

/**
 * Chunks an appender has copied, emptied for ChunkWriters of the same column kinds to fill again (recycleChunk()). A
 * chunk made anew each time got fresh memory for its vectors and string heap, which DuckDB frees only when the
 * garbage collector finalizes the chunk's handle: every chunk's pages were first touched again, a page fault each 4 KB
 * (~0.3 µs a row of a native line's ~330 bytes, and the RSS of the chunks waiting for collection).
 */
const freeChunks = new Map<string, DuckDBDataChunk[]>();
const kindsOfChunk = new WeakMap<DuckDBDataChunk, string>();
/** What take() made of a chunk: its column kinds, and the constant each constant vector holds (copyChunk()). */
const layoutOfChunk = new WeakMap<DuckDBDataChunk, { kinds: readonly ColumnKind[]; constants: readonly (Constant | null)[] }>();

/** The value every row of a constant column holds: a VARCHAR's text or a BIGINT's number. */
export type Constant = string | bigint;

function constantValue(v: Constant): duckdb.Value {
  return typeof v === 'bigint' ? duckdb.create_int64(v) : duckdb.create_varchar(v);
}
/** Most chunks kept free per set of column kinds: more than the chunks a write builds ahead (log-prefetch.ts). */
const MAX_FREE_CHUNKS = 128;

/**
 * Gives a chunk made by a ChunkWriter back for reuse, once an appender has copied its rows (DuckDB's appender copies
 * every value, strings included, into its own collection) or an insert is done with it (chunk-insert.ts). Nothing may
 * read the chunk after.
 */
export function recycleChunk(chunk: DuckDBDataChunk): void {
  const kinds = kindsOfChunk.get(chunk);
  if (kinds === undefined) return;
  let free = freeChunks.get(kinds);
  if (free === undefined) freeChunks.set(kinds, free = []);
  if (free.length >= MAX_FREE_CHUNKS) return;
  chunk.reset();
  free.push(chunk);
}

/**
 * A chunk take() finished, copied into `out`: a chunk of DuckDB's own with the same columns (a table function's
 * output, chunk-insert.ts). Each column's values and NULL mask are copied, a constant column is made constant there
 * too. Long strings are not copied: `out`'s point into `src`'s string heap, so `src` must not be recycled or freed
 * until DuckDB is done with `out`.
 */
export function copyChunk(src: DuckDBDataChunk, out: duckdb.DataChunk): void {
  const layout = layoutOfChunk.get(src);
  if (layout === undefined) throw new TypeError('chunk-writer: copyChunk takes a chunk a ChunkWriter finished');
  const n = src.rowCount;
  layout.kinds.forEach((kind, i) => {
    const to = duckdb.data_chunk_get_vector(out, i);
    const constant = layout.constants[i];
    if (constant !== null && constant !== undefined) {
      duckdb.vector_reference_value(to, constantValue(constant));
      return;
    }
    const from = duckdb.data_chunk_get_vector(src.chunk, i);
    const bytes = n * WIDTH[kind];
    const data = duckdb.vector_get_data(from, bytes) as Uint8Array<ArrayBuffer>;
    duckdb.copy_data_to_vector(to, 0, data.buffer, data.byteOffset, bytes);
    const maskBytes = Math.ceil(n / 64) * 8;
    const mask = duckdb.vector_get_validity(from, maskBytes) as Uint8Array<ArrayBuffer> | null; // null: no row is NULL
    if (mask !== null) {
      duckdb.vector_ensure_validity_writable(to);
      duckdb.copy_data_to_vector_validity(to, 0, mask.buffer, mask.byteOffset, maskBytes);
    }
  });
  duckdb.data_chunk_set_size(out, n);
}

/** Whether `src[start, end)` has an ASCII upper-case letter. */
function hasUpper(src: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = src[i] ?? 0;
    if (c >= 0x41 && c <= 0x5a) return true;
  }
  return false;
}

/** The address (low and high 32-bit words) in row `row`'s string_t of `vector`, as DuckDB wrote it. */
function pointerOf(vector: duckdb.Vector, row: number): { low: number; high: number } {
  const assigned = duckdb.vector_get_data(vector, (row + 1) * STRING_T);
  const from = new DataView(assigned.buffer, assigned.byteOffset, assigned.byteLength);
  const pointer = row * STRING_T + 8;
  return {
    low: from.getUint32(pointer + 4 * LOW_WORD, LOW_WORD === 0),
    high: from.getUint32(pointer + 4 - 4 * LOW_WORD, LOW_WORD === 0),
  };
}

/** The string_t at byte `at` of `words` made to point `offset` bytes past `copy`: the low word, carried into the high. */
function pointInto(words: Int32Array, at: number, copy: { low: number; high: number }, offset: number): void {
  const sum = copy.low + offset;
  const word = at >> 2;
  words[word + 2 + LOW_WORD] = sum >>> 0;
  words[word + 3 - LOW_WORD] = copy.high + (sum >= 2 ** 32 ? 1 : 0);
}

/**
 * Row numbers and offsets of a chunk, kept in one typed array that keeps its room when emptied: a JS array emptied by
 * `length = 0` gives its room back, and every chunk grew each list again from nothing (~2 % of the store worker's
 * time in V8's array growing under NDJSON load).
 */
class IntList {
  private values = new Int32Array(64);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const more = new Int32Array(this.length * 2);
      more.set(this.values);
      this.values = more;
    }
    this.values[this.length++] = value;
  }

  at(k: number): number {
    return this.values[k] ?? 0;
  }
}

export class ChunkWriter {
  /** Rows written into the current chunk. */
  rows = 0;
  private chunk!: DuckDBDataChunk;
  private vectors: duckdb.Vector[] = [];
  /**
   * Per column: the values of a fixed-width column (BIGINT, DOUBLE, BOOLEAN as one byte; a UUID as two 64-bit halves,
   * low first), else null.
   */
  private readonly numbers: (BigInt64Array<ArrayBuffer> | Float64Array<ArrayBuffer> | Uint8Array<ArrayBuffer> | DataView<ArrayBuffer> | null)[];
  /** Per BIGINT column: its values as 32-bit words (int()). */
  private readonly words: (Int32Array<ArrayBuffer> | null)[];
  /** Per column: its validity mask once a row of this chunk is NULL (bit set = a value). */
  private masks: (Uint8Array<ArrayBuffer> | null)[] = [];
  private constants: (Constant | null)[] = [];
  /** Per VARCHAR column: its `duckdb_string_t`s with the short strings in place, and the longer strings to assign. */
  private readonly strings: (Uint8Array<ArrayBuffer> | null)[];
  private readonly longRows: IntList[];
  private readonly longValues: string[][];
  /**
   * Per VARCHAR column: the row each longer string of this chunk was first written at, and the rows that repeat one
   * (with that first row), while the column repeats enough to be worth the lookups (repeats()).
   */
  private readonly firstRows: Map<string, number>[];
  private readonly repeatRows: IntList[];
  private readonly repeatOf: IntList[];
  private readonly looking: boolean[];
  /** Per VARCHAR column: the long string written last, and the row it was first written at (repeats()). */
  private readonly lastLong: (string | null)[];
  private readonly lastLongRow: number[];
  /** The current chunk's string_t's as 32-bit words, for copying a repeated one from its first row (take()). */
  private readonly words32: (Int32Array<ArrayBuffer> | null)[];
  /**
   * Per VARCHAR column: the longer strings given as bytes (bytes()), one after another, and each one's row, offset
   * and length. take() hands DuckDB the whole run in one assignment and points each row's string_t into its copy.
   */
  private readonly runs: Uint8Array<ArrayBuffer>[];
  private readonly runUsed: number[];
  private readonly runRows: IntList[];
  private readonly runOffsets: IntList[];

  /**
   * The buffer the current chunk's spans (span()) are in, the stretch of it they cover, and per VARCHAR column the
   * rows that hold one and where each starts in it.
   */
  private source: Uint8Array | null = null;
  private sourceStart = Number.MAX_SAFE_INTEGER;
  private sourceEnd = 0;
  private readonly spanRows: IntList[];
  private readonly spanStarts: IntList[];

  /** The column kinds as one string: which free chunks this writer can take (recycleChunk()). */
  private readonly kindsKey: string;

  constructor(private readonly kinds: readonly ColumnKind[]) {
    this.kindsKey = kinds.join();
    this.numbers = kinds.map((k) => (k === 'bigint' ? new BigInt64Array(CHUNK_ROWS) : k === 'uuid' ? new DataView(new ArrayBuffer(16 * CHUNK_ROWS))
      : k === 'double' ? new Float64Array(CHUNK_ROWS) : k === 'boolean' ? new Uint8Array(CHUNK_ROWS) : null));
    this.words = this.numbers.map((n) => (n instanceof BigInt64Array ? new Int32Array(n.buffer) : null));
    this.strings = kinds.map((k) => (k === 'varchar' ? new Uint8Array(CHUNK_ROWS * STRING_T) : null));
    this.longRows = kinds.map(() => new IntList());
    this.longValues = kinds.map(() => []);
    this.firstRows = kinds.map(() => new Map<string, number>());
    this.repeatRows = kinds.map(() => new IntList());
    this.repeatOf = kinds.map(() => new IntList());
    this.looking = kinds.map(() => true);
    this.lastLong = kinds.map(() => null);
    this.lastLongRow = kinds.map(() => 0);
    this.words32 = this.strings.map((b) => (b ? new Int32Array(b.buffer) : null));
    this.runs = kinds.map(() => new Uint8Array(0)); // grown on a column's first long string given as bytes
    this.runUsed = kinds.map(() => 0);
    this.runRows = kinds.map(() => new IntList());
    this.runOffsets = kinds.map(() => new IntList());
    this.spanRows = kinds.map(() => new IntList());
    this.spanStarts = kinds.map(() => new IntList());
    this.start();
  }

  string(column: number, value: string): void {
    if (typeof value !== 'string') throw new TypeError(`chunk-writer: column ${column} takes a string, not ${typeof value}`);
    const at = this.rows * STRING_T;
    const bytes = this.strings[column];
    if (!bytes) throw new TypeError(`chunk-writer: column ${column} is not VARCHAR`);
    if (value.length <= INLINE) {
      // ASCII byte by byte: a call into encodeInto cost more than the copy for the few bytes a short string has.
      let i = 0;
      for (; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c >= 0x80) break;
        bytes[at + 4 + i] = c;
      }
      if (i === value.length) {
        bytes[at] = i;
        return;
      }
      const { read, written } = utf8.encodeInto(value, bytes.subarray(at + 4, at + STRING_T));
      if (read === value.length) {
        bytes[at] = written; // the length, a little-endian uint32 whose other bytes stay 0
        return;
      }
      // More than 12 bytes after all: the assignment at flush writes this row's whole string_t over what was copied.
    }
    if (this.looking[column] && this.repeats(column, value)) return;
    this.longRows[column]?.push(this.rows);
    this.longValues[column]?.push(value);
  }

  /**
   * The UTF-8 bytes `src[start, end)` as this row's string of a VARCHAR column, ASCII letters lowercased when `lower`
   * (a trace id, as toLogEntry lowercases it). No JS string is made: a short one is copied into its string_t, a longer
   * one onto the column's run of bytes (see runs), so a row costs a copy and no native call (issue 12 item 1).
   */
  bytes(column: number, src: Uint8Array, start: number, end: number, lower = false): void {
    const strings = this.strings[column];
    if (!strings) throw new TypeError(`chunk-writer: column ${column} is not VARCHAR`);
    const length = end - start;
    if (length <= INLINE) {
      const at = this.rows * STRING_T;
      strings[at] = length;
      copyBytes(src, start, end, strings, at + 4, lower);
      return;
    }
    let run = this.runs[column] as Uint8Array<ArrayBuffer>;
    const used = this.runUsed[column] ?? 0;
    if (used + length > run.length) {
      const grown = new Uint8Array(Math.max(run.length * 2, used + length, RUN_START_BYTES));
      grown.set(run.subarray(0, used));
      this.runs[column] = run = grown;
    }
    copyBytes(src, start, end, run, used, lower);
    this.runUsed[column] = used + length;
    this.runRows[column]?.push(this.rows);
    this.runOffsets[column]?.push(used);
  }

  /**
   * bytes() for bytes of `src` that stay as they are until take(): a long string is not copied here at all. take()
   * hands DuckDB the stretch of `src` the chunk's spans cover in one assignment and points each such row's string_t
   * into DuckDB's copy: a native body's messages, ids and promoted texts of a chunk are one copy of its lines' text,
   * where a copy loop in JS per value had been ~6 % of the store worker's time. A `lower` string with an upper-case
   * letter, and a span of another source than the chunk's first, are copied as bytes() copies them.
   */
  span(column: number, src: Uint8Array, start: number, end: number, lower = false): void {
    const length = end - start;
    if (length <= INLINE || (this.source !== null && this.source !== src) || (lower && hasUpper(src, start, end))) {
      this.bytes(column, src, start, end, lower);
      return;
    }
    const strings = this.strings[column];
    if (!strings) throw new TypeError(`chunk-writer: column ${column} is not VARCHAR`);
    this.source = src;
    if (start < this.sourceStart) this.sourceStart = start;
    if (end > this.sourceEnd) this.sourceEnd = end;
    const at = this.rows * STRING_T;
    (this.words32[column] as Int32Array<ArrayBuffer>)[at >> 2] = length;
    strings[at + 4] = src[start] ?? 0;
    strings[at + 5] = src[start + 1] ?? 0;
    strings[at + 6] = src[start + 2] ?? 0;
    strings[at + 7] = src[start + 3] ?? 0;
    this.spanRows[column]?.push(this.rows);
    this.spanStarts[column]?.push(start);
  }

  /**
   * True when `value` was already written to this column in this chunk: the row is then noted as a repeat of that
   * one, and take() gives it the same string_t. Each assignment is a native call that copies the string into the
   * vector's heap (~0.3-0.5 µs); a repeat is a map lookup and 16 bytes. Log streams, hosts, routes and metric names
   * repeat down a chunk; messages and ids do not, so a column whose first LOOK_ROWS long strings repeat less than one
   * in LOOK_HITS stops looking for the rest of the chunk. The string of the row before is found without the lookup (a
   * metric's name over its samples).
   */
  private repeats(column: number, value: string): boolean {
    let at = value === this.lastLong[column] ? this.lastLongRow[column] : undefined;
    const first = this.firstRows[column] as Map<string, number>;
    at ??= first.get(value);
    if (at !== undefined) {
      this.repeatRows[column]?.push(this.rows);
      this.repeatOf[column]?.push(at);
      this.lastLong[column] = value;
      this.lastLongRow[column] = at;
      return true;
    }
    first.set(value, this.rows);
    this.lastLong[column] = value;
    this.lastLongRow[column] = this.rows;
    if (first.size === LOOK_ROWS && (this.repeatRows[column]?.length ?? 0) * LOOK_HITS < LOOK_ROWS) {
      this.looking[column] = false;
      first.clear();
    }
    return false;
  }

  bigint(column: number, value: bigint): void {
    (this.numbers[column] as BigInt64Array<ArrayBuffer>)[this.rows] = value;
  }

  /**
   * An integral number into a BIGINT column without making a BigInt of it (one a value was remote write's garbage):
   * the same 64 bits as bigint(column, BigInt(value)), wrapped as a BigInt64Array wraps, written as two 32-bit words.
   */
  int(column: number, value: number): void {
    if (!Number.isInteger(value)) throw new RangeError(`chunk-writer: column ${column} takes an integer, not ${value}`);
    const words = this.words[column];
    if (!words) throw new TypeError(`chunk-writer: column ${column} is not BIGINT`);
    const high = Math.floor(value / 2 ** 32);
    words[this.rows * 2 + LOW_WORD] = value - high * 2 ** 32; // ToInt32 keeps the low 32 bits
    words[this.rows * 2 + 1 - LOW_WORD] = high;
  }

  double(column: number, value: number): void {
    (this.numbers[column] as Float64Array<ArrayBuffer>)[this.rows] = value;
  }

  boolean(column: number, value: boolean): void {
    (this.numbers[column] as Uint8Array<ArrayBuffer>)[this.rows] = value ? 1 : 0;
  }

  /**
   * `value` in the canonical lowercase form (field-columns.ts fits()), as DuckDB's 128-bit integer: the low 64 bits
   * (the last 16 hex digits) first, little-endian, the top bit flipped. By 32-bit parts: no BigInt per value.
   */
  uuid(column: number, value: string): void {
    const view = this.numbers[column] as DataView<ArrayBuffer>;
    const at = this.rows * 16;
    view.setUint32(at, hex32(value, 28), true);
    view.setUint32(at + 4, hex32(value, 19), true);
    view.setUint32(at + 8, hex32(value, 9), true);
    view.setUint32(at + 12, (hex32(value, 0) ^ UUID_TOP_BIT) >>> 0, true);
  }

  null(column: number): void {
    let mask = this.masks[column];
    if (!mask) this.masks[column] = mask = new Uint8Array(CHUNK_ROWS / 8).fill(0xff);
    mask[this.rows >> 3] = (mask[this.rows >> 3] ?? 0) & ~(1 << (this.rows & 7));
  }

  /** The value of a VARCHAR (a string) or BIGINT column (a bigint) for every row of the current chunk (set before its first row). */
  constant(column: number, value: Constant): void {
    this.constants[column] = value;
  }

  /** Ends the current row; true when the chunk is full (flush it). */
  endRow(): boolean {
    return ++this.rows === CHUNK_ROWS;
  }

  /** Appends the rows written so far and starts an empty chunk. */
  flush(appender: DuckDBAppender): void {
    const chunk = this.take();
    if (!chunk) return;
    appender.appendDataChunk(chunk);
    recycleChunk(chunk);
  }

  /**
   * The rows written so far as a finished chunk, for an appender now or later (it holds copies of every value), and
   * an empty chunk started; null when no row was written.
   */
  take(): DuckDBDataChunk | null {
    const n = this.rows;
    if (n === 0) return null;
    this.takeSpans();
    this.kinds.forEach((kind, i) => {
      const vector = this.vector(i);
      const numbers = this.numbers[i];
      if (numbers) duckdb.copy_data_to_vector(vector, 0, numbers.buffer, numbers.byteOffset, n * WIDTH[kind]);
      const strings = this.strings[i];
      if (strings) this.takeStrings(i, vector, strings, n);
      const mask = this.masks[i];
      if (mask) {
        duckdb.vector_ensure_validity_writable(vector);
        duckdb.copy_data_to_vector_validity(vector, 0, mask.buffer, mask.byteOffset, Math.ceil(n / 64) * 8);
      }
      const constant = this.constants[i];
      if (constant !== null && constant !== undefined) duckdb.vector_reference_value(vector, constantValue(constant));
    });
    duckdb.data_chunk_set_size(this.chunk.chunk, n);
    const done = this.chunk;
    layoutOfChunk.set(done, { kinds: this.kinds, constants: [...this.constants] });
    this.start();
    return done;
  }

  /**
   * A VARCHAR column's strings into its vector. Without repeats: the short ones in one copy, then the longer ones
   * assigned, each into DuckDB's string heap over its zero entry. With repeats: the longer ones assigned first, their
   * string_t's (length, prefix, pointer into that heap) read back and given to the rows that repeat them, and then
   * every row in one copy.
   */
  private takeStrings(column: number, vector: duckdb.Vector, strings: Uint8Array<ArrayBuffer>, n: number): void {
    this.takeRun(column, vector, strings);
    const rows = this.longRows[column] as IntList;
    const values = this.longValues[column] ?? [];
    const repeatRows = this.repeatRows[column] as IntList;
    if (repeatRows.length === 0) {
      duckdb.copy_data_to_vector(vector, 0, strings.buffer, strings.byteOffset, n * STRING_T);
      for (let k = 0; k < rows.length; k++) duckdb.vector_assign_string_element(vector, rows.at(k), values[k] ?? '');
      return;
    }
    for (let k = 0; k < rows.length; k++) duckdb.vector_assign_string_element(vector, rows.at(k), values[k] ?? '');
    const assigned = duckdb.vector_get_data(vector, n * STRING_T); // a copy of the vector's string_t's
    const from = assigned.byteOffset % 4 === 0 ? new Int32Array(assigned.buffer, assigned.byteOffset, n * WORDS)
      : new Int32Array(assigned.slice().buffer);
    const to = this.words32[column] as Int32Array<ArrayBuffer>;
    const copy = (row: number, source: number): void => {
      for (let w = 0; w < WORDS; w++) to[row * WORDS + w] = from[source * WORDS + w] ?? 0;
    };
    for (let k = 0; k < rows.length; k++) copy(rows.at(k), rows.at(k));
    const repeatOf = this.repeatOf[column] as IntList;
    for (let k = 0; k < repeatRows.length; k++) copy(repeatRows.at(k), repeatOf.at(k));
    duckdb.copy_data_to_vector(vector, 0, strings.buffer, strings.byteOffset, n * STRING_T);
  }

  /**
   * The column's run of long strings given as bytes, into DuckDB's string heap in one assignment (to the first row
   * that has one); then each such row's string_t in `strings` is made to point into that copy: its length, its first
   * four bytes (DuckDB compares by this prefix first) and the copy's address plus the string's offset. DuckDB never
   * moves a string once its heap holds it, and takeStrings() then copies every row's string_t over the vector's, the
   * first row's too.
   */
  private takeRun(column: number, vector: duckdb.Vector, strings: Uint8Array<ArrayBuffer>): void {
    const rows = this.runRows[column] as IntList;
    if (rows.length === 0) return;
    const run = this.runs[column] as Uint8Array<ArrayBuffer>;
    const offsets = this.runOffsets[column] as IntList;
    const first = rows.at(0);
    const used = this.runUsed[column] ?? 0;
    duckdb.vector_assign_string_element_len(vector, first, run.subarray(0, used));
    const copy = pointerOf(vector, first);
    const words = this.words32[column] as Int32Array<ArrayBuffer>;
    for (let k = 0; k < rows.length; k++) {
      const at = rows.at(k) * STRING_T;
      const offset = offsets.at(k);
      words[at >> 2] = (k + 1 < offsets.length ? offsets.at(k + 1) : used) - offset;
      strings[at + 4] = run[offset] ?? 0;
      strings[at + 5] = run[offset + 1] ?? 0;
      strings[at + 6] = run[offset + 2] ?? 0;
      strings[at + 7] = run[offset + 3] ?? 0;
      pointInto(words, at, copy, offset);
    }
  }

  /**
   * The chunk's source stretch (span()) into DuckDB's string heap in one assignment, to a row of a column that has a
   * span (that row's string_t is copied over afterwards, as every row's is), and each span's pointer into the copy.
   */
  private takeSpans(): void {
    const src = this.source;
    if (src === null) return;
    const host = this.spanRows.findIndex((rows, i) => rows.length > 0 && this.constants[i] === null);
    if (host < 0) return; // spans of constant columns only, whose rows take the constant
    const hostRow = (this.spanRows[host] as IntList).at(0);
    const vector = this.vector(host);
    duckdb.vector_assign_string_element_len(vector, hostRow, src.subarray(this.sourceStart, this.sourceEnd));
    const copy = pointerOf(vector, hostRow);
    this.spanRows.forEach((rows, column) => {
      const words = this.words32[column];
      const starts = this.spanStarts[column] as IntList;
      if (!words) return;
      for (let k = 0; k < rows.length; k++) pointInto(words, rows.at(k) * STRING_T, copy, starts.at(k) - this.sourceStart);
    });
  }

  /** A fresh chunk: no constant, mask or string of the previous one carries over. */
  private start(): void {
    const reused = freeChunks.get(this.kindsKey)?.pop();
    if (reused !== undefined) {
      this.chunk = reused;
    } else {
      this.chunk = DuckDBDataChunk.create(this.kinds.map((k) => TYPES[k]));
      kindsOfChunk.set(this.chunk, this.kindsKey);
    }
    this.vectors = this.kinds.map((_k, i) => duckdb.data_chunk_get_vector(this.chunk.chunk, i));
    this.masks = this.kinds.map(() => null);
    this.constants = this.kinds.map(() => null);
    for (const bytes of this.strings) bytes?.fill(0);
    for (const list of this.longRows) list.length = 0;
    for (const list of this.longValues) list.length = 0;
    for (const map of this.firstRows) map.clear();
    for (const list of this.repeatRows) list.length = 0;
    for (const list of this.repeatOf) list.length = 0;
    this.runUsed.fill(0);
    this.source = null;
    this.sourceStart = Number.MAX_SAFE_INTEGER;
    this.sourceEnd = 0;
    for (const list of this.spanRows) list.length = 0;
    for (const list of this.spanStarts) list.length = 0;
    for (const list of this.runRows) list.length = 0;
    for (const list of this.runOffsets) list.length = 0;
    this.looking.fill(true);
    this.lastLong.fill(null);
    this.rows = 0;
  }

  private vector(column: number): duckdb.Vector {
    const v = this.vectors[column];
    if (v === undefined) throw new RangeError(`chunk-writer: no column ${column}`);
    return v;
  }
}
