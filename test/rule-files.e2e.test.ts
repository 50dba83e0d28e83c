// Rule files through the real service (DESIGN §8 "Rule files", issue 9 item 6): a Prometheus rule file and a
// vmalert `type: vlogs` file are imported into detectors (recording and filterless rules skipped with the reason,
// a second import creating nothing, a rule the creation refuses skipped with that refusal, a malformed file a 400
// naming the line); the export is checked with Debian's `promtool check rules` and read back into another tenant as
// the same detectors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, newAccount, startService, type Reply, type RunningService, type TestAccount } from './support/service.js';
import { show } from './support/load.js';

const PROMTOOL = '/usr/bin/promtool';

const PROMETHEUS_RULES = `# A Prometheus rule file as teams keep them.
groups:
  - name: api
    interval: 1m
    labels:
      team: payments
    rules:
      - alert: HighErrorRate
        expr: sum by (job) (rate(http_requests_total{code=~"5.."}[5m])) / sum by (job) (rate(http_requests_total[5m])) > 0.05
        for: 10m
        labels:
          severity: page
        annotations:
          summary: "{{ $labels.job }} error ratio is {{ $value }}"
          runbook_url: https://runbooks.example/errors
      - alert: InstanceDown
        expr: up == 0
        for: 5m
        keep_firing_for: 2m
      - alert: NoTraffic
        expr: absent(http_requests_total{job="api"})
      - record: job:http_requests:rate5m
        expr: sum by (job) (rate(http_requests_total[5m]))
`;

const VMALERT_RULES = `groups:
  - name: ServiceLog
    type: vlogs
    interval: 5m
    rules:
      - alert: HasMoreThan10ErrorLogs
        expr: '{env=prod} status:in(error,warn) | stats by (k8s.pod.name) count() as error_logs | filter error_logs:>10'
        annotations:
          description: 'Too many errors on {{ index $labels "k8s.pod.name" }}: {{ $value }}'
      - alert: SlowPaths
        expr: '_time:10m * | stats by (path) quantile(0.99, duration) as p99 | filter p99:>=2.5'
        for: 5m
      - alert: EveryHost
        expr: '* | stats by (host) count() as n'
`;

interface ImportReply {
  created: { id: string; name: string; kind: string; params: Record<string, unknown>; group: string; line: number }[];
  skipped: { group: string; rule: string; line: number; reason: string; condition?: string }[];
}

