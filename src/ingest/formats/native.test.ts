import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../errors.js';
import type { LogEntry } from '../../model/log-entry.js';
import { LOG_WINDOW_ENTRIES, countNative, nativeLogWindows, parseNative } from './native.js';
import { TEXT_WINDOW_BYTES } from '../utf8-text.js';

const NOW = 1_800_000_000_000_000_000n;
const parse = (body: string | Buffer): LogEntry[] => parseNative(typeof body === 'string' ? Buffer.from(body) : body, NOW).logs;
const one = (obj: Record<string, unknown>): LogEntry => {
  const [entry] = parse(JSON.stringify(obj));
  assert.ok(entry);
  return entry;
};
function badRequest(body: string, detail: RegExp): void {
  assert.throws(() => parse(body), (e: unknown) => e instanceof ServiceError && e.status === 400 && detail.test(e.detail));
}

void test('NDJSON tolerates a BOM, CRLF, blank lines and a trailing newline', () => {
  const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"_msg":"a"}\r\n\r\n   \n{"_msg":"b"}\n{"_msg":"c"}\r\n\n')]);
  assert.deepEqual(parse(body).map((e) => e.msg), ['a', 'b', 'c']);
});

void test('a JSON array of objects, a single bare object and a pretty-printed object are all accepted', () => {
  assert.deepEqual(parse(' [ {"_msg":"a"}, {"_msg":"b"} ]\n').map((e) => e.msg), ['a', 'b']);
  assert.deepEqual(parse('{"_msg":"solo"}').map((e) => e.msg), ['solo']);
  assert.deepEqual(parse('{\n  "_msg": "pretty",\n  "a": 1\n}\n').map((e) => e.msg), ['pretty']);
});

void test('an empty body, whitespace only or an empty array holds no entries', () => {
  for (const body of ['', '\n\r\n  ', '[]', '\ufeff']) assert.equal(parse(body).length, 0);
});

void test('a malformed NDJSON line is a 400 naming the line number and the JSON error', () => {
  badRequest('{"_msg":"a"}\n\n{"_msg": oops}\n{"_msg":"c"}', /^Line 3: invalid JSON: Unexpected token/);
});

void test('a malformed JSON array is a 400 with the JSON error and where it is', () => {
  badRequest('[{"_msg":"a"},\n {"_msg" "b"}]', /^Body is not a valid JSON array: .*line 2, column 10/);
});

void test('a line or element that is not an object is a 400 naming it', () => {
  badRequest('{"_msg":"a"}\n[1,2]', /^Line 2: expected a JSON object, got an array$/);
  badRequest('{"_msg":"a"}\n"text"', /^Line 2: expected a JSON object, got a string$/);
  badRequest('[{"_msg":"a"}, 42]', /^Element 1: expected a JSON object, got a number$/);
  badRequest('[{"_msg":"a"}, null]', /^Element 1: expected a JSON object, got null$/);
});

void test('the message is _msg, else the first present fallback field, which then leaves the fields', () => {
  const cases: [Record<string, unknown>, string, string[]][] = [
    [{ _msg: 'm', message: 'kept' }, 'm', ['message']],
    [{ message: 'a', msg: 'b' }, 'a', ['msg']],
    [{ msg: 'b', log: 'c' }, 'b', ['log']],
    [{ log: 'c' }, 'c', []],
    [{ short_message: 'gelf' }, 'gelf', []],
    [{ event: 'e' }, 'e', []],
    [{ line: 'l' }, 'l', []],
    [{ message: null, msg: 'b' }, 'b', ['message']],
    [{ other: 1 }, '', ['other']],
  ];
  for (const [obj, msg, fieldKeys] of cases) {
    const e = one(obj);
    assert.equal(e.msg, msg, JSON.stringify(obj));
    assert.deepEqual(Object.keys(e.fields), fieldKeys, JSON.stringify(obj));
  }
});

void test('a message that is not a string is kept as its JSON text', () => {
  assert.equal(one({ _msg: { a: 1 } }).msg, '{"a":1}');
  assert.equal(one({ message: 42 }).msg, '42');
  assert.equal(one({ msg: [true] }).msg, '[true]');
});

