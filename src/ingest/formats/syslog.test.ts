import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../errors.js';
import type { LogEntry } from '../../model/log-entry.js';
import { syslogFormat } from './syslog.js';
import { parseSyslogLine, splitOctetCounted, splitLines, isOctetCounted } from './syslog-parse.js';
import { NOW_NS, fixture, formatRequest } from './shipper-test-support.js';

const iso = (s: string) => BigInt(Date.parse(s)) * 1_000_000n;

async function parse(body: Buffer | string, nowNs = NOW_NS): Promise<LogEntry[]> {
  const parsed = await syslogFormat.parse(Buffer.isBuffer(body) ? body : Buffer.from(body), formatRequest({ path: '/api/v1/syslog', nowNs }));
  assert.equal(parsed.signal, 'logs');
  return parsed.batch.logs;
}

function badRequest(detail: RegExp) {
  return (e: unknown) => e instanceof ServiceError && e.status === 400 && detail.test(e.detail);
}

void test('the four RFC 5424 §6.5 examples map header, BOM-stripped MSG and structured data', async () => {
  const [one, two, three, four] = await parse(fixture('syslog/rfc5424-examples.txt'));
  assert.ok(one && two && three && four);
  assert.deepEqual(
    { t: one.timeNs, service: one.service, severity: one.severity, msg: one.msg, fields: one.fields },
    {
      t: iso('2003-10-11T22:14:15.003Z'), service: 'su', severity: 'crit', msg: "'su root' failed for lonvick on /dev/pts/8",
      fields: { facility: 'auth', priority: 34, hostname: 'mymachine.example.com', msgid: 'ID47' },
    },
  );
  assert.equal(two.timeNs, iso('2003-08-24T12:14:15.000Z') + 3_000n, 'microseconds and the -07:00 offset kept');
  assert.deepEqual([two.service, two.severity, two.fields.facility, two.fields.procid, two.msg], ['myproc', 'notice', 'local4', '8710', "%% It's time to make the do-nuts."]);
  assert.equal(three.msg, 'An application event log entry...');
  assert.deepEqual(
    [three.fields['sd.exampleSDID@32473.iut'], three.fields['sd.exampleSDID@32473.eventSource'], three.fields['sd.exampleSDID@32473.eventID']],
    ['3', 'Application', '1011'],
  );
  assert.equal(four.msg, '', 'structured data only: no MSG');
  assert.equal(four.fields['sd.examplePriority@32473.class'], 'high');
});

void test('RFC 3164 §5.4 examples: current UTC year rolled back from the future, missing tag, unparseable header', async () => {
  const [one, two, three, four] = await parse(fixture('syslog/rfc3164-examples.txt'));
  assert.ok(one && two && three && four);
  assert.equal(one.timeNs, iso('2023-10-11T22:14:15Z'), 'Oct 11 would be in the future on 2024-06-01');
  assert.deepEqual([one.service, one.severity, one.fields.hostname, one.msg], ['su', 'crit', 'mymachine', "'su root' failed for lonvick on /dev/pts/8"]);
  assert.equal(two.timeNs, iso('2024-02-05T17:32:18Z'));
  assert.deepEqual([two.service, two.severity, two.fields.facility, two.fields.hostname, two.msg], ['', 'notice', 'user', '10.0.0.99', 'Use the BFG!']);
  assert.equal(three.timeNs, iso('2023-08-24T05:34:00Z'));
  assert.equal(four.timeNs, NOW_NS, 'no recognisable timestamp: receive time');
  assert.equal(four.severity, 'emerg');
  assert.equal(four.msg, "1990 Oct 22 10:52:01 TZ-6 scapegoat.dmz.example.org 10.1.2.3 sched[0]: That's All Folks!");
});

void test('a line without PRI is kept whole as the message', async () => {
  const [e] = await parse('just some text from a misconfigured sender\n');
  assert.deepEqual([e?.msg, e?.severity, e?.service, e?.timeNs, e?.fields], ['just some text from a misconfigured sender', '', '', NOW_NS, {}]);
});

void test('RFC 3164 years: Dec 31 read on Jan 1 is last year; a few hours ahead (east of UTC) stays this year', async () => {
  const newYear = iso('2025-01-01T00:00:30Z');
  const [dec31, ahead] = await parse('<13>Dec 31 23:59:59 host app: bye\n<13>Jan  1 09:00:00 host app[7]: tokyo', newYear);
  assert.equal(dec31?.timeNs, iso('2024-12-31T23:59:59Z'));
  assert.equal(ahead?.timeNs, iso('2025-01-01T09:00:00Z'));
  assert.equal(ahead.fields.procid, '7');
});

