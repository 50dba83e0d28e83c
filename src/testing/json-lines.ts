// Generated JSON objects and the edits that break them the ways real input does, for the tests that hold the native
// format's line checks (json-scan.ts, json-lines.ts) to JSON.parse and to each other.

const SCALARS = ['0', '-0', '12', '-3.25', '1e9', '2E-3', '6.02e+23', 'true', 'false', 'null', '""', '"text"', '"é"',
  '"\\u20ac"', '"\\n\\t\\"\\\\"', '"\\ud83d\\ude00"', '"😀"'];
const NAMES = ['"a"', '"key"', '""', '"\\u0041"', '"é"'];

/** Lines at the edges of the grammar, valid and not: each check must answer them as JSON.parse does. */
export const EDGE_LINES: readonly string[] = [
    '{}', ' {} ', '\t{\r\n}\r', '{"a":1}', '{"a":[]}', '{"a":{}}', '{"a":[1,[2,[3]]]}', '{"a":-0}', '{"a":0.5e-7}',
    '{"a":1E+2}', '{"a":true,"b":false,"c":null}', '{"\\u00e9\\ud800":"\\"\\\\\\/\\b\\f\\n\\r\\t"}', '{"a":"é中😀"}',
    '{"a" : 1 , "b" : [ 1 , 2 ] }', '{"a":1}{"b":2}', '{"a":1,}', '{,}', '{"a"}', '{"a":}', '{a:1}', "{'a':1}", '{"a":01}',
    '{"a":1.}', '{"a":.5}', '{"a":+1}', '{"a":1e}', '{"a":-}', '{"a":0x10}', '{"a":NaN}', '{"a":Infinity}', '{"a":tru}',
    '{"a":truex}', '{"a":nul}', '{"a":[1,]}', '{"a":[,1]}', '{"a":[1 2]}', '{"a":"\t"}', '{"a":"\\x"}', '{"a":"\\u12"}',
    '{"a":"\\u12G4"}', '{"a":"\u0000"}', '{"a":"\u007f"}', '{"a":"b}', '{"a":1', '{"a":1}}', '[{"a":1}]', '[]', '"x"', '1',
    'null', '', ' ', '{"a":1} x', '\u00a0{}', '{}\u00a0', '\ufeff{}', '{"a":"\ufeff"}', '{"a":1}\n', '{"a":[[[[]]]]}',
    '{"":""}', '{"a":"\\uDFFF"}', '{"a":1,"a":2}', '{"__proto__":{"x":1}}', '{"a":-01}', '{"a":1e5.5}', '{"a":00}',
];

/** Whitespace between tokens, mostly none. */
export const JSON_SPACE = ['', '', '', ' ', '\t', '\r', ' \r '];

/** Bytes an edit puts in: structural ones, ones that start or end tokens, control bytes, bytes past ASCII. */
export const JSON_NOISE = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x2d, 0x2e, 0x30, 0x31, 0x65, 0x45, 0x2b, 0x75,
  0x6e, 0x74, 0x66, 0x20, 0x09, 0x00, 0x1f, 0x7f, 0x80, 0xc3, 0xff];

export interface JsonGenerator {
  readonly pick: <T>(xs: readonly T[]) => T;
  /** An object text nested from `depth` (0 for a line's own object), up to ~5 deep. */
  readonly object: (depth: number) => string;
  /** `bytes` with up to `edits` bytes dropped, doubled or swapped for one of `noise`. */
  readonly edit: (bytes: Buffer, edits: number, noise?: readonly number[]) => Buffer;
}

export function jsonGenerator(rnd: () => number, extraScalars: readonly string[] = []): JsonGenerator {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const scalars = [...SCALARS, ...extraScalars];
  const value = (depth: number): string => {
    const r = rnd();
    if (depth > 4 || r < 0.55) return pick(scalars);
    if (r < 0.75) return `[${Array.from({ length: Math.floor(rnd() * 4) }, () => pick(JSON_SPACE) + value(depth + 1) + pick(JSON_SPACE)).join(',')}]`;
    return object(depth + 1);
  };
  const object = (depth: number): string => `{${Array.from({ length: Math.floor(rnd() * 5) },
    () => `${pick(JSON_SPACE)}${pick(NAMES)}${pick(JSON_SPACE)}:${pick(JSON_SPACE)}${value(depth)}${pick(JSON_SPACE)}`).join(',')}}`;
  const edit = (bytes: Buffer, edits: number, noise: readonly number[] = JSON_NOISE): Buffer => {
    let out = bytes;
    for (let e = 0; e < edits && out.length > 0; e++) {
      const at = Math.floor(rnd() * out.length);
      const kind = rnd();
      const piece = kind < 0.33 ? Buffer.alloc(0) : Buffer.from([pick(noise)]);
      out = Buffer.concat([out.subarray(0, at), piece, out.subarray(kind < 0.66 ? at + 1 : at)]);
    }
    return out;
  };
  return { pick, object, edit };
}
