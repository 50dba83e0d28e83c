// The Prometheus HTTP API shapes (https://prometheus.io/docs/prometheus/latest/querying/api/): replies,
// parameter parsing and errors as Prometheus 2.x web/api/v1/api.go gives them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { load } from '../../../test/fixtures/promql/load.js';
import { parseTimeMs } from './api-params.js';
import {
  PROMETHEUS_ROUTES, promLabels, promLabelValues, promMetadata, promQuery, promQueryRange, promSeries,
} from './prometheus-api.js';
import { MemorySeriesSource, type SeriesSource } from '../../model/series-source.js';

const T = 't1';
const M = 60_000;
const src = new MemorySeriesSource();
src.add(T, load(M, {
  'up{job="api", instance="a"}': '1+0x10',
  'up{job="web", instance="b"}': '0+0x10',
  'temp{room="x"}': '0.1 1e-7 NaN Inf -Inf 1e21 2.5',
}));
src.addMetadata(T, [
  { name: 'up', type: 'gauge', help: 'Target up.', unit: '' },
  { name: 'temp', type: 'gauge', help: 'Temperature.', unit: 'celsius' },
  { name: 'temp', type: 'gauge', help: 'Temperature, again.', unit: 'celsius' },
]);
src.add('t2', load(M, { 'secret{job="other"}': '1' }));

const q = (o: Record<string, string | string[]>): URLSearchParams => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  return p;
};

describe('Prometheus API: query', () => {
  it('an instant vector has metric and [time, "value"]', async () => {
    const r = await promQuery(src, T, q({ query: 'up', time: '120' }), 0);
    assert.deepEqual(r, { status: 200, body: { status: 'success', data: { resultType: 'vector', result: [
      { metric: { __name__: 'up', instance: 'a', job: 'api' }, value: [120, '1'] },
      { metric: { __name__: 'up', instance: 'b', job: 'web' }, value: [120, '0'] },
    ] } } });
  });

  it('values print as FormatFloat(v, \'f\', -1, 64)', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await promQuery(src, T, q({ query: 'temp', time: String(i * 60) }), 0);
      const body = r.body as { data: { result: { value: [number, string] }[] } };
      seen.push(body.data.result[0]?.value[1] ?? '');
    }
    assert.deepEqual(seen, ['0.1', '0.0000001', 'NaN', '+Inf', '-Inf', '1000000000000000000000', '2.5']);
  });

  it('time defaults to now and takes RFC 3339', async () => {
    const r1 = await promQuery(src, T, q({ query: 'time()' }), 90_500);
    assert.deepEqual(r1.body, { status: 'success', data: { resultType: 'scalar', result: [90.5, '90.5'] } });
    const r2 = await promQuery(src, T, q({ query: 'time()', time: '1970-01-01T00:01:00.250Z' }), 0);
    assert.deepEqual(r2.body, { status: 'success', data: { resultType: 'scalar', result: [60.25, '60.25'] } });
  });

  it('a string and a range vector keep their types', async () => {
    assert.deepEqual((await promQuery(src, T, q({ query: '"hi"', time: '5' }), 0)).body,
      { status: 'success', data: { resultType: 'string', result: [5, 'hi'] } });
    assert.deepEqual((await promQuery(src, T, q({ query: 'up{job="api"}[2m]', time: '180' }), 0)).body,
      { status: 'success', data: { resultType: 'matrix', result: [
        { metric: { __name__: 'up', instance: 'a', job: 'api' }, values: [[60, '1'], [120, '1'], [180, '1']] }] } });
  });

  it('a tenant only sees its own series', async () => {
    const r = await promQuery(src, T, q({ query: 'secret', time: '0' }), 0);
    assert.deepEqual(r.body, { status: 'success', data: { resultType: 'vector', result: [] } });
  });
});

