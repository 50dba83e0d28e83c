import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../errors.js';
import type { MetricSample } from '../../model/metric.js';
import { fixtureBytes } from '../../../test/fixtures/metrics/fixtures.js';
import { parseInfluxLines, parseInfluxPoints, type InfluxFieldValue, type InfluxPoint } from './influx-line.js';
import type { MetricsRequest } from './parsed-metrics.js';
import { promLabelName, promMetricName } from './prom-names.js';

const NOW = 1_750_000_000_000;
const req = (query = ''): MetricsRequest => ({ query: new URLSearchParams(query), headers: {}, nowMs: NOW });
const parse = (text: string, query = ''): MetricSample[] => parseInfluxLines(Buffer.from(text), req(query)).samples;
const one = (line: string): InfluxPoint => {
  const [p] = parseInfluxPoints(line);
  assert.ok(p, line);
  return p;
};

void test('every escaping rule of the line protocol', () => {
  const cases: [line: string, part: 'measurement' | 'tag' | 'field key' | 'string', want: string | [string, string]][] = [
    ['my\\ measurement f=1', 'measurement', 'my measurement'],
    ['my\\,m f=1', 'measurement', 'my,m'],
    ['m=x f=1', 'measurement', 'm=x'],
    ['m\\=x f=1', 'measurement', 'm\\=x'],
    ['C:\\temp f=1', 'measurement', 'C:\\temp'],
    ['m\\\\,t=v f=1', 'measurement', 'm\\,t=v'], // `\\` is not an escape: a backslash, then `\,`
    ['m,tag\\ key=v f=1', 'tag', ['tag key', 'v']],
    ['m,k\\,1=v f=1', 'tag', ['k,1', 'v']],
    ['m,k\\=1=v f=1', 'tag', ['k=1', 'v']],
    ['m,k=v\\ 1 f=1', 'tag', ['k', 'v 1']],
    ['m,k=v\\,1 f=1', 'tag', ['k', 'v,1']],
    ['m,k=v\\=1 f=1', 'tag', ['k', 'v=1']],
    ['m,k=a=b f=1', 'tag', ['k', 'a=b']],
    ['m,k=C:\\dir f=1', 'tag', ['k', 'C:\\dir']],
    ['m,k="q" f=1', 'tag', ['k', '"q"']],
    ['m f\\ 1=1', 'field key', 'f 1'],
    ['m f\\,1=1', 'field key', 'f,1'],
    ['m f\\=1=1', 'field key', 'f=1'],
    ['m s="he said \\"hi\\""', 'string', 'he said "hi"'],
    ['m s="back\\\\slash"', 'string', 'back\\slash'],
    ['m s="C:\\path"', 'string', 'C:\\path'],
    ['m s="a,b c=d e"', 'string', 'a,b c=d e'],
    ['m s=""', 'string', ''],
  ];
  for (const [line, part, want] of cases) {
    const p = one(line);
    const field = p.fields[0]?.[1];
    const got = part === 'measurement' ? p.measurement : part === 'tag' ? p.tags[0]
      : part === 'field key' ? p.fields[0]?.[0] : field?.type === 'string' ? field.value : undefined;
    assert.deepEqual(got, want, line);
  }
});

void test('field types: float, integer, unsigned, string and every boolean spelling', () => {
  const cases: [string, InfluxFieldValue][] = [
    ['1', { type: 'float', value: 1 }], ['1.5', { type: 'float', value: 1.5 }], ['-1.2e3', { type: 'float', value: -1200 }],
    ['.5', { type: 'float', value: 0.5 }], ['1.', { type: 'float', value: 1 }], ['+3', { type: 'float', value: 3 }],
    ['1E-2', { type: 'float', value: 0.01 }],
    ['123i', { type: 'integer', value: 123n }], ['-5i', { type: 'integer', value: -5n }],
    ['9223372036854775807i', { type: 'integer', value: 2n ** 63n - 1n }],
    ['123u', { type: 'unsigned', value: 123n }], ['18446744073709551615u', { type: 'unsigned', value: 2n ** 64n - 1n }],
    ['"x"', { type: 'string', value: 'x' }],
  ];
  for (const word of ['t', 'T', 'true', 'True', 'TRUE']) cases.push([word, { type: 'boolean', value: true }]);
  for (const word of ['f', 'F', 'false', 'False', 'FALSE']) cases.push([word, { type: 'boolean', value: false }]);
  for (const [text, want] of cases) assert.deepEqual(one(`m v=${text}`).fields, [['v', want]], text);
  assert.deepEqual(parse('m a=1.5,b=2i,c=3u,d=t,e=F,s="x" 0').map((x) => [x.name, x.value]),
    [['m_a', 1.5], ['m_b', 2], ['m_c', 3], ['m_d', 1], ['m_e', 0]]);
});

