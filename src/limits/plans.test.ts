import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Account, Tier } from '../stores/control/control-store.js';
import { GB, PLANS, ceilingBytes, effectivePlan, featuresView, limitsView, overageFor } from './plans.js';

const account = (tier: Tier, over: Partial<Pick<Account, 'limits' | 'features'>> = {}): Pick<Account, 'tier' | 'limits' | 'features'> =>
  ({ tier, limits: over.limits ?? {}, features: over.features ?? {} });

const U = Infinity;

// Spec "Per-plan limits", "AI credits"; DESIGN §6 ceilings and custom defaults.
const TABLE: [Tier, { rate: number; included: number; ceiling: number; qpm: number; retention: number; ai: [number, number, number]; ceilings: number[]; multi: boolean; aiOn: boolean }][] = [
  ['trial', { rate: 500, included: 73e9, ceiling: 73e9, qpm: 1200, retention: 14, ai: [200, 40, 20], ceilings: [5, 10, 5, 50, 100, 1], multi: false, aiOn: true }],
  ['team', { rate: 500, included: 34e9, ceiling: 102e9, qpm: 1200, retention: 30, ai: [200, 40, 20], ceilings: [10, 25, 10, 100, 250, 3], multi: true, aiOn: true }],
  ['growth', { rate: 2000, included: 135e9, ceiling: 405e9, qpm: 3000, retention: 30, ai: [500, 100, 50], ceilings: [50, 100, 25, 500, 1000, 10], multi: true, aiOn: true }],
  ['custom', { rate: 10_000, included: 500e9, ceiling: 1500e9, qpm: U, retention: 90, ai: [U, U, U], ceilings: [U, U, U, U, U, U], multi: true, aiOn: true }],
  ['trial_expired', { rate: 100, included: 0, ceiling: 0, qpm: 300, retention: 14, ai: [0, 0, 0], ceilings: [3, 2, 2, 25, 50, 1], multi: false, aiOn: false }],
];

for (const [tier, want] of TABLE) {
  void test(`the ${tier} plan carries the values of the spec`, () => {
    const p = effectivePlan(account(tier));
    assert.equal(p.tier, tier);
    assert.equal(p.ingestRate, want.rate);
    assert.equal(p.dailyIncludedBytes, want.included);
    assert.equal(ceilingBytes(p), want.ceiling);
    assert.equal(p.queryRatePerMin, want.qpm);
    assert.equal(p.retentionDays, want.retention);
    assert.deepEqual([p.ai.dailyCredits, p.ai.deepRca, p.ai.playbookImport], want.ai);
    assert.equal(p.ai.enabled, want.aiOn);
    const c = p.ceilings;
    assert.deepEqual([c.users, c.apiKeys, c.liveTail, c.dashboards, c.savedSearches, c.projects], want.ceilings);
    assert.deepEqual(p.features, { metrics: true, replay: true, multiProject: want.multi });
    assert.equal(p.ingestBlocked, tier === 'trial_expired');
  });
}

void test('trial and trial_expired stop at included; paid tiers run on at $0.20/GB to 3×', () => {
  assert.deepEqual(PLANS.trial.overage, { kind: 'hard_stop' });
  assert.deepEqual(PLANS.trial_expired.overage, { kind: 'hard_stop' });
  for (const tier of ['team', 'growth', 'custom'] as const) {
    assert.deepEqual(PLANS[tier].overage, { kind: 'overage', usdPerGb: 0.2, ceilingMultiplier: 3 });
  }
});

void test('a GB is 10^9 bytes', () => {
  assert.equal(GB, 1_000_000_000);
});

void test('the plan table cannot be changed at run time', () => {
  assert.throws(() => {
    (PLANS.team as { ingestRate: number }).ingestRate = 1;
  }, TypeError);
  assert.throws(() => {
    (PLANS.team.ceilings as { users: number }).users = 1;
  }, TypeError);
});

void test('every limits override of DESIGN §3 replaces the tier value', () => {
  const p = effectivePlan(account('custom', {
    limits: {
      ingest_rate: 25_000, daily_included_bytes: 2e12, overage_ceiling_multiplier: 1.5, query_rate_per_min: 6000,
      retention_days: 365, project_limit: 40, ai_daily_credits: 5000,
    },
  }));
  assert.equal(p.ingestRate, 25_000);
  assert.equal(p.dailyIncludedBytes, 2e12);
  assert.equal(ceilingBytes(p), 3e12);
  assert.equal(p.queryRatePerMin, 6000);
  assert.equal(p.retentionDays, 365);
  assert.equal(p.ceilings.projects, 40);
  assert.equal(p.ai.dailyCredits, 5000);
  assert.equal(p.ai.deepRca, Infinity, 'custom sub-caps stay per contract (unlimited) under the total');
  assert.equal(p.ceilings.apiKeys, Infinity);
});

void test('feature overrides switch metrics, replay and multi_project either way', () => {
  const off = effectivePlan(account('growth', { features: { metrics: false, replay: false, multi_project: false } }));
  assert.deepEqual(off.features, { metrics: false, replay: false, multiProject: false });
  const on = effectivePlan(account('trial', { features: { multi_project: true } }));
  assert.deepEqual(on.features, { metrics: true, replay: true, multiProject: true });
});

void test('an override that is not a non-negative number falls back to the tier', () => {
  const p = effectivePlan(account('team', { limits: { ingest_rate: -5, query_rate_per_min: Number.NaN } }));
  assert.equal(p.ingestRate, 500);
  assert.equal(p.queryRatePerMin, 1200);
});

void test('a ceiling multiplier does not give a hard-stop tier any overage', () => {
  const p = effectivePlan(account('trial', { limits: { overage_ceiling_multiplier: 3 } }));
  assert.equal(ceilingBytes(p), 73e9);
});

void test('an AI credit override does not switch AI on for trial_expired', () => {
  const p = effectivePlan(account('trial_expired', { limits: { ai_daily_credits: 100 } }));
  assert.equal(p.ai.enabled, false);
  assert.equal(p.ai.dailyCredits, 0);
});

void test('overage is billed past included at $0.20 per GB, none on hard-stop tiers', () => {
  const team = effectivePlan(account('team'));
  assert.deepEqual(overageFor(team, 30e9), { includedBytes: 34e9, ceilingBytes: 102e9, overageBytes: 0, overageCostUsd: 0 });
  assert.deepEqual(overageFor(team, 35.5e9), { includedBytes: 34e9, ceilingBytes: 102e9, overageBytes: 1.5e9, overageCostUsd: 0.3 });
  assert.equal(overageFor(team, 102e9).overageCostUsd, 13.6);
  assert.equal(overageFor(effectivePlan(account('trial')), 80e9).overageBytes, 0);
});

void test('the snake_case views show unlimited as null', () => {
  const custom = effectivePlan(account('custom'));
  assert.deepEqual(limitsView(custom), {
    ingest_rate: 10_000, daily_included_bytes: 500e9, overage_ceiling_multiplier: 3, query_rate_per_min: null,
    retention_days: 90, project_limit: null, ai_daily_credits: null,
  });
  assert.deepEqual(featuresView(effectivePlan(account('trial'))), { metrics: true, replay: true, multi_project: false });
});
