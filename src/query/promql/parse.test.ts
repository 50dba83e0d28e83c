// The parser: Lezer tree → AST, the checks Prometheus's parser makes, the literal syntax of Go, and the
// precedence fixes over the grammar (postfix modifiers, signed literals under `^`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Expr } from './ast.js';
import { formatGoFloat, parseDurationMs, parseGoFloat, parseNumberLiteral, unquoteString } from './literals.js';
import { parsePromql, PromqlError, typeOf } from './parse.js';

/** A compact, readable rendering of the AST for the table below. */
function show(e: Expr): string {
  const mods = (x: { offsetMs: number; at?: { kind: string; ms?: number } }): string =>
    (x.offsetMs !== 0 ? ` offset ${x.offsetMs}ms` : '') + (x.at ? ` @ ${x.at.kind === 'time' ? `${x.at.ms}ms` : `${x.at.kind}()`}` : '');
  switch (e.kind) {
    case 'number': return formatGoFloat(e.value);
    case 'string': return JSON.stringify(e.value);
    case 'vector': return `{${e.matchers.map((m) => `${m.name}${m.type}${JSON.stringify(m.value)}`).join(',')}}${mods(e)}`;
    case 'matrix': return `${show(e.selector)}[${e.rangeMs}ms]`;
    case 'subquery': return `(${show(e.expr)})[${e.rangeMs}ms:${e.stepMs ?? ''}]${mods(e)}`;
    case 'call': return `${e.func}(${e.args.map(show).join(', ')})`;
    case 'aggregate':
      return `${e.op} ${e.without ? 'without' : 'by'}(${e.grouping.join(',')}) (${e.param ? `${show(e.param)}, ` : ''}${show(e.expr)})`;
    case 'binary': {
      const m = e.matching;
      const match = m ? ` ${m.card}${m.on ? ' on' : ' ignoring'}(${m.labels.join(',')})${m.include.length ? `+(${m.include.join(',')})` : ''}` : '';
      return `(${show(e.lhs)} ${e.op}${e.returnBool ? ' bool' : ''}${match} ${show(e.rhs)})`;
    }
    case 'unary': return `${e.op}${show(e.expr)}`;
    case 'paren': return `(${show(e.expr)})`;
  }
}

const parses: [string, string][] = [
  ['foo', '{__name__="foo"}'],
  ['foo{a="b", c!="d", e=~"f.*", g!~"h"}', '{a="b",c!="d",e=~"f.*",g!~"h",__name__="foo"}'],
  ['{__name__="foo", "quoted"="x"}', '{__name__="foo",quoted="x"}'],
  ["foo{a='single', b=`raw\\n`}", '{a="single",b="raw\\\\n",__name__="foo"}'],
  ['foo[5m]', '{__name__="foo"}[300000ms]'],
  ['foo[1h30m] offset 1m', '{__name__="foo"} offset 60000ms[5400000ms]'],
  ['foo @ 1.5 offset -5m', '{__name__="foo"} offset -300000ms @ 1500ms'],
  ['foo offset 5m @ end()', '{__name__="foo"} offset 300000ms @ end()'],
  ['rate(foo[5m] @ start())', 'rate({__name__="foo"} @ start()[300000ms])'],
  ['max_over_time(foo[10m:1m] offset 1m)', 'max_over_time(({__name__="foo"})[600000ms:60000] offset 60000ms)'],
  ['foo[10m:]', '({__name__="foo"})[600000ms:]'],
  ['sum by (job) (foo)', 'sum by(job) ({__name__="foo"})'],
  ['sum(foo) without (a, b,)', 'sum without(a,b) ({__name__="foo"})'],
  ['topk(3, foo)', 'topk by() (3, {__name__="foo"})'],
  ['count_values("v", foo)', 'count_values by() ("v", {__name__="foo"})'],
  ['a + on(x) group_left(y) b', '({__name__="a"} + many-to-one on(x)+(y) {__name__="b"})'],
  ['a / ignoring(x) group_right b', '({__name__="a"} / one-to-many ignoring(x) {__name__="b"})'],
  ['a and b', '({__name__="a"} and many-to-many ignoring() {__name__="b"})'],
  ['a > bool 1', '({__name__="a"} > bool 1)'],
  ['1 + 2 * 3', '(1 + (2 * 3))'],
  ['2 ^ 3 ^ 2', '(2 ^ (3 ^ 2))'],
  ['-2 ^ 2', '-(2 ^ 2)'],
  ['- a ^ 2', '-({__name__="a"} ^ 2)'],
  ['a - b offset 5m', '({__name__="a"} - one-to-one ignoring() {__name__="b"} offset 300000ms)'],
  ['a * b @ 100', '({__name__="a"} * one-to-one ignoring() {__name__="b"} @ 100000ms)'],
  ['-a offset 1m', '-{__name__="a"} offset 60000ms'],
  ['a or b unless c', '({__name__="a"} or many-to-many ignoring() ({__name__="b"} unless many-to-many ignoring() {__name__="c"}))'],
  ['0x1F + 010 + 1e3 + .5 + Inf - NaN', '(((((31 + 8) + 1000) + 0.5) + +Inf) - NaN)'],
  ['"a\\x41\\u00e9"', '"aAé"'],
  ['time() - timestamp(foo)', '(time() - timestamp({__name__="foo"}))'],
  ['# comment\nfoo # more', '{__name__="foo"}'],
  ['(foo)', '({__name__="foo"})'],
];

