// POST /api/v1/ingest: a JSON array of objects, NDJSON (one object per line) or one bare object
// (wire-formats.md §3.1; VictoriaLogs app/vlinsert/jsonline). A malformed body is refused whole with a
// 400 naming the line or element; nothing of it is returned, so nothing of it is stored.
// Hot path (bench/ingest-bench): one decode of the body (utf8-text.ts), then indexOf line by line and one JSON.parse
// per line; no other copy of the text.
import { errors } from '../../errors.js';
import type { Batch } from '../../model/batch.js';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { addField, jsonText } from './fields.js';
import { parseTimestamp } from './timestamps.js';
import { utf8Text } from '../utf8-text.js';

/** Event time candidates in order; the first that parses is used (VictoriaLogs `-_time_field`). */
export const TIME_FIELDS = ['_time', 'timestamp', '@timestamp', 'time', 'date'] as const;

/** Longest slice of a parser's error message quoted in a 400 detail. */
const MAX_ERROR_TEXT = 200;

export function parseNative(body: Buffer, nowNs: bigint): Batch {
  const text = utf8Text(body);
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0; // UTF-8 byte order mark
  let first = start;
  while (first < text.length && isSpace(text.charCodeAt(first))) first++;
  if (first === text.length) return { logs: [], spans: [] };
  if (text.charCodeAt(first) === 0x5b /* [ */) return { logs: parseArray(text.slice(first), nowNs), spans: [] };
  return { logs: parseLines(text, start, nowNs), spans: [] };
}

/**
 * The entries parseNative(body) would give, refusing what it refuses. Each line is JSON.parsed (that is the check);
 * only lines long enough to nest deeply enough to overflow the flattening (fields.ts jsonText) go through
 * toLogEntry as well, so the two can never disagree on a body.
 */
export function countNative(body: Buffer, nowNs: bigint): number {
  const text = utf8Text(body);
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let first = start;
  while (first < text.length && isSpace(text.charCodeAt(first))) first++;
  if (first === text.length) return 0;
  if (text.charCodeAt(first) === 0x5b /* [ */) return parseArray(text.slice(first), nowNs).length;
  let count = 0;
  let lineNo = 0;
  for (let pos = start; pos < text.length;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    lineNo++;
    const lineEnd = end > pos && text.charCodeAt(end - 1) === 0x0d ? end - 1 : end;
    if (!isBlank(text, pos, lineEnd)) {
      // Rare: a body with a long line is checked the slow, exact way, whole.
      if (lineEnd - pos >= MIN_DEEP_LINE) return parseLines(text, start, nowNs).length;
      const line = text.slice(pos, lineEnd);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        if (count === 0) {
          const whole = singleObject(text.slice(start));
          if (whole) return [toLogEntry(whole, nowNs)].length;
        }
        throw errors.badRequest(`Line ${lineNo}: invalid JSON: ${jsonError(e, line)}`);
      }
      if (!isObject(value)) throw errors.badRequest(`Line ${lineNo}: expected a JSON object, got ${kindOf(value)}`);
      count++;
    }
    pos = end + 1;
  }
  return count;
}

/**
 * A line shorter than this cannot nest deeply enough for JSON.stringify to overflow the stack (that takes thousands
 * of levels, two characters each), so JSON.parse alone decides it.
 */
const MIN_DEEP_LINE = 1024;

function parseArray(text: string, nowNs: bigint): LogEntry[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`Body is not a valid JSON array: ${jsonError(e, text)}`);
  }
  if (!Array.isArray(value)) throw errors.badRequest('Body is not a valid JSON array');
  const logs: LogEntry[] = new Array<LogEntry>(value.length);
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!isObject(item)) throw errors.badRequest(`Element ${i}: expected a JSON object, got ${kindOf(item)}`);
    logs[i] = toLogEntry(item, nowNs);
  }
  return logs;
}

