// The SeriesSource contract on the in-memory double, plus the RE2 spellings it translates for JS.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seriesSourceContract } from './series-source.contract.js';
import { anchoredRegExp, MemorySeriesSource } from '../../model/series-source.js';

seriesSourceContract('memory', () => {
  const source = new MemorySeriesSource();
  return Promise.resolve({
    source,
    write: (tenantId, samples) => Promise.resolve(source.add(tenantId, samples)),
    writeMetadata: (tenantId, metadata) => Promise.resolve(source.addMetadata(tenantId, metadata)),
    close: () => Promise.resolve(),
  });
});

describe('anchoredRegExp', () => {
  it('anchors as Prometheus does: ^(?:re)$', () => {
    assert.equal(anchoredRegExp('a|b').test('ab'), false);
    assert.equal(anchoredRegExp('a|b').test('b'), true);
  });
  it('takes a leading (?i) flag group and (?P<name>) groups', () => {
    assert.equal(anchoredRegExp('(?i)abc').test('ABC'), true);
    assert.equal(anchoredRegExp('(?P<x>a)b').exec('ab')?.groups?.x, 'a');
  });
  it('spells POSIX classes and \\A \\z for JS', () => {
    assert.equal(anchoredRegExp('[[:alpha:]]+[[:digit:]]').test('ab1'), true);
    assert.equal(anchoredRegExp('[[:alpha:]]+').test('a1'), false);
    assert.equal(anchoredRegExp('\\Aab\\z').test('ab'), true);
  });
  it('refuses what RE2 refuses: look-around and back-references', () => {
    assert.throws(() => anchoredRegExp('a(?=b)'), SyntaxError);
    assert.throws(() => anchoredRegExp('(a)\\1'), SyntaxError);
  });
});
