// Playbook import against a real control store (PGlite), issue 10 item 4 / DESIGN §9: steps stored, each LogsQL a
// saved search (past the plan's ceiling: skipped with "Saved search limit reached (n)", the import goes on), each
// bound a detector created through the detectors API's own create path (detectorChecks: body, channels,
// eligibility) with the playbook's label and URL; a body the checks refuse is skipped with their detail.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { detectorChecks, type DetectorServices } from '../../detectors/api/detectors-api.js';
import { readDetectorBody } from '../../detectors/api/detector-body.js';
import { catalog, KINDS } from '../../detectors/kinds/index.js';
import type { DetectorData, DetectorSignal } from '../../detectors/model.js';
import { effectivePlan, type EffectivePlan } from '../../limits/plans.js';
import type { ControlStore, KeyGrant } from '../../stores/control/control-store.js';
import { openControlStore } from '../../stores/control/open-control-store.js';
import { AiUnprocessable } from '../model.js';
import { importPlaybook, type PlaybookDeps } from './import.js';

const NOW = Date.UTC(2026, 2, 1, 12);
const DAY = 86_400_000;
const dataDir = mkdtempSync(join(tmpdir(), 'sightline-playbooks-'));
const fixture = (name: string): string => readFileSync(join(process.cwd(), 'src', 'ai', 'playbooks', 'fixtures', name), 'utf8');
let store: ControlStore;

