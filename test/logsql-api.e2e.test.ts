// The VictoriaLogs endpoints an Explore page and Grafana's VictoriaLogs datasource call, over HTTP (DESIGN §4;
// https://docs.victoriametrics.com/victorialogs/querying/#http-api): stats_query and stats_query_range in the
// Prometheus shapes Grafana's datasource decodes (pkg/plugin/response_stats.go: times as JSON numbers, values as
// strings), streams, stream_ids, stream_field_names/values and facets; bad queries are 400 with a detail that
// points at the position; another tenant's data never shows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, startService, type Reply, type RunningService, type TestAccount } from './support/service.js';
import { ingest, Later, ndjson, obj, query, show, uid, waitForRows } from './support/load.js';

const MIN = 60_000;
const started = new Later(() => startService());
let svc: RunningService;
let A: TestAccount;
let B: TestAccount;
/** Start of A's native entries: a whole 10 minutes two hours ago, so that 2m and 10m buckets align with it. */
const t0 = Math.floor(Date.now() / (10 * MIN)) * 10 * MIN - 120 * MIN;
const sec = (ms: number): number => ms / 1000;
const iso = (ms: number): string => new Date(ms).toISOString();
let marker: string;

const SHOP = '{app="shop",env="prod"}';
const WEB = '{app="web",env="prod"}';

/** Loki JSON push: one stream per labels object, each line at `ms`. */
function lokiPush(key: string, streams: { labels: Record<string, string>; lines: [number, string][] }[]): Promise<Reply> {
  const body = { streams: streams.map((s) => ({ stream: s.labels, values: s.lines.map(([ms, line]) => [`${ms}000000`, line]) })) };
  return ingest(svc.ingest, key, JSON.stringify(body), {}, '/loki/api/v1/push');
}

before(async () => {
  svc = await started.get();
  [A, B] = await Promise.all([newAccount(svc, { tier: 'custom' }), newAccount(svc, { tier: 'custom' })]);
  marker = uid('bsecret');
  // Six entries marked set=s: services api, api, worker, web, worker, web; one a minute from t0.
  const native = [
    { service: 'api', level: 'error', dur: '120', user: 'alice' }, { service: 'api', level: 'info', dur: '30', user: 'bob' },
    { service: 'worker', level: 'error', dur: '5', user: 'alice' }, { service: 'web', level: 'info', dur: '2500', user: 'carol' },
    { service: 'worker', level: 'warn', user: 'dave' }, { service: 'web', level: 'info', dur: '10', user: 'alice' },
  ].map((d, i) => ({ _time: iso(t0 + i * MIN), _msg: `entry ${i}`, set: 's', n: String(i + 1), ...d }));
  const bData = Array.from({ length: 3 }, (_, i) => ({
    _time: iso(t0 + i * MIN), _msg: `${marker} ${i}`, service: `bsvc-${marker}`, set: 's', level: 'error', user: 'alice', dur: '1', bsecret: marker,
  }));
  const replies = await Promise.all([
    ingest(svc.ingest, A.key, JSON.stringify(native)),
    lokiPush(A.key, [
      { labels: { app: 'shop', env: 'prod' }, lines: [[t0 + 10 * MIN, 'shop one'], [t0 + 11 * MIN, 'shop two']] },
      { labels: { app: 'web', env: 'prod' }, lines: [[t0 + 12 * MIN, 'web one']] },
    ]),
    ingest(svc.ingest, B.key, ndjson(bData)),
    lokiPush(B.key, [{ labels: { app: `b-${marker}`, team: marker }, lines: [[t0 + 10 * MIN, `line ${marker}`]] }]),
  ]);
  for (const r of replies) assert.ok(r.status === 200 || r.status === 204, show(r));
  assert.equal((await waitForRows(svc, A.tenantId, A.key, '*', 9)).rows.length, 9, 'A\'s entries are readable');
  assert.equal((await waitForRows(svc, B.tenantId, B.key, '*', 4)).rows.length, 4, 'B\'s entries are readable');
});
after(() => started.stop());

function get(acct: TestAccount, sub: string, params: Record<string, string>, tenantId = acct.tenantId): Promise<Reply> {
  return call(`${svc.app}/api/v1/tenants/${tenantId}/select/logsql/${sub}?${new URLSearchParams(params).toString()}`, {
    headers: { 'X-API-Key': acct.key },
  });
}

