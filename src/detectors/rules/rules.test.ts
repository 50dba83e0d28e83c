// Rule files (DESIGN §8): reading Prometheus / vmalert YAML with lines for every refusal, the rule → detector
// mapping (checked against the kinds' own parameter parsing), and the export read back to the same detectors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Detector } from '../../stores/control/detector-records.js';
import { KINDS } from '../kinds/index.js';
import { convertRule, splitPromqlComparison, splitVlogsQuery, type DetectorBody } from './convert.js';
import { exportRuleFile } from './export.js';
import { parseRuleFile, RuleFileError } from './rule-file.js';

const PROMETHEUS = `groups:
  - name: api
    interval: 30s
    labels:
      team: payments
    rules:
      - alert: HighErrorRate
        expr: sum by (job) (rate(http_requests_total{code=~"5.."}[5m])) / sum by (job) (rate(http_requests_total[5m])) > 0.05
        for: 10m
        keep_firing_for: 5m
        labels:
          severity: page
        annotations:
          summary: "{{ $labels.job }} error ratio {{ $value }}"
      - alert: InstanceDown
        expr: up == 0
        for: 1m
      - alert: NoTraffic
        expr: absent(http_requests_total)
      - record: job:http_requests:rate5m
        expr: sum by (job) (rate(http_requests_total[5m]))
`;

const VMALERT = `groups:
  - name: ServiceLog
    type: vlogs
    interval: 5m
    rules:
      - alert: HasMoreThan10ErrorLogs
        expr: '{env=prod} status:in(error,warn) | stats by (k8s.pod.name) count() as error_logs | filter error_logs:>10'
        annotations:
          description: 'Too many errors on {{ index $labels "k8s.pod.name" }}: {{ $value }}'
      - alert: SlowRequests
        expr: '_time:10m * | stats by (path) quantile(0.99, duration) as p99 | filter p99:>=2.5'
        for: 5m
      - alert: EveryRow
        expr: '* | stats by (host) count() as n'
`;

function body(groups: ReturnType<typeof parseRuleFile>, alert: string): DetectorBody {
  for (const g of groups) {
    const r = g.rules.find((x) => x.alert === alert);
    if (r) {
      const c = convertRule(g, r);
      if (!c.ok) throw new Error(`${alert} skipped: ${c.reason}`);
      return c.body;
    }
  }
  throw new Error(`no rule ${alert}`);
}

void describe('rule files: reading', () => {
  void it('reads groups and rules with their lines, types and intervals', () => {
    const [g] = parseRuleFile(PROMETHEUS);
    assert.ok(g);
    assert.deepEqual([g.name, g.type, g.interval, g.labels, g.line, g.rules.length], ['api', 'prometheus', '30s', { team: 'payments' }, 2, 4]);
    assert.deepEqual([g.rules[0]?.alert, g.rules[0]?.for, g.rules[0]?.keepFiringFor, g.rules[0]?.line], ['HighErrorRate', '10m', '5m', 7]);
    assert.equal(g.rules[3]?.record, 'job:http_requests:rate5m');
    const [v] = parseRuleFile(VMALERT);
    assert.equal(v?.type, 'vlogs');
    assert.equal(parseRuleFile(`${PROMETHEUS}---\n${VMALERT}`).length, 2, 'several YAML documents, as vmalert takes');
  });

  const malformed: [string, string, number, RegExp][] = [
    ['not YAML (a bad indent)', 'groups:\n  - name: a\n    rules:\n      - alert: x\n       expr: up\n', 5, /not YAML: Sequence item without - indicator/],
    ['a key given twice', 'groups:\n  - name: a\n    rules:\n      - alert: x\n        expr: up\n        expr: down\n', 6, /not YAML: Map keys must be unique/],
    ['no groups', 'rules: []\n', 1, /groups is required/],
    ['a rule without expr', 'groups:\n  - name: a\n    rules:\n      - alert: X\n', 4, /expr is required/],
    ['alert and record', 'groups:\n  - name: a\n    rules:\n      - alert: X\n        record: y\n        expr: up\n', 4, /either alert or record/],
    ['an unknown group type', 'groups:\n  - name: a\n    type: graphite\n    rules: []\n', 3, /type "graphite"/],
    ['labels as a list', 'groups:\n  - name: a\n    rules:\n      - alert: X\n        expr: up\n        labels: [a]\n', 6, /labels must be a mapping/],
    ['a repeated group name', 'groups:\n  - name: a\n    rules: []\n  - name: a\n    rules: []\n', 4, /repeated \(first on line 2\)/],
  ];
  for (const [what, text, line, message] of malformed) {
    void it(`refuses ${what}, naming line ${line}`, () => {
      assert.throws(() => parseRuleFile(text), (e: unknown) => e instanceof RuleFileError && e.line === line && message.test(e.message));
    });
  }
});