// Service time that moves on with each write, so that "newest first" has an order to show.
let tick = NOW;
before(async () => { store = await openControlStore({ dataDir, clock: { now: () => (tick += 1) } }); });
after(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A tenant with logs and metrics for a day and no spans: trace_latency's has_data condition fails. */
const data = { oldestDataMs: (signal: DetectorSignal) => Promise.resolve(signal === 'traces' ? null : NOW - DAY) } as unknown as DetectorData;

async function world(ceiling?: number): Promise<{ deps: PlaybookDeps; bodies: Record<string, unknown>[]; grant: KeyGrant }> {
  const account = await store.createAccount({ name: 'shop', tier: 'team', signupAt: NOW - 30 * DAY, trialEndsAt: null });
  const tenant = await store.createTenant({ accountId: account.id, name: 'prod' });
  const grant = { account, tenant, key: { id: 'key_x', tenantId: tenant.id, name: 'k', scopes: ['admin'], expiresAt: null, createdAt: NOW, secretHash: '' } } as KeyGrant;
  const base = effectivePlan(account);
  const plan: EffectivePlan = ceiling === undefined ? base : { ...base, ceilings: { ...base.ceilings, savedSearches: ceiling } };
  const services = {
    kinds: KINDS, catalog, evalIntervalMs: 60_000,
    engine: { dataFor: () => Promise.resolve(data), refresh: () => undefined },
  } as unknown as DetectorServices;
  const checks = detectorChecks({ store, detectors: services, planOf: () => plan, clock: { now: () => NOW } });
  const bodies: Record<string, unknown>[] = [];
  const deps: PlaybookDeps = {
    store, accountId: account.id, tenantId: tenant.id, nowMs: NOW, plan,
    createDetector: async (body) => {
      bodies.push(body);
      const d = await checks.create(grant, body);
      return { id: d.id, name: d.name, kind: d.kind };
    },
  };
  return { deps, bodies, grant };
}

describe('playbook import', () => {
  test('a Markdown runbook: steps stored, LogsQL saved searches, detectors with the playbook label, refusals skipped', async () => {
    const { deps, bodies } = await world();
    const r = await importPlaybook({ content: fixture('checkout-errors.md') }, deps);
    const p = r.playbook;
    assert.match(p.id, /^pbk_[0-9a-f]{24}$/);
    assert.equal(p.title, 'Checkout is failing');
    assert.equal(p.steps.length, 8);

    // Saved searches: the LogsQL of "Confirm the errors" and of the gateway timeouts; not the PromQL.
    assert.deepEqual(r.created.saved_searches.map((s) => [s.name, s.query]), [
      ['Confirm the errors', '_time:15m service:checkout level:error'],
      ['Watch the payment gateway\'s timeouts', 'service:payments timeout | stats by (gateway) count() as timeouts'],
    ]);
    assert.deepEqual((await store.listSavedSearches(deps.tenantId)).map((s) => s.id).sort(), r.created.saved_searches.map((s) => s.id).sort());
    assert.equal(p.steps[1]?.saved_search_id, r.created.saved_searches[0]?.id);

    // Four bounds map; every one is a body POST …/detectors takes, with the playbook's label and URL.
    assert.equal(bodies.length, 4);
    for (const b of bodies) {
      assert.doesNotThrow(() => readDetectorBody(b, true), JSON.stringify(b));
      assert.deepEqual(b.labels, { playbook: p.id });
      assert.equal((b.annotations as Record<string, string>).playbook_url, `/app/alerts/playbooks/${p.id}`);
      assert.equal((b.annotations as Record<string, string>).playbook, 'Checkout is failing');
    }
    assert.deepEqual(r.created.detectors.map((d) => d.kind), ['log_threshold', 'error_ratio', 'metric_threshold', 'log_threshold']);
    const stored = await store.listDetectors(deps.tenantId);
    assert.deepEqual(stored.map((d) => d.id).sort(), r.created.detectors.map((d) => d.id).sort());
    const ratio = stored.find((d) => d.kind === 'error_ratio');
    assert.deepEqual(ratio?.params, { errors_query: '(service:checkout) level:error', total_query: 'service:checkout', slo: 0.95, windows: ['5m:25s:1'] });
    assert.equal(ratio.forS, 600);
    assert.deepEqual(p.detector_ids, r.created.detectors.map((d) => d.id));
    assert.equal(p.steps[0]?.alerts?.[0]?.detector_id, r.created.detectors[0]?.id);
    // The unmappable sentence stays with its note; nothing is skipped on this tenant.
    assert.match(p.steps[7]?.alerts?.[0]?.note ?? '', /no number/);
    assert.deepEqual(r.skipped, []);
    // Read back as stored.
    const back = await store.getPlaybook(p.id);
    assert.deepEqual(back?.steps, p.steps);
    assert.deepEqual(back.savedSearchIds, p.saved_search_ids);
  });

  test('a YAML runbook: a detector the eligibility checks refuse is skipped with their detail; the rest is created', async () => {
    const { deps, bodies } = await world();
    const r = await importPlaybook({ content: fixture('checkout-errors.yaml'), format: 'yaml' }, deps);
    assert.equal(r.playbook.format, 'yaml');
    assert.deepEqual(r.created.detectors.map((d) => d.kind), ['log_threshold', 'error_ratio', 'metric_threshold']);
    for (const b of bodies) assert.doesNotThrow(() => readDetectorBody(b, true));
    assert.deepEqual(r.skipped.map((s) => [s.step, s.what]), [['Latency', 'detector']]);
    assert.match(r.skipped[0]?.reason ?? '', /has_data/);
    assert.match(r.playbook.steps[2]?.alerts?.[0]?.note ?? '', /^detector not created: has_data/);
    assert.deepEqual(r.playbook.steps[4]?.manual, { language: 'shell', command: 'kubectl -n shop rollout restart deployment/checkout' });
  });

  test('saved searches past the plan\'s ceiling are skipped with the ceiling\'s detail, and the import still succeeds', async () => {
    const { deps } = await world(1);
    const r = await importPlaybook({ content: fixture('checkout-errors.md') }, deps);
    assert.equal(r.created.saved_searches.length, 1);
    assert.deepEqual(r.skipped, [{ step: 'Watch the payment gateway\'s timeouts', what: 'saved_search', reason: 'Saved search limit reached (1)' }]);
    assert.equal(await store.countSavedSearches(deps.accountId), 1);
    assert.equal(r.created.detectors.length, 4);
  });

  test('a re-import makes a new playbook; invalid content is a 422 and stores nothing', async () => {
    const { deps } = await world();
    const a = await importPlaybook({ content: fixture('api-latency.md') }, deps);
    const b = await importPlaybook({ content: fixture('api-latency.md') }, deps);
    assert.notEqual(a.playbook.id, b.playbook.id);
    assert.deepEqual((await store.listPlaybooks(deps.tenantId)).map((p) => p.id), [b.playbook.id, a.playbook.id]);
    for (const content of ['', '# Title only', 'title: x\nsteps: [oops']) {
      await assert.rejects(importPlaybook({ content, ...(content.startsWith('title') ? { format: 'yaml' as const } : {}) }, deps), AiUnprocessable);
    }
    assert.equal((await store.listPlaybooks(deps.tenantId)).length, 2);
  });

  test('shell blocks are stored as text and never run', async () => {
    const { deps } = await world();
    const marker = join(dataDir, 'must-not-exist');
    const r = await importPlaybook({ content: `# Danger\n## Wipe\n\`\`\`bash\ntouch ${marker}\n\`\`\`\n` }, deps);
    assert.deepEqual(r.playbook.steps[0]?.manual, { language: 'bash', command: `touch ${marker}` });
    assert.throws(() => readFileSync(marker), /ENOENT/);
  });
});
