// The AI features over the real service (DESIGN §9, §6; issue 10 items 1–6): each endpoint end to end on data sent
// through the ingest door, with its gate (403 on a tier without AI), its credits (the block on every reply, the
// sub-caps inside the daily total, 429 "quota" when spent, a refund when the call fails) and its evidence (the
// queries it ran, which give the same answer when run by hand). The optional model runs in its own service against
// a local fixture endpoint; the main service has none configured, and the fixture proves nothing called out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { admin, call, newAccount, startService, type RunningService, type TestAccount } from './support/service.js';
import { ingest, ndjson, newKey, obj, show, waitForRows } from './support/load.js';
import { addUser, browser, sessionOf } from './support/sessions.js';
import { startLlmFixtureServer, type LlmFixtureServer } from './support/llm-fixture-server.js';

const MIN = 60_000;
let svc: RunningService;
let llm: LlmFixtureServer;

before(async () => {
  llm = await startLlmFixtureServer();
  svc = await startService({ env: { SIGHTLINE_EVAL_INTERVAL_MS: '0' } });
});
after(async () => {
  await svc.stop();
  await llm.close();
});

interface Credits { cost: number; used_today: number; remaining: number | null }
interface EvidenceQuery { signal: string; query: string; start: string; end: string; purpose: string }

function ai(s: RunningService, acct: TestAccount, feature: string, body: unknown, headers: Record<string, string> = { 'X-API-Key': acct.key }) {
  return call(`${s.app}/api/v1/tenants/${acct.tenantId}/ai/${feature}`, {
    method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
}

const creditsOf = (r: { json: unknown }): Credits => obj(r as never).credits as Credits;
const evidenceOf = (r: { json: unknown }): EvidenceQuery[] => ((obj(r as never).evidence ?? {}) as { queries: EvidenceQuery[] }).queries;

/** `n` entries spread over [from, from + spanMs), each with `fields` (and `make(i)` on top). */
function spread(n: number, from: number, spanMs: number, make: (i: number) => Record<string, unknown>): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({ _time: new Date(from + Math.floor((i * spanMs) / n)).toISOString(), ...make(i) }));
}

async function send(acct: TestAccount, rows: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 2000) {
    const r = await ingest(svc.ingest, acct.key, ndjson(rows.slice(i, i + 2000)), { 'Content-Type': 'application/x-ndjson' });
    assert.equal(r.status, 200, show(r));
  }
}

void describe('gates and credits', () => {
  test('a tier without AI gets 403 "not available on your plan" on every AI endpoint, before its body is read', async () => {
    const expired = await newAccount(svc, { tier: 'trial_expired', signup_at: new Date(Date.now() - 30 * 86_400_000).toISOString() });
    for (const feature of ['query', 'rca', 'deep-rca', 'playbooks']) {
      const r = await ai(svc, expired, feature, 'not even an object');
      assert.equal(r.status, 403, `${feature}: ${show(r)}`);
      assert.match(String(obj(r).detail), /not available on your plan/);
    }
  });

  test('every reply carries the credits block; deep RCA spends its sub-cap inside the total, then 429 "quota"', async () => {
    const acct = await newAccount(svc, { tier: 'team' }); // 200 a day; deep RCA 40 of them (spec "AI credits")
    const now = Date.now();
    const window = { start: new Date(now - 30 * MIN).toISOString(), end: new Date(now).toISOString() };
    for (let i = 1; i <= 4; i++) {
      const r = await ai(svc, acct, 'deep-rca', window);
      assert.equal(r.status, 200, show(r));
      assert.deepEqual(creditsOf(r), { cost: 10, used_today: 10 * i, remaining: 200 - 10 * i });
    }
    const spent = await ai(svc, acct, 'deep-rca', window);
    assert.equal(spent.status, 429, show(spent));
    assert.equal(obj(spent).error, 'rate_limited');
    assert.match(String(obj(spent).detail), /quota/);
    assert.ok(Number(obj(spent).retry_after) >= 1);
    // The total still has room for the other features.
    const q = await ai(svc, acct, 'query', { question: 'errors in the last hour' });
    assert.equal(q.status, 200, show(q));
    assert.deepEqual(creditsOf(q), { cost: 1, used_today: 41, remaining: 159 });
  });

  test('spent daily credits refuse every feature with 429 "quota"; a failed call gives its credits back', async () => {
    const acct = await newAccount(svc, { tier: 'team' });
    const set = await admin(svc, 'PATCH', `/admin/v1/accounts/${acct.accountId}`, { limits: { ai_daily_credits: 3 } });
    assert.equal(set.status, 200, show(set));
    const bad = await ai(svc, acct, 'rca', { query: 'level:error', start: 'not a time', end: new Date().toISOString() });
    assert.equal(bad.status, 400, show(bad));
    const unplaced = await ai(svc, acct, 'query', { question: 'florp the wibbles sideways' });
    assert.equal(unplaced.status, 422, show(unplaced));
    // Both failures were refunded: three NL queries still fit the 3 credits, a fourth does not.
    for (let i = 1; i <= 3; i++) {
      const r = await ai(svc, acct, 'query', { question: 'errors in the last hour' });
      assert.equal(r.status, 200, show(r));
      assert.deepEqual(creditsOf(r), { cost: 1, used_today: i, remaining: 3 - i });
    }
    for (const [feature, body] of [['query', { question: 'errors' }], ['rca', { query: '*', start: new Date(Date.now() - MIN).toISOString(), end: new Date().toISOString() }]] as const) {
      const r = await ai(svc, acct, feature, body);
      assert.equal(r.status, 429, `${feature}: ${show(r)}`);
      assert.match(String(obj(r).detail), /quota/);
    }
    const account = await call(`${svc.app}/api/v1/account`, { headers: { 'X-API-Key': acct.key } });
    assert.equal(account.status, 200, show(account));
    assert.match(JSON.stringify(account.json), /"used_today":3|"used":3/);
  });
});

