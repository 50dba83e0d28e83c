// POST /v1/logs: OTLP/HTTP logs, protobuf or JSON (wire-formats.md §3.2).
//
// Mapping of one LogRecord to a LogEntry (fields stay flat, dotted keys):
//   _msg      ← body (strings as sent; kvlist/array/number bodies as JSON text)
//   time      ← time_unix_nano, else observed_time_unix_nano, else the time of receipt
//   severity  ← severity_text, else the short name of severity_number (INFO, WARN2, …)
//   trace/span ids ← lowercase hex; an id that is present but unreadable is dropped (the record is kept)
//   service   ← resource attribute `service.name`
//   fields    ← resource attributes as sent (`service.name`, `host.name`, …), then the scope as
//               `otel.scope.name` / `otel.scope.version` / `otel.scope.attributes.*`, then the record's
//               attributes as sent (a record attribute wins over a resource attribute of the same key);
//               plus `otel.severity_number` (when set) and `event.name` (LogRecord.event_name, when set).
// A record that cannot become an entry (not an object, or a time that is not unix ns) is counted in
// partial_success.rejected_log_records and the rest are stored; only an unreadable body is a 400.
// Signal: `rum` when every resource in the request is a browser SDK (`telemetry.sdk.language` = webjs).
// Real clients (§6): @opentelemetry/exporter-logs-otlp-http posts application/json, -otlp-proto posts
// application/x-protobuf; both stream chunked bodies, gzip with `compression: 'gzip'`; the Collector's
// otlphttp exporter posts protobuf and decodes our reply by its Content-Type.
import type { IncomingHttpHeaders } from 'node:http';
import type { Message } from 'protobufjs';
import type { CountedBody, IngestFormat, ParsedBody } from '../format.js';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { pickAtRandom, type LogWindows } from '../../model/batch.js';
import {
  RecordRejected, Rejections, anyValue, bodyText, containersOf, decodeOtlpBody, decodeOtlpProto, enumValue, flatAttributes, get,
  hexId, isObj, listOf, nanos, otlpEncodingOf, otlpReplyData, resourceContext, scopeFields, sendOtlpReply,
  resourceAt, severityName, str, SEVERITY_NAMES, type ByteRange, type ResourceContext,
} from './otlp-common.js';
import { copyFields } from './fields.js';
import { OtlpTypes } from './otlp-proto.js';
import { decodesCleanly } from './proto-walk.js';
import { protoLogEntries } from './otlp-logs-proto.js';
import { wireLogEntries, wireLogWindows } from './otlp-logs-wire.js';
import { wireLogLines } from './otlp-logs-plain.js';
import type { PlainLines } from '../../model/plain-row.js';

/** Records per window of a protobuf body read from the wire: as many as a native NDJSON window (native.ts). */
const OTLP_WINDOW_RECORDS = 2048;

export function parseOtlpLogs(body: Buffer, headers: IncomingHttpHeaders, nowNs: bigint): ParsedBody {
  const encoding = otlpEncodingOf(headers, body);
  const request = decodeOtlpBody(body, encoding, OtlpTypes.ExportLogsServiceRequest);
  const logs: LogEntry[] = [];
  const rejections = new Rejections();
  let resources = 0;
  let browser = 0;
  for (const rl of containersOf(request, 'resourceLogs', 'request')) {
    const resource = resourceContext(rl);
    resources++;
    if (resource.rum) browser++;
    for (const sl of containersOf(rl, 'scopeLogs', 'resourceLogs')) {
      const scope = scopeFields(sl);
      for (const record of listOf(sl, 'logRecords', 'scopeLogs')) {
        try {
          logs.push(toLogEntry(record, resource, scope, nowNs));
        } catch (e) {
          rejections.add(e);
        }
      }
    }
  }
  return {
    batch: { logs, spans: [] },
    signal: resources > 0 && browser === resources ? 'rum' : 'logs',
    replyData: otlpReplyData(encoding, rejections, 'log records'),
  };
}

