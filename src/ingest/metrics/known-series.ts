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

export type Series = SampleColumns['series'][number];

const MAX_KNOWN_SERIES = 100_000;
const known = new Map<string, Series>();

export function knownSeries(key: string): Series | undefined {
  return known.get(key);
}

/** Keeps `series` under `key`; its labels object is never changed after. */
export function keepSeries(key: string, series: Series): void {
  if (known.size >= MAX_KNOWN_SERIES) known.clear();
  known.set(key, series);
}