describe('Prometheus API: query_range', () => {
  it('answers a matrix, series sorted by labels', async () => {
    const r = await promQueryRange(src, T, q({ query: 'up * 2', start: '0', end: '120', step: '1m' }), 0);
    assert.deepEqual(r, { status: 200, body: { status: 'success', data: { resultType: 'matrix', result: [
      { metric: { instance: 'a', job: 'api' }, values: [[0, '2'], [60, '2'], [120, '2']] },
      { metric: { instance: 'b', job: 'web' }, values: [[0, '0'], [60, '0'], [120, '0']] },
    ] } } });
  });

  it('takes step as float seconds', async () => {
    const r = await promQueryRange(src, T, q({ query: 'time()', start: '0', end: '1', step: '0.5' }), 0);
    assert.deepEqual(r.body, { status: 'success', data: { resultType: 'matrix', result: [
      { metric: {}, values: [[0, '0'], [0.5, '0.5'], [1, '1']] }] } });
  });
});

const errors: [string, () => Promise<{ status: number; body: unknown }>, number, string, RegExp][] = [
  ['a parse error', () => promQuery(src, T, q({ query: 'up{', time: '0' }), 0), 400, 'bad_data', /^invalid parameter "query": 1:4: parse error: /],
  ['a bad time', () => promQuery(src, T, q({ query: 'up', time: 'yesterday' }), 0), 400, 'bad_data', /^invalid parameter "time": cannot parse "yesterday" to a valid timestamp$/],
  ['an execution error', () => promQuery(src, T, q({ query: 'up + on() up', time: '0' }), 0), 422, 'execution', /found duplicate series/],
  ['a missing start', () => promQueryRange(src, T, q({ query: 'up', end: '1', step: '1' }), 0), 400, 'bad_data', /^invalid parameter "start": cannot parse "" to a valid timestamp$/],
  ['end before start', () => promQueryRange(src, T, q({ query: 'up', start: '2', end: '1', step: '1' }), 0), 400, 'bad_data', /^invalid parameter "end": end timestamp must not be before start time$/],
  ['a zero step', () => promQueryRange(src, T, q({ query: 'up', start: '0', end: '1', step: '0' }), 0), 400, 'bad_data', /zero or negative query resolution step widths are not accepted/],
  ['a bad step', () => promQueryRange(src, T, q({ query: 'up', start: '0', end: '1', step: 'x' }), 0), 400, 'bad_data', /^invalid parameter "step": cannot parse "x" to a valid duration$/],
  ['too many points', () => promQueryRange(src, T, q({ query: 'up', start: '0', end: '11001', step: '1' }), 0), 400, 'bad_data', /^exceeded maximum resolution of 11,000 points per timeseries/],
  ['a range vector as range query', () => promQueryRange(src, T, q({ query: 'up[1m]', start: '0', end: '1', step: '1' }), 0), 400, 'bad_data', /invalid expression type "range vector" for range query, must be Scalar or instant Vector/],
  ['series without match[]', () => promSeries(src, T, q({}), 0), 400, 'bad_data', /^no match\[\] parameter provided$/],
  ['series with a bad selector', () => promSeries(src, T, q({ 'match[]': 'rate(up[1m])' }), 0), 400, 'bad_data', /^invalid parameter "match\[\]"/],
  ['a bad label name', () => promLabelValues(src, T, q({}), 0, { name: '1x' }), 400, 'bad_data', /^invalid label name: "1x"$/],
  ['a bad metadata limit', () => promMetadata(src, T, q({ limit: 'ten' }), 0), 400, 'bad_data', /^limit must be a number$/],
];

describe('Prometheus API: errors', () => {
  for (const [name, call, status, errorType, re] of errors) {
    it(`${name} is ${status} ${errorType}`, async () => {
      const r = await call();
      assert.equal(r.status, status);
      const body = r.body as { status: string; errorType: string; error: string };
      assert.equal(body.status, 'error');
      assert.equal(body.errorType, errorType);
      assert.match(body.error, re);
    });
  }
});