/** The decoded protobuf request, as far as counting reads it (protobufjs gives repeated fields as arrays). */
interface ProtoLogsRequest {
  resourceLogs: { resource?: Message | null; scopeLogs: { logRecords: unknown[] }[] }[];
}

/**
 * What parseOtlpLogs gives, without the entries (IngestFormat.count, issue 12 item 2): a protobuf log record always
 * becomes an entry (it is a message, and a fixed64 time always reads), so its count is the number of records; only
 * the resources are read, for the `rum` signal, through the same resourceContext. A protobuf body is walked, not
 * decoded (proto-walk.ts); one the walk is not sure of is decoded, for the decoder's answer or refusal. JSON bodies
 * are parsed, since a JSON record can be refused one by one.
 */
export function countOtlpLogs(body: Buffer, headers: IncomingHttpHeaders, nowNs: bigint): CountedBody {
  const encoding = otlpEncodingOf(headers, body);
  if (encoding === 'json') {
    const parsed = parseOtlpLogs(body, headers, nowNs);
    const n = parsed.batch.logs.length;
    return { entries: n, rows: n, signal: parsed.signal, replyData: parsed.replyData };
  }
  const walked = walkLogsRequest(body);
  const { records, resources } = walked ?? decodeLogsRequest(body);
  const browser = resources.filter((resource) => resourceContext({ resource }).rum).length;
  return {
    bodyWalked: walked !== null,
    entries: records,
    rows: records,
    signal: resources.length > 0 && browser === resources.length ? 'rum' : 'logs',
    replyData: otlpReplyData(encoding, new Rejections(), 'log records'),
  };
}

/** What counting needs of a protobuf logs request: its records, and each ResourceLogs' resource (as toObject gives it). */
interface LogsRequestOutline {
  records: number;
  resources: (Record<string, unknown> | undefined)[];
}

const { ExportLogsServiceRequest, ResourceLogs, ScopeLogs, Resource } = OtlpTypes;

/** The outline from the wire, decoding only the resources; null when the walk is not sure the body decodes. */
function walkLogsRequest(body: Buffer): LogsRequestOutline | null {
  let records = 0;
  const resourceRanges: ByteRange[] = [];
  let resource: ByteRange;
  const clean = decodesCleanly(body, ExportLogsServiceRequest, (type, field, start, end) => {
    if (type === ScopeLogs && field === 2) records++;
    else if (type === ResourceLogs && field === 1) resource = [start, end]; // the decoder keeps the last one
    else if (type === ExportLogsServiceRequest && field === 1) {
      // Visited after its own fields, so `resource` is this ResourceLogs' own.
      resourceRanges.push(resource);
      resource = undefined;
    }
  });
  if (!clean) return null;
  return {
    records,
    resources: resourceRanges.map((range) => resourceAt(body, range)),
  };
}

/** The outline by decoding the whole body: the decoder's answer, or its refusal as a 400. */
function decodeLogsRequest(body: Buffer): LogsRequestOutline {
  const request = decodeOtlpProto(body, ExportLogsServiceRequest) as unknown as ProtoLogsRequest;
  let records = 0;
  for (const rl of request.resourceLogs) for (const sl of rl.scopeLogs) records += sl.logRecords.length;
  return {
    records,
    resources: request.resourceLogs.map((rl) => (rl.resource ? Resource.toObject(rl.resource, { longs: String }) : undefined)),
  };
}

function toLogEntry(record: unknown, resource: ResourceContext, scope: Record<string, FieldValue>, nowNs: bigint): LogEntry {
  if (!isObj(record)) throw new RecordRejected('a log record is not an object');
  const time = nanos(get(record, 'timeUnixNano'), 'timeUnixNano');
  const observed = nanos(get(record, 'observedTimeUnixNano'), 'observedTimeUnixNano');
  const severityNumber = enumValue(get(record, 'severityNumber'), SEVERITY_NAMES, 'SEVERITY_NUMBER_');
  const fields = copyFields(copyFields({}, resource.fields), scope);
  flatAttributes(get(record, 'attributes'), '', fields);
  if (severityNumber > 0) fields['otel.severity_number'] = severityNumber;
  const eventName = str(get(record, 'eventName'));
  if (eventName !== '') fields['event.name'] = eventName;
  return {
    timeNs: time > 0n ? time : observed > 0n ? observed : nowNs,
    observedNs: nowNs,
    service: resource.service,
    severity: str(get(record, 'severityText')) || severityName(severityNumber),
    msg: bodyText(anyValue(get(record, 'body'))),
    traceId: hexId(get(record, 'traceId'), 16) ?? '',
    spanId: hexId(get(record, 'spanId'), 8) ?? '',
    stream: '',
    fields,
  };
}

