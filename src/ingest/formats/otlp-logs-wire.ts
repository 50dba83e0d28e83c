// OTLP protobuf logs read straight from the wire (issue 12 item 2), for the DuckDB worker, which parses each request
// again as it appends it (otlp-logs.ts otlpLogWindows). protobufjs builds a message object for every record,
// KeyValue and AnyValue, and a Long for every 64-bit value, only for protoLogEntries to read them once: ~5.5 µs a
// record on the bench's bodies, more than the mapping itself. Here the bytes become the entry's values directly:
// decoding and mapping took 6.6-7.6 µs a record on those bodies, reading from the wire takes 3.9-4.7 (one thread,
// the same process, interleaved). In the service the DuckDB worker's CPU went from 12.2-12.8 to 9.9-10.6 µs an entry.
//
// The entries are protoLogEntries's, for every body read here. A body is read here only when proto-walk.ts has found
// that protobufjs decodes it (so every length, wire type and string is sound) and it is plain: no message field and no
// AnyValue member given twice. Given twice, protobufjs merges the second message into the first (and keeps both
// members of an AnyValue); such a body — no real exporter writes one — is left to the decoder (null here).
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import type { ResourceContext } from './otlp-common.js';
import { copyFields } from './fields.js';
import { OtlpTypes } from './otlp-proto.js';
import { recordEntry, type RecordParts } from './otlp-logs-proto.js';
import { NotPlain, readAnyValue, putAttribute, readContainer, readRequest, readResource, readScope, resourceOf, scopeOf, type Wire } from './otlp-wire.js';

/** The entries of a protobuf ExportLogsServiceRequest body, or null when the decoder must read it. */
export function wireLogEntries(body: Buffer, nowNs: bigint): LogEntry[] | null {
  const logs: LogEntry[] = [];
  const read = readRequest(body, OtlpTypes.ExportLogsServiceRequest, (wire, end) => readResourceLogs(wire, end, nowNs, logs));
  return read ? logs : null;
}

/** ResourceLogs: its resource, then each ScopeLogs in order. */
function readResourceLogs(wire: Wire, end: number, nowNs: bigint, logs: LogEntry[]): void {
  readContainer(wire, end, readResource, resourceOf, (resource, scopeEnd) => readScopeLogs(wire, scopeEnd, resource, nowNs, logs));
}

/** ScopeLogs: its scope, then each LogRecord in order. */
function readScopeLogs(wire: Wire, end: number, resource: ResourceContext, nowNs: bigint, logs: LogEntry[]): void {
  readContainer(wire, end, readScope, scopeOf, (scope, recordEnd) => {
    const fields = copyFields(copyFields({}, resource.fields), scope);
    logs.push(recordEntry(readRecord(wire, recordEnd, fields), resource, nowNs));
  });
}

/** A LogRecord's parts, its attributes put into `fields` (which holds its resource's and scope's) as read. */
function readRecord(wire: Wire, end: number, fields: Record<string, FieldValue>): RecordParts {
  const r: RecordParts = {
    time: 0n, observed: 0n, severityNumber: 0, severityText: '', body: null, fields, traceId: undefined, spanId: undefined, eventName: '',
  };
  let hasBody = false;
  while (wire.pos < end) {
    const tag = wire.tag();
    switch (tag) {
      case (1 << 3) | 1: r.time = wire.fixed64(); break;
      case (11 << 3) | 1: r.observed = wire.fixed64(); break;
      case (2 << 3) | 0: r.severityNumber = wire.int32(); break;
      case (3 << 3) | 2: r.severityText = wire.string(); break;
      case (5 << 3) | 2:
        if (hasBody) throw new NotPlain();
        hasBody = true;
        r.body = readAnyValue(wire, wire.end());
        break;
      case (6 << 3) | 2: putAttribute(wire, fields); break;
      case (9 << 3) | 2: r.traceId = wire.bytesOrUnset(); break;
      case (10 << 3) | 2: r.spanId = wire.bytesOrUnset(); break;
      case (12 << 3) | 2: r.eventName = wire.string(); break;
      default: wire.skip(tag);
    }
  }
  return r;
}