describe('Prometheus API: series, labels, values, metadata', () => {
  it('series lists label sets for any match[]', async () => {
    const r = await promSeries(src, T, q({ 'match[]': ['up{job="api"}', 'temp'] }), 0);
    assert.deepEqual(r.body, { status: 'success', data: [
      { __name__: 'temp', room: 'x' }, { __name__: 'up', instance: 'a', job: 'api' }] });
  });

  it('series works on a source without series()', async () => {
    const bare: SeriesSource = {
      select: (...a) => src.select(...a), labelNames: (...a) => src.labelNames(...a),
      labelValues: (...a) => src.labelValues(...a), metadata: (...a) => src.metadata(...a),
    };
    const r = await promSeries(bare, T, q({ 'match[]': ['up{job="web"}', 'up{instance="b"}'] }), 0);
    assert.deepEqual(r.body, { status: 'success', data: [{ __name__: 'up', instance: 'b', job: 'web' }] });
  });

  it('series honours start and end', async () => {
    const r = await promSeries(src, T, q({ 'match[]': 'temp', start: '1000', end: '2000' }), 0);
    assert.deepEqual(r.body, { status: 'success', data: [] });
  });

  it('labels and label values are sorted and tenant-scoped', async () => {
    assert.deepEqual((await promLabels(src, T, q({}), 0)).body, { status: 'success', data: ['__name__', 'instance', 'job', 'room'] });
    assert.deepEqual((await promLabels(src, T, q({ 'match[]': 'temp' }), 0)).body, { status: 'success', data: ['__name__', 'room'] });
    assert.deepEqual((await promLabelValues(src, T, q({}), 0, { name: 'job' })).body, { status: 'success', data: ['api', 'web'] });
    assert.deepEqual((await promLabelValues(src, T, q({}), 0, { name: '__name__' })).body, { status: 'success', data: ['temp', 'up'] });
    assert.deepEqual((await promLabelValues(src, 't2', q({}), 0, { name: 'job' })).body, { status: 'success', data: ['other'] });
  });

  it('metadata groups entries per metric; limit and metric filter', async () => {
    assert.deepEqual((await promMetadata(src, T, q({}), 0)).body, { status: 'success', data: {
      temp: [{ type: 'gauge', help: 'Temperature.', unit: 'celsius' }, { type: 'gauge', help: 'Temperature, again.', unit: 'celsius' }],
      up: [{ type: 'gauge', help: 'Target up.', unit: '' }],
    } });
    assert.deepEqual((await promMetadata(src, T, q({ limit: '1' }), 0)).body, { status: 'success', data: {
      temp: [{ type: 'gauge', help: 'Temperature.', unit: 'celsius' }, { type: 'gauge', help: 'Temperature, again.', unit: 'celsius' }],
    } });
    assert.deepEqual((await promMetadata(src, T, q({ metric: 'up' }), 0)).body, { status: 'success', data: { up: [{ type: 'gauge', help: 'Target up.', unit: '' }] } });
    assert.deepEqual((await promMetadata(src, T, q({ limit: '0' }), 0)).body, { status: 'success', data: {} });
  });

  it('routes cover the API with the methods Prometheus registers', () => {
    assert.deepEqual(PROMETHEUS_ROUTES.map((r) => `${r.methods.join('|')} ${r.path}`), [
      'GET|POST query', 'GET|POST query_range', 'GET|POST series', 'GET|POST labels', 'GET label/:name/values', 'GET metadata',
      'GET status/buildinfo',
    ]);
  });

  it('times parse as Prometheus parseTime', () => {
    assert.deepEqual(['1.5', '-1.5', '1700000000.1234', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05.5+01:00', 'x'].map(parseTimeMs),
      [1500, -1500, 1700000000123, Date.UTC(2024, 0, 2, 3, 4, 5), Date.UTC(2024, 0, 2, 2, 4, 5, 500), undefined]);
  });
});
