import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { countJsonLines } from './json-lines.js';
import { jsonObjectDepth } from './json-scan.js';
import { countNative } from './native.js';
import { mulberry32 } from '../../testing/prng.js';
import { EDGE_LINES, JSON_NOISE, JSON_SPACE, jsonGenerator } from '../../testing/json-lines.js';

const MAX_DEPTH = 512;

/** The answer of native.ts's JS walk: lines split at newlines (a CR before one left out), blank ones skipped. */
function byWalk(body: Buffer, maxDepth = MAX_DEPTH): number {
  let count = 0;
  for (let pos = 0; pos < body.length;) {
    let end = body.indexOf(0x0a, pos);
    if (end < 0) end = body.length;
    const lineEnd = end > pos && body[end - 1] === 0x0d ? end - 1 : end;
    if (!/^[ \t\r\n]*$/.test(body.toString('latin1', pos, lineEnd))) {
      const depth = jsonObjectDepth(body, pos, lineEnd);
      if (depth < 0 || depth >= maxDepth) return -1;
      count++;
    }
    pos = end + 1;
  }
  return count;
}

function count(body: Buffer, windowBytes?: number, maxDepth = MAX_DEPTH): number | null {
  return countJsonLines(body, 0, body.length, maxDepth, windowBytes);
}

void test('the module the service loads is what json-lines.wat assembles to', () => {
  const root = fileURLToPath(new URL('../../../../', import.meta.url)); // from dist/src/ingest/formats
  const r = spawnSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});

void test('answers as the JS walk does: hand-picked lines, alone and in bodies', () => {
  const lines = [
    ...EDGE_LINES, '{"a":fals}', '{"a":falsey}', '{"a":"0123456789abcdef0123456789"}', '{"a":"0123456789abcde\\"0123456789"}',
    '{"a":"0123456789abcdef\\', '{"a":[true,false,null]}', '{"a":{"b":{"c":{}}}}',
  ];
  for (const line of lines) {
    const one = Buffer.from(line);
    assert.equal(count(one), byWalk(one), JSON.stringify(line));
    for (const body of [`${line}\n{"ok":1}`, `{"ok":1}\n${line}\n`, `\n \r\n${line}\r\n\n`, `{"ok":1}\r\n${line}`]) {
      const bytes = Buffer.from(body);
      assert.equal(count(bytes), byWalk(bytes), JSON.stringify(body));
    }
  }
  assert.equal(count(Buffer.from('')), 0);
  assert.equal(count(Buffer.from(' \n\r\n\t\n')), 0);
  assert.equal(count(Buffer.from('{"a":1}\r\n{"b":2}\r\n')), 2);
  assert.equal(count(Buffer.from('{"a":1}\r\r\n')), 1);
  assert.equal(count(Buffer.from('{"a":1}\r{"b":2}\n')), -1); // a CR alone does not end a line
  assert.equal(count(Buffer.from('{"a":"x\ny"}')), -1); // nor may a newline sit inside a string
});

void test('stops at the end it is given: every cut of a line, after longer bodies left their bytes in memory', () => {
  const line = '{"_msg":"GET /api/v2/orders/1 done","n":-12.5e+3,"ok":true,"no":false,"nil":null,"u":"\\u00e9\\n","x":[1,{"y":[]}]}';
  const long = Buffer.from(`${line}\n`.repeat(40));
  for (let cut = 0; cut <= line.length; cut++) {
    count(long); // leaves the whole line in the module's memory past the cut
    const bytes = Buffer.from(line.slice(0, cut));
    assert.equal(count(bytes), byWalk(bytes), `cut at ${cut}: ${line.slice(0, cut)}`);
    const inBody = Buffer.from(`{"ok":1}\n${line.slice(0, cut)}`);
    assert.equal(count(inBody), byWalk(inBody), `cut at ${cut} after a line`);
  }
  // And the range inside the buffer: nothing before `start` or from `end` on is read.
  const framed = Buffer.from(`xx{"a":1}\n{"b":2}yy`);
  assert.equal(countJsonLines(framed, 2, framed.length - 2, MAX_DEPTH), 2);
  assert.equal(countJsonLines(framed, 2, framed.length - 3, MAX_DEPTH), -1);
});

void test('refuses a line nested as deep as the limit, as the JS walk does', () => {
  const deep = (n: number, open = '[', close = ']') => Buffer.from(`{"a":${open.repeat(n)}1${close.repeat(n)}}`);
  for (const n of [MAX_DEPTH - 3, MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, 5_000]) {
    assert.equal(count(deep(n)), byWalk(deep(n)), `depth ${n + 1}`);
  }
  assert.equal(count(deep(MAX_DEPTH - 2)), 1); // 511 deep
  assert.equal(count(deep(MAX_DEPTH - 1)), -1); // 512 deep
  const objects = (n: number) => Buffer.from(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);
  assert.equal(count(objects(MAX_DEPTH - 1)), 1);
  assert.equal(count(objects(MAX_DEPTH)), -1);
  const three = Buffer.from('{"a":{"b":{}}}'); // nested 3 deep
  assert.equal(count(three, undefined, 4), 1);
  assert.equal(count(three, undefined, 3), -1);
  assert.equal(byWalk(three, 3), -1);
});

void test('cuts windows after a newline, and leaves a line longer than a window to the caller', () => {
  const body = Buffer.from(['{"a":1}', '{"bb":"xxxxxxxxxxxxxxxxxx"}', '', '{"c":[1,2,3]}', '{"d":{"e":null}}'].join('\n'));
  for (let windowBytes = 28; windowBytes <= body.length + 1; windowBytes++) {
    assert.equal(count(body, windowBytes), 4, `window ${windowBytes}`);
  }
  assert.equal(count(body, 27), null); // the second line and its newline are 28 bytes
  const bad = Buffer.from('{"a":1}\n{"b":2}\n{"c":}\n{"d":4}');
  for (let windowBytes = 8; windowBytes <= bad.length; windowBytes++) assert.equal(count(bad, windowBytes), -1);
  // countNative falls back to the JS walk for such a line, and answers the same.
  const huge = Buffer.from(`{"a":1}\n{"msg":"${'x'.repeat(5 << 20)}"}\n{"b":2}`);
  assert.equal(count(huge), null);
  assert.equal(countNative(huge, 0n), 3);
});

void test('answers as the JS walk does: 3,000 generated bodies, cut into windows, with edits', () => {
  const rnd = mulberry32(27);
  const { pick, object, edit } = jsonGenerator(rnd, ['"a string long enough to take more than one load"']);
  const noise = [...JSON_NOISE, 0x0a, 0x0d];
  let accepted = 0;
  for (let n = 0; n < 3_000; n++) {
    const lines = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => pick(['', ' ', '\r', '']) + (rnd() < 0.1 ? '' : object(0)) + pick(JSON_SPACE));
    const text = lines.join(pick(['\n', '\r\n', '\n\n'])) + pick(['', '\n', '\r\n']);
    const body = edit(Buffer.from(text), n % 3 === 0 ? 0 : 1 + Math.floor(rnd() * 2), noise);
    const want = byWalk(body);
    if (want > 0) accepted++;
    assert.equal(count(body), want, `case ${n}: ${body.toString('hex')}`);
    const windowed = count(body, 1 + Math.floor(rnd() * 64));
    if (windowed !== null) assert.equal(windowed, want, `case ${n}, windowed: ${body.toString('hex')}`);
  }
  assert.ok(accepted > 500 && accepted < 2_900, `a fair share of both outcomes (${accepted} accepted)`);
});
