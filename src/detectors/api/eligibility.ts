// Whether a detector may be created as given (DESIGN §8: "Creating one that its signal, history or eligibility does
// not allow → 422 with a detail that says which condition fails and, for history, when it will be met"). The
// conditions, in order: the kind is in the catalog; its parameters parse (the kind's ParamError); every query it
// will run parses with the real LogsQL and PromQL parsers (`query_valid`, with the parser's position); the signal is
// on for the account (`signal_enabled`: metrics needs the plan's metrics feature, spec "Plan gates"); the data has
// the history the kind needs (`min_history`); and, for kinds that state it, the query has matched data before
// (`has_data`). The catalog is the same on every tier: no condition looks at the tier itself (spec "Plans").
import { ServiceError, errors } from '../../errors.js';
import type { EffectivePlan } from '../../limits/plans.js';
import { compileLogsqlAt } from '../../query/logsql-request.js';
import { parsePromql, PromqlError } from '../../query/promql/parse.js';
import { msToNs } from '../../model/time.js';
import { ParamError, type DetectorData, type DetectorKind, type DetectorSignal } from '../model.js';

/** A 422 with the failing condition named, beside the `detail` (a create form can point at the field). */
export class DetectorIneligible extends Error {
  readonly error: ServiceError;
  constructor(readonly condition: string, detail: string, readonly metAtMs: number | null = null, readonly param: string | null = null) {
    super(detail);
    this.name = 'DetectorIneligible';
    this.error = errors.unprocessable(detail);
  }

  /** Fields of the 422 body beside `detail` and `error`. */
  extra(): Record<string, string> {
    const out: Record<string, string> = { condition: this.condition };
    if (this.metAtMs !== null) out.met_at = new Date(this.metAtMs).toISOString();
    if (this.param !== null) out.param = this.param;
    return out;
  }
}

export interface EligibilityInput {
  kinds: ReadonlyMap<string, DetectorKind>;
  kind: string;
  params: Record<string, unknown>;
  plan: EffectivePlan;
  /** The tenant's data (oldest data), counted against its query rate like any read. */
  data: DetectorData;
  nowMs: number;
}

const SIGNAL_NAMES: Record<DetectorSignal, string> = { logs: 'logs', metrics: 'metrics', traces: 'traces', rum: 'browser RUM' };

/** "7 d 3 h", "45 min", "30 s": how long, for people. */
export function spanText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const parts: string[] = [];
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) parts.push(`${d} d`);
  if (h > 0) parts.push(`${h} h`);
  if (m > 0 && d === 0) parts.push(`${m} min`);
  if (parts.length === 0) parts.push(`${s % 60} s`);
  return parts.join(' ');
}

/** The kind and its parsed parameters when every condition holds; throws DetectorIneligible naming the first that fails. */
export async function checkEligible(input: EligibilityInput): Promise<{ kind: DetectorKind; params: unknown }> {
  const kind = input.kinds.get(input.kind);
  if (!kind) {
    throw new DetectorIneligible('kind', `unknown kind "${input.kind}"; the catalog (GET /api/v1/detectors/catalog) has ${[...input.kinds.keys()].join(', ')}`);
  }
  let params: unknown;
  try {
    params = kind.parseParams(input.params);
  } catch (e) {
    if (!(e instanceof ParamError)) throw e;
    // A query parameter the parser refuses is the query_valid condition; anything else is the parameters'.
    const type = kind.spec.params.find((p) => p.name === e.param)?.type;
    const condition = type === 'logsql' || type === 'promql' ? 'query_valid' : 'params';
    throw new DetectorIneligible(condition, `${condition}: params.${e.message}`, null, e.param);
  }

  const queries = kind.queries(params);
  for (const text of queries.logsql) {
    try {
      compileLogsqlAt(text, msToNs(input.nowMs));
    } catch (e) {
      if (e instanceof ServiceError) throw new DetectorIneligible('query_valid', `query_valid: LogsQL ${JSON.stringify(text)}: ${e.detail}`);
      throw e;
    }
  }
  for (const text of queries.promql) {
    try {
      parsePromql(text);
    } catch (e) {
      if (e instanceof PromqlError) throw new DetectorIneligible('query_valid', `query_valid: PromQL ${JSON.stringify(text)}: ${e.message}`);
      throw e;
    }
  }

  const needs = kind.requirements?.(params) ?? { signal: kind.spec.signal, min_history_s: kind.spec.min_history_s };
  if (needs.signal === 'metrics' && !input.plan.features.metrics) {
    throw new DetectorIneligible('signal_enabled',
      `signal_enabled: ${kind.spec.kind} as configured reads metrics, and the metrics feature is off for this account`);
  }

  const checksData = kind.spec.eligibility.some((r) => r.id === 'has_data');
  if (needs.min_history_s <= 0 && !checksData) return { kind, params };
  // The history is that of the detector's own query where it has one (a filter's first matching entry).
  const query = needs.signal === 'metrics' ? queries.promql[0] : needs.signal === 'traces' ? undefined : queries.logsql[0];
  const oldest = await input.data.oldestDataMs(needs.signal, query);
  const signal = SIGNAL_NAMES[needs.signal];
  const needMs = needs.min_history_s * 1000;
  if (needMs > 0) {
    const need = `${spanText(needMs)} (${needs.min_history_s} s)`;
    if (oldest === null) {
      const metAt = input.nowMs + needMs;
      throw new DetectorIneligible('min_history',
        `min_history: ${kind.spec.kind} needs ${need} of ${signal} history and there is none yet; it will be met ${spanText(needMs)} after the first data arrives, at ${new Date(metAt).toISOString()} at the earliest`,
        metAt);
    }
    if (input.nowMs - oldest < needMs) {
      const metAt = oldest + needMs;
      throw new DetectorIneligible('min_history',
        `min_history: ${kind.spec.kind} needs ${need} of ${signal} history; the oldest data is from ${new Date(oldest).toISOString()}, ${spanText(input.nowMs - oldest)} of history; it will be met at ${new Date(metAt).toISOString()}`,
        metAt);
    }
  }
  if (oldest === null && checksData) {
    throw new DetectorIneligible('has_data', `has_data: the detector's ${signal} query has matched no data yet, so it would report absence at once`);
  }
  return { kind, params };
}
