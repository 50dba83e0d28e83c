// A native NDJSON line read in place into a PlainRow (model/plain-row.ts): the facts toLogEntry(JSON.parse(line))
// would give, as byte spans of the body, with no object built (issue 12 item 1). The store writes the row's strings
// from those bytes and the `fields` text from the spans of the values it keeps there, so a line is parsed once and
// its remainder is never re-serialized.
//
// It reads only what it can give exactly; for anything else read() says false and the store parses that line as
// before (native.ts), so the two paths never disagree on a line. It takes lines of a pure-ASCII body (the caller's
// check) whose object nests at most MAX_DEPTH deep, with no array, no name that has an escape, begins with a digit
// (V8 orders integer-like names first) or is `__proto__`, no name given twice after flattening or as an object's
// (JSON.parse keeps the last value at the first place), a message that is a string when one is chosen, and only finite numbers.
// The rules it follows are toLogEntry's and addField's (native.ts, fields.ts): message and time precedence, string
// service/severity/ids, nested objects flattened to dotted names, an empty object kept as the string `{}`.
import { PlainRow, ValueKind, type FieldName, type StringSpan } from '../../model/plain-row.js';
import { ByteStrings } from './byte-strings.js';
import { parseTimestamp } from './timestamps.js';

/** Deepest object nesting read in place (the line's own object is depth 1); flattening allows 32. */
const MAX_DEPTH = 8;

/** What a top-level name is to toLogEntry (FieldName.role); 0: nothing. */
const ROLES = new Map<string, number>([
  ['_msg', 1], ['message', 2], ['msg', 3], ['log', 4], ['short_message', 5], ['event', 6], ['line', 7],
  ['_time', 8], ['timestamp', 9], ['@timestamp', 10], ['time', 11], ['date', 12],
  ['service', 13], ['level', 14], ['severity', 15], ['severity_text', 16], ['trace_id', 17], ['traceId', 18],
  ['span_id', 19], ['spanId', 20],
]);
const ROLE_COUNT = 21;
const MSG_ROLES = [1, 2, 3, 4, 5, 6, 7];
const TIME_ROLES = [8, 9, 10, 11, 12];
const SEVERITY_ROLES = [14, 15, 16];
const TRACE_ROLES = [17, 18];
const SPAN_ROLES = [19, 20];
const SERVICE_ROLES = [13];

/** A role's value, for one that names a nested object (present, and no string or number). */
const OBJECT_VALUE = -2;
const ABSENT = -1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const DOT = 0x2e;

/** Most names kept; past it the table starts again (names of a row are looked up again on its next read). */
const MAX_NAMES = 10_000;

interface Name extends FieldName {
  readonly hash: number;
  /** The name's bytes, unquoted. */
  readonly bytes: Uint8Array;
  /** toLogEntry's role of a top-level name; 0 for nested ones. */
  readonly role: number;
}

/** Bytes of `YYYY-MM-DDTHH:MM:SS`, the part of an RFC 3339 time that names its second. */
const SECOND_BYTES = 19;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const MAX_FRACTION_NS = 999_999_999n;
/** Service and level values: short, and the same few on every line. */
const shortStrings = new ByteStrings(64, 10_000, 'latin1');

/**
 * The nanoseconds of `b[i, end)` when it is `[.fraction]Z` (`,` or `z` too, as parseRfc3339 takes them), the digits
 * past the 9th cut; -1 for anything else.
 */
function zuluFraction(b: Uint8Array, i: number, end: number): number {
  let ns = 0;
  if (b[i] === DOT || b[i] === COMMA) {
    const first = ++i;
    for (let scale = 100_000_000; i < end; i++) {
      const c = b[i] ?? 0;
      if (c < ZERO || c > NINE) break;
      ns += (c - ZERO) * scale;
      scale = Math.floor(scale / 10);
    }
    if (i === first) return -1;
  }
  return i === end - 1 && (b[i] === 0x5a /* Z */ || b[i] === 0x7a /* z */) ? ns : -1;
}

/** BigInt(k × 1,000,000) for k < 1,000: a time with milliseconds, the commonest, makes no BigInt of its fraction. */
const MILLISECOND_FRACTIONS: readonly bigint[] = Array.from({ length: 1000 }, (_, k) => BigInt(k * 1_000_000));

/** BigInt(ns) for a fraction of a second: BigInt() of a number is a call into V8's runtime (~1 % of the store worker). */
function fractionNs(ns: number): bigint {
  const ms = ns / 1_000_000;
  return (Number.isInteger(ms) ? MILLISECOND_FRACTIONS[ms] : undefined) ?? BigInt(ns);
}