void describe('ai/query', () => {
  test('an English question becomes LogsQL linked to the tenant\'s own values, and the query it gives finds the entries', async () => {
    const acct = await newAccount(svc);
    const now = Date.now();
    await send(acct, [
      ...spread(30, now - 40 * MIN, 30 * MIN, (i) => ({ _msg: `charge failed for order ${i}`, service: 'checkout', level: 'error' })),
      ...spread(20, now - 40 * MIN, 30 * MIN, (i) => ({ _msg: `cart updated ${i}`, service: 'cart', level: 'info' })),
    ]);
    await waitForRows(svc, acct.tenantId, acct.key, 'service:checkout', 30);
    const r = await ai(svc, acct, 'query', { question: 'errors from checkout in the last hour' });
    assert.equal(r.status, 200, show(r));
    const answer = obj(r) as { signal: string; query: string; start: string; end: string; explanation: string };
    assert.equal(answer.signal, 'logs');
    assert.match(answer.query, /service:"?checkout"?/);
    assert.match(answer.query, /(level|severity):"?error"?/);
    assert.ok(answer.explanation.length > 0);
    assert.ok(Date.parse(answer.end) - Date.parse(answer.start) >= 59 * MIN && Date.parse(answer.end) - Date.parse(answer.start) <= 61 * MIN);
    assert.ok(evidenceOf(r).length > 0, 'the schema reads it made are shown');
    const rows = await waitForRows(svc, acct.tenantId, acct.key, answer.query, 30, 5000,
      `&start=${encodeURIComponent(answer.start)}&end=${encodeURIComponent(answer.end)}`);
    assert.equal(rows.rows.length, 30);
    assert.ok(rows.rows.every((row) => row.service === 'checkout'));
  });

  test('a question with words it cannot place is 422 naming them', async () => {
    const acct = await newAccount(svc);
    const r = await ai(svc, acct, 'query', { question: 'errors from zorblax in the last hour' });
    assert.equal(r.status, 422, show(r));
    assert.match(String(obj(r).detail), /zorblax/);
    assert.deepEqual(obj(r).words, ['zorblax']);
  });
});

