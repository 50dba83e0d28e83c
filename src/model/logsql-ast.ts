// The parsed form of a LogsQL query (DESIGN §4): one filter expression, then pipes applied in order.
// Syntax follows VictoriaLogs LogsQL (https://docs.victoriametrics.com/victorialogs/logsql/); the parser
// resolves aliases and relative times, so a store compiles this without knowing the query text or the clock.

/**
 * Field names as a store sees them. `_msg`, `_time`, `_stream`, `service`, `severity`, `trace_id` and
 * `span_id` are the fixed columns; any other name is a key of the entry's flat `fields` object.
 * The parser writes `level` as `severity` and `""` as `_msg` (canonicalField).
 */
export type FieldName = string;

export type Filter =
  /** `*`: every entry. */
  | { kind: 'all' }
  | { kind: 'and'; filters: Filter[] }
  | { kind: 'or'; filters: Filter[] }
  | { kind: 'not'; filter: Filter }
  /** A bare word (`error`, `field:error`): case-insensitive substring of the field (DESIGN §4). */
  | { kind: 'word'; field: FieldName; value: string }
  /** A quoted phrase (`"connection refused"`): same match as a word, spaces included. */
  | { kind: 'phrase'; field: FieldName; value: string }
  /** `field:err*`: some word of the field starts with the value, case-insensitively. */
  | { kind: 'prefix'; field: FieldName; value: string }
  /** `field:="x"`: the whole value equals, case-sensitively. */
  | { kind: 'exact'; field: FieldName; value: string }
  /** `field:="x"*`: the whole value starts with, case-sensitively. */
  | { kind: 'exactPrefix'; field: FieldName; value: string }
  /** `field:in(a, "b c")`: the whole value equals one of them. */
  | { kind: 'in'; field: FieldName; values: string[] }
  /** `field:~"re"`: RE2 match anywhere in the value, case-sensitive unless the pattern says `(?i)`. */
  | { kind: 'regexp'; field: FieldName; pattern: string }
  /** `field:>10`, `field:<=2.5`: the value read as a number; non-numbers never match. */
  | { kind: 'range'; field: FieldName; op: RangeOp; value: number }
  /** `field:*`: a non-empty value (VictoriaLogs treats empty and missing alike). */
  | { kind: 'exists'; field: FieldName }
  /** `field:""`: empty or missing. */
  | { kind: 'empty'; field: FieldName }
  /** `_time:…`, resolved to the half-open range [startNs, endNs); a missing side is unbounded. */
  | { kind: 'time'; startNs?: bigint; endNs?: bigint }
  /** `_stream:{label="v", …}`: every matcher holds for the entry's stream labels. */
  | { kind: 'stream'; matchers: StreamMatcher[] };

export type RangeOp = '>' | '>=' | '<' | '<=';

export interface StreamMatcher {
  label: string;
  /** `=` / `!=` compare the whole value; `=~` / `!~` match an RE2 pattern against the whole value. */
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface SortKey {
  field: FieldName;
  desc: boolean;
}

export interface StatsGroup {
  field: FieldName;
  /** `_time:1h` in `by (…)`: bucket the time to this step (ns), aligned to the unix epoch. */
  bucketNs?: bigint;
  /** `_time:1d offset 2h`: buckets start this long after the epoch-aligned ones (a time zone's midnight). */
  offsetNs?: bigint;
}

export type StatsFn = 'count' | 'count_uniq' | 'sum' | 'min' | 'max' | 'avg' | 'quantile' | 'median';

export interface StatsFunc {
  fn: StatsFn;
  /** The argument; absent for `count()` / `count(*)`. */
  field?: FieldName;
  /** `quantile(phi, field)`: the phi in [0, 1]; `median` is quantile 0.5. */
  phi?: number;
  /** The result column: `as name`, or VictoriaLogs' default such as `count(*)` or `sum(duration)`. */
  name: string;
}

export type Pipe =
  | { kind: 'limit'; n: number }
  | { kind: 'offset'; n: number }
  | { kind: 'sort'; by: SortKey[] }
  /** `| fields a, b`: keep only these. */
  | { kind: 'fields'; fields: FieldName[] }
  /** `| delete a, b`: drop these. */
  | { kind: 'delete'; fields: FieldName[] }
  | { kind: 'stats'; by: StatsGroup[]; funcs: StatsFunc[] };

export interface LogsqlQuery {
  filter: Filter;
  pipes: Pipe[];
}

/** Names that address a fixed column rather than a key of `fields`. */
export const FIXED_FIELDS: readonly FieldName[] = ['_msg', '_time', '_stream', 'service', 'severity', 'trace_id', 'span_id'];

/** `level` is another name of `severity` (DESIGN §4), and an empty name is `_msg` as in VictoriaLogs. */
export function canonicalField(name: string): FieldName {
  if (name === 'level') return 'severity';
  return name === '' ? '_msg' : name;
}
