// Functions, aggregations and operators of the engine, each against values worked out by hand from the rules
// of Prometheus's promql/functions.go, engine.go and quantile.go.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertReading, instant, sourceOf, type Reading } from '../../../test/fixtures/promql/eval.js';
import { PromqlError } from './parse.js';

const M = 60_000;
const T = 10 * M;

const src = sourceOf(M, {
  'http_requests{job="api", instance="a"}': '0+10x10',
  'http_requests{job="api", instance="b"}': '0+20x4 0+20x5',
  'http_requests{job="web", instance="c"}': '5+5x10',
  'gauge{room="x"}': '1 -2 3 -4 5 -6 7 -8 9 -10 11',
  'gauge{room="y"}': '10+0x10',
  'frac{k="pos"}': '2.5+0x10',
  'frac{k="neg"}': '-2.5+0x10',
  'info{job="api", owner="team1"}': '1+0x10',
  'bucket{le="0.1"}': '0+1x10',
  'bucket{le="1"}': '0+3x10',
  'bucket{le="+Inf"}': '0+4x10',
  'nan_series': '1 NaN 3 NaN 2 NaN 4 NaN 0 NaN 5',
});

const A = '{instance="a", job="api"}';
const B = '{instance="b", job="api"}';
const C = '{instance="c", job="web"}';
const NA = '{__name__="http_requests", instance="a", job="api"}';
const NB = '{__name__="http_requests", instance="b", job="api"}';
const NC = '{__name__="http_requests", instance="c", job="web"}';

const stdvarX = 2418 / 27;