/** Whether `b` from `start` holds the SECOND_BYTES of `second` (a loop: a native compare cost more for 19 bytes). */
function sameSecond(second: Uint8Array, b: Uint8Array, start: number): boolean {
  for (let k = SECOND_BYTES - 1; k >= 0; k--) if (second[k] !== b[start + k]) return false; // the seconds differ first
  return true;
}

/** Thrown to give up on a line (caught in read()). */
class NotPlain extends Error {}
const NOT_PLAIN = new NotPlain();

export class PlainLineReader {
  private names = new Map<number, Name[]>();
  private nameCount = 0;
  private rowCounter = 0;
  /** Per role: the row's field index holding it, ABSENT, or OBJECT_VALUE. */
  private readonly roles = new Int32Array(ROLE_COUNT);
  private body: Buffer = Buffer.alloc(0);
  private row: PlainRow = new PlainRow();
  /** The first backslash of the body at or after `backslashAfter`, or its length: found once per stretch, not per string. */
  private backslash = 0;
  private backslashAfter = 0;
  /** By place in the row (its n-th name): the name the row before had there, matched first (knownNameEnd). */
  private readonly lastNames: (Name | undefined)[] = [];
  /** The parent each of lastNames was read under (null at the top level). */
  private readonly lastParents: (Name | null | undefined)[] = [];
  private nameIndex = 0;
  /** The date and time to the second (`YYYY-MM-DDTHH:MM:SS`) of the last UTC time parsed, and that second in ns. */
  private readonly second = Buffer.alloc(SECOND_BYTES);
  private secondNs: bigint | null = null;

  /**
   * Reads the line `body[start, end)` (no newline in it) into `row`, with `nowNs` as toLogEntry's receipt time; false
   * when the line is not one this reader takes (see the header). `body` must be pure ASCII.
   */
  read(body: Buffer, start: number, end: number, nowNs: bigint, row: PlainRow): boolean {
    if (this.body !== body) {
      this.body = body;
      this.backslash = -1;
      this.backslashAfter = 0;
    }
    this.row = row;
    this.nameIndex = 0;
    row.reset(body, ++this.rowCounter);
    row.timeNs = nowNs;
    row.observedNs = nowNs;
    for (let r = 0; r < ROLE_COUNT; r++) this.roles[r] = ABSENT; // a loop: fill() is a call into V8's runtime
    try {
      let i = this.space(start, end);
      if (body[i] !== OPEN_OBJECT) return false;
      i = this.object(i + 1, end, null, 1);
      if (this.space(i, end) !== end) return false;
      return this.chooseRoles();
    } catch {
      return false; // NOT_PLAIN, or a string whose escapes JSON.parse refuses: the store's parse reports that line
    }
  }

  /** The members of an object whose `{` is before `i`, flattened under `parent`; returns the index past its `}`. */
  private object(i: number, end: number, parent: Name | null, depth: number): number {
    const b = this.body;
    i = this.space(i, end);
    if (b[i] === CLOSE_OBJECT) return i + 1;
    for (;;) {
      if (b[i] !== QUOTE) throw NOT_PLAIN;
      const nameStart = i + 1;
      // The name the row before had at this place, under the same parent, is matched in one pass: it was checked
      // when it was first read, so its bytes and a quote after them are the whole of the scan below.
      const expected = this.lastNames[this.nameIndex];
      let nameEnd = expected !== undefined && this.lastParents[this.nameIndex] === parent
        ? knownNameEnd(expected, parent, b, nameStart, end) : -1;
      let name: Name;
      if (nameEnd >= 0 && expected !== undefined) {
        this.nameIndex++;
        name = expected;
      } else {
        nameEnd = nameStart;
        for (; nameEnd < end; nameEnd++) {
          const c = b[nameEnd] ?? 0;
          if (c === QUOTE) break;
          if (c === BACKSLASH || c < 0x20) throw NOT_PLAIN;
        }
        if (nameEnd >= end) throw NOT_PLAIN;
        const first = b[nameStart] ?? 0;
        if (first >= ZERO && first <= NINE) throw NOT_PLAIN;
        name = this.name(parent, nameStart, nameEnd);
      }
      i = this.space(nameEnd + 1, end);
      if (b[i] !== COLON) throw NOT_PLAIN;
      i = this.value(this.space(i + 1, end), end, name, depth);
      i = this.space(i, end);
      if (b[i] === COMMA) {
        i = this.space(i + 1, end);
        continue;
      }
      if (b[i] === CLOSE_OBJECT) return i + 1;
      throw NOT_PLAIN;
    }
  }

