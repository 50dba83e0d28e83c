import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FeatureOverrides, LimitOverrides, Tier } from '../stores/control/control-store.js';
import { ServiceError } from '../errors.js';
import { checkCeiling, checkProjectCreation, requireAi, requireMetrics, requireReplay, type CountedThing } from './gates.js';
import { effectivePlan } from './plans.js';

const plan = (tier: Tier, features: FeatureOverrides = {}, limits: LimitOverrides = {}) => effectivePlan({ tier, features, limits });

function refusedWith(fn: () => void, status: number, detail: string): void {
  assert.throws(fn, (e: unknown) => e instanceof ServiceError && e.status === status && e.detail === detail);
}

void test('metrics and replay are on for every tier until switched off', () => {
  for (const tier of ['trial', 'team', 'growth', 'custom', 'trial_expired'] as const) {
    requireMetrics(plan(tier));
    requireReplay(plan(tier));
  }
});

void test('metrics off is a 503 naming the feature', () => {
  refusedWith(() => requireMetrics(plan('growth', { metrics: false })), 503, 'Metrics ingest not enabled');
});

void test('replay off is a 503 naming the feature', () => {
  refusedWith(() => requireReplay(plan('team', { replay: false })), 503, 'Session replay not enabled');
});

void test('AI is not available on trial_expired, and is on every other tier', () => {
  refusedWith(() => requireAi(plan('trial_expired')), 403, 'AI features are not available on your plan');
  for (const tier of ['trial', 'team', 'growth', 'custom'] as const) requireAi(plan(tier));
});

void test('project creation: feature off is one 403, the count reached is another', () => {
  const cases: { tier: Tier; features?: FeatureOverrides; limits?: LimitOverrides; existing: number; detail: string | null }[] = [
    { tier: 'trial', existing: 1, detail: 'Multi-project is not enabled' },
    { tier: 'trial_expired', existing: 0, detail: 'Multi-project is not enabled' },
    { tier: 'team', existing: 2, detail: null },
    { tier: 'team', existing: 3, detail: 'Project limit reached' },
    { tier: 'growth', existing: 9, detail: null },
    { tier: 'growth', existing: 10, detail: 'Project limit reached' },
    { tier: 'custom', existing: 10_000, detail: null },
    { tier: 'custom', limits: { project_limit: 4 }, existing: 4, detail: 'Project limit reached' },
    { tier: 'team', features: { multi_project: false }, existing: 1, detail: 'Multi-project is not enabled' },
    { tier: 'trial', features: { multi_project: true }, existing: 1, detail: 'Project limit reached' },
  ];
  for (const c of cases) {
    const p = plan(c.tier, c.features, c.limits);
    if (c.detail === null) checkProjectCreation(p, c.existing);
    else refusedWith(() => checkProjectCreation(p, c.existing), 403, c.detail);
  }
});

void test('creating past a ceiling is a 403 "<Thing> limit reached (<n>)"', () => {
  const cases: [Tier, CountedThing, number, string][] = [
    ['trial_expired', 'users', 3, 'User limit reached (3)'],
    ['trial_expired', 'apiKeys', 2, 'API key limit reached (2)'],
    ['trial_expired', 'liveTail', 2, 'Live-tail session limit reached (2)'],
    ['trial_expired', 'dashboards', 25, 'Dashboard limit reached (25)'],
    ['trial_expired', 'savedSearches', 50, 'Saved search limit reached (50)'],
    ['trial', 'apiKeys', 10, 'API key limit reached (10)'],
    ['team', 'apiKeys', 25, 'API key limit reached (25)'],
    ['growth', 'dashboards', 500, 'Dashboard limit reached (500)'],
  ];
  for (const [tier, thing, n, detail] of cases) {
    checkCeiling(plan(tier), thing, n - 1);
    refusedWith(() => checkCeiling(plan(tier), thing, n), 403, detail);
  }
});

void test('custom has no ceilings', () => {
  for (const thing of ['users', 'apiKeys', 'liveTail', 'dashboards', 'savedSearches'] as const) {
    checkCeiling(plan('custom'), thing, 1e9);
  }
});

void test('a dropped ceiling refuses creation but counts more than it allows without complaint', () => {
  // 25 keys made on team; the account lapses to trial_expired (2 keys): no new key, nothing else refused.
  refusedWith(() => checkCeiling(plan('trial_expired'), 'apiKeys', 25), 403, 'API key limit reached (2)');
});