void test('RFC 3164 without HOSTNAME takes the first token as the tag when it ends in a colon', async () => {
  const [e] = await parse('<30>May  1 12:00:00 sshd[42]: Accepted publickey');
  assert.deepEqual([e?.service, e?.fields.procid, e?.fields.hostname, e?.msg], ['sshd', '42', undefined, 'Accepted publickey']);
});

void test('the OTel trace context SD element fills the trace and span columns', async () => {
  const line = '<14>1 2024-05-01T12:00:00.123456789Z h app - - [opentelemetry trace_id="4BF92F3577B34DA6A3CE929D0E0E4736" span_id="00f067aa0ba902b7" trace_flags="01"] hi';
  const [e] = await parse(line);
  assert.equal(e?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(e.spanId, '00f067aa0ba902b7');
  assert.equal(e.fields['sd.opentelemetry.trace_flags'], '01');
  assert.equal(e.fields['sd.opentelemetry.trace_id'], undefined);
  assert.equal(e.timeNs, iso('2024-05-01T12:00:00Z') + 123_456_789n, 'nanoseconds kept');
});

void test('SD values unescape \\" \\\\ \\] and repeated params become a JSON array', () => {
  const m = parseSyslogLine('<14>1 - - - - - [x@1 a="q\\"uote" b="back\\\\slash" c="br\\]acket" d="1" d="2" e="lit\\eral"][flag@1] m', { nowNs: NOW_NS });
  assert.equal(m.kind, 'rfc5424');
  assert.deepEqual(m.structuredData, [
    { id: 'x@1', params: [['a', 'q"uote'], ['b', 'back\\slash'], ['c', 'br]acket'], ['d', '1'], ['d', '2'], ['e', 'lit\\eral']] },
    { id: 'flag@1', params: [] },
  ]);
  assert.equal(m.msg, 'm');
});

void test('octet counts are bytes, not characters', async () => {
  const msg = '<14>1 - h app - - - héllo ☃';
  const body = `${Buffer.byteLength(msg)} ${msg}${Buffer.byteLength(msg)} ${msg}`;
  const logs = await parse(body);
  assert.deepEqual(logs.map((e) => e.msg), ['héllo ☃', 'héllo ☃']);
});

void test('a plain line starting with a number is not mistaken for an octet count', async () => {
  assert.equal(isOctetCounted(Buffer.from('12 apples fell\n')), false);
  assert.equal(isOctetCounted(Buffer.from('\n12 <14>1 - - - - - -')), true);
  assert.deepEqual((await parse('12 apples fell\n3 pears')).map((e) => e.msg), ['12 apples fell', '3 pears']);
});

void test('LF framing trims CR, skips blank lines and splits on NUL', async () => {
  const logs = await parse('<14>1 - h a - - - one\r\n\r\n<14>1 - h a - - - two\0<14>1 - h a - - - three');
  assert.deepEqual(logs.map((e) => e.msg), ['one', 'two', 'three']);
});

void test('broken octet framing is a 400 naming the frame', async () => {
  await assert.rejects(parse('10 <14>1 - h\n999 <14>'), badRequest(/frame 2 declares 999 bytes but only 4 remain/));
  await assert.rejects(parse('3 <1>\nxyz'), badRequest(/frame 2: expected an octet count/));
});

void test('property: octet-counted framing returns every frame byte for byte', () => {
  fc.assert(fc.property(
    fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 20 }),
    fc.constantFrom('', '\n', '\r\n', '\0'),
    (frames, gap) => {
      const body = Buffer.concat(frames.flatMap((f) => [Buffer.from(`${f.length} `), Buffer.from(f), Buffer.from(gap)]));
      const got = splitOctetCounted(body);
      assert.deepEqual(got.map((b) => Buffer.from(b)), frames.map((f) => Buffer.from(f)));
      if (frames[0]?.[0] === 0x3c) assert.ok(isOctetCounted(body), 'a first frame opening with < is sniffed as octet counted');
    },
  ));
});

void test('property: any text parses without throwing, and LF framing never yields a line with LF or NUL', () => {
  fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => {
    const m = parseSyslogLine(text, { nowNs: NOW_NS });
    assert.equal(typeof m.msg, 'string');
    for (const line of splitLines(Buffer.from(text))) assert.ok(!line.includes(0x0a) && !line.includes(0x00) && line.length > 0);
  }));
});