  /** One value at `i`, added under `name`; returns the index past it. */
  private value(i: number, end: number, name: Name, depth: number): number {
    const b = this.body;
    const row = this.row;
    const c = b[i] ?? 0;
    const index = row.fieldCount;
    let next: number;
    if (c === QUOTE) {
      let j = quoteFrom(b, i + 1, end);
      // A backslash before that quote: the string has escapes, and the quote found may be one of them.
      const escaped = this.backslashFrom(i + 1) < j;
      if (escaped) {
        for (j = i + 1; j < end && b[j] !== QUOTE; j++) if (b[j] === BACKSLASH) j++;
      }
      if (j >= end) throw NOT_PLAIN;
      const text = escaped ? (JSON.parse(b.toString('latin1', i, j + 1)) as string) : null;
      this.add(name, escaped ? ValueKind.Text : ValueKind.Bytes, i + 1, j, 0, false, text);
      next = j + 1;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      next = this.number(i, end, name);
    } else if (c === 0x74 /* t */) {
      next = this.literal(i, end, 'true', name, ValueKind.True);
    } else if (c === 0x66 /* f */) {
      next = this.literal(i, end, 'false', name, ValueKind.False);
    } else if (c === 0x6e /* n */) {
      next = this.literal(i, end, 'null', name, ValueKind.Null);
    } else if (c === OPEN_OBJECT) {
      if (depth >= MAX_DEPTH) throw NOT_PLAIN;
      const inner = this.space(i + 1, end);
      if (b[inner] === CLOSE_OBJECT) {
        this.add(name, ValueKind.EmptyObject, i, inner + 1, 0, false, null);
        next = inner + 1;
      } else {
        // Given twice, JSON.parse keeps only the last object's members, as it keeps the last value of any name given
        // twice: the parse reads that line (the object's own name is no field, so row.add would not see it again).
        if (name.seenInRow === this.row.rowNumber) throw NOT_PLAIN;
        name.seenInRow = this.row.rowNumber;
        next = this.object(inner, end, name, depth + 1);
        if (name.role !== 0) this.roles[name.role] = OBJECT_VALUE;
        return next;
      }
    } else {
      throw NOT_PLAIN; // an array, or not JSON
    }
    if (name.role !== 0) this.roles[name.role] = index;
    return next;
  }

  /** A number at `i`: its value, and whether its text is what JSON.stringify writes for it (a short integer). */
  private number(i: number, end: number, name: Name): number {
    const b = this.body;
    let j = i;
    const negative = b[j] === MINUS;
    if (negative) j++;
    let value = 0;
    let digits = 0;
    while (j < end) {
      const d = b[j] ?? 0;
      if (d < ZERO || d > NINE) break;
      value = value * 10 + (d - ZERO);
      digits++;
      j++;
    }
    if (digits === 0 || (digits > 1 && b[negative ? i + 1 : i] === ZERO)) throw NOT_PLAIN;
    let integer = true;
    if (b[j] === DOT) {
      integer = false;
      j = digitsEnd(b, j + 1, end);
    }
    if (b[j] === 0x65 /* e */ || b[j] === 0x45 /* E */) {
      integer = false;
      j++;
      if (b[j] === MINUS || b[j] === 0x2b /* + */) j++;
      j = digitsEnd(b, j, end);
    }
    if (integer && digits <= 15 && !(negative && value === 0)) {
      this.add(name, ValueKind.Number, i, j, negative ? -value : value, true, null);
    } else {
      const n = Number(b.toString('latin1', i, j));
      if (!Number.isFinite(n)) throw NOT_PLAIN; // addField keeps Infinity as text; JSON.parse gives it for 1e999
      this.add(name, ValueKind.Number, i, j, n, false, null);
    }
    return j;
  }

