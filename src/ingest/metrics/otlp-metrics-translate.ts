// OTLP metrics (wire-formats.md §3.16) → Prometheus samples, by the OpenTelemetry → Prometheus compatibility
// rules (names and labels in prom-names.ts). Input is the OTLP/JSON-shaped object that both encodings decode
// into; see otlp-metrics.ts for the storage decisions (delta temporality, exponential histograms).
import { staleMarker, type MetricMetadata, type MetricSample } from '../../model/metric.js';
import { cumulativeLe, otlpExpBuckets, type Bucket } from './histogram-buckets.js';
import {
  arrayAt, asObject, attributesAt, boolAt, doubleAt, enumAt, field, has, intAt, nanosToMsAt, objectAt, stringAt,
  toDouble, toInt, type JsonObject,
} from './otlp-read.js';
import { formatPromFloat, otelLabels, otelMetricName, otelUnitWord, type OtelNameKind } from './prom-names.js';

const TEMPORALITY_NAMES = {
  AGGREGATION_TEMPORALITY_UNSPECIFIED: 0, AGGREGATION_TEMPORALITY_DELTA: 1, AGGREGATION_TEMPORALITY_CUMULATIVE: 2,
} as const;
const DELTA = 1;
/** DataPointFlags bit 1 (§3.16): the point marks the end of a series, stored as a Prometheus stale marker. */
const NO_RECORDED_VALUE = 1;
/** The scale range the OTLP data model allows for exponential histograms. */
const MIN_SCALE = -10;
const MAX_SCALE = 20;

const SERVICE_NAME = 'service.name';
const SERVICE_NAMESPACE = 'service.namespace';
const SERVICE_INSTANCE_ID = 'service.instance.id';

export interface OtlpTranslation {
  samples: MetricSample[];
  metadata: MetricMetadata[];
  stats: { samples: number; histograms: number; exemplars: number };
  rejectedDataPoints: number;
  rejectReasons: string[];
}

/** Labels every point of one scope in one resource carries: scope labels, then job / instance. */
type BaseLabels = Readonly<Record<string, string>>;

interface Point {
  p: JsonObject;
  path: string;
  labels: Record<string, string>;
  timeMs: number;
  stale: boolean;
}

class Translator {
  readonly samples: MetricSample[] = [];
  readonly metadata = new Map<string, MetricMetadata>();
  readonly stats = { samples: 0, histograms: 0, exemplars: 0 };
  rejected = 0;
  readonly reasons: string[] = [];
  private maxTimeMs = 0;

  constructor(private readonly nowMs: number) {}

  resource(rm: JsonObject, path: string): void {
    const resource = objectAt(rm, 'resource', path) ?? {};
    const attrs = attributesAt(resource, 'attributes', `${path}.resource`);
    const identity = resourceIdentity(attrs);
    const first = this.samples.length;
    this.maxTimeMs = 0;
    arrayAt(rm, 'scopeMetrics', path).forEach((sm, i) => {
      const p = `${path}.scopeMetrics[${i}]`;
      const scopeMetrics = asObject(sm, p);
      const scope = objectAt(scopeMetrics, 'scope', p) ?? {};
      const base: Record<string, string> = {};
      const scopeName = stringAt(scope, 'name', `${p}.scope`);
      const scopeVersion = stringAt(scope, 'version', `${p}.scope`);
      if (scopeName !== '') base.otel_scope_name = scopeName;
      if (scopeVersion !== '') base.otel_scope_version = scopeVersion;
      Object.assign(base, identity);
      arrayAt(scopeMetrics, 'metrics', p).forEach((m, j) => this.metric(asObject(m, `${p}.metrics[${j}]`), `${p}.metrics[${j}]`, base));
    });
    // Resource attributes other than the identifying three become one `target_info` series per resource
    // (compatibility spec), with job / instance so it joins onto the resource's series.
    const others = attrs.filter(([k]) => k !== SERVICE_NAME && k !== SERVICE_NAMESPACE && k !== SERVICE_INSTANCE_ID);
    if (this.samples.length > first && others.length > 0) {
      this.samples.push({ name: 'target_info', labels: { ...otelLabels(others), ...identity }, timeMs: this.maxTimeMs, value: 1 });
      this.meta('target_info', 'gauge', 'Target metadata', '');
    }
  }

