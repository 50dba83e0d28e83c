// DuckDB's case-insensitive substring (DESIGN §4 words and phrases; issue 12 item 4). `contains(lower(v), lower(n))`
// is the meaning, but lower() copies every value it is given, and on a needle search over ten million entries that
// copy is a third of the time (bench/search-bench.ts). ASCII characters other than letters — digits, punctuation,
// spaces — match only themselves in lower(v) too: lower() leaves them as they are and makes them from nothing else
// (it maps letters to letters; even the Kelvin sign becomes a letter, `k`). So a needle made only of them needs no
// lower() at all, and a needle holding a run of them is first looked for by that run, exactly, leaving lower() to the
// few values that hold it.
import type { ParamSink } from '../sql/dialect.js';

/** Shorter runs occur in too many values to spare much lower() work, and the extra contains() then costs more. */
const MIN_RUN = 3;

/** ASCII characters that are not letters: lower() leaves them as they are and makes none of them from others. */
const CASELESS = /[^A-Za-z\u{80}-\u{10ffff}]+/gu;

export function duckdbContainsCi(v: string, needle: string, p: ParamSink): string {
  const runs = needle.match(CASELESS) ?? [];
  if (runs.length === 1 && runs[0] === needle) return `contains(${v}, ${p.add(needle)})`;
  const full = `contains(lower(${v}), lower(${p.add(needle)}))`;
  const longest = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
  // DuckDB evaluates the cheaper side of an AND first and the other only on the rows that passed.
  return longest.length >= MIN_RUN ? `(contains(${v}, ${p.add(longest)}) AND ${full})` : full;
}
