// Remote write 1.0 float samples read straight from the wire into columns (issue 12 item 2). protobufjs builds a
// Sample message and a Long for every sample, and translateV1 a MetricSample on top: three objects a sample, which
// the DuckDB worker made and dropped at ~300,000 samples/s, its garbage collector then taking 36 % of its time.
// Here each series is read once (its labels checked by the same splitLabels) and its samples go into typed arrays.
// The request thread's count is remote-write-count.ts.
//
// The columns are translateV1's samples, in the same order, for every body read here. A body is read here only when
// proto-walk.ts has found that protobufjs decodes it (every length, wire type and string sound) and it is plain
// float samples: a native histogram (whose conversion can refuse), a series whose labels splitLabels refuses, or more
// samples than the limit leave the body to the decoder (null here), which gives the exact samples or the exact refusal.
import { decodesCleanly } from '../formats/proto-walk.js';
import { Wire } from '../formats/otlp-wire.js';
import type { MetricMetadata, SampleColumns } from '../../model/metric.js';
import { seriesOfFields } from './known-series.js';
import { ColumnsBuilder } from './sample-columns.js';
import { RemoteWriteTypes } from './remote-write-proto.js';
import { REMOTE_WRITE_MAX_SAMPLES, metadataOf, splitLabels } from './remote-write.js';

/** Thrown inside the reader when the body is not plain float samples. */
class NotFloatSamples extends Error {}

const FIELD = {
  /** WriteRequest */
  timeseries: (1 << 3) | 2, metadata: (3 << 3) | 2,
  /** TimeSeries */
  labels: (1 << 3) | 2, samples: (2 << 3) | 2, histograms: (4 << 3) | 2,
  /** Label */
  name: (1 << 3) | 2, value: (2 << 3) | 2,
  /** Sample */
  sampleValue: (1 << 3) | 1, timestamp: (2 << 3) | 0,
  /** MetricMetadata */
  type: (1 << 3) | 0, familyName: (2 << 3) | 2, help: (4 << 3) | 2, unit: (5 << 3) | 2,
} as const;

/** What a read found: the series, how many samples (in the columns) and the metadata. */
interface Read {
  series: SampleColumns['series'];
  samples: number;
  metadata: Map<string, MetricMetadata>;
}

/**
 * Reads the body's samples into `columns`; null when the decoder must (see the header). `walked`: the body is known
 * to have passed proto-walk.ts (its count did, FormatRequest.bodyWalked), which is then not run again.
 */
function readBody(body: Buffer, columns: ColumnsBuilder, walked: boolean): Read | null {
  if (!walked && !decodesCleanly(body, RemoteWriteTypes.WriteRequest)) return null;
  const wire = new Wire(body);
  const read: Read = { series: [], samples: 0, metadata: new Map() };
  try {
    while (wire.pos < body.length) {
      const tag = wire.tag();
      if (tag === FIELD.timeseries) readSeries(wire, wire.end(), read, columns);
      else if (tag === FIELD.metadata) readMetadata(wire, wire.end(), read.metadata);
      else wire.skip(tag);
    }
  } catch (e) {
    if (e instanceof NotFloatSamples) return null;
    throw e;
  }
  return read.samples > REMOTE_WRITE_MAX_SAMPLES ? null : read;
}

/**
 * The body's samples as columns, or null when the decoder must read it (see the header and readBody). `expected`: how
 * many rows its count found, if known.
 */
export function wireSampleColumns(body: Buffer, walked = false, expected = 0): SampleColumns | null {
  const columns = new ColumnsBuilder(expected);
  const read = readBody(body, columns, walked);
  return read === null ? null : columns.done(read.series, [...read.metadata.values()]);
}

/** One TimeSeries: its labels wherever they lie (kept from an earlier read when the same bytes were), then its samples. */
function readSeries(wire: Wire, end: number, read: Read, columns: ColumnsBuilder): void {
  const labelFields: number[] = []; // start (at the tag) and end of each Label
  const samples: number[] = []; // start of each Sample, then its end
  while (wire.pos < end) {
    const at = wire.pos;
    const tag = wire.tag();
    if (tag === FIELD.labels) {
      wire.pos = wire.end();
      labelFields.push(at, wire.pos);
    } else if (tag === FIELD.samples) {
      const sampleEnd = wire.end();
      samples.push(wire.pos, sampleEnd);
      wire.pos = sampleEnd;
    } else if (tag === FIELD.histograms) throw new NotFloatSamples();
    else wire.skip(tag); // exemplars are not stored
  }
  // A label set splitLabels refuses is the decoder's.
  const where = `timeseries ${read.series.length}`;
  const labelled = seriesOfFields(wire, 'rw\u0000', labelFields, readLabel, (pairs) => {
    try {
      return splitLabels(pairs, where);
    } catch {
      throw new NotFloatSamples();
    }
  });
  const index = read.series.length;
  read.series.push(labelled);
  read.samples += samples.length / 2;
  if (read.samples > REMOTE_WRITE_MAX_SAMPLES) throw new NotFloatSamples();
  const after = wire.pos;
  for (let k = 0; k < samples.length; k += 2) {
    wire.pos = samples[k] ?? 0;
    const sampleEnd = samples[k + 1] ?? 0;
    // proto3 defaults; a field given twice keeps its last value, as protobufjs does.
    let value = 0;
    let timeMs = 0;
    while (wire.pos < sampleEnd) {
      const tag = wire.tag();
      if (tag === FIELD.sampleValue) value = wire.double();
      else if (tag === FIELD.timestamp) timeMs = wire.int64Number();
      else wire.skip(tag);
    }
    columns.push(index, timeMs, value);
  }
  wire.pos = after;
}

function readLabel(wire: Wire, end: number): [string, string] {
  let name = '';
  let value = '';
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === FIELD.name) name = wire.key();
    else if (tag === FIELD.value) value = wire.string();
    else wire.skip(tag);
  }
  return [name, value];
}

/** A MetricMetadata, kept as translateV1's Collector keeps it: the first of each family named. */
function readMetadata(wire: Wire, end: number, metadata: Map<string, MetricMetadata>): void {
  let type = 0;
  let name = '';
  let help = '';
  let unit = '';
  while (wire.pos < end) {
    const tag = wire.tag();
    if (tag === FIELD.type) type = wire.int32();
    else if (tag === FIELD.familyName) name = wire.string();
    else if (tag === FIELD.help) help = wire.string();
    else if (tag === FIELD.unit) unit = wire.string();
    else wire.skip(tag);
  }
  const m = metadataOf(type, name, help, unit);
  if (m.name !== '' && !metadata.has(m.name)) metadata.set(m.name, m);
}
