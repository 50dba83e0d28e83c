// The catalog as data (DESIGN §8) and the query texts every kind runs: each kind of §8 is listed with its signal,
// parameters, minimum history and eligibility; every default passes its own validation; and every text `queries()`
// returns is accepted by the service's real parsers (compileLogsql, parsePromql) — and is exactly what evaluate runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalog, KINDS } from './index.js';
import type { DetectorKind } from '../model.js';
import { compileLogsql } from '../../query/logsql-request.js';
import { parsePromql, typeOf } from '../../query/promql/parse.js';
import { MemoryDetectorData } from '../testing/memory-data.js';
import { evaluateAt } from '../testing/evaluate.js';

const NOW = Date.UTC(2024, 0, 10, 12);

/** Configurations per kind, the plain and the unusual (quoted field names, stats pipes, PromQL sources). */
const CONFIGS: Record<string, Record<string, unknown>[]> = {
  log_threshold: [
    { query: 'error', threshold: 10 },
    { query: 'service:api level:error | stats by (service) count() as errors', op: '>=', threshold: 5 },
    { query: 'timeout', group_by: ['service', 'url.path', 'odd name', 'level'], threshold: 1 },
    { query: '* | stats by (service) quantile(0.99, duration) p99, count() | sort by (p99) desc | limit 10', column: 'p99', threshold: 300 },
    { query: '', threshold: 0, op: '==' },
  ],
  metric_threshold: [
    { expr: 'up == 0' },
    { expr: 'sum by (job) (rate(http_requests_total[5m]))', op: '<', threshold: 100, recovery_threshold: 120 },
    { expr: 'scalar(count(up))', threshold: 3 },
  ],
  log_anomaly: [{ query: 'level:error', group_by: ['service'] }, { query: '"connection refused" OR timeout', step: '1m', baseline: '7d', direction: 'both' }],
  metric_anomaly: [{ expr: 'sum by (service) (rate(http_requests_total[5m]))' }, { expr: 'node_load1', step: 600, deviations: 4, min_delta: 0.5 }],
  error_ratio: [
    { errors_query: 'service:api status:>=500', total_query: 'service:api', group_by: ['service'] },
    { errors_expr: 'sum(rate(http_requests_total{code=~"5.."}[5m]))', total_expr: 'sum(rate(http_requests_total[5m]))', slo: 0.995, windows: ['1h:5m:14.4', '6h:30m:6', '3d:6h:1'] },
  ],
  new_log_pattern: [{}, { query: 'service:checkout -level:debug', group_by: ['service'], min_count: 3 }],
  absence: [{ query: 'service:api' }, { query: '*', group_by: ['host.name'], lookback: '30m' }, { expr: 'up{job="api"}' }],
  trace_latency: [{}, { service: 'checkout', threshold_ms: 500 }, { span_name: 'GET /cart', quantile: 0.95, factor: 3 }],
  rum_error_spike: [{}, { query: 'service:shop-web', group_by: ['session.id'], min_count: 3 }, { group_by: [] }],
};

const DESIGN_KINDS = ['log_threshold', 'metric_threshold', 'log_anomaly', 'metric_anomaly', 'error_ratio', 'new_log_pattern', 'absence', 'trace_latency', 'rum_error_spike'];

const kindOf = (name: string): DetectorKind => {
  const k = KINDS.get(name);
  if (!k) throw new Error(`no kind ${name}`);
  return k;
};

void test('the catalog lists every kind of DESIGN §8 with signal, params, min history and eligibility as data', () => {
  const { kinds } = catalog();
  assert.deepEqual(kinds.map((k) => k.kind), DESIGN_KINDS);
  assert.deepEqual(JSON.parse(JSON.stringify(catalog())), catalog(), 'plain JSON');
  const summary = Object.fromEntries(kinds.map((k) => [k.kind, [k.signal, k.min_history_s]]));
  assert.deepEqual(summary, {
    log_threshold: ['logs', 0], metric_threshold: ['metrics', 0], log_anomaly: ['logs', 604800], metric_anomaly: ['metrics', 604800],
    error_ratio: ['logs', 0], new_log_pattern: ['logs', 86400], absence: ['logs', 0], trace_latency: ['traces', 3600], rum_error_spike: ['rum', 86400],
  });
  for (const k of kinds) {
    assert.ok(k.description.length > 20, k.kind);
    assert.equal(new Set(k.params.map((p) => p.name)).size, k.params.length, `${k.kind}: unique parameter names`);
    assert.ok(k.params.every((p) => p.description !== '' && (!p.required || p.default === undefined)), `${k.kind}: required params have no default`);
    const ids = k.eligibility.map((e) => e.id);
    assert.ok(ids.includes('signal_enabled') && ids.includes('query_valid'), k.kind);
    assert.equal(ids.includes('min_history'), k.min_history_s > 0, `${k.kind}: a history rule exactly when history is needed`);
  }
});

