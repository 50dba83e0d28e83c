// The LogsQL parser: a table of accepted queries and the AST each gives, a table of rejected queries and the
// position each error points at (DESIGN §4: the 400 detail points at the position), and fuzzing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalField, type Filter, type LogsqlQuery, type Pipe } from '../../model/logsql-ast.js';
import { LogsqlSyntaxError, parseLogsql } from './parser.js';

const NOW = 1_714_564_800_000_000_000n; // 2024-05-01T12:00:00Z
const S = 1_000_000_000n;
const MIN = 60n * S;
const HOUR = 60n * MIN;
const DAY = 24n * HOUR;

const word = (value: string, field = '_msg'): Filter => ({ kind: 'word', field, value });
const phrase = (value: string, field = '_msg'): Filter => ({ kind: 'phrase', field, value });
const and = (...filters: Filter[]): Filter => ({ kind: 'and', filters });
const or = (...filters: Filter[]): Filter => ({ kind: 'or', filters });
const not = (filter: Filter): Filter => ({ kind: 'not', filter });
const ALL: Filter = { kind: 'all' };
const q = (filter: Filter, ...pipes: Pipe[]): LogsqlQuery => ({ filter, pipes });

const accepted: [string, LogsqlQuery][] = [
  ['error', q(word('error'))],
  ['*', q(ALL)],
  ['', q(ALL)],
  ['error timeout', q(and(word('error'), word('timeout')))],
  ['error AND timeout', q(and(word('error'), word('timeout')))],
  ['error and timeout', q(and(word('error'), word('timeout')))],
  ['a OR b c', q(or(word('a'), and(word('b'), word('c'))))],
  ['(a OR b) c', q(and(or(word('a'), word('b')), word('c')))],
  ['NOT a', q(not(word('a')))],
  ['-a !b not c', q(and(not(word('a')), not(word('b')), not(word('c'))))],
  ['NOT NOT a', q(not(not(word('a'))))],
  ['a -(b OR c)', q(and(word('a'), not(or(word('b'), word('c')))))],
  ['foo-bar', q(word('foo-bar'))],
  ['[error]', q(word('[error]'))],
  ['"connection refused"', q(phrase('connection refused'))],
  ["'single quoted'", q(phrase('single quoted'))],
  ['`back\\`tick`', q(phrase('back`tick'))],
  ['"tab\\there \\"q\\" \\u00e9 \\x41"', q(phrase('tab\there "q" é A'))],
  ['"keeps \\d unknown escapes"', q(phrase('keeps \\d unknown escapes'))],
  ['"and"', q(phrase('and'))],
  ['err*', q({ kind: 'prefix', field: '_msg', value: 'err' })],
  ['"foo bar"*', q({ kind: 'prefix', field: '_msg', value: 'foo bar' })],
  ['~"re.+x"', q({ kind: 'regexp', field: '_msg', pattern: 're.+x' })],
  ['="exact msg"', q({ kind: 'exact', field: '_msg', value: 'exact msg' })],
  ['service:api', q(word('api', 'service'))],
  ['service : api', q(word('api', 'service'))],
  ['level:error', q(word('error', 'severity'))],
  ['kubernetes.pod_name:api-7f9', q(word('api-7f9', 'kubernetes.pod_name'))],
  ['"odd \\"name\\"":v', q(word('v', 'odd "name"'))],
  ['"":v', q(word('v'))],
  ['not:v', q(word('v', 'not'))],
  ['f:"two words"', q(phrase('two words', 'f'))],
  ['f:-5', q(word('-5', 'f'))],
  ['f:="x y"', q({ kind: 'exact', field: 'f', value: 'x y' })],
  ['f:=x', q({ kind: 'exact', field: 'f', value: 'x' })],
  ['f:="pre"*', q({ kind: 'exactPrefix', field: 'f', value: 'pre' })],
  ['f:=""', q({ kind: 'empty', field: 'f' })],
  ['f:prefix*', q({ kind: 'prefix', field: 'f', value: 'prefix' })],
  ['f:~"^a\\\\d+$"', q({ kind: 'regexp', field: 'f', pattern: '^a\\d+$' })],
  ['f:~`(?i)err\\d`', q({ kind: 'regexp', field: 'f', pattern: '(?i)err\\d' })],
  ['f:*', q({ kind: 'exists', field: 'f' })],
  ['f:""', q({ kind: 'empty', field: 'f' })],
  ['f:in(a, "b c", 3)', q({ kind: 'in', field: 'f', values: ['a', 'b c', '3'] })],
  ['f:in()', q({ kind: 'in', field: 'f', values: [] })],
  ['f:>10', q({ kind: 'range', field: 'f', op: '>', value: 10 })],
  ['f:>=-2.5', q({ kind: 'range', field: 'f', op: '>=', value: -2.5 })],
  ['f:<1e3', q({ kind: 'range', field: 'f', op: '<', value: 1000 })],
  ['f:<=0', q({ kind: 'range', field: 'f', op: '<=', value: 0 })],
  ['f:(a OR b*)', q(or(word('a', 'f'), { kind: 'prefix', field: 'f', value: 'b' }))],
  ['f:(a -b)', q(and(word('a', 'f'), not(word('b', 'f'))))],
  ['f:(*)', q({ kind: 'exists', field: 'f' })],
  ['_time:5m', q({ kind: 'time', startNs: NOW - 5n * MIN, endNs: NOW + 1n })],
  ['_time:1h30m', q({ kind: 'time', startNs: NOW - 90n * MIN, endNs: NOW + 1n })],
  ['_time:1.5s', q({ kind: 'time', startNs: NOW - 1_500_000_000n, endNs: NOW + 1n })],
  ['_time:1d offset 1h', q({ kind: 'time', startNs: NOW - DAY - HOUR, endNs: NOW + 1n - HOUR })],
  ['_time:2024-04-30', q({ kind: 'time', startNs: NOW - 36n * HOUR, endNs: NOW - 12n * HOUR })],
  ['_time:2024-04', q({ kind: 'time', startNs: NOW - 30n * DAY - 12n * HOUR, endNs: NOW - 12n * HOUR })],
  ['_time:[2024-05-01T11:00:00Z, 2024-05-01T12:00:00Z)', q({ kind: 'time', startNs: NOW - HOUR, endNs: NOW })],
  ['_time:(2024-05-01T11:00:00Z, 2024-05-01T12:00:00Z]', q({ kind: 'time', startNs: NOW - HOUR + 1n, endNs: NOW + 1n })],
  ['_time:[2024-05-01T13:00:00+01:00, now)', q({ kind: 'time', startNs: NOW, endNs: NOW })],
  ['_time:[2024-05-01T12:00:00.5Z, now+1m)', q({ kind: 'time', startNs: NOW + 500_000_000n, endNs: NOW + MIN })],
  ['_time:[now-1h, now)', q({ kind: 'time', startNs: NOW - HOUR, endNs: NOW })],
  ['_time:[-1h, 30m)', q({ kind: 'time', startNs: NOW - HOUR, endNs: NOW - 30n * MIN })],
  ['_time:*', q(ALL)],
  ['_time:5m error', q(and({ kind: 'time', startNs: NOW - 5n * MIN, endNs: NOW + 1n }, word('error')))],
  ['_stream:{app="api", env!="dev", host=~"web-.*", dc!~`eu.*`}', q({ kind: 'stream', matchers: [
    { label: 'app', op: '=', value: 'api' }, { label: 'env', op: '!=', value: 'dev' },
    { label: 'host', op: '=~', value: 'web-.*' }, { label: 'dc', op: '!~', value: 'eu.*' }] })],
  ['_stream:{}', q({ kind: 'stream', matchers: [] })],
  ['_stream:"{app=\\"x\\"}"', q(phrase('{app="x"}', '_stream'))],
  ['* | limit 5', q(ALL, { kind: 'limit', n: 5 })],
  ['* | head 5', q(ALL, { kind: 'limit', n: 5 })],
  ['* | limit', q(ALL, { kind: 'limit', n: 10 })],
  ['* | offset 3 | limit 2', q(ALL, { kind: 'offset', n: 3 }, { kind: 'limit', n: 2 })],
  ['| limit 1', q(ALL, { kind: 'limit', n: 1 })],
  ['* | sort by (_time)', q(ALL, { kind: 'sort', by: [{ field: '_time', desc: false }] })],
  ['* | sort by (a desc, b) desc', q(ALL, { kind: 'sort', by: [{ field: 'a', desc: false }, { field: 'b', desc: true }] })],
  ['* | sort (level asc)', q(ALL, { kind: 'sort', by: [{ field: 'severity', desc: false }] })],
  ['* | sort by x desc limit 3 offset 1', q(ALL, { kind: 'sort', by: [{ field: 'x', desc: true }] },
    { kind: 'offset', n: 1 }, { kind: 'limit', n: 3 })],
  ['* | fields _msg, "a b", level', q(ALL, { kind: 'fields', fields: ['_msg', 'a b', 'severity'] })],
  ['* | keep a', q(ALL, { kind: 'fields', fields: ['a'] })],
  ['* | delete a, b', q(ALL, { kind: 'delete', fields: ['a', 'b'] })],
  ['* | stats count()', q(ALL, { kind: 'stats', by: [], funcs: [{ fn: 'count', name: 'count(*)' }] })],
  ['* | stats count(*) as n', q(ALL, { kind: 'stats', by: [], funcs: [{ fn: 'count', name: 'n' }] })],
  ['* | stats by (service, level) count() n, count_uniq(user), sum(dur) as "total ms"', q(ALL, {
    kind: 'stats', by: [{ field: 'service' }, { field: 'severity' }], funcs: [
      { fn: 'count', name: 'n' }, { fn: 'count_uniq', field: 'user', name: 'count_uniq(user)' },
      { fn: 'sum', field: 'dur', name: 'total ms' }] })],
  ['* | stats (a) min(x), max(x), avg(x), count(x)', q(ALL, { kind: 'stats', by: [{ field: 'a' }], funcs: [
    { fn: 'min', field: 'x', name: 'min(x)' }, { fn: 'max', field: 'x', name: 'max(x)' },
    { fn: 'avg', field: 'x', name: 'avg(x)' }, { fn: 'count', field: 'x', name: 'count(x)' }] })],
  ['* | stats by (_time:1h) count() hits | sort by (hits desc)', q(ALL,
    { kind: 'stats', by: [{ field: '_time', bucketNs: HOUR }], funcs: [{ fn: 'count', name: 'hits' }] },
    { kind: 'sort', by: [{ field: 'hits', desc: true }] })],
  ['* | stats by () count()', q(ALL, { kind: 'stats', by: [], funcs: [{ fn: 'count', name: 'count(*)' }] })],
  ['* | stats by (_time:5m, service) quantile(0.9, dur), median(dur) as p50, quantile(1, x)', q(ALL, {
    kind: 'stats', by: [{ field: '_time', bucketNs: 5n * 60n * 1_000_000_000n }, { field: 'service' }], funcs: [
      { fn: 'quantile', field: 'dur', phi: 0.9, name: 'quantile(0.9, dur)' }, { fn: 'median', field: 'dur', phi: 0.5, name: 'p50' },
      { fn: 'quantile', field: 'x', phi: 1, name: 'quantile(1, x)' }] })],
  ['* | stats median(dur)', q(ALL, { kind: 'stats', by: [], funcs: [{ fn: 'median', field: 'dur', phi: 0.5, name: 'median(dur)' }] })],
  ['* | stats by (_time:1d offset 2h) count()', q(ALL,
    { kind: 'stats', by: [{ field: '_time', bucketNs: 24n * HOUR, offsetNs: 2n * HOUR }], funcs: [{ fn: 'count', name: 'count(*)' }] })],
  ['* | stats by (_time:1d offset -30m, a) count()', q(ALL, { kind: 'stats',
    by: [{ field: '_time', bucketNs: 24n * HOUR, offsetNs: -HOUR / 2n }, { field: 'a' }], funcs: [{ fn: 'count', name: 'count(*)' }] })],
];

