// Selection semantics of the engine on a MemorySeriesSource: lookback, staleness, offset, `@`, range
// selectors, counter resets in rate/increase/irate, subqueries, range queries, execution errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertReading, instant, range, sourceOf, type Reading } from '../../../test/fixtures/promql/eval.js';
import { MemorySeriesSource } from '../../model/series-source.js';
import { evalInstant } from './engine.js';
import { parsePromql, PromqlError } from './parse.js';

const M = 60_000;

const src = sourceOf(M, {
  'http_requests{job="api", instance="a"}': '0+10x10',
  'http_requests{job="api", instance="b"}': '0+20x4 0+20x5',
  'http_requests{job="web", instance="c"}': '5+5x10',
  'stale_metric': '1 2 stale _ 5',
  'sparse': '1 _ _ _ _ _ _ 8',
  'gauge{room="x"}': '1 -2 3 -4 5 -6 7 -8 9 -10 11',
  'dup_a{x="1"}': '1+0x10',
  'dup_b{x="1"}': '2+0x10',
  'counter_reset_end': '0+10x8 0 10',
});

const cases: [string, string, number, Reading][] = [
  ['an instant selector takes the latest sample', 'http_requests', 10 * M,
    { '{__name__="http_requests", instance="a", job="api"}': 100, '{__name__="http_requests", instance="b", job="api"}': 100, '{__name__="http_requests", instance="c", job="web"}': 55 }],
  ['between samples the earlier one answers', 'http_requests{instance="a"}', 90_500, { '{__name__="http_requests", instance="a", job="api"}': 10 }],
  ['equality, inequality and anchored regex matchers', 'http_requests{job!="web", instance=~"a|b", instance!~"b"}', 10 * M,
    { '{__name__="http_requests", instance="a", job="api"}': 100 }],
  ['a regex matcher is anchored at both ends', 'http_requests{job=~"ap|eb"}', 10 * M, {}],
  ['a staleness marker ends the series at once', 'stale_metric', 2 * M, {}],
  ['before the marker the series is present', 'stale_metric', 90_000, { '{__name__="stale_metric"}': 2 }],
  ['a new sample after the marker brings it back', 'stale_metric', 4 * M, { '{__name__="stale_metric"}': 5 }],
  ['the lookback window includes its left edge (Prometheus 2.x)', 'stale_metric', 9 * M, { '{__name__="stale_metric"}': 5 }],
  ['past the lookback delta the series is gone', 'stale_metric', 9 * M + 1, {}],
  ['a gap longer than the lookback leaves nothing', 'sparse', 6 * M, {}],
  ['offset shifts the evaluation time back', 'http_requests offset 5m', 10 * M,
    { '{__name__="http_requests", instance="a", job="api"}': 50, '{__name__="http_requests", instance="b", job="api"}': 0, '{__name__="http_requests", instance="c", job="web"}': 30 }],
  ['a negative offset looks ahead', 'http_requests{instance="a"} offset -2m', 3 * M, { '{__name__="http_requests", instance="a", job="api"}': 50 }],
  ['@ pins the evaluation time', 'http_requests{instance="a"} @ 300', 10 * M, { '{__name__="http_requests", instance="a", job="api"}': 50 }],
  ['@ and offset combine', 'http_requests{instance="a"} @ 300 offset 1m', 10 * M, { '{__name__="http_requests", instance="a", job="api"}': 40 }],
  ['offset binds to the selector beside it', 'http_requests{instance="a"} - http_requests{instance="a"} offset 2m', 10 * M, { '{instance="a", job="api"}': 20 }],
  ['rate over a window without resets', 'rate(http_requests{instance="a"}[5m])', 10 * M, { '{instance="a", job="api"}': 50 / 300 }],
  ['rate adds back a counter reset', 'rate(http_requests{instance="b"}[10m])', 10 * M, { '{instance="b", job="api"}': 180 / 600 }],
  ['increase adds back a counter reset', 'increase(http_requests{instance="b"}[10m])', 10 * M, { '{instance="b", job="api"}': 180 }],
  ['a reset to zero at the end of the range is no decrease', 'rate(counter_reset_end[1m])', 9 * M, { '{}': 0 }],
  ['rate extrapolates to the window edges', 'increase(http_requests{instance="a"}[5m])', 10 * M + 30_000, { '{instance="a", job="api"}': 50 }],
  ['rate does not extrapolate below zero', 'increase(http_requests{instance="a"}[3m])', 2 * M + 30_000, { '{instance="a", job="api"}': 20 * (150 / 120) }],
  ['a window with one sample gives no rate', 'rate(http_requests{instance="a"}[30s])', 10 * M, {}],
  ['irate uses the last two samples', 'irate(http_requests{instance="a"}[5m])', 10 * M, { '{instance="a", job="api"}': 10 / 60 }],
  ['irate after a reset is the new value per second', 'irate(http_requests{instance="b"}[5m])', 5 * M, { '{instance="b", job="api"}': 0 }],
  ['delta does not treat a drop as a reset', 'delta(gauge[2m])', 10 * M, { '{room="x"}': 2 }],
  ['idelta is the last difference', 'idelta(gauge[2m])', 10 * M, { '{room="x"}': 21 }],
  ['range selectors drop staleness markers', 'count_over_time(stale_metric[5m])', 4 * M, { '{}': 3 }],
  ['last_over_time keeps the metric name', 'last_over_time(sparse[10m])', 10 * M, { '{__name__="sparse"}': 8 }],
  ['a subquery evaluates on aligned steps', 'sum_over_time(http_requests{instance="a"}[3m:1m])', 10 * M, { '{instance="a", job="api"}': 340 }],
  ['a subquery without step uses the default 1m', 'max_over_time(rate(http_requests{instance="b"}[2m])[5m:])', 10 * M, { '{instance="b", job="api"}': 20 / 60 }],
  ['a subquery takes offset', 'sum_over_time(http_requests{instance="a"}[2m:1m] offset 5m)', 10 * M, { '{instance="a", job="api"}': 120 }],
  ['absent of a missing selector takes its equality labels', 'absent(nope{job="x", a=~"y"})', 10 * M, { '{job="x"}': 1 }],
  ['absent of a present series is empty', 'absent(http_requests)', 10 * M, {}],
  ['absent_over_time looks over the range', 'absent_over_time(sparse{k="v"}[1m])', 5 * M, { '{k="v"}': 1 }],
  ['timestamp() is the sample time of a selector', 'timestamp(sparse)', 7 * M + 30_000, { '{}': 420 }],
  ['timestamp() of an expression is the evaluation time', 'timestamp(sparse + 0)', 7 * M + 30_000, { '{}': 450 }],
  ['time() is the evaluation time in seconds', 'time()', 10 * M, 600],
];

