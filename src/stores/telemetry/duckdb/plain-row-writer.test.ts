// A native line written from its bytes (native-plain.ts read in place, plain-row-writer.ts) gives the row that the
// parsed entry gives (toLogEntry, FieldSplitter): every column's value, the `fields` text byte for byte, the field
// order, the promoted columns of each kind. Over hand-made lines at the edges and generated ones, and with the lines
// the in-place reader must leave to the parse.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { nativeLogWindows } from '../../../ingest/formats/native.js';
import type { PlainLines } from '../../../model/plain-row.js';
import { EntryRows } from './log-appender.js';
import { RecordingSink } from './row-sink.fixtures.js';
import type { FieldColumn } from './field-columns.js';

const COLUMNS: FieldColumn[] = [
  { key: 'host', column: 'field_0', kind: 'text' },
  { key: 'http.status', column: 'field_1', kind: 'int' },
  { key: 'request_id', column: 'field_2', kind: 'uuid' },
  { key: 'a.b', column: 'field_3', kind: 'text' },
  { key: 'n', column: 'field_4', kind: 'int' },
  { key: 'e', column: 'field_5', kind: 'text' },
];

/** Non-ASCII characters as \u escapes: the same JSON, in a body of pure ASCII (the in-place reader's kind). */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function linesOf(lines: string[]): PlainLines {
  const body = Buffer.from(`${['{"first":1}', ...lines].join('\n')}\n`);
  const windows = nativeLogWindows(body, 1_700_000_000_123_456_789n, () => undefined);
  assert.ok(windows?.lines, 'an ASCII NDJSON body has lines to read in place');
  return windows.lines;
}

/**
 * Each line's row both ways, with `writable` of COLUMNS promoted; returns how many lines were read in place. A line
 * that does not parse gives no row either way.
 */
function compare(lines: string[], writable = COLUMNS.length): number {
  const plain = linesOf(lines);
  let inPlace = 0;
  const counted: PlainLines = { ...plain, count: plain.count, entry: (i) => plain.entry(i), read: (i, row) => plain.read(i, row) && ++inPlace > 0 };
  const rows = new EntryRows(COLUMNS, writable);
  for (let i = 1; i < plain.count; i++) {
    const viaBytes = new RecordingSink();
    const wrote = rows.line(viaBytes, counted, i);
    const entry = plain.entry(i);
    assert.equal(wrote, entry !== undefined, `line ${i}: written only when it parses`);
    if (entry === undefined) continue;
    const parsed = new RecordingSink();
    rows.entry(parsed, entry);
    assert.deepEqual(viaBytes.row, parsed.row, `line ${i}: ${lines[i - 1]}`);
  }
  return inPlace;
}

const EDGES = [
  '{"_time":"2026-11-28T10:00:00.123456789Z","_msg":"hello","service":"checkout","level":"warn","trace_id":"ABCDEF0123456789ABCDEF0123456789","span_id":"00F067AA0BA902B7","host":"node-1","http":{"method":"GET","status":200,"route":"/r/:id"},"request_id":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}',
  '{ "message" : "spaces around" ,\t"n" : -42 , "e" : { } }',
  '{"msg":null,"log":"the log wins over a null msg","_msg":null,"time":"not a time","date":1700000000}',
  '{"timestamp":0,"short_message":"zero time means now","event":"kept as a field"}',
  '{"@timestamp":1700000000123,"line":"ms","level":5,"severity":"ERROR","severity_text":"x"}',
  '{"_msg":"escapes \\"quoted\\" \\\\ \\/ \\u0041 \\n \\t \\ud83d\\ude00 \\ud800","host":"h\\u00e9","e":"\\u00e9\\/"}',
  '{"_msg":"x","n":1.5,"m":-0,"k":1e2,"j":123456789012345678,"i":0,"h":-0.0,"g":1E-7,"f":12345678901234567890}',
  '{"_msg":"x","http":{"status":"200"},"a":{"b":{"c":{"d":true}}},"t":true,"f":false,"z":null}',
  '{"_msg":"x","traceId":"AbC","spanId":"DeF","trace_id":5,"span_id":null}',
  '{"_msg":"x","request_id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","service":7,"n":9007199254740993}',
  '{"a.b":"dotted name","_msg":"x","e":"{}"}',
  '{"_msg":"promoted out of order","n":1,"host":"h","http":{"status":404}}',
  '{"_msg":"","service":"","level":"","trace_id":""}',
  '{}',
  '{"e":{}}',
  '{"_time":"2026-11-28T10:00:00+02:00","time":"2026-11-28 10:00:00,5","constructor":"c","toString":"t","hasOwnProperty":1}',
  '{"_msg":"a string twelve b","host":"twelve bytes","e":"thirteen byte"}',
  // Times of one second, read from their bytes after the first (native-plain.ts timeOf), and what must not be.
  '{"_time":"2026-11-28T10:00:01.5Z"}',
  '{"_time":"2026-11-28T10:00:01Z"}',
  '{"_time":"2026-11-28T10:00:01,25z"}',
  '{"_time":"2026-11-28T10:00:01.1234567891234Z"}',
  '{"_time":"2026-11-28T10:00:01.Z","time":"2026-11-28T10:00:01.000000001Z"}',
  '{"_time":"2026-11-28T10:00:01.5+00:00"}',
  '{"_time":"2026-11-28T10:00:01.5 Z"}',
  '{"_time":" 2026-11-28T10:00:01.5Z"}',
  '{"_time":"2026-11-28T10:00:01.5Zz"}',
  '{"_time":"2026-11-28T10:00:02.5Z"}',
  '{"_time":"2026-11-28T10:00:01.75Z"}',
  '{"_time":"2026-12-31T23:59:60.5Z"}',
  '{"_time":"2026-12-31T23:59:60Z"}',
  '{"_time":"2262-04-11T23:47:16.854775807Z"}',
  '{"_time":"2262-04-11T23:47:16.854775808Z","timestamp":"2262-04-11T23:47:16.1Z"}',
  '{"_time":"1677-09-21T00:12:43.145224192Z"}',
  '{"_time":"1677-09-21T00:12:43.145224191Z","date":"1677-09-21T00:12:43.9Z"}',
  // More fields than a PlainRow starts with room for.
  JSON.stringify(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, i % 3 === 0 ? i : i % 3 === 1 ? `v${i}` : { n: i }]))),
];