for (const [text, want] of accepted) {
  void test(`accepts ${JSON.stringify(text)}`, () => {
    assert.deepEqual(parseLogsql(text, NOW), want);
  });
}

const rejected: [string, number][] = [
  ['(a', 2],
  ['a)', 1],
  ['a:b:c', 3],
  ['foo AND', 7],
  ['OR a', 0],
  ['a OR', 4],
  [',', 0],
  ['NOT', 3],
  ['-', 1],
  ['()', 1],
  ['"abc', 0],
  ["x 'abc", 2],
  ['"bad \\u12" x', 5],
  ['f:~"("', 3],
  ['f:~"a(?=b)"', 3],
  ['f:~"(\\\\w)\\\\1"', 3],
  ['f:>abc', 3],
  ['f:in(a b)', 7],
  ['f:in(a,', 7],
  ['f:', 2],
  ['f:[x]', 2],
  ['f:{a="b"}', 2],
  ['f:=', 3],
  ['_time:yesterday', 6],
  ['_time:[x, now)', 7],
  ['_time:[now-1h now)', 14],
  ['_time:[now-1h, now', 18],
  ['_time:2024-13', 6],
  ['_time:5m offset x', 16],
  ['_stream:{app=x', 14],
  ['_stream:{app x}', 13],
  ['a | bogus', 4],
  ['a |', 3],
  ['* | limit x', 10],
  ['* | limit -1', 10],
  ['* | limit 99999999999999999999', 10],
  ['* | offset', 10],
  ['* | sort by ()', 13],
  ['* | sort by (a b)', 15],
  ['* | sort by (a) limit 1 limit 2', 24],
  ['* | fields', 10],
  ['* | fields a,', 13],
  ['* | stats', 9],
  ['* | stats foo()', 10],
  ['* | stats sum()', 10],
  ['* | stats sum(*)', 10],
  ['* | stats count(a, b)', 10],
  ['* | stats count() as n, count() as n', 24],
  ['* | stats by (a, a) count()', 17],
  ['* | stats by (a:1h) count()', 14],
  ['* | stats by (_time:0s) count()', 20],
  ['* | stats by a count()', 13],
  ['* | stats quantile(dur)', 19],
  ['* | stats quantile(1.5, dur)', 19],
  ['* | stats quantile(0.5)', 22],
  ['* | stats quantile(0.5, a, b)', 10],
  ['* | stats median()', 10],
  ['* | stats by (_time:1h offset x) count()', 30],
  ['* | limit 1 extra', 12],
];