  private literal(i: number, end: number, word: string, name: Name, kind: ValueKind): number {
    const b = this.body;
    if (i + word.length > end) throw NOT_PLAIN;
    for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) throw NOT_PLAIN;
    this.add(name, kind, i, i + word.length, 0, false, null);
    return i + word.length;
  }

  private add(name: Name, kind: ValueKind, start: number, end: number, num: number, canonical: boolean, text: string | null): void {
    if (!this.row.add(name, kind, start, end, num, canonical, text)) throw NOT_PLAIN;
  }

  /** toLogEntry's choices of message, time, service, severity and ids; those fields leave the row's fields. */
  private chooseRoles(): boolean {
    const row = this.row;
    const roles = this.roles;
    for (const r of MSG_ROLES) {
      if (!this.present(r)) continue;
      const at = roles[r] ?? ABSENT;
      if (at < 0 || !this.stringInto(at, row.msg)) return false; // a message that is not a string is JSON text
      this.drop(at);
      break;
    }
    for (const r of TIME_ROLES) {
      if (!this.present(r)) continue;
      const at = roles[r] ?? ABSENT;
      const t = at < 0 ? null : row.kinds[at] === ValueKind.Bytes ? this.timeOf(at) : parseTimestamp(this.jsValue(at));
      if (t === null) continue;
      if (t !== 0n) row.timeNs = t;
      this.drop(at);
      break;
    }
    const service = this.firstString(SERVICE_ROLES);
    if (service >= 0) {
      row.service = this.shortText(service);
      this.drop(service);
    }
    const severity = this.firstString(SEVERITY_ROLES);
    if (severity >= 0) {
      row.severity = this.shortText(severity);
      this.drop(severity);
    }
    const trace = this.firstString(TRACE_ROLES);
    if (trace >= 0) {
      this.stringInto(trace, row.traceId);
      this.drop(trace);
    }
    const span = this.firstString(SPAN_ROLES);
    if (span >= 0) {
      this.stringInto(span, row.spanId);
      this.drop(span);
    }
    return true;
  }

  /** The field of the first of `roles` whose value is a string, or ABSENT. */
  private firstString(roles: readonly number[]): number {
    for (const r of roles) {
      const at = this.roles[r] ?? ABSENT;
      if (at >= 0 && this.isString(at)) return at;
    }
    return ABSENT;
  }

  /** toLogEntry's `present`: the name was given, and not as null. */
  private present(role: number): boolean {
    const at = this.roles[role] ?? ABSENT;
    return at === OBJECT_VALUE || (at >= 0 && this.row.kinds[at] !== ValueKind.Null);
  }

  private isString(at: number): boolean {
    const kind = this.row.kinds[at];
    return kind === ValueKind.Bytes || kind === ValueKind.Text;
  }

  private stringInto(at: number, span: StringSpan): boolean {
    const row = this.row;
    const kind = row.kinds[at];
    if (kind === ValueKind.Bytes) span.set(row.starts[at] ?? 0, row.ends[at] ?? 0, null);
    else if (kind === ValueKind.Text) span.set(0, 0, row.texts[at] ?? '');
    else return false;
    return true;
  }

  /** A string field's value (service, severity): the same string each time for the same bytes. */
  private shortText(at: number): string {
    const row = this.row;
    if (row.kinds[at] === ValueKind.Text) return row.texts[at] ?? '';
    return shortStrings.text(this.body, row.starts[at] ?? 0, row.ends[at] ?? 0);
  }

  /**
   * parseTimestamp() of a string field's value, read from its bytes when it is `YYYY-MM-DDTHH:MM:SS[.fraction]Z` of the
   * second read last (a shipper's batch holds many entries of one second): no string is made for it. Any other text is
   * parsed as a string, and when that was such a time of a new second, its second is kept for the lines after it.
   */
  private timeOf(at: number): bigint | null {
    const b = this.body;
    const start = this.row.starts[at] ?? 0;
    const end = this.row.ends[at] ?? 0;
    const fraction = zuluFraction(b, start + SECOND_BYTES, end);
    if (fraction >= 0 && this.secondNs !== null && sameSecond(this.second, b, start)) return this.secondNs + fractionNs(fraction);
    const t = parseTimestamp(b.toString('latin1', start, end));
    if (t !== null && fraction >= 0 && end - start > SECOND_BYTES) {
      const secondNs = t - BigInt(fraction);
      // Kept only when every nanosecond of it is an int64 (PlainRow's times are), so no line of it needs a check.
      if (secondNs >= INT64_MIN && secondNs + MAX_FRACTION_NS <= INT64_MAX) {
        b.copy(this.second, 0, start, start + SECOND_BYTES);
        this.secondNs = secondNs;
      }
    }
    return t;
  }

  /** A scalar field's value as JSON.parse gives it. */
  private jsValue(at: number): unknown {
    const row = this.row;
    switch (row.kinds[at]) {
      case ValueKind.Bytes: return this.body.toString('latin1', row.starts[at], row.ends[at]);
      case ValueKind.Text: return row.texts[at];
      case ValueKind.Number: return row.numbers[at];
      case ValueKind.True: return true;
      case ValueKind.False: return false;
      case ValueKind.Null: return null;
      default: return {}; // an empty object: parseTimestamp gives null for any object
    }
  }

  /** Takes a field out of the row's fields (it became the message, time, service, severity or an id). */
  private drop(at: number): void {
    this.row.kinds[at] = 0;
  }

  /** The first backslash of the body at or after `i` (its length when none). */
  private backslashFrom(i: number): number {
    if (this.backslash < i || i < this.backslashAfter) {
      const at = this.body.indexOf(BACKSLASH, i);
      this.backslash = at < 0 ? this.body.length : at;
      this.backslashAfter = i;
    }
    return this.backslash;
  }

  private space(i: number, end: number): number {
    const b = this.body;
    if ((b[i] ?? 0) > 0x20) return i; // compact JSON: no whitespace between tokens
    while (i < end) {
      const c = b[i];
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break;
      i++;
    }
    return i;
  }

  /** The name `body[start, end)` under `parent`, the same object each time. */
  private name(parent: Name | null, start: number, end: number): Name {
    const place = this.nameIndex++;
    const found = this.lookUp(parent, start, end);
    this.lastNames[place] = found;
    this.lastParents[place] = parent;
    return found;
  }

  private lookUp(parent: Name | null, start: number, end: number): Name {
    const b = this.body;
    let hash = parent === null ? 0x811c9dc5 : Math.imul(parent.hash ^ DOT, 0x01000193);
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ (b[i] ?? 0), 0x01000193);
    const bucket = this.names.get(hash);
    if (bucket !== undefined) {
      for (const n of bucket) if (sameBytes(n.bytes, b, start, end, parent)) return n;
    }
    const own = b.toString('latin1', start, end);
    if (parent === null && own === '__proto__') throw NOT_PLAIN;
    if (this.nameCount >= MAX_NAMES) {
      // Every name looked up from here on is a new object, so none may still be handed out as the old one.
      this.names = new Map();
      this.nameCount = 0;
      this.lastNames.length = 0;
      this.lastParents.length = 0;
    }
    const text = parent === null ? own : `${parent.text}.${own}`;
    const name: Name = {
      text, hash, bytes: Buffer.from(text, 'latin1'), json: Buffer.from(JSON.stringify(text), 'latin1'),
      role: parent === null ? (ROLES.get(own) ?? 0) : 0, seenInRow: 0,
    };
    this.names.set(hash, bucket === undefined ? [name] : [...bucket, name]);
    this.nameCount++;
    return name;
  }
}