const failures: [string, RegExp][] = [
  ['', /^1:1: parse error: no expression found in input/],
  ['foo{', /^1:5: parse error: unexpected end of input/],
  ['foo bar', /^1:5: parse error: unexpected "bar"/],
  ['sum(foo) by (a) by (b)', /parse error/],
  ['unknown_fn(foo)', /parse error/],
  ['{}', /vector selector must contain at least one non-empty matcher/],
  ['{a=~".*"}', /vector selector must contain at least one non-empty matcher/],
  ['foo{__name__="bar"}', /metric name must not be set twice/],
  ['rate(foo)', /expected type range vector in call to function "rate", got instant vector/],
  ['abs(foo[5m])', /expected type instant vector in call to function "abs", got range vector/],
  ['round(foo, 1, 2)', /expected at most 2 argument\(s\) in call to "round", got 3/],
  ['label_join(foo, "a")', /expected at least 3 argument\(s\) in call to "label_join", got 2/],
  ['1 > 2', /comparisons between scalars must use BOOL modifier/],
  ['foo + bool 1', /bool modifier can only be used on comparison operators/],
  ['foo and 1', /set operator "and" not allowed in binary scalar expression/],
  ['foo and on(a) group_left b', /no grouping allowed for "and" operation/],
  ['foo + on(a) group_left(a) b', /label "a" must not occur in ON and GROUP clause at once/],
  ['1 + on(a) 2', /vector matching only allowed between instant vectors/],
  ['foo[5m] + 1', /binary expression must contain only scalar and instant vector types/],
  ['sum(foo[5m])', /expected type instant vector in aggregation expression, got range vector/],
  ['topk(foo)', /wrong number of arguments for aggregate expression provided, expected 2, got 1/],
  ['count_values(1, foo)', /expected type string in aggregation parameter, got scalar/],
  ['(foo)[5m]', /ranges only allowed for vector selectors/],
  ['foo offset 5m [10m]', /no offset modifiers allowed before range/],
  ['sum(foo) offset 1m', /offset modifier must be preceded by an instant vector selector/],
  ['vector(1) @ 100', /@ modifier must be preceded by an instant vector selector/],
  ['foo offset 1m offset 2m', /offset may not be set multiple times/],
  ['foo[5m][1m:]', /subquery is only allowed on instant vector, got range vector/],
  ['-foo[5m]', /unary expression only allowed on expressions of type scalar or instant vector/],
  ['foo{a=~"("}', /error parsing regexp/],
  ['"unterminated', /invalid string literal/],
  ['foo\n  bar', /^2:3: parse error/],
  ['limitk(1, foo)', /is not supported/],
];

describe('PromQL parser', () => {
  for (const [text, want] of parses) it(`parses ${JSON.stringify(text)}`, () => assert.equal(show(parsePromql(text)), want));
  for (const [text, re] of failures) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      assert.throws(() => parsePromql(text), (e: unknown) => e instanceof PromqlError && e.errorType === 'bad_data' && re.test(e.message));
    });
  }
  it('types expressions as Prometheus does', () => {
    assert.deepEqual(['1', '"s"', 'foo', 'foo[1m]', 'foo[1m:]', 'rate(foo[1m])', 'scalar(foo)', '1 + 1', 'foo + 1'].map((t) => typeOf(parsePromql(t))),
      ['scalar', 'string', 'vector', 'matrix', 'matrix', 'vector', 'scalar', 'scalar', 'vector']);
  });
});

describe('Go literal syntax', () => {
  it('durations as model.ParseDuration', () => {
    assert.deepEqual(['5m', '1h30m', '1d', '1w', '1y', '250ms', '0', '1m5s10ms'].map(parseDurationMs),
      [300_000, 5_400_000, 86_400_000, 604_800_000, 31_536_000_000, 250, 0, 65_010]);
    assert.deepEqual(['', '5', '5x', '1s1m', '-1m'].map(parseDurationMs), [undefined, undefined, undefined, undefined, undefined]);
  });
  it('floats as strconv.ParseFloat', () => {
    assert.deepEqual(['1', '-1.5', '1e3', '.5', '+Inf', '-inf', 'Infinity', '0x10'].map(parseGoFloat), [1, -1.5, 1000, 0.5, Infinity, -Infinity, Infinity, 16]);
    assert.ok(Number.isNaN(parseGoFloat('NaN')));
    assert.deepEqual(['', ' 1', 'abc', '1_'].map(parseGoFloat), [undefined, undefined, undefined, undefined]);
  });
  it('number literals try ParseInt(s, 0, 64) first', () => {
    assert.deepEqual(['017', '0o17', '0b11', '0x1f', '-10', '1m'].map(parseNumberLiteral), [15, 15, 3, 31, -10, 60]);
  });
  it('strings as strconv.Unquote', () => {
    assert.deepEqual(['"a\\tb"', "'it\\'s'", '`raw\\n`', '"\\u00e9\\101"', '"bad\\q"', '"open'].map(unquoteString),
      ['a\tb', "it's", 'raw\\n', 'éA', undefined, undefined]);
  });
  it("floats as strconv.FormatFloat(v, 'f', -1, 64)", () => {
    assert.deepEqual([1, 0.1, -2.5, 1e21, 1.5e-7, 123456789012345680000, Number.NaN, Infinity, -Infinity, -0].map(formatGoFloat),
      ['1', '0.1', '-2.5', '1000000000000000000000', '0.00000015', '123456789012345680000', 'NaN', '+Inf', '-Inf', '-0']);
  });
});
