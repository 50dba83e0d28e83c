// OTLP metrics in protobuf, gauges and sums read straight from the wire into columns (issue 12 item 2). The decoder's
// path builds a protobufjs message per data point, a Long per time, then an OTLP/JSON-shaped object of them all
// (toObject), then a MetricSample per point (otlp-metrics-translate.ts): ~8.5 µs a point on the store worker, and as
// much again on the request thread, which parsed every body whole only to count it. Most of it was garbage, which
// V8's helper threads then scavenged on the machine's other core.
//
// Here a request is read once, in order, as translateOtlpMetrics reads the decoded request: the same names, labels,
// times, values, stale markers, metadata and target_info series, sample for sample. The request thread's count reads
// the same way and makes no labels at all. A body is read here only when proto-walk.ts has found that protobufjs
// decodes it, and only when it is plain: a histogram, exponential histogram or summary (whose points the translator
// can refuse), a metric whose name sanitises to nothing, an array or map attribute on a resource or point, or a
// message or oneof given twice leave the body to the decoder (null here), which gives the exact samples, the exact
// partial success, the exact refusal. A point whose series was read before gets that series's labels object again
// (known-series.ts), without reading its attributes.
import { staleMarker, type MetricMetadata, type SampleColumns } from '../../model/metric.js';
import { NotPlain, readContainer, readRequest, Wire } from '../formats/otlp-wire.js';
import type { ParsedMetrics } from './parsed-metrics.js';
import { OtlpMetricsTypes } from './otlp-metrics-proto.js';
import { formatPromFloat, otelLabels, otelMetricName, otelUnitWord } from './prom-names.js';
import { seriesOfFields, type Series } from './known-series.js';
import { ColumnsBuilder } from './sample-columns.js';

const LEN = 2;
const VARINT = 0;
const I64 = 1;
const tag = (field: number, wireType: number): number => (field << 3) | wireType;

const FIELD = {
  /** Resource, InstrumentationScope, KeyValue */
  attributes: tag(1, LEN), scopeName: tag(1, LEN), scopeVersion: tag(2, LEN), key: tag(1, LEN), value: tag(2, LEN),
  /** Metric */
  name: tag(1, LEN), description: tag(2, LEN), unit: tag(3, LEN),
  gauge: tag(5, LEN), sum: tag(7, LEN), histogram: tag(9, LEN), exponentialHistogram: tag(10, LEN), summary: tag(11, LEN),
  /** Gauge, Sum */
  dataPoints: tag(1, LEN), temporality: tag(2, VARINT), monotonic: tag(3, VARINT),
  /** NumberDataPoint */
  pointAttributes: tag(7, LEN), time: tag(3, I64), asDouble: tag(4, I64), asInt: tag(6, I64), exemplars: tag(5, LEN),
  flags: tag(8, VARINT),
} as const;

/** AnyValue members: string, bool, int, double, array, kvlist, bytes. */
const ANY = { string: tag(1, LEN), bool: tag(2, VARINT), int: tag(3, VARINT), double: tag(4, I64), bytes: tag(7, LEN) } as const;

/** AggregationTemporality DELTA; DataPointFlags NO_RECORDED_VALUE (otlp-metrics-translate.ts). */
const DELTA = 1;
const NO_RECORDED_VALUE = 1;
const STALE = staleMarker();

const SERVICE_NAME = 'service.name';
const SERVICE_NAMESPACE = 'service.namespace';
const SERVICE_INSTANCE_ID = 'service.instance.id';

type Pairs = [string, string][];

/** The labels every point of one scope of one resource carries, and their JSON (part of a point's series key). */
interface ScopeLabels {
  base: Readonly<Record<string, string>>;
  key: string;
}

/** What one resource's items share: its identity labels and the attributes that go into target_info. */
interface ResourceLabels {
  identity: Record<string, string>;
  others: Pairs;
}

/** A read in progress: the series and columns (when asked for), and what the count needs. */
class Reading {
  readonly series: SampleColumns['series'] = [];
  readonly metadata = new Map<string, MetricMetadata>();
  /** Store sample rows: every point's, and each target_info. */
  rows = 0;
  points = 0;
  exemplars = 0;
  private maxTimeMs = 0;

  constructor(private readonly nowMs: number, private readonly columns: ColumnsBuilder | null) {}

  /** One ResourceMetrics, to `end`: its scopes' metrics, then its target_info series (translateOtlpMetrics). */
  resourceMetrics(wire: Wire, end: number): void {
    const first = this.rows;
    this.maxTimeMs = 0;
    let resource: ResourceLabels = { identity: {}, others: [] };
    readContainer(wire, end, (w, e) => readPairs(w, e, FIELD.attributes), (attrs) => {
      resource = resourceLabels(attrs ?? []);
      return resource;
    }, (r, itemEnd) => this.scopeMetrics(wire, itemEnd, r));
    if (this.rows > first && resource.others.length > 0) {
      const labels = this.columns === null ? null : { ...otelLabels(resource.others), ...resource.identity };
      this.push(labels === null ? null : { name: 'target_info', labels }, this.maxTimeMs, 1);
      this.meta('target_info', 'gauge', 'Target metadata', '');
    }
  }