void test('time comes from the first parseable candidate, to the nanosecond', () => {
  assert.equal(one({ _time: '2026-11-22T04:16:20.123456789Z' }).timeNs, 1_795_320_980_123_456_789n);
  assert.equal(one({ timestamp: 1_700_000_000_123 }).timeNs, 1_700_000_000_123_000_000n);
  assert.equal(one({ '@timestamp': '1700000000' }).timeNs, 1_700_000_000_000_000_000n);
  assert.equal(one({ time: 1_700_000_000.25 }).timeNs, 1_700_000_000_250_000_000n);
  assert.equal(one({ date: 1_700_000_000_000_000 }).timeNs, 1_700_000_000_000_000_000n);
  const e = one({ _time: 'not a time', timestamp: 1_700_000_000 });
  assert.equal(e.timeNs, 1_700_000_000_000_000_000n);
  assert.deepEqual(e.fields, { _time: 'not a time' });
});

void test('no time, an unparseable time or a zero time means the receipt time; an unparseable one stays a field', () => {
  assert.equal(one({ _msg: 'x' }).timeNs, NOW);
  const bad = one({ time: 'soon' });
  assert.equal(bad.timeNs, NOW);
  assert.deepEqual(bad.fields, { time: 'soon' });
  const zero = one({ _time: 0 });
  assert.equal(zero.timeNs, NOW);
  assert.deepEqual(zero.fields, {});
});

void test('service, severity and trace ids are taken when strings; ids lowercased', () => {
  const e = one({ service: 'api', level: 'WARN', trace_id: 'ABCDEF0123456789ABCDEF0123456789', spanId: 'ABCDEF0123456789', x: 1 });
  assert.deepEqual([e.service, e.severity, e.traceId, e.spanId], ['api', 'WARN', 'abcdef0123456789abcdef0123456789', 'abcdef0123456789']);
  assert.deepEqual(e.fields, { x: 1 });
  assert.equal(one({ severity_text: 'error' }).severity, 'error');
  const odd = one({ service: { name: 'api' }, level: 30 });
  assert.deepEqual([odd.service, odd.severity], ['', '']);
  assert.deepEqual(odd.fields, { 'service.name': 'api', level: 30 });
});

void test('every other field is kept, flattened; observed time is the receipt time and the stream is empty', () => {
  const e = one({ _msg: 'm', kubernetes: { pod_name: 'p', labels: { app: 'a' } }, tags: ['x', 'y'], n: 1.5, ok: false, nil: null });
  assert.deepEqual(e.fields, { 'kubernetes.pod_name': 'p', 'kubernetes.labels.app': 'a', tags: '["x","y"]', n: 1.5, ok: false, nil: null });
  assert.equal(e.observedNs, NOW);
  assert.equal(e.stream, '');
});

void test('only logs are filled', () => {
  const batch = parseNative(Buffer.from('{"_msg":"a"}'), NOW);
  assert.equal(batch.logs.length, 1);
  assert.equal(batch.spans.length, 0);
});

/** What parseNative does to a body: its entry count, or the 400 it answers. */
function outcome(body: Buffer, run: (b: Buffer) => number): string {
  try {
    return `ok ${run(body)}`;
  } catch (e) {
    return e instanceof ServiceError ? `${e.status} ${e.detail}` : `threw ${String(e)}`;
  }
}

void test('countNative (the request thread when the WAL keeps the body) accepts and refuses exactly what parseNative does', () => {
  const deep = (n: number) => `{"a":${'['.repeat(n)}1${']'.repeat(n)}}`;
  const bodies = [
    '', '  \n ', '{"_msg":"a"}', '{"_msg":"a"}\r\n\r\n   \n{"_msg":"b"}\n', '\ufeff{"_msg":"bom"}\n{"x":1}',
    '[{"_msg":"a"},{"_msg":"b"}]', '[{"_msg":"a"}, 3]', '[1,', '{\n  "_msg": "pretty",\n  "level": "info"\n}\n',
    '{"_msg":"a"}\n{"_msg":\n', '{"_msg":"a"}\n[1,2]\n', '"just a string"', '{"_msg":"a"}\nnull',
    `{"_msg":"short"}\n${deep(20_000)}\n`, deep(20_000), `{"_msg":"a"}\n{"long":"${'x'.repeat(5000)}"}\n{"_msg":"b"}`,
    '{"_msg":"é ü 中文"}\n{"msg":"\u0000"}',
  ];
  for (const text of bodies) {
    const body = Buffer.from(text);
    const parsed = outcome(body, (b) => parseNative(b, NOW).logs.length);
    assert.equal(outcome(body, (b) => countNative(b, NOW)), parsed, `body ${JSON.stringify(text.slice(0, 60))}`);
  }
  assert.match(outcome(Buffer.from(deep(20_000)), (b) => countNative(b, NOW)), /^400 .*nested too deeply/);
});