function parseLines(text: string, start: number, nowNs: bigint): LogEntry[] {
  const logs: LogEntry[] = [];
  let lineNo = 0;
  for (let pos = start; pos < text.length;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    lineNo++;
    const lineEnd = end > pos && text.charCodeAt(end - 1) === 0x0d ? end - 1 : end;
    if (!isBlank(text, pos, lineEnd)) {
      const line = text.slice(pos, lineEnd);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        // A single pretty-printed object spans lines: accept it when the whole body is one object.
        if (logs.length === 0) {
          const whole = singleObject(text.slice(start));
          if (whole) return [toLogEntry(whole, nowNs)];
        }
        throw errors.badRequest(`Line ${lineNo}: invalid JSON: ${jsonError(e, line)}`);
      }
      if (!isObject(value)) throw errors.badRequest(`Line ${lineNo}: expected a JSON object, got ${kindOf(value)}`);
      logs.push(toLogEntry(value, nowNs));
    }
    pos = end + 1;
  }
  return logs;
}

/**
 * One JSON object as a log entry; exported for the formats that carry the same free-form objects.
 * - `_msg`, else the first present (not null) of `message`, `msg`, `log`, `short_message`, `event`, `line`
 *   as VictoriaLogs' `-_msg_field` does (that field then leaves `fields`); non-strings as JSON text; none → ''.
 * - time: the first of TIME_FIELDS that parses (it leaves `fields`); 0 means "not set" as in VictoriaLogs,
 *   so it and no parseable time give `nowNs`. A time that does not parse stays in `fields` as sent.
 * - `service`, severity (`level`, `severity`, `severity_text`) and trace/span ids only when strings;
 *   ids lowercased. Anything else, a non-string of these included, is kept in `fields`, flattened.
 */
export function toLogEntry(obj: Record<string, unknown>, nowNs: bigint): LogEntry {
  // Unrolled rather than a loop over a list: named property reads are a third faster here (hot path).
  const msgKey = present(obj._msg) ? '_msg' : present(obj.message) ? 'message' : present(obj.msg) ? 'msg'
    : present(obj.log) ? 'log' : present(obj.short_message) ? 'short_message' : present(obj.event) ? 'event'
    : present(obj.line) ? 'line' : undefined;
  const msgValue = msgKey === undefined ? undefined : obj[msgKey];
  const msg = msgValue === undefined ? '' : typeof msgValue === 'string' ? msgValue : jsonText(msgValue);

  let timeKey: string | undefined;
  let timeNs = nowNs;
  for (const k of TIME_FIELDS) {
    const v = obj[k];
    if (!present(v)) continue;
    const t = parseTimestamp(v);
    if (t === null) continue;
    timeKey = k;
    if (t !== 0n) timeNs = t;
    break;
  }

  const serviceKey = typeof obj.service === 'string' ? 'service' : undefined;
  const severityKey = typeof obj.level === 'string' ? 'level' : typeof obj.severity === 'string' ? 'severity'
    : typeof obj.severity_text === 'string' ? 'severity_text' : undefined;
  const traceKey = typeof obj.trace_id === 'string' ? 'trace_id' : typeof obj.traceId === 'string' ? 'traceId' : undefined;
  const spanKey = typeof obj.span_id === 'string' ? 'span_id' : typeof obj.spanId === 'string' ? 'spanId' : undefined;

  const fields: Record<string, FieldValue> = {};
  for (const k of Object.keys(obj)) {
    if (k === msgKey || k === timeKey || k === serviceKey || k === severityKey || k === traceKey || k === spanKey) continue;
    addField(fields, k, obj[k]);
  }
  return {
    timeNs,
    observedNs: nowNs,
    service: serviceKey === undefined ? '' : (obj.service as string),
    severity: severityKey === undefined ? '' : (obj[severityKey] as string),
    msg,
    traceId: traceKey === undefined ? '' : (obj[traceKey] as string).toLowerCase(),
    spanId: spanKey === undefined ? '' : (obj[spanKey] as string).toLowerCase(),
    stream: '',
    fields,
  };
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Whether text[start, end) holds only JSON whitespace; the common line opens with `{` and exits at once. */
function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

function singleObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The parser's message (cut short), with where its `position N` falls in `text`. */
function jsonError(e: unknown, text: string): string {
  const message = e instanceof Error ? e.message : String(e);
  const short = message.length > MAX_ERROR_TEXT ? `${message.slice(0, MAX_ERROR_TEXT)}…` : message;
  const at = /at position (\d+)/.exec(message);
  if (!at) return short;
  const pos = Number(at[1]);
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  if (lineStart === 0) return `${short} (column ${pos + 1})`;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < lineStart; i = text.indexOf('\n', i + 1)) line++;
  return `${short} (line ${line}, column ${pos - lineStart + 1})`;
}