for (const [text, position] of rejected) {
  void test(`rejects ${JSON.stringify(text)} at position ${position}`, () => {
    assert.throws(() => parseLogsql(text, NOW), (e: unknown) => {
      assert.ok(e instanceof LogsqlSyntaxError, String(e));
      assert.equal(e.position, position, e.message);
      assert.match(e.message, new RegExp(` at position ${position}$`));
      return true;
    });
  });
}

void test('an error names the unexpected token and its position', () => {
  assert.throws(() => parseLogsql('error AND (timeout))', NOW), { message: "unexpected ')' at position 19" });
  assert.throws(() => parseLogsql('(error', NOW), { message: 'unexpected end of query at position 6' });
});

/** Writes `s` as a double-quoted LogsQL string. */
function quote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

void test('any string survives quoting as a phrase or a field name', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary', minLength: 1 }), (value, field) => {
    fc.pre(field !== '_time'); // `_time:` takes only time filters
    const asPhrase = parseLogsql(quote(value), NOW).filter;
    assert.deepEqual(asPhrase, value === '' ? { kind: 'empty', field: '_msg' } : phrase(value));
    const asExact = parseLogsql(`${quote(field)}:=${quote(value)}`, NOW).filter;
    const f = canonicalField(field);
    assert.deepEqual(asExact, value === '' ? { kind: 'empty', field: f } : { kind: 'exact', field: f, value });
  }), { numRuns: 500 });
});

void test('any text either parses or fails with a LogsqlSyntaxError inside the text', () => {
  const alphabet = fc.constantFrom(...'ab:*()|,-!=~<>[]{}"\'`\\ _.0159hms'.split(''), ' OR ', ' AND ', ' NOT ',
    '_time:', '_stream:', ' | stats ', ' | sort by ', 'count()', ' | fields ', ' | limit ', 'in(', 'now');
  fc.assert(fc.property(fc.array(alphabet, { maxLength: 30 }), (parts) => {
    const text = parts.join('');
    try {
      parseLogsql(text, NOW);
    } catch (e) {
      assert.ok(e instanceof LogsqlSyntaxError, `${JSON.stringify(text)}: ${String(e)}`);
      assert.ok(e.position >= 0 && e.position <= text.length, `${JSON.stringify(text)}: ${e.message}`);
    }
  }), { numRuns: 3000 });
});
