// The normalized metric sample: one value of one series at one time, in the Prometheus data model that
// the query API speaks (series = metric name + label set). OTLP points are translated into it by the
// OpenTelemetry-to-Prometheus compatibility rules before they get here.

export interface MetricSample {
  /** `__name__`. */
  name: string;
  /** Every other label; values are strings. */
  labels: Record<string, string>;
  /** Unix milliseconds (Prometheus resolution). */
  timeMs: number;
  /** NaN with the stale-marker bit pattern is kept as is (see STALE_NAN_BITS). */
  value: number;
}

/**
 * Samples as columns (remote write 1.0 read from the wire, remote-write-wire.ts): sample k is of
 * `series[seriesOf[k]]`, at `timeMs[k]` with `values[k]`. Every sample of a series shares its entry, and no sample
 * is an object of its own.
 */
export interface SampleColumns {
  series: { name: string; labels: Record<string, string> }[];
  count: number;
  seriesOf: Uint32Array;
  timeMs: Float64Array;
  values: Float64Array;
  metadata: MetricMetadata[];
}

/**
 * `labels[name] = value`, safe for a label named `__proto__`: names come from the wire, and a plain assignment of that
 * one sets no property (the label would vanish without a word). Defined as JSON.parse defines it: an own, enumerable
 * property, which Object.keys, JSON.stringify and a spread all see.
 */
export function setLabel(labels: Record<string, string>, name: string, value: string): void {
  if (name === '__proto__') Object.defineProperty(labels, name, { value, enumerable: true, writable: true, configurable: true });
  else labels[name] = value;
}

/** A label's value, '' when the set has none: `labels[name]` would give `__proto__` the prototype object. */
export function labelValue(labels: Readonly<Record<string, string>>, name: string): string {
  if (name === '__proto__' && !Object.hasOwn(labels, name)) return '';
  return labels[name] ?? '';
}

/** What `/api/v1/metadata` reports for a metric family. */
export interface MetricMetadata {
  name: string;
  /** counter, gauge, histogram, gaugehistogram, summary, info, stateset, unknown */
  type: string;
  help: string;
  unit: string;
}

/** Prometheus marks a series stale with this NaN (remote-write 1.0 spec). */
export const STALE_NAN_BITS = 0x7ff0000000000002n;

export function isStaleMarker(value: number): boolean {
  if (!Number.isNaN(value)) return false;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  return view.getBigUint64(0) === STALE_NAN_BITS;
}

export function staleMarker(): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, STALE_NAN_BITS);
  return view.getFloat64(0);
}
