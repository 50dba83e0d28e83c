// Samples gathered into growing typed arrays as a wire reader meets them (remote-write-wire.ts, otlp-metrics-wire.ts):
// no object per sample (issue 12 item 2), and model/metric.ts SampleColumns when done.
import type { MetricMetadata, SampleColumns } from '../../model/metric.js';

/** The most room a count given ahead makes (a body holds at most REMOTE_WRITE_MAX_SAMPLES; more grows as it is read). */
const MAX_EXPECTED = 1 << 19;

/** Growable sample columns: sample k is of series `seriesOf[k]`, at `timeMs[k]`, with `values[k]`. */
export class ColumnsBuilder {
  count = 0;
  seriesOf: Uint32Array;
  timeMs: Float64Array;
  values: Float64Array;

  /**
   * `expected`: the samples the body is known to hold (its WAL record's count), room for them from the start; growing
   * from 1,024 made ~2 MB of arrays to copy and drop for each remote-write body of 20,000 samples.
   */
  constructor(expected = 0) {
    const size = Math.max(1024, Math.min(expected, MAX_EXPECTED));
    this.seriesOf = new Uint32Array(size);
    this.timeMs = new Float64Array(size);
    this.values = new Float64Array(size);
  }

  push(series: number, timeMs: number, value: number): void {
    if (this.count === this.values.length) this.grow();
    this.seriesOf[this.count] = series;
    this.timeMs[this.count] = timeMs;
    this.values[this.count] = value;
    this.count++;
  }

  /** The columns so far, over `series` and with `metadata` (the arrays are shared, not copied). */
  done(series: SampleColumns['series'], metadata: MetricMetadata[]): SampleColumns {
    return {
      series, count: this.count, metadata,
      seriesOf: this.seriesOf.subarray(0, this.count), timeMs: this.timeMs.subarray(0, this.count),
      values: this.values.subarray(0, this.count),
    };
  }

  private grow(): void {
    const size = this.values.length * 2;
    const seriesOf = new Uint32Array(size);
    seriesOf.set(this.seriesOf);
    this.seriesOf = seriesOf;
    const timeMs = new Float64Array(size);
    timeMs.set(this.timeMs);
    this.timeMs = timeMs;
    const values = new Float64Array(size);
    values.set(this.values);
    this.values = values;
  }
}
