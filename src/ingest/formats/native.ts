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
import { isAscii } from 'node:buffer';
import { textOf, textWindowEnd, utf8Text } from '../utf8-text.js';

/** Event time candidates in order; the first that parses is used (VictoriaLogs `-_time_field`). */
export const TIME_FIELDS = ['_time', 'timestamp', '@timestamp', 'time', 'date'] as const;

/** Longest slice of a parser's error message quoted in a 400 detail. */
const MAX_ERROR_TEXT = 200;

export function parseNative(body: Buffer, nowNs: bigint): Batch {
  const first = firstContent(body);
  if (first === body.length) return { logs: [], spans: [] };
  if (body[first] === 0x5b /* [ */) return { logs: parseArray(utf8Text(body.subarray(first)), nowNs), spans: [] };
  return { logs: parseLines(body, nowNs), spans: [] };
}

/**
 * The entries parseNative(body) would give, refusing what it refuses. Each line is JSON.parsed (that is the check);
 * only lines long enough to nest deeply enough to overflow the flattening (fields.ts jsonText) go through
 * toLogEntry as well, so the two can never disagree on a body.
 */
export function countNative(body: Buffer, nowNs: bigint): number {
  const first = firstContent(body);
  if (first === body.length) return 0;
  if (body[first] === 0x5b /* [ */) return parseArray(utf8Text(body.subarray(first)), nowNs).length;
  // Set from the visitor, so an object rather than `let`s that control flow would take as never changed.
  const seen = { count: 0, deep: false };
  eachObject(body, (_value, length) => {
    // Rare: a body with a long line is checked the slow, exact way, whole.
    if (length >= MIN_DEEP_LINE) {
      seen.deep = true;
      return false;
    }
    seen.count++;
    return true;
  });
  return seen.deep ? parseLines(body, nowNs).length : seen.count;
}

/** Where the body's content starts: past a UTF-8 byte order mark and JSON whitespace (the length if none). */
function firstContent(body: Buffer): number {
  let at = bomLength(body);
  while (at < body.length && isSpace(body[at] ?? 0)) at++;
  return at;
}

function bomLength(body: Buffer): number {
  return body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
}

/**
 * Calls `visit` with each line that is not blank, as a span [pos, end) of `text` (a CR before its newline left out)
 * and its 1-based number in the body; `visit` returns false to stop. The body is decoded a window at a time
 * (utf8-text.ts textWindowEnd): no string of the whole body is made.
 */
function eachLine(body: Buffer, visit: (text: string, pos: number, end: number, lineNo: number) => boolean): void {
  const ascii = isAscii(body);
  let lineNo = 0;
  for (let from = bomLength(body); from < body.length;) {
    const to = textWindowEnd(body, from);
    const text = textOf(body, ascii, from, to);
    for (let pos = 0; pos < text.length;) {
      let end = text.indexOf('\n', pos);
      if (end < 0) end = text.length;
      lineNo++;
      const lineEnd = end > pos && text.charCodeAt(end - 1) === 0x0d ? end - 1 : end;
      if (!isBlank(text, pos, lineEnd) && !visit(text, pos, lineEnd, lineNo)) return;
      pos = end + 1;
    }
    from = to;
  }
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

function parseLines(body: Buffer, nowNs: bigint): LogEntry[] {
  const logs: LogEntry[] = [];
  eachObject(body, (value) => {
    logs.push(toLogEntry(value, nowNs));
    return true;
  });
  return logs;
}

/**
 * Calls `visit` with the object of each line and the line's length; `visit` returns false to stop. A line that is not
 * JSON, or not an object, is a 400 naming it — except that a body whose first line does not parse may be a single
 * pretty-printed object over many lines: then that object alone is visited (with the body's length).
 */
function eachObject(body: Buffer, visit: (value: Record<string, unknown>, length: number) => boolean): void {
  let parsed = 0;
  eachLine(body, (text, pos, end, lineNo) => {
    const line = text.slice(pos, end);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      const whole = parsed === 0 ? singleObject(body) : undefined;
      if (whole) {
        visit(whole, body.length);
        return false;
      }
      throw errors.badRequest(`Line ${lineNo}: invalid JSON: ${jsonError(e, line)}`);
    }
    if (!isObject(value)) throw errors.badRequest(`Line ${lineNo}: expected a JSON object, got ${kindOf(value)}`);
    parsed++;
    return visit(value, end - pos);
  });
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

/** The body from its first byte past a byte order mark, when it is one JSON object (over any number of lines). */
function singleObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(utf8Text(body.subarray(bomLength(body))));
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