void describe('ai/rca', () => {
  test('a bad version on some pods ranks first, with both shares, the count and a query that shows exactly those events', async () => {
    const acct = await newAccount(svc);
    const now = Date.now();
    const start = now - 30 * MIN;
    const base = (i: number) => ({
      service: ['api', 'checkout', 'cart'][i % 3], pod: `pod-${i % 6}`, version: '1.4.0', _msg: `request ${i} served in ${i % 90} ms`,
      level: i % 50 === 0 ? 'error' : 'info',
    });
    await send(acct, [
      ...spread(3000, start - 30 * MIN, 30 * MIN, base),
      ...spread(3000, start, 30 * MIN, base),
      // The incident: version 1.5.0 on two pods, failing.
      ...spread(400, start + 5 * MIN, 20 * MIN, (i) => ({
        service: 'checkout', pod: `pod-${6 + (i % 2)}`, version: '1.5.0', level: 'error', _msg: `payment gateway timeout after ${3000 + i} ms`,
      })),
    ]);
    await waitForRows(svc, acct.tenantId, acct.key, 'version:="1.5.0"', 400, 10_000);
    const r = await ai(svc, acct, 'rca', { query: 'level:error', start: new Date(start).toISOString(), end: new Date(now).toISOString() });
    assert.equal(r.status, 200, show(r));
    assert.deepEqual(creditsOf(r), { cost: 2, used_today: 2, remaining: 198 });
    const hyps = (obj(r).hypotheses ?? []) as { kind: string; field?: string; value?: string; incident_share: number; baseline_share: number; count: number; summary: string; query: string; score: number }[];
    assert.ok(hyps.length > 0, show(r));
    const first = hyps[0];
    assert.ok(first);
    assert.ok(first.kind === 'change' || first.kind === 'field_value', JSON.stringify(first));
    assert.equal(first.field, 'version');
    assert.equal(first.value, '1.5.0');
    assert.equal(first.count, 400);
    assert.ok(first.incident_share > 0.8 && first.baseline_share === 0, JSON.stringify(first));
    assert.ok(first.summary.length > 0);
    // Its query, run over the window, shows exactly the events behind it.
    const rows = await waitForRows(svc, acct.tenantId, acct.key, first.query, 400, 5000,
      `&start=${encodeURIComponent(new Date(start).toISOString())}&end=${encodeURIComponent(new Date(now).toISOString())}`);
    assert.equal(rows.rows.length, 400);
    assert.ok(evidenceOf(r).every((e) => e.signal === 'logs' && e.query.length > 0));
  });

  test('a bad LogsQL query is 400 with the parser\'s words, and costs nothing', async () => {
    const acct = await newAccount(svc);
    const r = await ai(svc, acct, 'rca', { query: 'service:(', start: new Date(Date.now() - MIN).toISOString(), end: new Date().toISOString() });
    assert.equal(r.status, 400, show(r));
    const q = await ai(svc, acct, 'query', { question: 'errors in the last hour' });
    assert.equal(creditsOf(q).used_today, 1, 'the failed RCA was refunded');
  });
});