describe('engine: selection, staleness and lookback', () => {
  for (const [name, expr, t, want] of cases) {
    it(name, async () => assertReading(await instant(src, expr, t), want, expr));
  }

  it('a shorter lookback delta is honoured', async () => {
    assertReading(await instant(src, 'sparse', 2 * M, { lookbackDeltaMs: M }), {}, 'sparse');
    assertReading(await instant(src, 'sparse', M, { lookbackDeltaMs: M }), { '{__name__="sparse"}': 1 }, 'sparse');
  });

  it('a range query evaluates at start, start + step, … ≤ end', async () => {
    assert.deepEqual(await range(src, 'http_requests{instance="a"}', 0, 10 * M, 5 * M), {
      '{__name__="http_requests", instance="a", job="api"}': [[0, 0], [5 * M, 50], [10 * M, 100]],
    });
  });

  it('a range query leaves out the steps where a series is stale', async () => {
    assert.deepEqual(await range(src, 'stale_metric', 0, 5 * M, M), {
      '{__name__="stale_metric"}': [[0, 1], [M, 2], [4 * M, 5], [5 * M, 5]],
    });
  });

  it('@ start() holds one value over a range query', async () => {
    assert.deepEqual(await range(src, 'http_requests{instance="a"} @ start()', 2 * M, 4 * M, M), {
      '{__name__="http_requests", instance="a", job="api"}': [[2 * M, 20], [3 * M, 20], [4 * M, 20]],
    });
  });

  it('a scalar range query is one series without labels', async () => {
    assert.deepEqual(await range(src, 'time() * 2', 0, 2 * M, M), { '{}': [[0, 0], [M, 120], [2 * M, 240]] });
  });

  it('dropping the name must not merge two series', async () => {
    await assert.rejects(instant(src, 'abs({__name__=~"dup_a|dup_b"})', M),
      (e: unknown) => e instanceof PromqlError && e.errorType === 'execution' && /same labelset/.test(e.message));
  });

  it('a label named __proto__ is matched, grouped on, joined and replaced like any other', async () => {
    const labels = (json: string) => JSON.parse(json) as Record<string, string>;
    const source = new MemorySeriesSource();
    source.add('t', [
      { name: 'up', labels: labels('{"__proto__":"x","job":"a"}'), timeMs: 0, value: 1 },
      { name: 'up', labels: labels('{"__proto__":"y","job":"a"}'), timeMs: 0, value: 2 },
      { name: 'up', labels: labels('{"job":"b"}'), timeMs: 0, value: 4 },
    ]);
    const read = async (expr: string) => {
      const v = await evalInstant(source, 't', parsePromql(expr), 0);
      if (v.type !== 'vector') return assert.fail(`a ${v.type}`);
      return v.samples.map((s) => [JSON.stringify(Object.fromEntries(Object.entries(s.labels).sort())), s.v]).sort();
    };
    assert.deepEqual(await read('up{__proto__="x"}'), [['{"__name__":"up","__proto__":"x","job":"a"}', 1]]);
    assert.deepEqual(await read('up{__proto__=""}'), [['{"__name__":"up","job":"b"}', 4]]);
    assert.deepEqual(await read('sum by (__proto__) (up)'), [['{"__proto__":"x"}', 1], ['{"__proto__":"y"}', 2], ['{}', 4]]);
    assert.deepEqual(await read('label_replace(up{job="b"}, "__proto__", "$1", "job", "(.*)")'), [['{"__name__":"up","__proto__":"b","job":"b"}', 4]]);
    assert.deepEqual(await read('label_join(up{__proto__="y"}, "copy", "-", "__proto__", "job")'),
      [['{"__name__":"up","__proto__":"y","copy":"y-a","job":"a"}', 2]]);
  });

  it('tenants do not see each other', async () => {
    const other = sourceOf(M, { 'x': '1' });
    assertReading(await instant(other, 'x', 0), { '{__name__="x"}': 1 }, 'x');
    const v = await evalInstant(other, 'someone-else', parsePromql('x'), 0);
    assert.deepEqual(v, { type: 'vector', samples: [] });
  });
});