const cases: [string, Reading][] = [
  // Functions of range vectors.
  ['avg_over_time(gauge{room="x"}[2m])', { '{room="x"}': 10 / 3 }],
  ['min_over_time(gauge{room="x"}[2m])', { '{room="x"}': -10 }],
  ['max_over_time(gauge{room="x"}[2m])', { '{room="x"}': 11 }],
  ['sum_over_time(gauge{room="x"}[2m])', { '{room="x"}': 10 }],
  ['count_over_time(gauge{room="x"}[2m])', { '{room="x"}': 3 }],
  ['quantile_over_time(0.5, gauge{room="x"}[2m])', { '{room="x"}': 9 }],
  ['quantile_over_time(0.75, gauge{room="x"}[2m])', { '{room="x"}': 10 }],
  ['stdvar_over_time(gauge{room="x"}[2m])', { '{room="x"}': stdvarX }],
  ['stddev_over_time(gauge{room="x"}[2m])', { '{room="x"}': Math.sqrt(stdvarX) }],
  ['present_over_time(gauge{room="y"}[1m])', { '{room="y"}': 1 }],
  ['changes(gauge[10m])', { '{room="x"}': 10, '{room="y"}': 0 }],
  ['resets(http_requests[10m])', { [A]: 0, [B]: 1, [C]: 0 }],
  ['deriv(http_requests{instance="a"}[5m])', { [A]: 10 / 60 }],
  ['predict_linear(http_requests{instance="a"}[5m], 60)', { [A]: 110 }],
  ['max_over_time(nan_series[10m])', { '{}': 5 }],
  ['min_over_time(nan_series[10m])', { '{}': 0 }],
  // Functions of instant vectors.
  ['abs(frac)', { '{k="pos"}': 2.5, '{k="neg"}': 2.5 }],
  ['ceil(frac)', { '{k="pos"}': 3, '{k="neg"}': -2 }],
  ['floor(frac)', { '{k="pos"}': 2, '{k="neg"}': -3 }],
  ['round(frac)', { '{k="pos"}': 3, '{k="neg"}': -2 }],
  ['round(frac, 2)', { '{k="pos"}': 2, '{k="neg"}': -2 }],
  ['sgn(frac)', { '{k="pos"}': 1, '{k="neg"}': -1 }],
  ['clamp(frac, -1, 2)', { '{k="pos"}': 2, '{k="neg"}': -1 }],
  ['clamp(frac, 2, -1)', {}],
  ['clamp_min(frac, 0)', { '{k="pos"}': 2.5, '{k="neg"}': 0 }],
  ['clamp_max(frac, 0)', { '{k="pos"}': 0, '{k="neg"}': -2.5 }],
  ['exp(frac{k="pos"} - 2.5)', { '{k="pos"}': 1 }],
  ['ln(http_requests{instance="a"})', { [A]: Math.log(100) }],
  ['log2(http_requests{instance="b"} / 25)', { [B]: 2 }],
  ['log10(http_requests{instance="a"})', { [A]: 2 }],
  ['sqrt(http_requests{instance="a"})', { [A]: 10 }],
  ['deg(vector(pi()))', { '{}': 180 }],
  ['rad(vector(180))', { '{}': Math.PI }],
  ['histogram_quantile(0.5, bucket)', { '{}': 0.55 }],
  ['histogram_quantile(0.1, bucket)', { '{}': 0.04 }],
  ['histogram_quantile(0.9, bucket)', { '{}': 1 }],
  ['histogram_quantile(1.5, bucket)', { '{}': Infinity }],
  ['histogram_quantile(0.5, bucket{le!="+Inf"})', { '{}': Number.NaN }],
  ['label_replace(http_requests{instance="a"}, "dst", "$1-${2}", "job", "(a)(p)i")', { '{__name__="http_requests", dst="a-p", instance="a", job="api"}': 100 }],
  ['label_replace(http_requests{instance="a"}, "dst", "x", "job", "nomatch")', { [NA]: 100 }],
  ['label_replace(http_requests{instance="a"}, "instance", "", "instance", ".*")', { '{__name__="http_requests", job="api"}': 100 }],
  ['label_join(http_requests{instance="a"}, "both", "/", "job", "instance")', { '{__name__="http_requests", both="api/a", instance="a", job="api"}': 100 }],
  ['scalar(http_requests{instance="a"})', 100],
  ['scalar(http_requests)', Number.NaN],
  ['vector(3)', { '{}': 3 }],
  ['year(vector(0))', { '{}': 1970 }],
  ['month(vector(5184000))', { '{}': 3 }],
  ['day_of_month(vector(5184000))', { '{}': 2 }],
  ['day_of_week(vector(5184000))', { '{}': 1 }],
  ['day_of_year(vector(5184000))', { '{}': 61 }],
  ['days_in_month(vector(5184000))', { '{}': 31 }],
  ['hour()', { '{}': 0 }],
  ['minute()', { '{}': 10 }],
  // Aggregations.
  ['sum(http_requests)', { '{}': 255 }],
  ['sum by (job) (http_requests)', { '{job="api"}': 200, '{job="web"}': 55 }],
  ['sum without (instance) (http_requests)', { '{job="api"}': 200, '{job="web"}': 55 }],
  ['sum by (__name__) (http_requests)', { '{__name__="http_requests"}': 255 }],
  ['avg(http_requests)', { '{}': 85 }],
  ['min(http_requests)', { '{}': 55 }],
  ['max by (job) (http_requests)', { '{job="api"}': 100, '{job="web"}': 55 }],
  ['count(http_requests)', { '{}': 3 }],
  ['group by (job) (http_requests)', { '{job="api"}': 1, '{job="web"}': 1 }],
  ['stddev(http_requests)', { '{}': Math.sqrt(450) }],
  ['stdvar(http_requests)', { '{}': 450 }],
  ['topk(2, http_requests)', { [NA]: 100, [NB]: 100 }],
  ['bottomk(1, http_requests)', { [NC]: 55 }],
  ['topk by (job) (1, http_requests{instance!="a"})', { [NB]: 100, [NC]: 55 }],
  ['topk(0, http_requests)', {}],
  ['quantile(0.5, http_requests)', { '{}': 100 }],
  ['quantile(0.25, http_requests)', { '{}': 77.5 }],
  ['quantile(2, http_requests)', { '{}': Infinity }],
  ['count_values("v", http_requests)', { '{v="100"}': 2, '{v="55"}': 1 }],
  ['count_values without (instance) ("v", http_requests)', { '{job="api", v="100"}': 2, '{job="web", v="55"}': 1 }],
  ['max(nan_series)', { '{}': 5 }],
  // Operators.
  ['http_requests * 2', { [A]: 200, [B]: 200, [C]: 110 }],
  ['2 - http_requests{instance="c"}', { [C]: -53 }],
  ['http_requests > 60', { [NA]: 100, [NB]: 100 }],
  ['60 < http_requests', { [NA]: 100, [NB]: 100 }],
  ['http_requests > bool 60', { [A]: 1, [B]: 1, [C]: 0 }],
  ['1 < bool 2', 1],
  ['2 * 3 ^ 2', 18],
  ['2 ^ 3 ^ 2', 512],
  ['-2 ^ 2', -4],
  ['-5 % 3', -2],
  ['1 atan2 1', Math.PI / 4],
  ['-http_requests{instance="a"}', { [A]: -100 }],
  ['http_requests{instance="a"} + on(job) http_requests{instance="b"}', { '{job="api"}': 200 }],
  ['http_requests{instance="a"} - ignoring(instance) http_requests{instance="b"}', { '{job="api"}': 0 }],
  ['http_requests == ignoring(instance) group_left http_requests{instance="b"}', { [NA]: 100, [NB]: 100 }],
  ['http_requests * on(job) group_left(owner) info', { '{instance="a", job="api", owner="team1"}': 100, '{instance="b", job="api", owner="team1"}': 100 }],
  ['info * on(job) group_right(owner) http_requests', { '{instance="a", job="api", owner="team1"}': 100, '{instance="b", job="api", owner="team1"}': 100 }],
  ['http_requests and on(job) info', { [NA]: 100, [NB]: 100 }],
  ['http_requests unless on(job) info', { [NC]: 55 }],
  ['http_requests{job="web"} or info', { [NC]: 55, '{__name__="info", job="api", owner="team1"}': 1 }],
  ['http_requests{instance="a"} / 0', { [A]: Infinity }],
];

describe('engine: functions, aggregations and operators at 10m', () => {
  for (const [expr, want] of cases) {
    it(expr, async () => assertReading(await instant(src, expr, T), want, expr));
  }

  const failures: [string, RegExp][] = [
    ['http_requests + on(job) info', /many-to-one matching must be explicit/],
    ['info + on(job) http_requests', /found duplicate series for the match group \{job="api"\} on the right hand-side/],
    ['http_requests * on(job) group_left http_requests', /found duplicate series/],
    ['label_replace(info, "1bad", "x", "job", ".*")', /invalid destination label name/],
    ['count_values("1bad", info)', /invalid label name/],
  ];
  for (const [expr, re] of failures) {
    it(`${expr} fails as Prometheus does`, async () => {
      await assert.rejects(instant(src, expr, T), (e: unknown) => e instanceof PromqlError && e.errorType === 'execution' && re.test(e.message));
    });
  }
});
