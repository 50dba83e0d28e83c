// The Markdown and YAML runbook parsers on realistic runbooks (fixtures/), issue 10 item 4: headings and numbered
// items are steps, fenced LogsQL / PromQL are the steps' queries (checked by the real parsers), shell and kubectl
// blocks are manual steps (never run), bound sentences are the steps' alerts; bad input is a 422 with a clear detail.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AiUnprocessable } from '../model.js';
import { classifyCode } from './queries.js';
import { detectFormat, parsePlaybook } from './parse.js';

const NOW = Date.UTC(2026, 2, 1, 12);
// Tests run from dist/; the fixtures stay in the source tree.
const fixture = (name: string): string => readFileSync(join(process.cwd(), 'src', 'ai', 'playbooks', 'fixtures', name), 'utf8');
const unprocessable = (detail: RegExp) => (e: unknown): boolean => e instanceof AiUnprocessable && detail.test(e.detail);

describe('Markdown runbooks', () => {
  test('checkout-errors.md: title, heading and item steps with sections, queries, manual commands and bounds', () => {
    const p = parsePlaybook(fixture('checkout-errors.md'), undefined, NOW);
    assert.equal(p.format, 'markdown');
    assert.equal(p.title, 'Checkout is failing');
    assert.deepEqual(p.steps.map((s) => [s.title, s.section ?? '']), [
      ['Overview', ''],
      ['Confirm the errors', ''],
      ['Check the latency', ''],
      ['Check the pods of the checkout deployment', 'Mitigate'],
      ['Roll back the last deploy if the errors started with it', 'Mitigate'],
      ['Watch the payment gateway\'s timeouts', 'Mitigate'],
      ['Tell the customers on the status page', 'Mitigate'],
      ['Afterwards', ''],
    ]);
    const [overview, confirm, latency, pods, rollback, timeouts, , after] = p.steps;
    assert.deepEqual([confirm?.query, confirm?.signal], ['_time:15m service:checkout level:error', 'logs']);
    assert.equal(latency?.signal, 'metrics');
    assert.match(latency.query ?? '', /^histogram_quantile\(0\.99/);
    // The unlabelled block is LogsQL by its marks (field:value, a stats pipe).
    assert.deepEqual([timeouts?.query, timeouts?.signal], ['service:payments timeout | stats by (gateway) count() as timeouts', 'logs']);
    assert.deepEqual(pods?.manual, { language: 'bash', command: 'kubectl -n shop get pods -l app=checkout' });
    assert.deepEqual(rollback?.manual, { language: 'kubectl', command: 'kubectl -n shop rollout undo deployment/checkout' });
    assert.equal(pods.query, undefined, 'a shell block is never a query');
    assert.deepEqual(p.steps.map((s) => s.alerts.map((a) => a.bound?.target.kind ?? 'note')), [
      ['log_threshold'], ['error_ratio'], ['metric_threshold'], [], [], ['log_threshold'], [], ['note'],
    ]);
    assert.equal(overview?.alerts[0]?.bound?.window_s, 300);
    assert.equal(latency.alerts[0]?.bound?.threshold, 0.5, 'ms on a PromQL latency become seconds');
    assert.match(after?.alerts[0]?.note ?? '', /no number/);
  });

  test('api-latency.md: setext headings, items with inline and fenced code, "$ " commands', () => {
    const p = parsePlaybook(fixture('api-latency.md'), 'markdown', NOW);
    assert.equal(p.title, 'API latency runbook');
    assert.equal(p.steps.length, 4);
    assert.ok(p.steps.every((s) => s.section === 'Steps'));
    const [, slow, silent, restart] = p.steps;
    assert.equal(slow?.signal, 'metrics');
    assert.deepEqual(slow.alerts[0]?.bound, { target: { kind: 'metric_threshold', expr: slow.query ?? '' }, op: '>', threshold: 2, for_s: 600 });
    assert.deepEqual(silent?.alerts[0]?.bound?.target, { kind: 'absence', query: 'service:ingest-worker' });
    assert.deepEqual(restart?.manual, { language: 'sh', command: '$ sudo systemctl restart ingest-worker' });
  });

  test('no H1: the first heading is the title; no heading at all: "Untitled playbook"', () => {
    assert.equal(parsePlaybook('## Disk full\n\n1. Free space.\n2. Page if disk errors are above 5 in 1 minute.', undefined, NOW).title, 'Disk full');
    const p = parsePlaybook('1. Look at the logs.\n2. Restart.\n', undefined, NOW);
    assert.equal(p.title, 'Untitled playbook');
    assert.deepEqual(p.steps.map((s) => s.title), ['Look at the logs', 'Restart']);
  });

  test('a second query in a step is a step of its own; an invalid logsql block is kept as text with a note', () => {
    const p = parsePlaybook('# T\n## Look\n```logsql\nerror\n```\n```promql\nup == 0\n```\n## Broken\n```logsql\nfoo(\n```\n', undefined, NOW);
    assert.deepEqual(p.steps.map((s) => [s.title, s.signal ?? '-', s.query ?? '-']), [
      ['Look', 'logs', 'error'], ['Look (query 2)', 'metrics', 'up == 0'], ['Broken', '-', '-'],
    ]);
    assert.match(p.steps[2]?.notes[0] ?? '', /not valid LogsQL/);
    assert.match(p.steps[2]?.text ?? '', /foo\(/);
  });

  test('numbered headings lose their number; a manual command is in the step text too (DESIGN §9 fields only)', () => {
    const p = parsePlaybook('# Checkout errors\n\n## 1. Look\n\ntext\n\n### Step 2: Restart the pods\n\n```bash\nkubectl rollout restart deployment/checkout\n```\n', undefined, NOW);
    assert.deepEqual(p.steps.map((s) => s.title), ['Look', 'Restart the pods']);
    assert.equal(p.steps[1]?.text, 'kubectl rollout restart deployment/checkout');
  });

  test('empty content, and Markdown without steps, are refused with a clear detail', () => {
    assert.throws(() => parsePlaybook('   \n', undefined, NOW), unprocessable(/empty/));
    assert.throws(() => parsePlaybook('# Just a title\n', undefined, NOW), unprocessable(/no steps/));
  });
});

describe('code blocks', () => {
  test('shell-ish blocks are manual commands, by fence or by content; queries only when a parser takes them', () => {
    const cases: [string, string, string][] = [
      ['bash', 'rm -rf /var/cache/app', 'manual'],
      ['sh', 'curl -s localhost:8080/health', 'manual'],
      ['kubectl', 'get pods', 'manual'],
      ['shell', 'echo hi', 'manual'],
      ['', 'kubectl -n shop delete pod checkout-1', 'manual'],
      ['', '$ systemctl status nginx', 'manual'],
      ['logsql', 'service:api level:error', 'query:logs'],
      ['logs', '_time:5m error | stats count()', 'query:logs'],
      ['promql', 'rate(http_requests_total[5m])', 'query:metrics'],
      ['', 'sum by (job) (rate(http_requests_total[5m]))', 'query:metrics'],
      ['', 'service:api level:error', 'query:logs'],
      ['sql', 'SELECT count(*) FROM logs', 'text'],
      ['', 'Restart the service and wait', 'text'],
      ['promql', 'rate(', 'text'],
    ];
    for (const [lang, code, want] of cases) {
      const c = classifyCode(lang, code, NOW);
      assert.equal(c.kind === 'query' ? `query:${c.signal}` : c.kind, want, `${lang}: ${code}`);
    }
  });
});

describe('YAML runbooks', () => {
  test('checkout-errors.yaml: steps, queries by signal, structured and sentence alerts, commands, a bare-title step', () => {
    assert.equal(detectFormat(fixture('checkout-errors.yaml')), 'yaml');
    const p = parsePlaybook(fixture('checkout-errors.yaml'), undefined, NOW);
    assert.equal(p.format, 'yaml');
    assert.equal(p.title, 'Checkout errors (YAML)');
    assert.deepEqual(p.steps.map((s) => s.title), ['Look at the errors', 'Error rate', 'Latency', 'Request rate', 'Restart', 'Write the post-mortem']);
    const [errorsStep, rate, latency, requests, restart] = p.steps;
    assert.deepEqual(errorsStep?.alerts[0]?.bound, { target: { kind: 'log_threshold', query: 'service:checkout level:error' }, op: '>', threshold: 100, window_s: 300 });
    assert.deepEqual(rate?.alerts[0]?.bound, {
      target: { kind: 'error_ratio', errorsQuery: '(service:"checkout") level:error', totalQuery: 'service:"checkout"' }, op: '>', threshold: 0.05, for_s: 600,
    });
    assert.deepEqual(latency?.alerts[0]?.bound, { target: { kind: 'trace_latency', quantile: 0.99, service: 'checkout' }, op: '>', threshold: 800 });
    assert.deepEqual([requests?.signal, requests?.alerts[0]?.bound?.op, requests?.alerts[0]?.bound?.target.kind], ['metrics', '<', 'metric_threshold']);
    assert.deepEqual(restart?.manual, { language: 'shell', command: 'kubectl -n shop rollout restart deployment/checkout' });
  });

  test('malformed YAML playbooks are refused naming what is wrong', () => {
    const bad: [string, RegExp][] = [
      ['title: x\nsteps: [unclosed', /does not parse/],
      ['title: x\nsteps: []', /needs steps/],
      ['title: x\nsteps:\n  - text: no title', /steps\[0\]\.title is required/],
      ['title: x\nsteps:\n  - title: a\n    query: "rate("\n    signal: metrics', /steps\[0\]\.query is not valid PromQL/],
      ['title: x\nsteps:\n  - title: a\n    query: error\n    alert: {above: 1, below: 2}', /exactly one of above or below/],
      ['title: x\nsteps:\n  - title: a\n    query: error\n    alert: {above: 1, kind: magic}', /kind must be one of/],
    ];
    for (const [content, detail] of bad) assert.throws(() => parsePlaybook(content, 'yaml', NOW), unprocessable(detail), content);
  });
});
