import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LimitOverrides, Tier } from '../stores/control/control-store.js';
import { AI_COSTS, AI_FEATURES, aiSpentFrom, charge, secondsToUtcMidnight, type AiFeature, type AiSpent } from './ai-credits.js';
import { effectivePlan } from './plans.js';

const plan = (tier: Tier, limits: LimitOverrides = {}) => effectivePlan({ tier, limits, features: {} });
const NOON = Date.UTC(2026, 0, 1, 12);
const none: AiSpent = { total: 0, deepRca: 0, playbookImport: 0 };

void test('each AI call costs its credits: 1, 2, 5, 10', () => {
  assert.deepEqual(AI_COSTS, { nl_query: 1, rca_hypotheses: 2, playbook_import: 5, deep_rca: 10 });
  assert.deepEqual(charge(plan('trial'), none, 'nl_query', NOON), { ok: true, cost: 1, deltas: [{ name: 'ai:total', delta: 1 }] });
  assert.deepEqual(charge(plan('trial'), none, 'deep_rca', NOON), {
    ok: true, cost: 10, deltas: [{ name: 'ai:total', delta: 10 }, { name: 'ai:deep_rca', delta: 10 }],
  });
  assert.deepEqual(charge(plan('trial'), none, 'playbook_import', NOON), {
    ok: true, cost: 5, deltas: [{ name: 'ai:total', delta: 5 }, { name: 'ai:playbook_import', delta: 5 }],
  });
});

void test('AI on trial_expired is 403 not available on your plan, whatever was spent', () => {
  const r = charge(plan('trial_expired'), none, 'nl_query', NOON);
  assert.equal(r.ok, false);
  assert.equal(r.error.status, 403);
  assert.match(r.error.detail, /not available on your plan/);
});

void test('the daily total binds: the call that would pass it is refused with a quota 429 until 00:00 UTC', () => {
  const p = plan('team');
  assert.equal(charge(p, { total: 199, deepRca: 0, playbookImport: 0 }, 'nl_query', NOON).ok, true);
  const r = charge(p, { total: 199, deepRca: 0, playbookImport: 0 }, 'rca_hypotheses', NOON);
  assert.equal(r.ok, false);
  assert.equal(r.error.status, 429);
  assert.equal(r.error.slug, 'rate_limited');
  assert.match(r.error.detail, /quota/);
  assert.equal(r.error.retryAfter, 12 * 3600);
});

void test('sub-caps bind inside the total', () => {
  const p = plan('trial'); // 200 / deep 40 / playbook 20
  assert.equal(charge(p, { total: 30, deepRca: 30, playbookImport: 0 }, 'deep_rca', NOON).ok, true);
  assert.equal(charge(p, { total: 40, deepRca: 40, playbookImport: 0 }, 'deep_rca', NOON).ok, false);
  assert.equal(charge(p, { total: 40, deepRca: 40, playbookImport: 0 }, 'nl_query', NOON).ok, true, 'other features still draw on the total');
  assert.equal(charge(p, { total: 20, deepRca: 0, playbookImport: 20 }, 'playbook_import', NOON).ok, false);
  assert.equal(charge(p, { total: 195, deepRca: 0, playbookImport: 0 }, 'deep_rca', NOON).ok, false, 'the total binds the sub-capped feature too');
  assert.equal(charge(plan('growth'), { total: 90, deepRca: 90, playbookImport: 0 }, 'deep_rca', NOON).ok, true);
});

void test('custom is unlimited until a contract sets ai_daily_credits', () => {
  const big: AiSpent = { total: 1e9, deepRca: 1e9, playbookImport: 1e9 };
  for (const f of AI_FEATURES) assert.equal(charge(plan('custom'), big, f, NOON).ok, true);
  const capped = plan('custom', { ai_daily_credits: 1000 });
  assert.equal(charge(capped, { total: 995, deepRca: 0, playbookImport: 0 }, 'playbook_import', NOON).ok, true);
  assert.equal(charge(capped, { total: 996, deepRca: 0, playbookImport: 0 }, 'playbook_import', NOON).ok, false);
});

void test('the quota retry_after is the whole seconds to the next 00:00 UTC, at least 1', () => {
  assert.equal(secondsToUtcMidnight(Date.UTC(2026, 0, 1, 23, 59, 59, 500)), 1);
  assert.equal(secondsToUtcMidnight(Date.UTC(2026, 0, 1)), 86_400);
  assert.equal(secondsToUtcMidnight(Date.UTC(2026, 0, 1, 23, 0, 0, 1)), 3600);
});

void test('spend is read from the day counters', () => {
  assert.deepEqual(aiSpentFrom({ 'ai:total': 17, 'ai:deep_rca': 10, 'bytes:logs': 5 }), { total: 17, deepRca: 10, playbookImport: 0 });
});

void test('property: charging until refused never passes the total or a sub-cap', () => {
  const featureArb = fc.constantFrom<AiFeature>(...AI_FEATURES);
  fc.assert(fc.property(fc.constantFrom<Tier>('trial', 'team', 'growth'), fc.array(featureArb, { maxLength: 300 }), (tier, calls) => {
    const p = plan(tier);
    let spent: AiSpent = { ...none };
    for (const f of calls) {
      const r = charge(p, spent, f, NOON);
      if (!r.ok) {
        assert.equal(r.error.reason, 'ai_quota');
        continue;
      }
      const counters: Record<string, number> = { 'ai:total': spent.total, 'ai:deep_rca': spent.deepRca, 'ai:playbook_import': spent.playbookImport };
      for (const d of r.deltas) counters[d.name] = (counters[d.name] ?? 0) + d.delta;
      spent = aiSpentFrom(counters);
      assert.ok(spent.total <= p.ai.dailyCredits && spent.deepRca <= p.ai.deepRca && spent.playbookImport <= p.ai.playbookImport);
    }
  }), { numRuns: 300 });
});