  private metric(m: JsonObject, path: string, base: BaseLabels): void {
    const name = stringAt(m, 'name', path);
    const help = stringAt(m, 'description', path);
    const unit = stringAt(m, 'unit', path);
    const kind = (['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'] as const).find((k) => has(m, k));
    if (kind === undefined) return; // no data: nothing to store, nothing to reject
    const data = asObject(field(m, kind), `${path}.${kind}`);
    const dataPath = `${path}.${kind}`;
    const points = arrayAt(data, 'dataPoints', dataPath);
    const delta = enumAt(data, 'aggregationTemporality', dataPath, TEMPORALITY_NAMES) === DELTA;
    const monotonic = kind === 'sum' && boolAt(data, 'isMonotonic', dataPath);
    const nameKind: OtelNameKind = monotonic ? 'counter' : kind === 'gauge' || kind === 'sum' ? 'gauge' : 'plain';
    const family = otelMetricName(name, unit, nameKind);
    if (family === '') {
      this.reject(points.length, `metric "${name}" has no usable Prometheus name`);
      return;
    }
    // Delta series are stored as they come (see otlp-metrics.ts); their metadata says `unknown`, not counter.
    const type = delta && kind !== 'gauge' ? 'unknown'
      : monotonic ? 'counter' : kind === 'gauge' || kind === 'sum' ? 'gauge'
        : kind === 'summary' ? 'summary' : 'histogram';
    this.meta(family, type, help, otelUnitWord(unit));
    points.forEach((raw, i) => {
      const p = `${dataPath}.dataPoints[${i}]`;
      const pt = this.point(asObject(raw, p), p, base);
      if (kind === 'gauge' || kind === 'sum') this.number(family, pt);
      else if (kind === 'histogram') this.histogram(family, pt);
      else if (kind === 'exponentialHistogram') this.expHistogram(family, pt);
      else this.summary(family, pt);
    });
  }

  private point(p: JsonObject, path: string, base: BaseLabels): Point {
    const labels = { ...otelLabels(attributesAt(p, 'attributes', path)), ...base };
    const timeMs = nanosToMsAt(p, 'timeUnixNano', path) ?? this.nowMs;
    const stale = (intAt(p, 'flags', path) & NO_RECORDED_VALUE) !== 0;
    this.stats.exemplars += arrayAt(p, 'exemplars', path).length;
    return { p, path, labels, timeMs, stale };
  }

  private number(family: string, pt: Point): void {
    const d = field(pt.p, 'asDouble');
    const i = field(pt.p, 'asInt');
    // A point with neither value counts as 0, as Prometheus's OTLP translator does.
    const value = d !== undefined ? toDouble(d, `${pt.path}.asDouble`) : i !== undefined ? toInt(i, `${pt.path}.asInt`) : 0;
    this.stats.samples++;
    this.push(family, pt.labels, pt.timeMs, pt.stale ? staleMarker() : value);
  }

  /** Explicit-bounds histogram: cumulative `_bucket{le}` (bounds + `+Inf`), `_sum` when present, `_count`. */
  private histogram(family: string, pt: Point): void {
    const counts = arrayAt(pt.p, 'bucketCounts', pt.path).map((c, i) => toInt(c, `${pt.path}.bucketCounts[${i}]`));
    const bounds = arrayAt(pt.p, 'explicitBounds', pt.path).map((b, i) => toDouble(b, `${pt.path}.explicitBounds[${i}]`));
    if (counts.length > 0 && counts.length !== bounds.length + 1) {
      this.reject(1, `${pt.path}: ${counts.length} bucket counts for ${bounds.length} bounds (want bounds + 1)`);
      return;
    }
    const buckets: Bucket[] = bounds.map((upper, i) => ({ upper, count: counts[i] ?? 0 }));
    this.histogramSeries(family, pt, buckets);
  }