interface PromReply<T> { status: string; data: { resultType: string; result: T[] } }
interface VectorItem { metric: Record<string, string>; value: [number, string] }
interface MatrixItem { metric: Record<string, string>; values: [number, string][] }
type ValuesReply = { values: { value: string; hits: number }[] };
type FacetsReply = { facets: { field_name: string; values: { field_value: string; hits: number }[] }[] };

async function vector(params: Record<string, string>): Promise<PromReply<VectorItem>> {
  const r = await get(A, 'stats_query', params);
  assert.equal(r.status, 200, show(r));
  assert.match(String(r.headers['content-type']), /application\/json/);
  return r.json as PromReply<VectorItem>;
}

async function matrix(params: Record<string, string>): Promise<PromReply<MatrixItem>> {
  const r = await get(A, 'stats_query_range', params);
  assert.equal(r.status, 200, show(r));
  return r.json as PromReply<MatrixItem>;
}

describe('stats_query: the last stats pipe as a Prometheus instant vector', () => {
  test('one sample per result and group: __name__ the result name, the by fields as labels, [time seconds, "value"]', async () => {
    const at = t0 + 6 * MIN;
    const got = await vector({ query: 'set:=s | stats by (service) count() as n, sum(dur) as total', time: String(sec(at)) });
    assert.equal(got.status, 'success');
    assert.equal(got.data.resultType, 'vector');
    assert.deepEqual(got.data.result, [
      { metric: { __name__: 'n', service: 'api' }, value: [sec(at), '2'] },
      { metric: { __name__: 'total', service: 'api' }, value: [sec(at), '150'] },
      { metric: { __name__: 'n', service: 'web' }, value: [sec(at), '2'] },
      { metric: { __name__: 'total', service: 'web' }, value: [sec(at), '2510'] },
      { metric: { __name__: 'n', service: 'worker' }, value: [sec(at), '2'] },
      { metric: { __name__: 'total', service: 'worker' }, value: [sec(at), '5'] },
    ]);
  });

  test('default result names, no by fields, and the functions Grafana panels use', async () => {
    const got = await vector({ query: 'set:=s | stats count(), count_uniq(user), min(dur), max(dur), avg(dur), median(dur), quantile(0.9, dur)', time: String(sec(t0)) });
    assert.deepEqual(got.data.result.map((r) => [r.metric, r.value[1]]), [
      [{ __name__: 'count(*)' }, '6'], [{ __name__: 'count_uniq(user)' }, '4'], [{ __name__: 'min(dur)' }, '5'],
      [{ __name__: 'max(dur)' }, '2500'], [{ __name__: 'avg(dur)' }, '533'], [{ __name__: 'median(dur)' }, '30'],
      [{ __name__: 'quantile(0.9, dur)' }, '2500'],
    ]);
    for (const r of got.data.result) assert.equal(typeof r.value[0], 'number');
  });

  test('relative times in the query count back from `time` (else from `end`); start/end bound the range too', async () => {
    const n = async (params: Record<string, string>): Promise<string | undefined> => (await vector(params)).data.result[0]?.value[1];
    // _time:5m at t0+3m30s is (t0-1m30s, t0+3m30s]: entries 0..3.
    assert.equal(await n({ query: 'set:=s _time:5m | stats count() c', time: iso(t0 + 3.5 * MIN) }), '4');
    assert.equal(await n({ query: 'set:=s _time:5m | stats count() c', end: iso(t0 + 3.5 * MIN) }), '4');
    assert.equal(await n({ query: 'set:=s | stats count() c', start: iso(t0 + 2 * MIN), end: iso(t0 + 4 * MIN) }), '2');
    // The sample carries `time`, or `end`.
    assert.equal((await vector({ query: 'set:=s | stats count() c', end: String(sec(t0 + MIN)) })).data.result[0]?.value[0], sec(t0 + MIN));
  });

  test('pipes after stats: sort and fields keeping the by fields are fine; POST with a form works like GET', async () => {
    const got = await vector({ query: 'set:=s | stats by (level) count() c, sum(dur) s | sort by (c desc) | fields level, c', time: String(sec(t0)) });
    assert.deepEqual(got.data.result.map((r) => [r.metric, r.value[1]]), [
      [{ __name__: 'c', severity: 'info' }, '3'], [{ __name__: 'c', severity: 'error' }, '2'], [{ __name__: 'c', severity: 'warn' }, '1'],
    ]);
    const r = await call(`${svc.app}/api/v1/tenants/${A.tenantId}/select/logsql/stats_query`, {
      method: 'POST', body: new URLSearchParams({ query: 'set:=s | stats count() c', time: String(sec(t0)) }).toString(),
      headers: { 'X-API-Key': A.key, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(r.status, 200, show(r));
    assert.deepEqual((r.json as PromReply<VectorItem>).data.result, [{ metric: { __name__: 'c' }, value: [sec(t0), '6'] }]);
  });
});

describe('stats_query_range: a Prometheus matrix bucketed by _time:step', () => {
  test('one series per result and group, points [bucket start seconds, "value"] oldest first, series sorted', async () => {
    const got = await matrix({ query: 'set:=s | stats by (service) count() as n', start: iso(t0), end: iso(t0 + 6 * MIN), step: '2m' });
    assert.equal(got.status, 'success');
    assert.equal(got.data.resultType, 'matrix');
    assert.deepEqual(got.data.result, [
      { metric: { __name__: 'n', service: 'api' }, values: [[sec(t0), '2']] },
      { metric: { __name__: 'n', service: 'web' }, values: [[sec(t0 + 2 * MIN), '1'], [sec(t0 + 4 * MIN), '1']] },
      { metric: { __name__: 'n', service: 'worker' }, values: [[sec(t0 + 2 * MIN), '1'], [sec(t0 + 4 * MIN), '1']] },
    ]);
  });

  test('a _time group in by takes the step; offset shifts the buckets; Go durations and seconds are steps too', async () => {
    const want = [{ metric: { __name__: 'c' }, values: [[sec(t0), '2'], [sec(t0 + 2 * MIN), '2'], [sec(t0 + 4 * MIN), '2']] }];
    for (const step of ['2m', '2m0s', '120']) {
      const got = await matrix({ query: 'set:=s | stats by (_time:1h) count() c', start: iso(t0), end: iso(t0 + 6 * MIN), step });
      assert.deepEqual(got.data.result, want, `step ${step}`);
    }
    const shifted = await matrix({ query: 'set:=s | stats count() c', step: '10m', offset: '3m' });
    assert.deepEqual(shifted.data.result, [{ metric: { __name__: 'c' }, values: [[sec(t0 - 7 * MIN), '3'], [sec(t0 + 3 * MIN), '3']] }]);
    const p50 = await matrix({ query: 'set:=s | stats by (level) median(dur) p50', step: '1h', start: iso(t0), end: iso(t0 + 6 * MIN) });
    assert.deepEqual(p50.data.result.map((s) => [s.metric.severity, s.values.map((v) => v[1])]), [['error', ['120']], ['info', ['30']], ['warn', ['NaN']]]);
    for (const s of [...p50.data.result]) {
      assert.ok(s.values.length > 0, 'Grafana\'s datasource refuses a series without values');
      for (const [t, v] of s.values) assert.ok(typeof t === 'number' && typeof v === 'string');
    }
  });
});

describe('streams, stream_ids, stream field names and values', () => {
  test('streams: {values: [{value: _stream, hits}]}, most frequent first; limit', async () => {
    const r = await get(A, 'streams', { query: '*' });
    assert.equal(r.status, 200, show(r));
    const values = (r.json as ValuesReply).values;
    assert.deepEqual([...values].sort((a, b) => a.value.localeCompare(b.value)), [
      { value: SHOP, hits: 2 }, { value: WEB, hits: 1 }, { value: '{service="api"}', hits: 2 },
      { value: '{service="web"}', hits: 2 }, { value: '{service="worker"}', hits: 2 },
    ]);
    assert.ok(values.every((v, i) => i === 0 || (values[i - 1]?.hits ?? 0) >= v.hits), 'most frequent first');
    assert.deepEqual((obj(await get(A, 'streams', { query: 'shop', limit: '1' })) as ValuesReply).values, [{ value: SHOP, hits: 2 }]);
  });

  test('stream_ids: an id per stream that _stream_id:= finds again', async () => {
    const r = await get(A, 'stream_ids', { query: 'app:shop' });
    assert.equal(r.status, 200, show(r));
    const values = (r.json as ValuesReply).values;
    assert.equal(values.length, 1);
    const [id] = values;
    assert.ok(id && /^[0-9a-f]{32}$/.test(id.value) && id.hits === 2, JSON.stringify(values));
    const { rows } = await query(svc, A.tenantId, A.key, `_stream_id:=${id.value}`);
    assert.deepEqual(rows.map((row) => row._msg).sort(), ['shop one', 'shop two']);
    assert.equal(((await get(A, 'stream_ids', { query: '*' })).json as ValuesReply).values.length, 5);
  });

  test('stream_field_names and stream_field_values: the labels of the result\'s streams, with entries', async () => {
    const names = await get(A, 'stream_field_names', { query: '*' });
    assert.equal(names.status, 200, show(names));
    assert.deepEqual((names.json as ValuesReply).values, [{ value: 'app', hits: 3 }, { value: 'env', hits: 3 }, { value: 'service', hits: 6 }]);
    const values = await get(A, 'stream_field_values', { query: '*', field: 'app' });
    assert.deepEqual((values.json as ValuesReply).values, [{ value: 'shop', hits: 2 }, { value: 'web', hits: 1 }]);
    assert.deepEqual(((await get(A, 'stream_field_values', { query: '*', field: 'app', limit: '1' })).json as ValuesReply).values, [{ value: 'shop', hits: 2 }]);
    assert.deepEqual(((await get(A, 'stream_field_names', { query: 'set:=s' })).json as ValuesReply).values, [{ value: 'service', hits: 6 }]);
  });
});

describe('facets: the most frequent values of each field', () => {
  test('{facets: [{field_name, values: [{field_value, hits}]}]}, fields by name, values most frequent first', async () => {
    const r = await get(A, 'facets', { query: 'set:=s', start: iso(t0), end: iso(t0 + 10 * MIN) });
    assert.equal(r.status, 200, show(r));
    const facets = (r.json as FacetsReply).facets;
    const names = facets.map((f) => f.field_name);
    assert.deepEqual(names, [...names].sort());
    const of = (name: string) => facets.find((f) => f.field_name === name)?.values;
    assert.deepEqual(of('service'), [{ field_value: 'api', hits: 2 }, { field_value: 'web', hits: 2 }, { field_value: 'worker', hits: 2 }]);
    assert.deepEqual(of('user'), [{ field_value: 'alice', hits: 3 }, { field_value: 'bob', hits: 1 }, { field_value: 'carol', hits: 1 }, { field_value: 'dave', hits: 1 }]);
    assert.deepEqual(of('severity'), [{ field_value: 'info', hits: 3 }, { field_value: 'error', hits: 2 }, { field_value: 'warn', hits: 1 }]);
    assert.equal(of('set'), undefined, 'a field with one value on every entry tells nothing apart');
  });

  test('limit, max_values_per_field, max_value_len and keep_const_fields', async () => {
    const facets = async (params: Record<string, string>) => ((await get(A, 'facets', { query: 'set:=s', ...params })).json as FacetsReply).facets;
    const one = await facets({ limit: '1', keep_const_fields: '1' });
    assert.deepEqual(one.find((f) => f.field_name === 'user')?.values, [{ field_value: 'alice', hits: 3 }]);
    assert.deepEqual(one.find((f) => f.field_name === 'set')?.values, [{ field_value: 's', hits: 6 }]);
    const few = (await facets({ max_values_per_field: '3' })).map((f) => f.field_name);
    assert.ok(few.includes('severity') && few.includes('service') && !few.includes('user') && !few.includes('_msg'), few.join());
    const short = (await facets({ max_value_len: '4' })).map((f) => f.field_name);
    assert.ok(short.includes('dur') && !short.includes('user') && !short.includes('service'), short.join());
  });
});

describe('bad requests are 400 with a detail', () => {
  const SUBS = ['stats_query', 'stats_query_range', 'streams', 'stream_ids', 'stream_field_names', 'facets'];

  test('an invalid query points at the position on every endpoint', async () => {
    for (const sub of [...SUBS, 'stream_field_values']) {
      const r = await get(A, sub, { query: 'service:api AND (', field: 'app' });
      assert.equal(r.status, 400, `${sub}: ${show(r)}`);
      assert.match(String(obj(r).detail), /position 17/, sub);
      assert.equal(obj(r).error, 'bad_request');
    }
  });

  test('stats endpoints need a stats pipe whose by fields and results survive the pipes after it', async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ['stats_query', { query: 'set:=s' }, /\| stats/],
      ['stats_query_range', { query: 'set:=s | limit 5', step: '1m' }, /\| stats/],
      ['stats_query', { query: '* | stats by (service) count() c | fields c' }, /drops the by field 'service'/],
      ['stats_query', { query: '* | stats by (service) count() c | delete c' }, /no stats result/],
      ['stats_query_range', { query: '* | fields _msg | stats count()' }, /drops _time/],
      ['stats_query_range', { query: '* | stats count() c', step: 'soon' }, /step/],
      ['stats_query_range', { query: '* | stats count() c', step: '0s' }, /step/],
      ['stats_query_range', { query: '* | stats count() c', step: '99999999999d' }, /step/],
      ['stats_query', { query: '* | stats count() c', time: 'yesterday-ish' }, /time/],
      ['stream_field_values', { query: '*' }, /field is required/],
      ['facets', { query: '*', keep_const_fields: 'maybe' }, /keep_const_fields/],
    ];
    for (const [sub, params, detail] of cases) {
      const r = await get(A, sub, params);
      assert.equal(r.status, 400, `${sub} ${JSON.stringify(params)}: ${show(r)}`);
      assert.match(String(obj(r).detail), detail, `${sub} ${JSON.stringify(params)}`);
    }
  });
});

test('odd queries and parameters are answered with 200 or 400, never 5xx (5xx makes clients retry)', async () => {
  const queries = ['', '*', '| stats count()', '* | stats by (_time:1h) count()', '* | stats by (_time:1d offset -3h) count() c',
    '* | stats by (service) count() c | stats sum(c) total', '* | stats count() as _time', '* | fields _time | stats count() c',
    '* | stats quantile(0.5, _time), median(_msg), count_uniq(_time)', '* | stats by (_stream_id) count() c | sort by (c desc) | limit 1',
    '_time:1000000y | stats count()', '_stream:{app=~"("} | stats count()', 'x:>1e400 | stats sum(x)', '* | stats by (a, b, c, d) count() c'];
  const withParams = new Set(['*', '* | stats by (service) count() c']);
  const params: Record<string, string>[] = [
    {}, { time: '99999999999999999999999' }, { time: '-1' }, { start: '5m' }, { end: '0' }, { step: '1ms', start: '0' },
    { step: '1.5' }, { offset: '-99999d' }, { offset: '36500d' }, { limit: '99999999999999999999' }, { limit: '-1' },
    { max_values_per_field: '0', max_value_len: '0', limit: '0' }, { field: '' }, { field: 'a"b' }, { ignore_pipes: '1' },
  ];
  for (const sub of ['stats_query', 'stats_query_range', 'streams', 'stream_ids', 'stream_field_names', 'stream_field_values', 'facets']) {
    for (const q of [...queries, ...withParams]) {
      for (const p of withParams.has(q) ? params : [{}]) {
        const r = await get(A, sub, { field: 'app', step: '1h', ...p, query: q });
        assert.ok(r.status === 200 || r.status === 400, `${sub} ${JSON.stringify(q)} ${JSON.stringify(p)}: ${show(r)}`);
      }
    }
  }
});

describe('tenant isolation: A never sees B\'s data on the new endpoints', () => {
  const SUBS = ['stats_query', 'stats_query_range', 'streams', 'stream_ids', 'stream_field_names', 'stream_field_values', 'facets'];

  test('B sees its own data (so the marker is really stored)', async () => {
    const r = await get(B, 'stream_field_values', { query: '*', field: 'team' });
    assert.ok(r.text.includes(marker), show(r));
  });

  test('every query, whatever it asks, answers without B\'s data', async () => {
    const queries = ['*', '* | stats by (service) count() n', '* | stats by (_stream) count() n', '* | stats by (bsecret, team) count() n',
      `"${marker}" | stats count() n`, `tenant_id:="${B.tenantId}" OR * | stats by (_stream_id) count() n`, '_stream:{app=~".+"} | stats by (app) count() n',
      `* | stats count_uniq(bsecret) u`, "' OR 1=1 -- | stats count() n"];
    let answered = 0;
    for (const q of queries) {
      for (const sub of SUBS) {
        for (const field of sub === 'stream_field_values' ? ['app', 'team', 'service'] : ['']) {
          const r = await get(A, sub, { query: q, field, keep_const_fields: '1', start: '0', step: '1h' }, A.tenantId);
          const what = `${sub} ${q} ${field}`;
          assert.ok(r.status === 200 || r.status === 400, `${what}: ${show(r)}`);
          assert.ok(!r.text.includes(marker) && !r.text.includes('bsvc-'), `${what}: LEAK of B's data: ${r.text.slice(0, 300)}`);
          if (r.status === 200) answered++;
        }
      }
    }
    assert.ok(answered > 40, `most queries run (${answered} did)`);
    const counted = await vector({ query: '* | stats count() n' });
    assert.deepEqual(counted.data.result.map((x) => x.value[1]), ['9'], 'A counts its own nine entries only');
  });

  test('A\'s key on B\'s tenant path is 403 on every new endpoint', async () => {
    for (const sub of SUBS) {
      const r = await get(A, sub, { query: '* | stats count() n', field: 'app' }, B.tenantId);
      assert.equal(r.status, 403, `${sub}: ${show(r)}`);
      assert.ok(!r.text.includes(marker));
    }
  });
});