/** Lines the in-place reader leaves to the parse, each for a reason of native-plain.ts's header. */
const NOT_IN_PLACE = [
  '{"a":1,"a":2}',
  '{"a":{"b":1},"a.b":2}',
  '{"a":{"b":1},"a":{"c":2}}',
  '{"_msg":{"a":1},"_msg":"the last one"}',
  '{"a":{"b":1},"a":1}',
  '{"1":"digit name"}',
  '{"a":{"2":"nested digit name"}}',
  '{"na\\u006de":"escaped name"}',
  '{"arr":[1,2,3]}',
  '{"__proto__":{"x":1}}',
  '{"_msg":{"structured":true}}',
  '{"message":42}',
  '{"big":1e999}',
  '{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":1}}}}}}}}}',
];

void describe('native lines written from their bytes', () => {
  test('give the parsed entry\'s row at the edges: roles, escapes, numbers, nesting, promoted columns of each kind', () => {
    assert.equal(compare(EDGES), EDGES.length);
    assert.equal(compare(EDGES, 2), EDGES.length);
    assert.equal(compare(EDGES, 0), EDGES.length);
  });

  test('leave to the parse what they cannot give exactly, and the parse still gives the row', () => {
    assert.equal(compare(NOT_IN_PLACE), 0);
  });

  test('give the parsed entry\'s row on generated lines', () => {
    const names = fc.constantFrom('_msg', 'message', 'msg', 'log', 'short_message', 'event', 'line', '_time', 'timestamp',
      '@timestamp', 'time', 'date', 'service', 'level', 'severity', 'severity_text', 'trace_id', 'traceId', 'span_id',
      'spanId', 'host', 'http', 'status', 'request_id', 'a', 'b', 'a.b', 'n', 'e', '', 'x y', 'Ünïcode', '7up', 'q"uote');
    const scalar = fc.oneof(
      fc.string(), fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null),
      fc.constantFrom('2026-11-28T10:00:00Z', '2026-11-28T10:00:00.123+01:00', '2026-11-28T10:00:00.5Z', '2026-11-28T10:00:00,25z',
        '2026-11-28T10:00:00.Z', '2026-11-28T10:00:00.5 Z', '1700000000', 'not a time', '',
        '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', 'ABCDEF', '{}', 1_700_000_000, 1_700_000_000_123, 0, -0),
    );
    const value = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, scalar, tie('object'), fc.array(scalar, { maxLength: 2 })),
      object: fc.dictionary(names, tie('value'), { maxKeys: 4 }),
    })).object;
    let inPlace = 0;
    fc.assert(fc.property(fc.array(value, { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: COLUMNS.length }), (objects, writable) => {
      inPlace += compare(objects.map(asciiJson), writable);
    }), { numRuns: 300 });
    assert.ok(inPlace > 500, `most generated lines are read in place (${inPlace})`);
  });
});
