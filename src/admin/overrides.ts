// Parsing the admin API's `features` and `limits` objects (DESIGN §3 PATCH body), key by key.
import type { FeatureOverrides, LimitOverrides } from '../stores/control/control-store.js';
import { errors } from '../errors.js';

const FEATURE_KEYS = ['metrics', 'replay', 'multi_project'] as const;
const LIMIT_KEYS = [
  'ingest_rate', 'daily_included_bytes', 'overage_ceiling_multiplier', 'query_rate_per_min',
  'retention_days', 'project_limit', 'ai_daily_credits',
] as const;

export function parseFeatures(value: Record<string, unknown> | undefined): FeatureOverrides | undefined {
  if (!value) return undefined;
  const out: FeatureOverrides = {};
  for (const [k, v] of Object.entries(value)) {
    const key = FEATURE_KEYS.find((f) => f === k);
    if (!key) throw errors.badRequest(`unknown feature ${k}; features are ${FEATURE_KEYS.join(', ')}`);
    if (typeof v !== 'boolean') throw errors.badRequest(`features.${k} must be true or false`);
    out[key] = v;
  }
  return out;
}

export function parseLimits(value: Record<string, unknown> | undefined): LimitOverrides | undefined {
  if (!value) return undefined;
  const out: LimitOverrides = {};
  for (const [k, v] of Object.entries(value)) {
    const key = LIMIT_KEYS.find((f) => f === k);
    if (!key) throw errors.badRequest(`unknown limit ${k}; limits are ${LIMIT_KEYS.join(', ')}`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw errors.badRequest(`limits.${k} must be a number ≥ 0`);
    out[key] = v;
  }
  return out;
}
