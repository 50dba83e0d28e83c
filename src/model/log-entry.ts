// The normalized log record every wire format produces and every telemetry store consumes.
// Imports nothing of the project (STYLE.md: model/ is the ground floor).

/** Field values kept beside the fixed columns: whatever JSON a shipper sent. */
export type FieldValue = string | number | boolean | null | FieldValue[] | { [key: string]: FieldValue };

export interface LogEntry {
  /** Event time, unix nanoseconds. */
  timeNs: bigint;
  /** When the service received it, unix nanoseconds. */
  observedNs: bigint;
  /** `service` field, or '' when the format carries none. */
  service: string;
  /** Severity text as the format gave it (`info`, `ERROR`, …), or ''. */
  severity: string;
  /** `_msg`: the message. */
  msg: string;
  /** Lowercase hex, or '' when absent. */
  traceId: string;
  spanId: string;
  /** `_stream`: the stream labels in `{k="v",…}` form, or '' (the store then derives it from service). */
  stream: string;
  /** Every other field the entry carried. */
  fields: Record<string, FieldValue>;
}