void describe('rule files: import and export', () => {
  let svc: RunningService | undefined;
  const S = (): RunningService => { if (!svc) throw new Error('no service'); return svc; };
  before(async () => { svc = await startService({ env: { SIGHTLINE_EVAL_INTERVAL_MS: '0' } }); });
  after(async () => { await svc?.stop(); });

  const url = (a: TestAccount, path: string): string => `${S().app}/api/v1/tenants/${a.tenantId}/detectors${path}`;
  const importFile = (a: TestAccount, text: string, query = '', key = a.key): Promise<Reply> => call(url(a, `/import${query}`), {
    method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/yaml' }, body: text,
  });
  const exportFile = (a: TestAccount, type: string): Promise<Reply> => call(url(a, `/export?type=${type}`), { headers: { 'X-API-Key': a.key } });
  const imported = async (a: TestAccount, text: string, query = ''): Promise<ImportReply> => {
    const r = await importFile(a, text, query);
    assert.equal(r.status, 200, show(r));
    return r.json as ImportReply;
  };

  void it('imports a Prometheus rule file: comparisons become expr + threshold, recording rules are skipped', async () => {
    const a = await newAccount(S(), { tier: 'team' });
    const r = await imported(a, PROMETHEUS_RULES);
    assert.deepEqual(r.created.map((c) => [c.name, c.kind, c.group, c.line]), [
      ['HighErrorRate', 'metric_threshold', 'api', 8], ['InstanceDown', 'metric_threshold', 'api', 16], ['NoTraffic', 'metric_threshold', 'api', 20],
    ]);
    assert.deepEqual(r.created[1]?.params, { expr: 'up', op: '==', threshold: 0 });
    assert.deepEqual(r.created[2]?.params, { expr: 'absent(http_requests_total{job="api"})' });
    assert.deepEqual(r.skipped.map((s) => [s.rule, s.line]), [['job:http_requests:rate5m', 22]]);
    assert.match(r.skipped[0]?.reason ?? '', /^recording rule/);

    const d = await call(url(a, `/${r.created[0]?.id ?? ''}`), { headers: { 'X-API-Key': a.key } });
    const det = (d.json as { detector: Record<string, unknown> }).detector;
    assert.deepEqual([det.for_s, det.interval_s, det.labels], [600, 60, { team: 'payments', severity: 'page' }], show(d));

    const again = await imported(a, PROMETHEUS_RULES);
    assert.deepEqual(again.created, [], 'a second import creates nothing');
    assert.ok(again.skipped.filter((s) => /^already imported as det_/.test(s.reason)).length === 3, JSON.stringify(again.skipped));
  });

  void it('imports a vmalert vlogs file onto log_threshold; a filterless rule is skipped with the reason', async () => {
    const a = await newAccount(S(), { tier: 'team' });
    const r = await imported(a, VMALERT_RULES);
    assert.deepEqual(r.created.map((c) => [c.name, c.kind, c.params.column, c.params.op, c.params.threshold]), [
      ['HasMoreThan10ErrorLogs', 'log_threshold', 'error_logs', '>', 10], ['SlowPaths', 'log_threshold', 'p99', '>=', 2.5],
    ]);
    assert.deepEqual(r.skipped.map((s) => s.rule), ['EveryHost']);
    assert.match(r.skipped[0]?.reason ?? '', /does not end in `\| filter/);
  });

  void it('a rule the creation refuses is skipped with its refusal; channel_ids must be the tenant\'s channels', async () => {
    const a = await newAccount(S(), { tier: 'team' });
    const bad = 'groups:\n  - name: g\n    rules:\n      - alert: Broken\n        expr: rate(x[5m] > 1\n      - alert: Fine\n        expr: up == 0\n';
    const r = await imported(a, bad);
    assert.deepEqual(r.created.map((c) => c.name), ['Fine']);
    assert.deepEqual([r.skipped[0]?.rule, r.skipped[0]?.condition], ['Broken', 'query_valid']);
    const nope = await importFile(a, bad, '?channel_ids=nch_nope');
    assert.equal(nope.status, 400);
    assert.match(nope.text, /channel_ids: nch_nope is not a notification channel of this tenant/);
  });

  void it('a malformed file is a 400 naming the line; a read key may export but not import', async () => {
    const a = await newAccount(S(), { tier: 'team' });
    const r = await importFile(a, 'groups:\n  - name: g\n    rules:\n      - alert: X\n       expr: up\n');
    assert.equal(r.status, 400);
    const body = r.json as { detail: string; line: number };
    assert.equal(body.line, 5);
    assert.match(body.detail, /^rule file line 5: not YAML/);
    const noExpr = await importFile(a, 'groups:\n  - name: g\n    rules:\n      - alert: X\n');
    assert.deepEqual([noExpr.status, (noExpr.json as { line: number }).line], [400, 4]);

    const k = await call(`${S().app}/api/v1/tenants/${a.tenantId}/keys`, {
      method: 'POST', headers: { 'X-API-Key': a.key, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'r', scopes: ['read'] }),
    });
    const readKey = (k.json as { api_key: { key: string } }).api_key.key;
    assert.equal((await importFile(a, PROMETHEUS_RULES, '', readKey)).status, 403);
    assert.equal((await call(url(a, '/export'), { headers: { 'X-API-Key': readKey } })).status, 200);
  });

  void it('the Prometheus export passes promtool check rules, and both exports import into another tenant as the same detectors', async () => {
    const a = await newAccount(S(), { tier: 'team' });
    await imported(a, PROMETHEUS_RULES);
    await imported(a, VMALERT_RULES);
    const prom = await exportFile(a, 'prometheus');
    assert.equal(prom.status, 200, show(prom));
    assert.match(String(prom.headers['content-type']), /^application\/yaml/);
    assert.match(prom.text, /^# Sightline detectors of tenant /);
    const vlogs = await exportFile(a, 'vlogs');
    assert.match(vlogs.text, /type: vlogs/);
    assert.doesNotMatch(prom.text, /type: vlogs/);

    if (existsSync(PROMTOOL)) {
      const dir = mkdtempSync(join(tmpdir(), 'sightline-rules-'));
      try {
        const file = join(dir, 'exported.rules.yml');
        writeFileSync(file, prom.text);
        const check = spawnSync(PROMTOOL, ['check', 'rules', file], { encoding: 'utf8' });
        assert.equal(check.status, 0, `promtool check rules:\n${check.stdout}${check.stderr}\n--- file ---\n${prom.text}`);
        assert.match(check.stdout, /SUCCESS: 3 rules found/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } else {
      console.log(`skipped promtool check rules: ${PROMTOOL} not found (apt-get install prometheus)`);
    }

    const b = await newAccount(S(), { tier: 'team' });
    const back = [...(await imported(b, prom.text)).created, ...(await imported(b, vlogs.text)).created];
    const list = async (acct: TestAccount) => {
      const r = await call(url(acct, ''), { headers: { 'X-API-Key': acct.key } });
      return ((r.json as { detectors: Record<string, unknown>[] }).detectors)
        .map((d) => JSON.stringify([d.name, d.kind, d.params, d.window_s, d.interval_s, d.for_s, d.keep_firing_for_s, d.labels, d.annotations]))
        .sort();
    };
    assert.equal(back.length, 5);
    assert.deepEqual(await list(b), await list(a));
  });
});