void describe('ai/playbooks', () => {
  const RUNBOOK = [
    '# Checkout errors',
    '',
    '## 1. Look at the failing requests',
    '',
    '```logsql',
    'service:checkout level:error',
    '```',
    '',
    'Alert if there are more than 50 errors in 5 minutes.',
    '',
    '## 2. Restart the pods',
    '',
    '```bash',
    'kubectl rollout restart deployment/checkout',
    '```',
    '',
  ].join('\n');

  test('a Markdown runbook becomes a stored playbook with saved searches and detectors; a shell step stays manual', async () => {
    const acct = await newAccount(svc);
    await send(acct, spread(20, Date.now() - 10 * MIN, 5 * MIN, () => ({ _msg: 'boom', service: 'checkout', level: 'error' })));
    await waitForRows(svc, acct.tenantId, acct.key, 'service:checkout', 20);
    const r = await ai(svc, acct, 'playbooks', { content: RUNBOOK });
    assert.equal(r.status, 200, show(r));
    assert.deepEqual(creditsOf(r), { cost: 5, used_today: 5, remaining: 195 });
    const j = obj(r) as { playbook: { id: string; title: string; steps: { title: string; text: string; query?: string; signal?: string }[] }; created: { saved_searches: { id: string }[]; detectors: { id: string }[] } };
    assert.equal(j.playbook.title, 'Checkout errors');
    assert.ok(j.playbook.steps.some((s) => s.query === 'service:checkout level:error' && s.signal === 'logs'), show(r));
    assert.ok(j.playbook.steps.some((s) => s.text.includes('kubectl rollout restart')), 'the shell block is a manual step');
    assert.equal(j.created.saved_searches.length, 1);
    assert.equal(j.created.detectors.length, 1);
    const saved = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/saved-searches`, { headers: { 'X-API-Key': acct.key } });
    assert.ok(JSON.stringify(saved.json).includes('service:checkout level:error'));
    const detector = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/detectors/${j.created.detectors[0]?.id ?? ''}`, { headers: { 'X-API-Key': acct.key } });
    assert.equal(detector.status, 200, show(detector));
    const list = await call(`${svc.app}/api/v1/tenants/${acct.tenantId}/ai/playbooks`, { headers: { 'X-API-Key': acct.key } });
    assert.equal(list.status, 200, show(list));
    assert.ok(JSON.stringify(list.json).includes(j.playbook.id));
  });

  test('importing needs a writer: a read-only key and a viewer are refused, and spend nothing', async () => {
    const acct = await newAccount(svc);
    const reader = await newKey(svc, acct.tenantId, ['read']);
    const byKey = await ai(svc, acct, 'playbooks', { content: RUNBOOK }, { 'X-API-Key': reader.key });
    assert.equal(byKey.status, 403, show(byKey));
    const viewer = await addUser(svc, acct.key, 'viewer');
    const byViewer = await ai(svc, acct, 'playbooks', { content: RUNBOOK }, browser(await sessionOf(svc, viewer)));
    assert.equal(byViewer.status, 403, show(byViewer));
    const q = await ai(svc, acct, 'query', { question: 'errors in the last hour' });
    assert.equal(creditsOf(q).used_today, 1);
  });

  test('content that holds no steps is 422, refunded', async () => {
    const acct = await newAccount(svc);
    const titleOnly = await ai(svc, acct, 'playbooks', { content: '# Just a title\n' });
    assert.equal(titleOnly.status, 422, show(titleOnly));
    assert.match(String(obj(titleOnly).detail), /no steps/);
    const broken = await ai(svc, acct, 'playbooks', { content: 'steps: [', format: 'yaml' });
    assert.equal(broken.status, 422, show(broken));
    const q = await ai(svc, acct, 'query', { question: 'errors in the last hour' });
    assert.equal(creditsOf(q).used_today, 1, 'both failed imports were refunded');
  });
});

void describe('optional model (SIGHTLINE_LLM_URL)', () => {
  test('without the setting nothing calls out', () => {
    assert.equal(llm.requests.length, 0, 'the main service never asked the fixture model');
  });

  test('with it, a question the grammar cannot place is asked of the model, and its answer is taken only when it parses', async () => {
    const withModel = await startService({ env: { SIGHTLINE_EVAL_INTERVAL_MS: '0', SIGHTLINE_LLM_URL: llm.url, SIGHTLINE_LLM_MODEL: 'fixture-model' } });
    try {
      const acct = await newAccount(withModel);
      llm.fixtures.push(
        { whenAsked: 'which shopping baskets went sideways', reply: JSON.stringify({ signal: 'logs', query: 'service:cart level:error', explanation: 'cart errors' }) },
        { whenAsked: 'gibberish that the model also fumbles', reply: JSON.stringify({ signal: 'logs', query: 'service:(((', explanation: 'broken' }) },
      );
      const ok = await ai(withModel, acct, 'query', { question: 'which shopping baskets went sideways' });
      assert.equal(ok.status, 200, show(ok));
      assert.equal(obj(ok).query, 'service:cart level:error');
      assert.ok(llm.requests.some((q) => q.model === 'fixture-model'));
      const refused = await ai(withModel, acct, 'query', { question: 'gibberish that the model also fumbles' });
      assert.equal(refused.status, 422, 'an answer that does not parse is not returned');
      // A question the grammar places never reaches the model.
      const before = llm.requests.length;
      const placed = await ai(withModel, acct, 'query', { question: 'errors in the last hour' });
      assert.equal(placed.status, 200, show(placed));
      assert.equal(llm.requests.length, before);
    } finally {
      await withModel.stop();
    }
  });
});
