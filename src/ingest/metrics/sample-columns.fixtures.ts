// For the wire readers' tests (remote-write-wire.test.ts, otlp-metrics-wire.test.ts): columns turned back into the
// samples a parser gives, and samples in a form that compares them bit for bit.
import assert from 'node:assert/strict';
import { isStaleMarker, type MetricSample, type SampleColumns } from '../../model/metric.js';

/** The columns as samples, as the parser gives them. */
export function expand(c: SampleColumns): MetricSample[] {
  return Array.from({ length: c.count }, (_, k) => {
    const s = c.series[c.seriesOf[k] ?? -1];
    assert.ok(s, `sample ${k} has a series`);
    return { name: s.name, labels: s.labels, timeMs: c.timeMs[k] ?? NaN, value: c.values[k] ?? NaN };
  });
}

/** Values compared by their bits (a stale marker is one NaN among many), labels in their order, the rest as they are. */
export const comparable = (samples: MetricSample[]) => samples.map((s) => ({
  ...s, labels: Object.entries(s.labels),
  value: Number.isNaN(s.value) ? (isStaleMarker(s.value) ? 'stale' : 'NaN') : Object.is(s.value, -0) ? '-0' : s.value,
}));
