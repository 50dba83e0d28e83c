// Prometheus-style stream selectors as Loki pushes carry them (wire-formats.md §3.4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatLabels, parseLabels } from './loki-labels.js';
import { rejects400 } from '../../../test/fixtures/ingest-formats/kit.js';

const CASES: [string, Record<string, string>][] = [
  ['{}', {}],
  ['  { }  ', {}],
  ['{job="api"}', { job: 'api' }],
  ['{job="api", env="prod"}', { job: 'api', env: 'prod' }],
  ['{a="b",c="d\\"e"}', { a: 'b', c: 'd"e' }],
  ['{path="C:\\\\tmp", nl="x\\ny", tab="\\t"}', { path: 'C:\\tmp', nl: 'x\ny', tab: '\t' }],
  ['{u="\\u00e9\\x41\\101"}', { u: 'éAA' }],
  ["{q='single \"ok\"'}", { q: 'single "ok"' }],
  ['{raw=`no \\escapes`}', { raw: 'no \\escapes' }],
  ['{trailing="comma",}', { trailing: 'comma' }],
  ['{__name__="x", k8s:ns="a", a.b="dots"}', { __name__: 'x', 'k8s:ns': 'a', 'a.b': 'dots' }],
  ['{empty=""}', { empty: '' }],
];

for (const [input, want] of CASES) {
  void test(`parses ${input}`, () => assert.deepEqual(parseLabels(input), want));
}

const BAD: [string, RegExp][] = [
  ['', /character 1: expected '\{'/],
  ['job="api"', /expected '\{'/],
  ['{job="api"', /expected ',' or '\}'/],
  ['{job=api}', /expected a quoted label value/],
  ['{job="api}', /unterminated label value/],
  ['{job!="api"}', /must use '='/],
  ['{job=~"a.*"}', /must use '='/],
  ['{1job="x"}', /expected a label name/],
  ['{a="1", a="2"}', /duplicate label name a/],
  ['{a="\\q"}', /unknown escape/],
  ['{a="\\x4"}', /bad \\x escape/],
  ['{a="b"} extra', /unexpected text after/],
  ['{a="b" c="d"}', /expected ',' or '\}'/],
];

for (const [input, detail] of BAD) {
  void test(`rejects ${JSON.stringify(input)} with a 400 naming the position`, () =>
    rejects400(() => parseLabels(input), detail));
}

void test('a __proto__ label is data, not a prototype', () => {
  const labels = parseLabels('{__proto__="x"}');
  assert.equal(Object.getOwnPropertyDescriptor(labels, '__proto__')?.value, 'x');
});

void test('formatLabels sorts by key and escapes so parseLabels reads it back', () => {
  assert.equal(formatLabels({ job: 'api', env: 'a"b\\c\nd' }), '{env="a\\"b\\\\c\\nd",job="api"}');
  assert.equal(formatLabels({}), '');
  const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
  fc.assert(fc.property(fc.dictionary(name, fc.string({ unit: 'grapheme' }), { minKeys: 1 }), (labels) => {
    assert.deepEqual(parseLabels(formatLabels(labels)), { ...labels });
  }));
});