/**
 * parseOtlpLogs's entries for a store that appends as it parses (IngestFormat.logWindows): a protobuf body is read
 * from the wire a window of OTLP_WINDOW_RECORDS at a time (otlp-logs-wire.ts); one the wire reader leaves to the
 * decoder (otlp-logs-proto.ts, without toObject's copy), or a JSON one, is read whole when its one window is. So a
 * write holds at most one request's entries at a time. A body that no longer decodes (only a parser changed since it
 * was acknowledged could do that) gives none, reported to `onBad`.
 */
export function otlpLogWindows(
  body: Buffer, headers: IncomingHttpHeaders, nowNs: bigint, rows: number, onBad: (why: string) => void, bodyWalked = false,
): LogWindows {
  const bad = (e: unknown): void => onBad(e instanceof Error ? e.message : String(e));
  const protobuf = otlpEncodingOf(headers, body) === 'protobuf';
  let lines: PlainLines | undefined | null = null;
  // `fromWire` false: the wire reader has already left this body to the decoder.
  const entries = (fromWire = true): LogEntry[] => {
    try {
      if (!protobuf) return parseOtlpLogs(body, headers, nowNs).batch.logs;
      return (fromWire ? wireLogEntries(body, nowNs) : null)
        ?? protoLogEntries(decodeOtlpProto(body, OtlpTypes.ExportLogsServiceRequest), nowNs);
    } catch (e) {
      bad(e);
      return [];
    }
  };
  return {
    count: rows,
    *windows() {
      // From the wire a window at a time (otlp-logs-wire.ts wireLogWindows); a body the wire reader leaves to the
      // decoder, or a JSON one, is one window.
      let windows: Iterator<LogEntry[]> | undefined;
      try {
        windows = protobuf ? wireLogWindows(body, nowNs, OTLP_WINDOW_RECORDS, bodyWalked)?.[Symbol.iterator]() : undefined;
      } catch (e) {
        bad(e);
        return;
      }
      if (windows === undefined) {
        yield entries(false);
        return;
      }
      for (;;) {
        let next: IteratorResult<LogEntry[]>;
        try {
          next = windows.next();
        } catch (e) {
          bad(e); // the windows before are in the write; the rest of the body is reported, as a bad NDJSON line is
          return;
        }
        if (next.done === true) return;
        yield next.value;
      }
    },
    sample: (n) => pickAtRandom(entries(), n),
    wholeBodySample: true,
    // Records a store may write in place (otlp-logs-plain.ts), found when it first asks: the body read once more for
    // where its records are, as windows() reads it.
    get lines(): PlainLines | undefined {
      if (lines === null) {
        try {
          lines = (protobuf ? wireLogLines(body, nowNs, bodyWalked, bad) : null) ?? undefined;
        } catch {
          lines = undefined; // windows() meets the same failure, and reports it
        }
      }
      return lines;
    },
  };
}

export const otlpLogsFormat: IngestFormat = {
  name: 'otlp',
  walKey: 'otlp-logs',
  parse: (body, req) => parseOtlpLogs(body, req.headers, req.nowNs),
  count: (body, req) => countOtlpLogs(body, req.headers, req.nowNs),
  logWindows: (body, req, rows, onBad) => otlpLogWindows(body, req.headers, req.nowNs, rows, onBad, req.bodyWalked),
  reply: (ctx, accepted, parsed) =>
    sendOtlpReply(ctx, accepted, parsed.replyData, OtlpTypes.ExportLogsServiceResponse, 'rejectedLogRecords'),
};
