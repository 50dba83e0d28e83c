// What a logs question asks for, before it is written as LogsQL (logsql-render.ts): filter clauses (each possibly
// negated), and a count, breakdown or top-N (issue 10 item 2: "counts and breakdowns", "top-N").

export type Clause =
  /** A value of a field: `field:v` (word) or `field:=v` (exact) or `_stream:{field="v"}` (stream-only label). */
  | { kind: 'value'; field: string; value: string; match: 'word' | 'exact' | 'stream' }
  /** A phrase of the message: `"connection refused"`. */
  | { kind: 'phrase'; text: string }
  /** A severity: `level:error` (the store's `severity`, reached as `level`). */
  | { kind: 'level'; level: string }
  /** A number compared: `status:>=500`. */
  | { kind: 'range'; field: string; op: '>' | '>=' | '<' | '<='; value: number }
  /** A field that is present: `trace_id:*`. */
  | { kind: 'exists'; field: string };

export interface Condition {
  clause: Clause;
  negated: boolean;
}

export interface LogsIntent {
  conditions: Condition[];
  /** `count()` or `count_uniq(field)`; absent with no count asked (but present whenever groupBy or top is). */
  count?: { uniqField?: string };
  /** Stats groups: field names, or `_time:1h` for "per hour". */
  groupBy: string[];
  /** Top-N groups by count. */
  top?: number;
  /** The newest N entries ("last 5 errors"). */
  newest?: number;
}
