// LogsQL text that RCA shows (DESIGN §9: every reply carries the exact queries, so a person can paste them into
// Explore and get the same numbers): the user's filter without its pipes, the window as an absolute `_time` range,
// exact-match filters with values quoted as the lexer reads them (src/query/logsql/lexer.ts), and RE2 patterns.
import { msToRfc3339 } from '../evidence.js';

/** A double-quoted LogsQL string: JSON's escapes (`\"`, `\\`, `\n`, `\uXXXX`) are the lexer's escapes. */
export function quoteValue(v: string): string {
  return JSON.stringify(v);
}

/** A field name as LogsQL text: bare when it is a plain word, else quoted; `severity` is written `level`. */
export function fieldText(name: string): string {
  const n = name === 'severity' ? 'level' : name;
  return /^[A-Za-z_][\w.-]*$/.test(n) ? n : quoteValue(n);
}

/** `field:="value"`: the whole value equals, case-sensitively (the parser's `exact` filter). */
export function exactFilter(field: string, value: string): string {
  return `${fieldText(field)}:=${quoteValue(value)}`;
}

/** `field:in("a", "b")`. */
export function inFilter(field: string, values: readonly string[]): string {
  return `${fieldText(field)}:in(${values.map(quoteValue).join(', ')})`;
}

/** `_time:[start, end)`: the half-open window the store reads. */
export function timeFilter(startMs: number, endMs: number): string {
  return `_time:[${msToRfc3339(startMs)}, ${msToRfc3339(endMs)})`;
}

/**
 * The query's filter part: its text up to the first `|` outside a quoted string (RCA ignores pipes). A `|` can
 * stand nowhere else in a filter: it ends bare words and time values alike.
 */
export function filterPart(query: string): string {
  let quote = '';
  for (let i = 0; i < query.length; i++) {
    const c = query[i] ?? '';
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '|') return query.slice(0, i).trim();
  }
  return query.trim();
}

/** Filters ANDed: the user's filter in parentheses (it may hold `or`), then the rest; `*` and '' select all. */
export function andFilters(filter: string, ...rest: string[]): string {
  const parts = filter === '' || filter === '*' ? [] : [`(${filter})`];
  parts.push(...rest.filter((r) => r !== ''));
  return parts.length === 0 ? '*' : parts.join(' ');
}

/** Every ASCII punctuation character escaped, which RE2 then reads literally. */
export function escapeRegexp(s: string): string {
  return s.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}