  /** One ScopeMetrics: its metrics, each point labelled with the scope's name and version and the resource's identity. */
  private scopeMetrics(wire: Wire, end: number, resource: ResourceLabels): void {
    readContainer(wire, end, readScopeName, (scope): ScopeLabels => {
      const base: Record<string, string> = {};
      if (scope !== null && scope.name !== '') base.otel_scope_name = scope.name;
      if (scope !== null && scope.version !== '') base.otel_scope_version = scope.version;
      Object.assign(base, resource.identity);
      return { base, key: JSON.stringify(base) };
    }, (scope, itemEnd) => this.metric(wire, itemEnd, scope));
  }

  private metric(wire: Wire, end: number, scope: ScopeLabels): void {
    let name = '';
    let help = '';
    let unit = '';
    let kind: 'gauge' | 'sum' | null = null;
    let dataStart = 0;
    let dataEnd = 0;
    while (wire.pos < end) {
      const t = wire.tag();
      if (t === FIELD.name) name = wire.string();
      else if (t === FIELD.description) help = wire.string();
      else if (t === FIELD.unit) unit = wire.string();
      else if (t === FIELD.gauge || t === FIELD.sum) {
        if (kind !== null) throw new NotPlain(); // a oneof given twice: the decoder's to read
        kind = t === FIELD.gauge ? 'gauge' : 'sum';
        dataEnd = wire.end();
        dataStart = wire.pos;
        wire.pos = dataEnd;
      } else if (t === FIELD.histogram || t === FIELD.exponentialHistogram || t === FIELD.summary) throw new NotPlain();
      else wire.skip(t);
    }
    if (kind === null) return; // no data: nothing to store, nothing to refuse
    const points: number[] = []; // start and end of each NumberDataPoint
    let temporality = 0;
    let monotonic = false;
    wire.pos = dataStart;
    while (wire.pos < dataEnd) {
      const t = wire.tag();
      if (t === FIELD.dataPoints) {
        const pointEnd = wire.end();
        points.push(wire.pos, pointEnd);
        wire.pos = pointEnd;
      } else if (kind === 'sum' && t === FIELD.temporality) temporality = wire.int32();
      else if (kind === 'sum' && t === FIELD.monotonic) monotonic = wire.bool();
      else wire.skip(t);
    }
    const family = otelMetricName(name, unit, monotonic ? 'counter' : 'gauge');
    if (family === '') throw new NotPlain(); // refused points: the decoder's partial success
    const type = temporality === DELTA && kind === 'sum' ? 'unknown' : monotonic ? 'counter' : 'gauge';
    this.meta(family, type, help, otelUnitWord(unit));
    for (let k = 0; k < points.length; k += 2) {
      wire.pos = points[k] ?? 0;
      this.point(wire, points[k + 1] ?? 0, family, scope);
    }
    wire.pos = end;
  }

  /** One NumberDataPoint: its sample, or a stale marker when it has no recorded value. */
  private point(wire: Wire, end: number, family: string, scope: ScopeLabels): void {
    const attributes: number[] | null = this.columns === null ? null : []; // where each attributes field starts and ends
    let timeMs = 0;
    let value = 0;
    let valueKind = 0; // the oneof member last read: 1 as_double, 2 as_int
    let flags = 0;
    while (wire.pos < end) {
      const at = wire.pos;
      const t = wire.tag();
      if (t === FIELD.pointAttributes && attributes !== null) {
        wire.pos = wire.end();
        attributes.push(at, wire.pos);
      }
      else if (t === FIELD.time) timeMs = wire.fixed64NanosToMs();
      else if (t === FIELD.asDouble || t === FIELD.asInt) {
        const member = t === FIELD.asDouble ? 1 : 2;
        if (valueKind !== 0 && valueKind !== member) throw new NotPlain();
        valueKind = member;
        value = member === 1 ? wire.double() : wire.sfixed64Number();
      } else if (t === FIELD.flags) flags = wire.varint32() >>> 0;
      else {
        if (t === FIELD.exemplars) this.exemplars++; // counted, not stored
        wire.skip(t);
      }
    }
    this.points++;
    // A time of 0 is no time: the receipt time, as nanosToMsAt reads it.
    // What makes a point's labels: its family, its scope's labels and the bytes of its attributes (known-series.ts).
    const series = attributes === null ? null : seriesOfFields(wire, `otlp\u0000${family}\u0000${scope.key}\u0000`, attributes,
      readPair, (pairs) => ({ name: family, labels: { ...otelLabels(pairs), ...scope.base } }));
    wire.pos = end;
    this.push(series, timeMs === 0 ? this.nowMs : timeMs, (flags & NO_RECORDED_VALUE) !== 0 ? STALE : value);
  }

