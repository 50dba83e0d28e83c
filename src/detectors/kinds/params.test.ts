// parseParams refusals: each is a ParamError that names the parameter and says what is wrong, in words an API client
// can act on (the engine turns them into the 422 `detail`, DESIGN §8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KINDS } from './index.js';
import { ParamError } from '../model.js';
import { durationMs, durationText } from './params.js';

const refusals: [string, Record<string, unknown>, string, RegExp][] = [
  ['log_threshold', { threshold: 1 }, 'query', /is required/],
  ['log_threshold', { query: 'x' }, 'threshold', /is required/],
  ['log_threshold', { query: 'x', threshold: 'many' }, 'threshold', /must be a number, not "many"/],
  ['log_threshold', { query: 'x', threshold: 1, op: '=>' }, 'op', /must be one of >, >=, <, <=, ==, !=/],
  ['log_threshold', { query: 'x', threshold: 1, colour: 'red' }, 'colour', /unknown parameter; this kind takes query, group_by, column, op, threshold, recovery_threshold/],
  ['log_threshold', { query: 'error | stats by (service', threshold: 1 }, 'query', /invalid LogsQL/],
  ['log_threshold', { query: '_time:5m error', threshold: 1 }, 'query', /must not filter on _time/],
  ['log_threshold', { query: 'x | stats by (_time:1m) count()', threshold: 1 }, 'query', /must not bucket by _time/],
  ['log_threshold', { query: 'x | stats count() as c', column: 'n', threshold: 1 }, 'column', /must be one of the stats results: c/],
  ['log_threshold', { query: 'x | stats by (service) count()', group_by: ['host'], threshold: 1 }, 'group_by', /its own stats pipe/],
  ['log_threshold', { query: 'x | limit 5', threshold: 1, group_by: 'service' }, 'query', /has pipes but no `\| stats`/],
  ['log_threshold', { query: 'x', threshold: 100, recovery_threshold: 120 }, 'recovery_threshold', /must not be above the threshold 100/],
  ['log_threshold', { query: 'x', threshold: 1, group_by: ['a', 'a'] }, 'group_by', /names a twice/],
  ['log_threshold', { query: 'x', threshold: 1, group_by: [''] }, 'group_by', /list of non-empty strings/],
  ['log_anomaly', { query: 'x', group_by: ['service', '_time'] }, 'group_by', /must not hold _time/],
  ['metric_threshold', { expr: 'rate(x[5m]' }, 'expr', /invalid PromQL: 1:11: parse error/],
  ['metric_threshold', { expr: 'http_requests_total[5m]' }, 'expr', /instant vector or scalar expression, not a range vector/],
  ['metric_threshold', { expr: 'up', op: '<' }, 'op', /needs a threshold/],
  ['metric_threshold', { expr: 'up', recovery_threshold: 1 }, 'recovery_threshold', /needs a threshold/],
  ['metric_threshold', { expr: 'up', threshold: 1, op: '==', recovery_threshold: 2 }, 'recovery_threshold', /ordering operator/],
  ['log_anomaly', { query: 'x | stats count()' }, 'query', /filter without pipes/],
  ['log_anomaly', { query: 'x', step: '30s' }, 'step', /must be at least 1m/],
  ['log_anomaly', { query: 'x', step: 'soon' }, 'step', /duration such as "5m"/],
  ['log_anomaly', { query: 'x', baseline: '40d' }, 'baseline', /must be at most 35d/],
  ['log_anomaly', { query: 'x', step: '1h', baseline: '6h' }, 'baseline', /at least 12 steps \(12h\)/],
  ['log_anomaly', { query: 'x', direction: 'sideways' }, 'direction', /one of above, below, both/],
  ['log_anomaly', { query: 'x', min_count: 2.5 }, 'min_count', /whole number/],
  ['metric_anomaly', { expr: 'up', deviations: 0 }, 'deviations', /at least 1/],
  ['error_ratio', {}, 'errors_query', /errors_query and total_query \(LogsQL\) or errors_expr and total_expr \(PromQL\)/],
  ['error_ratio', { errors_query: 'x' }, 'total_query', /is required with errors_query/],
  ['error_ratio', { errors_query: 'x', total_query: 'y', errors_expr: 'z' }, 'errors_query', /not both/],
  ['error_ratio', { errors_expr: 'a', total_expr: 'b', group_by: ['s'] }, 'group_by', /aggregate the PromQL/],
  ['error_ratio', { errors_query: 'x', total_query: 'y', slo: 99.9 }, 'slo', /at most 0.99999/],
  ['error_ratio', { errors_query: 'x', total_query: 'y', windows: ['5m:1h:2'] }, 'windows', /long:short:factor/],
  ['error_ratio', { errors_query: 'x', total_query: 'y', windows: [] }, 'windows', /at least one pair/],
  ['new_log_pattern', { similarity: 1.5 }, 'similarity', /at most 0.95/],
  ['new_log_pattern', { query: 'a | limit 1' }, 'query', /filter without pipes/],
  ['absence', {}, 'query', /one of query or expr is required/],
  ['absence', { query: 'x', expr: 'up' }, 'query', /not both/],
  ['absence', { expr: 'up', group_by: ['job'] }, 'group_by', /each PromQL series is a group/],
  ['trace_latency', { threshold_ms: 300, factor: 2 }, 'factor', /not both/],
  ['trace_latency', { quantile: 0.2 }, 'quantile', /at least 0.5/],
  ['rum_error_spike', { min_count: 0 }, 'min_count', /at least 1/],
];

void test('parse refusals are ParamErrors naming the parameter and the problem', () => {
  for (const [kind, raw, param, message] of refusals) {
    const k = KINDS.get(kind);
    assert.ok(k, kind);
    assert.throws(() => k.parseParams(raw), (e: unknown) => {
      assert.ok(e instanceof ParamError, `${kind} ${JSON.stringify(raw)}: ${String(e)}`);
      assert.equal(e.param, param, `${kind} ${JSON.stringify(raw)}: ${e.message}`);
      assert.match(e.message, message, `${kind} ${JSON.stringify(raw)}`);
      assert.ok(e.message.startsWith(`${param}: `));
      return true;
    }, `${kind} ${JSON.stringify(raw)} is refused`);
  }
});

void test('params are not an object → ParamError; defaults fill in; numbers may come as text from rule files', () => {
  const k = KINDS.get('log_threshold');
  assert.ok(k);
  assert.throws(() => k.parseParams([] as unknown as Record<string, unknown>), ParamError);
  assert.deepEqual(k.parseParams({ query: 'x', threshold: '5' }), { query: 'x | stats count() as count', labels: [], column: 'count', op: '>', threshold: 5 });
  const t = KINDS.get('trace_latency');
  assert.ok(t);
  assert.deepEqual(t.parseParams({ baseline: 7200 }), {
    quantile: 0.99, factor: 2, minDeltaMs: 50, minSpans: 20, baselineMs: 7_200_000, sample: 5000,
  });
});

void test('durations: LogsQL/Prometheus text in, ms out, and back to short text', () => {
  assert.equal(durationMs('1h30m'), 5_400_000);
  assert.equal(durationMs('7d'), 604_800_000);
  assert.equal(durationMs('1.5s'), 1500);
  assert.equal(durationMs('soon'), undefined);
  assert.equal(durationText(5_400_000), '1h30m');
  assert.equal(durationText(604_800_000), '7d');
  assert.equal(durationText(0), '0s');
});