void describe('rule files: rules → detectors', () => {
  const table: [string, ReturnType<typeof splitPromqlComparison>][] = [
    ['rate(x[5m]) > 5', { expr: 'rate(x[5m])', op: '>', threshold: 5 }],
    ['up == 0', { expr: 'up', op: '==', threshold: 0 }],
    ['5 < foo', { expr: 'foo', op: '>', threshold: 5 }],
    ['(a + b) >= -1.5e3', { expr: 'a + b', op: '>=', threshold: -1500 }],
    ['sum by (job) (x) / sum by (job) (y) > 0.05', { expr: 'sum by (job) (x) / sum by (job) (y)', op: '>', threshold: 0.05 }],
    ['foo > bool 3', null],
    ['foo > on(a) bar', null],
    ['foo > 2 and bar', null],
    ['absent(x)', null],
    ['foo >', null],
  ];
  for (const [expr, want] of table) {
    void it(`PromQL ${expr} → ${want ? `${want.expr} ${want.op} ${want.threshold}` : 'kept whole'}`, () => {
      assert.deepEqual(splitPromqlComparison(expr), want);
    });
  }

  void it('maps Prometheus rules onto metric_threshold parameters the kind accepts, and skips recording rules', () => {
    const groups = parseRuleFile(PROMETHEUS);
    const high = body(groups, 'HighErrorRate');
    assert.deepEqual(high, {
      name: 'HighErrorRate', kind: 'metric_threshold', interval_s: 30, for_s: 600, keep_firing_for_s: 300,
      params: { expr: 'sum by (job) (rate(http_requests_total{code=~"5.."}[5m])) / sum by (job) (rate(http_requests_total[5m]))', op: '>', threshold: 0.05 },
      labels: { team: 'payments', severity: 'page' }, annotations: { summary: '{{ $labels.job }} error ratio {{ $value }}' },
    });
    assert.deepEqual(body(groups, 'NoTraffic').params, { expr: 'absent(http_requests_total)' }, 'no comparison: every returned series fires');
    for (const name of ['HighErrorRate', 'InstanceDown', 'NoTraffic']) {
      assert.doesNotThrow(() => KINDS.get('metric_threshold')?.parseParams(body(groups, name).params), name);
    }
    const record = groups[0]?.rules[3];
    assert.ok(record && groups[0]);
    assert.deepEqual(convertRule(groups[0], record), { ok: false, reason: 'recording rule: Sightline keeps no recorded series, only alerting rules become detectors' });
  });

  void it('maps vmalert vlogs rules onto log_threshold (filter → column, op, threshold; window from the interval or _time)', () => {
    const groups = parseRuleFile(VMALERT);
    const errorsBody = body(groups, 'HasMoreThan10ErrorLogs');
    assert.deepEqual(errorsBody, {
      name: 'HasMoreThan10ErrorLogs', kind: 'log_threshold', interval_s: 300, window_s: 300, labels: {},
      params: { query: '{env=prod} status:in(error,warn) | stats by (k8s.pod.name) count() as error_logs', column: 'error_logs', op: '>', threshold: 10 },
      annotations: { description: 'Too many errors on {{ index $labels "k8s.pod.name" }}: {{ $value }}' },
    });
    const slow = body(groups, 'SlowRequests');
    assert.deepEqual([slow.window_s, slow.interval_s, slow.for_s, slow.params], [600, 300, 300,
      { query: '* | stats by (path) quantile(0.99, duration) as p99', column: 'p99', op: '>=', threshold: 2.5 }]);
    for (const name of ['HasMoreThan10ErrorLogs', 'SlowRequests']) {
      assert.doesNotThrow(() => KINDS.get('log_threshold')?.parseParams(body(groups, name).params), name);
    }
    const every = groups[0]?.rules[2];
    assert.ok(every && groups[0]);
    const skipped = convertRule(groups[0], every);
    assert.ok(!skipped.ok && /does not end in `\| filter/.test(skipped.reason));
  });

  void it('reads negated, equality and quoted-field filters; a | inside quotes is not a pipe', () => {
    assert.deepEqual(splitVlogsQuery('x | stats count() | filter -"count(*)":>5'), { query: 'x | stats count()', column: 'count(*)', op: '<=', threshold: 5 });
    assert.deepEqual(splitVlogsQuery('"a|b" | stats count() as n | filter n:=0'), { query: '"a|b" | stats count() as n', column: 'n', op: '==', threshold: 0 });
    assert.deepEqual(splitVlogsQuery('x | stats count() as n | filter NOT n:=0'), { query: 'x | stats count() as n', column: 'n', op: '!=', threshold: 0 });
    assert.equal(typeof splitVlogsQuery('x | stats count() as n | filter n:>1 and m:<2'), 'string');
  });
});

void describe('rule files: export', () => {
  const det = (over: Partial<Detector>): Detector => ({
    id: 'det_1', tenantId: 't', accountId: 'a', name: 'X', kind: 'metric_threshold', params: {}, windowS: 300, intervalS: 60,
    forS: 0, keepFiringForS: 0, labels: {}, annotations: {}, channelIds: [], repeatIntervalS: 14_400, enabled: true,
    createdAt: 0, updatedAt: 0, ...over,
  });

  void it('writes threshold detectors back as groups per interval that read back as the same detectors', () => {
    const groups = parseRuleFile(`${PROMETHEUS}---\n${VMALERT}`);
    const detectors: Detector[] = [];
    for (const g of groups) {
      for (const r of g.rules) {
        const c = convertRule(g, r);
        if (!c.ok) continue;
        const interval = c.body.interval_s ?? 60;
        detectors.push(det({
          id: `det_${detectors.length}`, name: c.body.name, kind: c.body.kind, params: c.body.params, intervalS: interval,
          windowS: c.body.window_s ?? interval, forS: c.body.for_s ?? 0, keepFiringForS: c.body.keep_firing_for_s ?? 0,
          labels: c.body.labels, annotations: c.body.annotations,
        }));
      }
    }
    detectors.push(det({ id: 'det_off', name: 'Off', enabled: false, params: { expr: 'up' } }), det({ id: 'det_a', name: 'Anomaly', kind: 'metric_anomaly' }));
    const yaml = exportRuleFile(detectors, 'all', 'exported by a test');
    assert.match(yaml, /^# exported by a test\n# 2 detector\(s\) left out/);
    const back = parseRuleFile(yaml);
    assert.deepEqual(back.map((g) => [g.name, g.type, g.interval]), [
      ['sightline-metrics-30s', 'prometheus', '30s'], ['sightline-logs-5m', 'vlogs', '5m'],
    ]);
    const again = back.flatMap((g) => g.rules.map((r) => convertRule(g, r)));
    const bodies = again.map((c) => (c.ok ? c.body : null));
    for (const d of detectors.slice(0, -2)) {
      const b = bodies.find((x) => x?.name === d.name);
      assert.ok(b, `${d.name} exported`);
      assert.deepEqual([b.kind, b.params, b.for_s ?? 0, b.keep_firing_for_s ?? 0, b.labels, b.annotations, b.window_s ?? b.interval_s],
        [d.kind, d.params, d.forS, d.keepFiringForS, d.labels, d.annotations, d.windowS], d.name);
    }
    assert.equal(parseRuleFile(exportRuleFile(detectors, 'prometheus', 'p'))[0]?.type, 'prometheus');
    assert.equal(parseRuleFile(exportRuleFile(detectors, 'prometheus', 'p')).length, 1, 'only the Prometheus groups');
  });

  void it('parenthesizes a compound expression before its comparison and notes a recovery threshold it cannot write', () => {
    const yaml = exportRuleFile([det({ params: { expr: 'a or b', op: '>', threshold: 1, recovery: 0.5 } })], 'prometheus', 'h');
    assert.match(yaml, /expr: \(a or b\) > 1/);
    assert.match(yaml, /# recovery_threshold 0\.5 \(hysteresis\) has no rule-file spelling/);
  });
});