void test('precision words of v1 and v2 scale the timestamp to ms; no timestamp means now', () => {
  const cases: [query: string, ts: string, ms: number][] = [
    ['', '1700000000123456789', 1_700_000_000_123], ['precision=n', '1700000000123456789', 1_700_000_000_123],
    ['precision=ns', '1700000000123999999', 1_700_000_000_123], ['precision=u', '1700000000123456', 1_700_000_000_123],
    ['precision=us', '1700000000123456', 1_700_000_000_123], ['precision=%C2%B5', '1700000000123456', 1_700_000_000_123],
    ['precision=ms', '1700000000123', 1_700_000_000_123], ['precision=s', '1700000000', 1_700_000_000_000],
    ['precision=m', '28333333', 1_699_999_980_000], ['precision=h', '472222', 1_699_999_200_000],
    ['', '-1', -1], ['precision=s', '0', 0],
  ];
  for (const [query, ts, ms] of cases) assert.equal(parse(`m f=1 ${ts}`, query)[0]?.timeMs, ms, `${query} ${ts}`);
  assert.equal(parse('m f=1')[0]?.timeMs, NOW);
  assert.equal(parse('m f=1   ')[0]?.timeMs, NOW, 'trailing spaces');
  assert.throws(() => parse('m f=1', 'precision=d'), /unknown precision "d"/);
});

void test('comments, blank lines, CRLF, a BOM and leading spaces are accepted', () => {
  const text = '\uFEFF# header\r\n\r\n  m f=1 1000000\r\n\t\r\n   # indented comment\r\nm f=2 2000000\r\n';
  assert.deepEqual(parse(text).map((x) => [x.value, x.timeMs]), [[1, 1], [2, 2]]);
  assert.deepEqual(parse(''), []);
});

void test('a bad line refuses the body with 400 naming the line and the problem', () => {
  const cases: [string, RegExp][] = [
    ['m', /^line 1: missing fields/],
    ['m ', /^line 1: missing field key/],
    [',t=1 f=1', /^line 1: missing measurement/],
    ['m,t f=1', /^line 1: tag "t" has no key=value form/],
    ['m,=v f=1', /^line 1: tag "" has no key=value form/],
    ['m,t= f=1', /^line 1: tag "t" has an empty value/],
    ['m f', /^line 1: field "f" has no value/],
    ['m f=', /^line 1: field "f" has an empty value/],
    ['m f=1,', /^line 1: missing field key/],
    ['m f=abc', /^line 1: field "f": invalid value "abc"/],
    ['m f=NaN', /invalid value "NaN"/],
    ['m f=1i2', /invalid value "1i2"/],
    ['m f=-1u', /invalid value "-1u"/],
    ['m f=9223372036854775808i', /out of the int64 range/],
    ['m f=18446744073709551616u', /out of the uint64 range/],
    ['m f="abc', /^line 1: field "f": unterminated string/],
    ['m f=1 abc', /^line 1: invalid timestamp "abc"/],
    ['m f=1 1.5', /invalid timestamp "1.5"/],
    ['m f=1 123 456', /^line 1: unexpected text after the timestamp/],
    ['m f=1 99999999999999999999', /out of the int64 range/],
    ['ok f=1\n\n# c\nbad', /^line 4: missing fields/],
    ['ok f=1\r\nok f=2\r\nm,t=1 f=x', /^line 3: field "f": invalid value "x"/],
  ];
  for (const [text, detail] of cases) {
    assert.throws(() => parse(text), (e: unknown) => {
      assert.ok(e instanceof ServiceError);
      assert.equal(e.status, 400);
      assert.match(e.detail, detail, JSON.stringify(text));
      return true;
    });
  }
});

void test('samples are named like Telegraf: <measurement>_<field>, sanitised; tags are labels; db or bucket a label', () => {
  assert.deepEqual(parse('cpu,host=a usage_idle=1'), [{ name: 'cpu_usage_idle', labels: { host: 'a' }, timeMs: NOW, value: 1 }]);
  assert.equal(parse('prometheus go_goroutines=7')[0]?.name, 'go_goroutines');
  assert.deepEqual(parse('disk\\ io,host-name=a read-bytes=1')[0], { name: 'disk_io_read_bytes', labels: { host_name: 'a' }, timeMs: NOW, value: 1 });
  assert.deepEqual(parse('m f=1', 'db=telegraf&rp=')[0]?.labels, { db: 'telegraf' });
  assert.deepEqual(parse('m f=1', 'bucket=b1&org=o')[0]?.labels, { db: 'b1' });
  assert.deepEqual(parse('m,db=own f=1', 'db=telegraf')[0]?.labels, { db: 'own' }, 'a db tag wins');
  const parsed = parseInfluxLines(Buffer.from('m s="text",n=1\n±,t=1 ±=1'), req());
  assert.deepEqual(parsed.samples.map((x) => x.name), ['m_n']);
  assert.deepEqual(parsed.dropped, { string_field: 1, invalid_name: 1 });
  assert.deepEqual(parsed.stats, { samples: 1, histograms: 0, exemplars: 0 });
});

