// Whether bytes hold one JSON object, checked in place without building it (issue 12 item 1). The request thread
// only has to count a native body's entries and refuse a bad one before it acks; the store's worker parses each line
// once, later (worker-host.ts). JSON.parse made every line's object graph just to drop it: ~2 µs an entry of the
// request thread and most of its garbage. This walks the bytes once and allocates nothing.
//
// The grammar is RFC 8259's, which is exactly what JSON.parse accepts. It is checked on the UTF-8 bytes rather than
// on decoded text, and gives the same answer: outside strings every valid byte is ASCII, so a byte ≥ 0x80 there is an
// error either way; inside a string any such byte is allowed, and a malformed sequence decodes to U+FFFD, which
// JSON.parse allows too; a newline byte is never part of a multi-byte sequence.
// The walk also reports how deep the value nests, which decides whether flattening it may overflow (native.ts).
// The request thread runs the same walk in WebAssembly (json-lines.wat, held to this one by its tests); this one checks
// a line longer than that module's window, and is the reference the tests hold the module to.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Kinds of the containers open at each depth. */
const IN_OBJECT = 1;
const IN_ARRAY = 2;

/** The containers open during a walk; grown when a value nests deeper. One walk runs at a time (no await inside). */
let openKinds: Uint8Array = new Uint8Array(256);

/**
 * The deepest nesting of `b[start, end)` when it is one JSON object with only JSON whitespace around it (1 for an
 * object holding no object or array), else -1.
 */
export function jsonObjectDepth(b: Uint8Array, start: number, end: number): number {
  let i = skipSpace(b, start, end);
  if (at(b, i, end) !== OPEN_OBJECT) return -1;
  let depth = 0;
  let deepest = 0;
  // Each turn reads one value at `i` (whitespace skipped), then the commas and closing brackets after it.
  for (;;) {
    const c = at(b, i, end);
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === openKinds.length) openKinds = grown(openKinds);
      openKinds[depth++] = c === OPEN_OBJECT ? IN_OBJECT : IN_ARRAY;
      if (depth > deepest) deepest = depth;
      i = skipSpace(b, i + 1, end);
      const close = at(b, i, end);
      if (close === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        depth--;
        i++;
      } else {
        if (c === OPEN_OBJECT && (i = memberName(b, i, end)) < 0) return -1;
        continue;
      }
    } else if (c === QUOTE) {
      if ((i = stringEnd(b, i, end)) < 0) return -1;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      if ((i = numberEnd(b, i, end)) < 0) return -1;
    } else if (c === 0x74 /* t */) {
      if ((i = literalEnd(b, i, end, TRUE)) < 0) return -1;
    } else if (c === 0x66 /* f */) {
      if ((i = literalEnd(b, i, end, FALSE)) < 0) return -1;
    } else if (c === 0x6e /* n */) {
      if ((i = literalEnd(b, i, end, NULL)) < 0) return -1;
    } else {
      return -1;
    }
    // After a value: close what it ends, until a comma opens the next value (or the object is done).
    for (;;) {
      i = skipSpace(b, i, end);
      if (depth === 0) return i === end ? deepest : -1;
      const next = at(b, i, end);
      const kind = openKinds[depth - 1];
      if (next === COMMA) {
        i = skipSpace(b, i + 1, end);
        if (kind === IN_OBJECT && (i = memberName(b, i, end)) < 0) return -1;
        break;
      }
      if (next !== (kind === IN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) return -1;
      depth--;
      i++;
    }
  }
}

const TRUE = Uint8Array.from(Buffer.from('true'));
const FALSE = Uint8Array.from(Buffer.from('false'));
const NULL = Uint8Array.from(Buffer.from('null'));

/** The byte at `i`, or -1 past the end: the walk never reads past `end`, which is not the buffer's. */
function at(b: Uint8Array, i: number, end: number): number {
  return i < end ? (b[i] ?? -1) : -1;
}

function skipSpace(b: Uint8Array, i: number, end: number): number {
  for (; i < end; i++) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
  }
  return i;
}

/** Past `"name"`, whitespace, `:` and whitespace, i.e. where the member's value starts; -1 if not there. */
function memberName(b: Uint8Array, i: number, end: number): number {
  if (at(b, i, end) !== QUOTE) return -1;
  i = stringEnd(b, i, end);
  if (i < 0) return -1;
  i = skipSpace(b, i, end);
  if (at(b, i, end) !== COLON) return -1;
  return skipSpace(b, i + 1, end);
}

/** Past the closing quote of the string that opens at `i`; -1 if it is not a valid one. */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  for (i++; i < end; i++) {
    const c = b[i] ?? -1;
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1; // a raw control character (a tab included) must be escaped
    if (c === BACKSLASH) {
      const e = at(b, ++i, end);
      if (e === 0x75 /* u */) {
        for (let k = 0; k < 4; k++) if (!isHex(at(b, ++i, end))) return -1;
      } else if (!(e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72
        || e === 0x74)) {
        return -1; // only \" \\ \/ \b \f \n \r \t and \uXXXX
      }
    }
  }
  return -1;
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Past the number that starts at `i`: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?; -1 if none. */
function numberEnd(b: Uint8Array, i: number, end: number): number {
  if (at(b, i, end) === MINUS) i++;
  const lead = at(b, i, end);
  if (lead === ZERO) i++;
  else if (lead > ZERO && lead <= NINE) i = digitsEnd(b, i, end);
  else return -1;
  if (at(b, i, end) === DOT) {
    const from = i + 1;
    i = digitsEnd(b, from, end);
    if (i === from) return -1;
  }
  const e = at(b, i, end);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = at(b, i, end);
    if (sign === PLUS || sign === MINUS) i++;
    const from = i;
    i = digitsEnd(b, from, end);
    if (i === from) return -1;
  }
  return i;
}

function digitsEnd(b: Uint8Array, i: number, end: number): number {
  for (; i < end; i++) {
    const c = b[i] ?? -1;
    if (c < ZERO || c > NINE) return i;
  }
  return i;
}

function literalEnd(b: Uint8Array, i: number, end: number, word: Uint8Array): number {
  if (i + word.length > end) return -1;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return -1;
  return i + word.length;
}

function grown(kinds: Uint8Array): Uint8Array {
  const more = new Uint8Array(kinds.length * 2);
  more.set(kinds);
  return more;
}