void test('requirements(params): PromQL sources read metrics; a fixed latency bound needs no history', () => {
  const req = (kind: string, raw: Record<string, unknown>) => {
    const k = kindOf(kind);
    return k.requirements?.(k.parseParams(raw));
  };
  assert.deepEqual(req('absence', { expr: 'up' }), { signal: 'metrics', min_history_s: 0 });
  assert.deepEqual(req('absence', { query: 'x' }), { signal: 'logs', min_history_s: 0 });
  assert.deepEqual(req('error_ratio', { errors_expr: 'a', total_expr: 'b' })?.signal, 'metrics');
  assert.deepEqual(req('trace_latency', { threshold_ms: 300 }), { signal: 'traces', min_history_s: 0 });
  assert.deepEqual(req('trace_latency', {}), { signal: 'traces', min_history_s: 3600 });
  assert.deepEqual(req('log_anomaly', { query: 'x', baseline: '2d' }), { signal: 'logs', min_history_s: 172800 });
  for (const k of catalog().kinds) {
    const kind = kindOf(k.kind);
    const first = CONFIGS[k.kind]?.[0] ?? {};
    assert.deepEqual(kind.requirements?.(kind.parseParams(first)), { signal: k.signal, min_history_s: k.min_history_s }, `${k.kind}: its defaults need what the catalog says`);
  }
});

void test('every kind\'s queries() parse with the real LogsQL and PromQL parsers', () => {
  for (const name of DESIGN_KINDS) {
    const kind = kindOf(name);
    const configs = CONFIGS[name] ?? [];
    assert.ok(configs.length > 0, name);
    for (const raw of configs) {
      const { logsql, promql } = kind.queries(kind.parseParams(raw));
      for (const text of logsql) assert.doesNotThrow(() => compileLogsql(text, NOW), `${name}: ${text}`);
      for (const text of promql) assert.ok(['vector', 'scalar'].includes(typeOf(parsePromql(text))), `${name}: ${text}`);
      if (name !== 'trace_latency') assert.ok(logsql.length + promql.length > 0, `${name} declares its queries`);
    }
  }
});

void test('evaluate runs exactly the texts queries() declares, nothing else', async () => {
  for (const name of DESIGN_KINDS) {
    const kind = kindOf(name);
    for (const raw of CONFIGS[name] ?? []) {
      const data = new MemoryDetectorData();
      await evaluateAt(kind, raw, data, NOW);
      const declared = kind.queries(kind.parseParams(raw));
      const ran = new Set(data.calls.map((c) => c.query).filter((q): q is string => q !== undefined));
      for (const q of ran) assert.ok([...declared.logsql, ...declared.promql].includes(q), `${name} ran an undeclared ${q}`);
    }
  }
});

void test('a plain filter is counted with a stats pipe the parser accepts, field names quoted where needed', () => {
  const kind = kindOf('log_threshold');
  const { logsql } = kind.queries(kind.parseParams({ query: 'timeout', group_by: ['service', 'odd name', 'level'], threshold: 1 }));
  assert.deepEqual(logsql, ['timeout | stats by (service, "odd name", severity) count() as count']);
  const rum = kindOf('rum_error_spike');
  assert.deepEqual(rum.queries(rum.parseParams({ query: 'service:shop-web OR service:admin-web' })).logsql, [
    'telemetry.sdk.language:=webjs (level:error OR level:fatal OR exception.type:* OR event.name:=exception) (service:shop-web OR service:admin-web)',
  ]);
  const absence = kindOf('absence');
  assert.deepEqual(absence.queries(absence.parseParams({ query: 'service:api', group_by: ['host.name'] })).logsql, ['service:api | stats by (host.name) count() as count']);
});
