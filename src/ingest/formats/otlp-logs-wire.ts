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
import { decodeOtlpProto, type ResourceContext } from './otlp-common.js';
import { copyFields } from './fields.js';
import { OtlpTypes } from './otlp-proto.js';
import { protoLogEntries, recordEntry, type RecordParts } from './otlp-logs-proto.js';
import { NotPlain, readAnyValue, putAttribute, readContainer, readRequest, readResource, readScope, resourceOf, scopeOf, Wire } from './otlp-wire.js';

/** The entries of a protobuf ExportLogsServiceRequest body, or null when the decoder must read it. */
export function wireLogEntries(body: Buffer, nowNs: bigint): LogEntry[] | null {
  const windows = wireLogWindows(body, nowNs, Infinity);
  return windows === null ? null : [...windows].flat();
}

/**
 * wireLogEntries's entries, `size` at a time, each window read only when it is reached; null when the decoder must
 * read the body. A first pass reads the resources and scopes and only locates each LogRecord, so a write holds one
 * window's entries rather than a whole request's: with the bench's 4,000-record requests, the worker's young
 * generation copied each request's live entries at every scavenge, ~17 % of its time under load. A record found not
 * plain only once its window is read (a body or AnyValue member given twice) turns the rest of the body over to the
 * decoder: its entries are protoLogEntries's, record for record, so the windows go on from that record. `walked`: the
 * body is known to have passed proto-walk.ts (FormatRequest.bodyWalked), which is then not run again.
 */
export function wireLogWindows(body: Buffer, nowNs: bigint, size: number, walked = false): Iterable<LogEntry[]> | null {
  const located = locateRecords(body, walked);
  if (located === null) return null;
  const count = located.count;
  const readLocated = (k: number): LogEntry | null => readLocatedEntry(located, k, nowNs);
  return {
    *[Symbol.iterator]() {
      let decoded: LogEntry[] | null = null;
      for (let from = 0; from < count; from += size) {
        const to = Math.min(count, from + size);
        const logs: LogEntry[] = [];
        for (let k = from; k < to; k++) {
          const entry = decoded?.[k] ?? readLocated(k);
          if (entry) {
            logs.push(entry);
            continue;
          }
          decoded = protoLogEntries(decodeOtlpProto(body, OtlpTypes.ExportLogsServiceRequest), nowNs);
          logs.push(...decoded.slice(k, to));
          break;
        }
        yield logs;
      }
    },
  };
}

/** A body's LogRecords, found by a first pass that reads only their resources and scopes (wireLogWindows). */
export interface LocatedRecords {
  readonly wire: Wire;
  readonly count: number;
  /** Per record, in order: where its bytes start and end. */
  readonly spans: readonly number[];
  /** Per record: which of `contexts` its resource and scope are. */
  readonly owners: readonly number[];
  readonly contexts: readonly { resource: ResourceContext; scope: Record<string, FieldValue> }[];
}

/** The records of `body`, or null when the decoder must read it (see wireLogWindows). */
export function locateRecords(body: Buffer, walked: boolean): LocatedRecords | null {
  const spans: number[] = [];
  const owners: number[] = [];
  const contexts: { resource: ResourceContext; scope: Record<string, FieldValue> }[] = [];
  let wire: Wire | undefined;
  const located = readRequest(body, OtlpTypes.ExportLogsServiceRequest, walked, (w, end) => {
    wire = w;
    readContainer(w, end, readResource, resourceOf, (resource, scopesEnd) => {
      readContainer(w, scopesEnd, readScope, scopeOf, (scope, recordEnd) => {
        if (contexts[contexts.length - 1]?.scope !== scope) contexts.push({ resource, scope });
        spans.push(w.pos, recordEnd);
        owners.push(contexts.length - 1);
      });
    });
  });
  if (!located) return null;
  return { wire: wire ?? new Wire(body), count: owners.length, spans, owners, contexts };
}

/** The entry of record `k`, or null when the record is not plain. */
export function readLocatedEntry(located: LocatedRecords, k: number, nowNs: bigint): LogEntry | null {
  const context = located.contexts[located.owners[k] ?? 0];
  if (!context) return null;
  const w = located.wire;
  w.pos = located.spans[2 * k] ?? 0;
  const fields = copyFields(copyFields({}, context.resource.fields), context.scope);
  try {
    return recordEntry(readRecord(w, located.spans[2 * k + 1] ?? 0, fields), context.resource, nowNs);
  } catch (e) {
    if (e instanceof NotPlain) return null;
    throw e;
  }
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