  /** Exponential histogram → explicit `_bucket{le}` at the bucket boundaries (histogram-buckets.ts). */
  private expHistogram(family: string, pt: Point): void {
    const scale = intAt(pt.p, 'scale', pt.path);
    if (scale < MIN_SCALE || scale > MAX_SCALE) {
      this.reject(1, `${pt.path}: scale ${scale} is outside ${MIN_SCALE}..${MAX_SCALE}`);
      return;
    }
    const side = (key: 'positive' | 'negative', sign: 1 | -1): Bucket[] => {
      const b = objectAt(pt.p, key, pt.path);
      if (b === undefined) return [];
      const p = `${pt.path}.${key}`;
      const counts = arrayAt(b, 'bucketCounts', p).map((c, i) => toInt(c, `${p}.bucketCounts[${i}]`));
      return otlpExpBuckets(scale, intAt(b, 'offset', p), counts, sign);
    };
    const zero: Bucket = { upper: doubleAt(pt.p, 'zeroThreshold', pt.path) ?? 0, count: intAt(pt.p, 'zeroCount', pt.path) };
    this.histogramSeries(family, pt, [...side('negative', -1), zero, ...side('positive', 1)]);
  }

  private histogramSeries(family: string, pt: Point, buckets: Bucket[]): void {
    const count = intAt(pt.p, 'count', pt.path);
    const sum = doubleAt(pt.p, 'sum', pt.path);
    const v = (x: number): number => (pt.stale ? staleMarker() : x);
    for (const b of cumulativeLe(buckets, count)) {
      this.push(`${family}_bucket`, { ...pt.labels, le: b.le }, pt.timeMs, v(b.count));
    }
    if (sum !== undefined) this.push(`${family}_sum`, pt.labels, pt.timeMs, v(sum));
    this.push(`${family}_count`, pt.labels, pt.timeMs, v(count));
    this.stats.samples++;
    this.stats.histograms++;
  }

  /** Summary: `{quantile="…"}` series, `_sum`, `_count`. */
  private summary(family: string, pt: Point): void {
    const v = (x: number): number => (pt.stale ? staleMarker() : x);
    arrayAt(pt.p, 'quantileValues', pt.path).forEach((q, i) => {
      const p = `${pt.path}.quantileValues[${i}]`;
      const qv = asObject(q, p);
      const quantile = formatPromFloat(doubleAt(qv, 'quantile', p) ?? 0);
      this.push(family, { ...pt.labels, quantile }, pt.timeMs, v(doubleAt(qv, 'value', p) ?? 0));
    });
    this.push(`${family}_sum`, pt.labels, pt.timeMs, v(doubleAt(pt.p, 'sum', pt.path) ?? 0));
    this.push(`${family}_count`, pt.labels, pt.timeMs, v(intAt(pt.p, 'count', pt.path)));
    this.stats.samples++;
  }

  private push(name: string, labels: Record<string, string>, timeMs: number, value: number): void {
    this.samples.push({ name, labels, timeMs, value });
    if (timeMs > this.maxTimeMs) this.maxTimeMs = timeMs;
  }

  private meta(name: string, type: string, help: string, unit: string): void {
    if (!this.metadata.has(name)) this.metadata.set(name, { name, type, help, unit });
  }

  private reject(points: number, reason: string): void {
    this.rejected += points;
    if (this.reasons.length < 5) this.reasons.push(reason);
  }
}

/** `job` = `service.namespace/service.name` (or `service.name`), `instance` = `service.instance.id`. */
function resourceIdentity(attrs: readonly (readonly [string, string])[]): Record<string, string> {
  const get = (key: string): string => attrs.filter(([k]) => k === key).map(([, v]) => v).pop() ?? '';
  const name = get(SERVICE_NAME);
  const namespace = get(SERVICE_NAMESPACE);
  const instance = get(SERVICE_INSTANCE_ID);
  const out: Record<string, string> = {};
  if (name !== '') out.job = namespace !== '' ? `${namespace}/${name}` : name;
  if (instance !== '') out.instance = instance;
  return out;
}

export function translateOtlpMetrics(doc: JsonObject, nowMs: number): OtlpTranslation {
  const t = new Translator(nowMs);
  arrayAt(doc, 'resourceMetrics', 'request').forEach((rm, i) => {
    t.resource(asObject(rm, `resourceMetrics[${i}]`), `resourceMetrics[${i}]`);
  });
  return {
    samples: t.samples,
    metadata: [...t.metadata.values()],
    stats: t.stats,
    rejectedDataPoints: t.rejected,
    rejectReasons: t.reasons,
  };
}
