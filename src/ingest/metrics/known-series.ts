// Series the wire readers have read before (remote-write-wire.ts, otlp-metrics-wire.ts), kept by the bytes their
// labels came in (issue 12 item 2). A Prometheus server or an OTel exporter sends every series again with each scrape
// or interval; reading its labels afresh (strings, pairs, a labels object) and the store then sorting, serialising and
// hashing them (samples-sql.ts SeriesIndex) was most of the store worker's time under OTLP metrics, where each point
// is a series of its own. A series kept here hands out the same labels object, whose identity the store keeps. The
// same bytes read as the same labels (and pass the same checks), so a hit needs no reading at all; a key says which
// reader made it.
//
// Bounded: past the limit it starts again empty, which costs only the reading it saved. A series kept here and its
// identity in the store take ~950 bytes of the worker's heap (the bench's OTLP series), so ~95 MB at the limit.
import type { SampleColumns } from '../../model/metric.js';
import type { Wire } from '../formats/otlp-wire.js';

export type Series = SampleColumns['series'][number];

const MAX_KNOWN_SERIES = 100_000;
const known = new Map<string, Series>();

/**
 * The series whose labels lie in the message fields at `fields` (start at the tag, then end, for each): the one kept
 * under `prefix` and those fields' bytes, else `make` of the pairs `readField` reads from them, then kept. `make` may
 * throw (a refused label set), and nothing is kept. Without `keep` (a count) nothing is looked up or kept. The cursor
 * is left where it was.
 */
export function seriesOfFields(
  wire: Wire, prefix: string, fields: readonly number[], readField: (wire: Wire, end: number) => [string, string],
  make: (pairs: [string, string][]) => Series, keep: boolean,
): Series {
  let key = prefix;
  if (keep) {
    for (let i = 0; i < fields.length; i += 2) key += wire.bytesKey(fields[i] ?? 0, fields[i + 1] ?? 0);
    const series = known.get(key);
    if (series !== undefined) return series;
  }
  const after = wire.pos;
  const pairs: [string, string][] = [];
  for (let i = 0; i < fields.length; i += 2) {
    wire.pos = fields[i] ?? 0;
    wire.tag();
    pairs.push(readField(wire, wire.end()));
  }
  wire.pos = after;
  const series = make(pairs);
  if (keep) {
    // Its labels object is never changed after.
    if (known.size >= MAX_KNOWN_SERIES) known.clear();
    known.set(key, series);
  }
  return series;
}