void test('a Telegraf body with CRLF endings', () => {
  const parsed = parseInfluxLines(fixtureBytes('telegraf.lp'), req('db=telegraf'));
  const labels = { db: 'telegraf', host: 'web 1' };
  const t = 1_700_000_000_000;
  assert.deepEqual(parsed.samples, [
    { name: 'cpu_usage_idle', labels: { ...labels, cpu: 'cpu-total' }, timeMs: t, value: 98.5 },
    { name: 'cpu_usage_user', labels: { ...labels, cpu: 'cpu-total' }, timeMs: t, value: 1.25 },
    { name: 'mem_used', labels, timeMs: t, value: 123456789 },
    { name: 'mem_available_percent', labels, timeMs: t, value: 61.2 },
    { name: 'mem_active', labels, timeMs: t, value: 1 },
    { name: 'system_load1', labels, timeMs: t, value: 0.42 },
    { name: 'system_n_cpus', labels, timeMs: t, value: 8 },
  ]);
  assert.deepEqual(parsed.dropped, { string_field: 1 });
});

// ---- Round trip: points → a small test-only encoder → parser → the same points and samples. ----

const escape = (s: string, chars: string): string => s.replace(/[\s\S]/g, (c) => (chars.includes(c) ? `\\${c}` : c));
const BOOL_WORDS: Record<'true' | 'false', readonly string[]> = {
  true: ['t', 'T', 'true', 'True', 'TRUE'], false: ['f', 'F', 'false', 'False', 'FALSE'],
};

function encodeValue(v: InfluxFieldValue, spelling: number): string {
  switch (v.type) {
    case 'float': return String(v.value);
    case 'integer': return `${v.value}i`;
    case 'unsigned': return `${v.value}u`;
    case 'boolean': return BOOL_WORDS[v.value ? 'true' : 'false'][spelling % 5] ?? 't';
    case 'string': return `"${v.value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  }
}

function encodePoint(p: InfluxPoint, spelling: number): string {
  let line = escape(p.measurement, ', ');
  for (const [k, v] of p.tags) line += `,${escape(k, ',= ')}=${escape(v, ',= ')}`;
  line += ` ${p.fields.map(([k, v]) => `${escape(k, ',= ')}=${encodeValue(v, spelling)}`).join(',')}`;
  return p.timestamp === undefined ? line : `${line} ${p.timestamp}`;
}

// Names may hold every special character but a newline, and may not end in a backslash (which would escape
// the delimiter after it: the format cannot express that). A measurement may not start with `#`.
const CHARS = ['a', 'b', 'Z', '0', '9', '_', '-', '.', ' ', ',', '=', '"', '\\', 'é', '#', '\'', ':'];
const text = (min: number) => fc.string({ unit: fc.constantFrom(...CHARS), minLength: min, maxLength: 8 })
  .filter((s) => !s.endsWith('\\'));
const name = text(1);
const measurement = name.filter((s) => !s.startsWith('#'));
const value: fc.Arbitrary<InfluxFieldValue> = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => ({ type: 'float' as const, value: v === 0 ? 0 : v })),
  fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n).map((v) => ({ type: 'integer' as const, value: v })),
  fc.bigInt(0n, 2n ** 64n - 1n).map((v) => ({ type: 'unsigned' as const, value: v })),
  fc.boolean().map((v) => ({ type: 'boolean' as const, value: v })),
  fc.string({ maxLength: 10 }).filter((s) => !/[\r\n]/.test(s)).map((v) => ({ type: 'string' as const, value: v })),
);
const point = fc.record({
  measurement,
  tags: fc.array(fc.tuple(name, name), { maxLength: 3 }),
  fields: fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 4 }),
  timestamp: fc.option(fc.bigInt(-(2n ** 62n), 2n ** 62n), { nil: undefined }),
});

void test('property: any points survive encode → parse unchanged, and become the samples their fields name', () => {
  fc.assert(fc.property(fc.array(point, { minLength: 1, maxLength: 5 }), fc.nat(), fc.boolean(), (raw, spelling, crlf) => {
    const points: InfluxPoint[] = raw.map((p, i) => {
      const out: InfluxPoint = { measurement: p.measurement, tags: p.tags, fields: p.fields, line: i + 1 };
      if (p.timestamp !== undefined) out.timestamp = p.timestamp;
      return out;
    });
    const body = points.map((p) => encodePoint(p, spelling)).join(crlf ? '\r\n' : '\n');
    assert.deepEqual(parseInfluxPoints(body), points);

    const want: MetricSample[] = [];
    for (const p of points) {
      const labels: Record<string, string> = { db: 'x' };
      for (const [k, v] of p.tags) if (!['', '__name__'].includes(promLabelName(k))) labels[promLabelName(k)] = v;
      const ts = p.timestamp;
      const timeMs = ts === undefined ? NOW : Number(ts / 1000n - (ts < 0n && ts % 1000n !== 0n ? 1n : 0n));
      for (const [k, v] of p.fields) {
        const n = promMetricName(p.measurement === 'prometheus' ? k : `${p.measurement}_${k}`);
        if (v.type === 'string' || n === '') continue;
        want.push({ name: n, labels, timeMs, value: Number(v.value) });
      }
    }
    const got = parseInfluxLines(Buffer.from(body), req('db=x&precision=us')).samples;
    assert.deepEqual(got, want);
  }), { numRuns: 300 });
});
