// Bound sentences → detectors of the catalog (issue 10 item 4: "alert if … above …" sentences become detectors; a
// bound that cannot be mapped is a note, not an error). One table of phrasings as runbooks write them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { extractBound, extractBounds, sentencesOf, serviceOf, type BoundContext } from './bounds.js';
import type { Bound } from './model.js';

const NOW = Date.UTC(2026, 2, 1, 12);
const none: BoundContext = { nowMs: NOW };
const logsStep: BoundContext = { nowMs: NOW, query: 'service:checkout "payment declined"', signal: 'logs' };
const metricsStep: BoundContext = { nowMs: NOW, query: 'sum(rate(http_requests_total{code=~"5.."}[5m]))', signal: 'metrics' };

const cases: { sentence: string; ctx?: BoundContext; bound: Bound }[] = [
  {
    sentence: 'Alert if the error rate of checkout is above 5%.',
    bound: { target: { kind: 'error_ratio', errorsQuery: '(service:checkout) level:error', totalQuery: 'service:checkout' }, op: '>', threshold: 0.05 },
  },
  {
    sentence: 'Alert when p99 latency exceeds 500ms for 5 minutes.',
    bound: { target: { kind: 'trace_latency', quantile: 0.99 }, op: '>', threshold: 500, for_s: 300 },
  },
  {
    sentence: 'Page if there are more than 100 errors in 5 minutes.',
    bound: { target: { kind: 'log_threshold', query: 'level:error' }, op: '>', threshold: 100, window_s: 300 },
  },
  {
    sentence: 'Alert if `service:checkout level:error` is above 50.',
    bound: { target: { kind: 'log_threshold', query: 'service:checkout level:error' }, op: '>', threshold: 50 },
  },
  {
    sentence: 'Page on-call if the 95th percentile response time of the api service is over 2s.',
    bound: { target: { kind: 'trace_latency', quantile: 0.95, service: 'api' }, op: '>', threshold: 2000 },
  },
  {
    sentence: 'Notify #payments when errors from payments exceed 1,000 per hour.',
    bound: { target: { kind: 'log_threshold', query: 'service:payments level:error' }, op: '>', threshold: 1000, window_s: 3600 },
  },
  {
    sentence: 'Alert when there are no logs from ingest-worker for 15 minutes.',
    bound: { target: { kind: 'absence', query: 'service:ingest-worker' }, op: '>', threshold: 0, for_s: 900 },
  },
  {
    sentence: 'Trigger an alert when `sum(rate(http_requests_total{code=~"5.."}[5m])) > 0.5`.',
    bound: { target: { kind: 'metric_threshold', expr: 'sum(rate(http_requests_total{code=~"5.."}[5m]))' }, op: '>', threshold: 0.5 },
  },
  {
    sentence: 'If it goes above 20 for more than 10 minutes, page the on-call engineer.',
    ctx: metricsStep,
    bound: { target: { kind: 'metric_threshold', expr: metricsStep.query ?? '' }, op: '>', threshold: 20, for_s: 600 },
  },
  {
    sentence: 'Alert if the query above returns more than 20 results within 10 minutes.',
    ctx: logsStep,
    bound: { target: { kind: 'log_threshold', query: logsStep.query ?? '' }, op: '>', threshold: 20, window_s: 600 },
  },
  {
    sentence: 'Alert if requests to the cart service drop below 10 per minute.',
    bound: { target: { kind: 'log_threshold', query: 'service:cart' }, op: '<', threshold: 10, window_s: 60 },
  },
  {
    sentence: 'We should be paged when 500 or more exceptions are logged by billing in a 15-minute window.',
    bound: { target: { kind: 'log_threshold', query: 'service:billing level:error' }, op: '>=', threshold: 500, window_s: 900 },
  },
  {
    sentence: 'Alert: error rate above 2% for 5m (service:search).',
    bound: { target: { kind: 'error_ratio', errorsQuery: '(service:search) level:error', totalQuery: 'service:search' }, op: '>', threshold: 0.02, for_s: 300 },
  },
  {
    sentence: 'Alert when the median latency of checkout is greater than 250 ms.',
    bound: { target: { kind: 'trace_latency', quantile: 0.5, service: 'checkout' }, op: '>', threshold: 250 },
  },
  {
    sentence: 'Alert when p99 latency exceeds 500ms for 5 minutes.',
    ctx: { nowMs: NOW, query: 'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))', signal: 'metrics' },
    bound: { target: { kind: 'metric_threshold', expr: 'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))' }, op: '>', threshold: 0.5, for_s: 300 },
  },
];

describe('bound sentences', () => {
  for (const c of cases) {
    test(`"${c.sentence}" becomes ${c.bound.target.kind}`, () => {
      const a = extractBound(c.sentence, c.ctx ?? none);
      assert.ok(a, 'a bound sentence');
      assert.equal(a.note, undefined, a.note);
      assert.deepEqual(a.bound, c.bound);
    });
  }

  const notes: { sentence: string; note: RegExp }[] = [
    { sentence: 'Alert if customers are unhappy more than twice.', note: /no number/ },
    { sentence: 'Alert when disk usage is above 85%.', note: /could not tell what to compare/ },
    { sentence: 'Page if the average latency is above 300ms.', note: /quantiles/ },
    { sentence: 'Alert if the error rate is above 5%.', note: /error rate of what/ },
    { sentence: 'Alert if `foo(` is above 3.', note: /neither LogsQL nor PromQL/ },
  ];
  for (const n of notes) {
    test(`"${n.sentence}" is kept with a note, not an error`, () => {
      const a = extractBound(n.sentence, none);
      assert.ok(a, 'recognised as a bound sentence');
      assert.equal(a.bound, undefined);
      assert.match(a.note ?? '', n.note);
    });
  }

  test('sentences without an alerting verb, a condition or a comparison state no bound', () => {
    for (const s of [
      'Check if errors are above the usual level.',
      'Use this runbook when the checkout error alert fires.',
      'The p99 latency is usually below 200ms.',
      'Restart the pods when the deploy is done.',
    ]) assert.equal(extractBound(s, none), null, s);
  });

  test('prose splits into sentences outside inline code, and every bound in it is found', () => {
    assert.deepEqual(sentencesOf('Look first. Alert if `a. B` is above 3. Then stop.\n- Page if p99 latency exceeds 1s.'), [
      'Look first.', 'Alert if `a. B` is above 3.', 'Then stop.', 'Page if p99 latency exceeds 1s.',
    ]);
    assert.deepEqual(extractBounds('Look first. Alert if `error` is above 3. Page if p99 latency exceeds 1s.', none).map((a) => a.bound?.target.kind),
      ['log_threshold', 'trace_latency']);
  });

  test('the service a sentence names', () => {
    assert.equal(serviceOf('the error rate of checkout'), 'checkout');
    assert.equal(serviceOf('errors in the payments-api service'), 'payments-api');
    assert.equal(serviceOf('service:cart errors'), 'cart');
    assert.equal(serviceOf('errors for the last hour'), undefined);
    assert.equal(serviceOf('more than 100 errors'), undefined);
  });
});