/**
 * The first quote of `b[i, end)`, or `end`: a short string's by a loop, a longer one's by a native search (a message
 * or an id, where the loop was a tenth of the store worker's time).
 */
function quoteFrom(b: Buffer, i: number, end: number): number {
  const near = Math.min(end, i + 16);
  for (; i < near; i++) if (b[i] === QUOTE) return i;
  if (i >= end) return end;
  const at = b.indexOf(QUOTE, i);
  return at < 0 || at > end ? end : at;
}

/** The index past the digits at `i`, of which there must be one at least. */
function digitsEnd(b: Uint8Array, i: number, end: number): number {
  let j = i;
  while (j < end && (b[j] ?? 0) >= ZERO && (b[j] ?? 0) <= NINE) j++;
  if (j === i) throw NOT_PLAIN;
  return j;
}

/**
 * Where the name at `start` ends (its closing quote) when it is `name`'s own part under `parent`, which it was read
 * under before (name.bytes is the parent's, a dot and its own); -1 when it is not.
 */
function knownNameEnd(name: Name, parent: Name | null, b: Uint8Array, start: number, end: number): number {
  const offset = parent === null ? 0 : parent.bytes.length + 1;
  const own = name.bytes.length - offset;
  if (own < 0 || start + own >= end || b[start + own] !== QUOTE) return -1;
  for (let k = 0; k < own; k++) if (b[start + k] !== name.bytes[offset + k]) return -1;
  return start + own;
}

/**
 * Whether `name` is the flattened name of `b[start, end)` under `parent`: the parent's name, a dot and those bytes.
 * By the whole text, whatever the nesting: `{"a":{"b":1}}` and `{"a.b":1}` both give the field `a.b`.
 */
function sameBytes(name: Uint8Array, b: Uint8Array, start: number, end: number, parent: Name | null): boolean {
  const offset = parent === null ? 0 : parent.bytes.length + 1;
  if (name.length !== offset + end - start) return false;
  if (parent !== null) {
    if (name[parent.bytes.length] !== DOT) return false;
    for (let i = 0; i < parent.bytes.length; i++) if (name[i] !== parent.bytes[i]) return false;
  }
  for (let i = start; i < end; i++) if (name[offset + i - start] !== b[i]) return false;
  return true;
}
