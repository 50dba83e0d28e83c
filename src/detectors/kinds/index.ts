// The detector catalog (DESIGN §8, `GET /api/v1/detectors/catalog`): every kind by name, each one file in this folder
// behind the DetectorKind interface. Adding a kind is adding its file and one line here. The catalog is the kinds'
// specs as data and is the same on every plan tier (spec "Plans").
import type { DetectorKind, KindSpec } from '../model.js';
import { absence } from './absence.js';
import { errorRatio } from './error-ratio.js';
import { logAnomaly } from './log-anomaly.js';
import { logThreshold } from './log-threshold.js';
import { metricAnomaly } from './metric-anomaly.js';
import { metricThreshold } from './metric-threshold.js';
import { newLogPattern } from './new-log-pattern.js';
import { rumErrorSpike } from './rum-error-spike.js';
import { traceLatency } from './trace-latency.js';

const ALL: readonly DetectorKind[] = [
  logThreshold,
  metricThreshold,
  logAnomaly,
  metricAnomaly,
  errorRatio,
  newLogPattern,
  absence,
  traceLatency,
  rumErrorSpike,
];

/** kind name → kind. */
export const KINDS: ReadonlyMap<string, DetectorKind> = new Map(ALL.map((k) => [k.spec.kind, k]));

/** The catalog body: `{kinds: [{kind, signal, description, params, min_history_s, eligibility}]}`. */
export function catalog(): { kinds: KindSpec[] } {
  return { kinds: ALL.map((k) => k.spec) };
}
