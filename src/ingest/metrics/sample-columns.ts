// Samples gathered into growing typed arrays as a wire reader meets them (remote-write-wire.ts, otlp-metrics-wire.ts):
// no object per sample (issue 12 item 2), and model/metric.ts SampleColumns when done.
import type { MetricMetadata, SampleColumns } from '../../model/metric.js';

/** Growable sample columns: sample k is of series `seriesOf[k]`, at `timeMs[k]`, with `values[k]`. */
export class ColumnsBuilder {
  count = 0;
  seriesOf = new Uint32Array(1024);
  timeMs = new Float64Array(1024);
  values = new Float64Array(1024);

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