  /** One sample row; with columns, of `series` (null only when counting). */
  private push(series: Series | null, timeMs: number, value: number): void {
    this.rows++;
    if (timeMs > this.maxTimeMs) this.maxTimeMs = timeMs;
    if (this.columns === null || series === null) return;
    this.columns.push(this.series.push(series) - 1, timeMs, value);
  }

  private meta(name: string, type: string, help: string, unit: string): void {
    if (!this.metadata.has(name)) this.metadata.set(name, { name, type, help, unit });
  }
}

/** The KeyValues of field `field` of the message ending at `end`, as label pairs. */
function readPairs(wire: Wire, end: number, field: number): Pairs {
  const pairs: Pairs = [];
  while (wire.pos < end) {
    const t = wire.tag();
    if (t === field) pairs.push(readPair(wire, wire.end()));
    else wire.skip(t);
  }
  return pairs;
}

/** An InstrumentationScope's name and version (its attributes are not labels). */
function readScopeName(wire: Wire, end: number): { name: string; version: string } {
  let name = '';
  let version = '';
  while (wire.pos < end) {
    const t = wire.tag();
    if (t === FIELD.scopeName) name = wire.string();
    else if (t === FIELD.scopeVersion) version = wire.string();
    else wire.skip(t);
  }
  return { name, version };
}

/** A KeyValue as attributesAt reads it: the key, and its value as the string a label carries (anyValueString). */
function readPair(wire: Wire, end: number): [string, string] {
  let key = '';
  let value = '';
  let hasValue = false;
  while (wire.pos < end) {
    const t = wire.tag();
    if (t === FIELD.key) key = wire.key();
    else if (t === FIELD.value) {
      if (hasValue) throw new NotPlain();
      hasValue = true;
      value = readLabelValue(wire, wire.end());
    } else wire.skip(t);
  }
  return [key, value];
}

/** An AnyValue as anyValueString gives it; an array or a map (JSON of the decoded value) is the decoder's. */
function readLabelValue(wire: Wire, end: number): string {
  let value = '';
  let members = 0;
  while (wire.pos < end) {
    const t = wire.tag();
    const field = t >>> 3;
    if (field >= 1 && field <= 7 && ++members > 1) throw new NotPlain();
    if (t === ANY.string) value = wire.string();
    else if (t === ANY.bool) value = String(wire.bool());
    else if (t === ANY.int) value = wire.int64Text();
    else if (t === ANY.double) value = formatPromFloat(wire.double());
    else if (t === ANY.bytes) value = wire.base64();
    else if (field === 5 || field === 6) throw new NotPlain();
    else wire.skip(t);
  }
  return value;
}

/** `job` and `instance` from the identifying attributes (the last of each), and the rest for target_info. */
function resourceLabels(attrs: Pairs): ResourceLabels {
  let name = '';
  let namespace = '';
  let instance = '';
  const others: Pairs = [];
  for (const pair of attrs) {
    if (pair[0] === SERVICE_NAME) name = pair[1];
    else if (pair[0] === SERVICE_NAMESPACE) namespace = pair[1];
    else if (pair[0] === SERVICE_INSTANCE_ID) instance = pair[1];
    else others.push(pair);
  }
  const identity: Record<string, string> = {};
  if (name !== '') identity.job = namespace !== '' ? `${namespace}/${name}` : name;
  if (instance !== '') identity.instance = instance;
  return { identity, others };
}

/** Reads the body, or null when the decoder must (see the header). `walked`: its count already walked it. */
function readBody(body: Buffer, nowMs: number, columns: ColumnsBuilder | null, walked: boolean): Reading | null {
  const reading = new Reading(nowMs, columns);
  const read = readRequest(body, OtlpMetricsTypes.ExportMetricsServiceRequest, walked, (wire, end) => reading.resourceMetrics(wire, end));
  return read ? reading : null;
}

/**
 * The samples and metadata parseOtlpMetrics gives of a protobuf body, as columns; null when the decoder must read it
 * (see the header). `nowMs`: the receipt time, for points without one; `expected`: how many rows its count found, if
 * known.
 */
export function otlpWireColumns(body: Buffer, nowMs: number, walked = false, expected = 0): SampleColumns | null {
  const columns = new ColumnsBuilder(expected);
  const reading = readBody(body, nowMs, columns, walked);
  return reading === null ? null : columns.done(reading.series, [...reading.metadata.values()]);
}

/**
 * What the request thread needs of a protobuf body (IngestFormat.count): parseOtlpMetrics's stats and its store rows
 * (samples and metadata families), from the wire, with no sample or label made. Null when the decoder must read it.
 */
export function otlpWireCount(body: Buffer, nowMs: number): { stats: ParsedMetrics['stats']; rows: number } | null {
  const reading = readBody(body, nowMs, null, false);
  if (reading === null) return null;
  return { stats: { samples: reading.points, histograms: 0, exemplars: reading.exemplars }, rows: reading.rows + reading.metadata.size };
}