void test('a body longer than the decoding window (utf8-text.ts TEXT_WINDOW_BYTES) reads every line, whatever its length', () => {
  const lines: string[] = [];
  for (let i = 0; i < 3_000; i++) {
    // Long lines past the window, multi-byte characters and CRLF endings land on every offset of a window's edge.
    const pad = i % 700 === 0 ? 'x'.repeat(70_000 + i) : 'é中'.repeat(i % 13);
    lines.push(JSON.stringify({ _msg: `m${i} ${pad}`, n: i }) + (i % 3 === 0 ? '\r\n' : '\n') + (i % 50 === 0 ? '  \n' : ''));
  }
  const body = Buffer.from(`\ufeff${lines.join('')}`);
  assert.ok(body.length > 4 * TEXT_WINDOW_BYTES);
  const logs = parse(body);
  assert.equal(logs.length, 3_000);
  logs.forEach((e, i) => {
    assert.equal(e.fields.n, i);
    assert.ok(e.msg.startsWith(`m${i} `), `line ${i}`);
  });
  assert.equal(logs[700]?.msg.length, `m700 `.length + 70_700);
  assert.equal(countNative(body, NOW), 3_000);
  // A bad line far past the first window is named by its number in the body (blank lines counted).
  const bad = Buffer.from(`${lines.join('')}{"_msg":\n`);
  const badLine = bad.toString('utf8').split('\n').length - 1;
  for (const run of [(b: Buffer) => parse(b).length, (b: Buffer) => countNative(b, NOW)]) {
    assert.match(outcome(bad, run), new RegExp(`^400 Line ${badLine}: invalid JSON`));
  }
});

void test('nativeLogWindows gives parseNative\'s entries a window at a time, and leaves other bodies to it', () => {
  const lines: string[] = [];
  for (let i = 0; i < 5_000; i++) {
    const line = JSON.stringify({ _msg: `m${i} ${'é中'.repeat(i % 3)}`, n: i, nested: { k: i % 7 } });
    lines.push(line + (i % 3 === 0 ? '\r\n' : '\n') + (i % 97 === 0 ? ' \t\n' : ''));
  }
  const bodies = [`\ufeff${lines.join('')}`, lines.join('').replace(/é中/g, 'ab'), '{"_msg":"a"}\n{"_msg":"b"}'];
  for (const text of bodies) {
    const body = Buffer.from(text);
    const windows = nativeLogWindows(body, NOW, () => assert.fail('no line is bad'));
    assert.ok(windows);
    const parsed = parse(body);
    assert.equal(windows.count, parsed.length);
    const got = [...windows.windows()];
    assert.ok(got.every((w) => w.length <= LOG_WINDOW_ENTRIES));
    assert.deepEqual(got.flat(), parsed);
    assert.deepEqual([...windows.windows()].flat(), parsed, 'each call starts over');
    assert.deepEqual(windows.sample(parsed.length), parsed, 'a sample of every entry is all of them, in order');
    const msgs = new Set(parsed.map((e) => e.msg));
    const some = windows.sample(parsed.length - 1);
    assert.equal(some.length, parsed.length - 1);
    assert.ok(some.every((e) => msgs.has(e.msg)));
  }
  // Bodies parsed whole: an array, a single object (pretty-printed or not), a first line that is not an object.
  for (const text of ['[{"_msg":"a"},{"_msg":"b"}]', '{"_msg":"one"}\n', '{\n  "_msg": "pretty"\n}\n', '\n\n', '1\n{"_msg":"a"}']) {
    assert.equal(nativeLogWindows(Buffer.from(text), NOW, () => undefined), null, JSON.stringify(text));
  }
  // A line that no longer parses (a parser changed since the body was acknowledged) is left out and reported.
  const bad: string[] = [];
  const windows = nativeLogWindows(Buffer.from('{"_msg":"a"}\n[1]\n{"_msg":"c"}'), NOW, (why) => bad.push(why));
  assert.deepEqual([...(windows?.windows() ?? [])].flat().map((e) => e.msg), ['a', 'c']);
  assert.deepEqual(bad, ['its entry 2 is not a JSON object']);
});
