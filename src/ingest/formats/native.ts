// POST /api/v1/ingest: a JSON array of objects, NDJSON (one object per line) or one bare object
// (wire-formats.md §3.1; VictoriaLogs app/vlinsert/jsonline). A malformed body is refused whole with a
// 400 naming the line or element; nothing of it is returned, so nothing of it is stored.
// Hot path (bench/ingest-bench): the request thread checks each line's bytes in place (countNative, json-lines.ts);
// the DuckDB worker parses them, one JSON.parse per line over 64 KB windows of text, as it appends (nativeLogWindows).
import { errors } from '../../errors.js';
import type { Batch, LogWindows } from '../../model/batch.js';
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { addField, jsonText } from './fields.js';
import { parseTimestamp } from './timestamps.js';
import { isAscii } from 'node:buffer';
import { TEXT_WINDOW_BYTES, textOf, textWindowEnd, utf8Text } from '../utf8-text.js';
import { jsonObjectDepth } from './json-scan.js';
import { countJsonLines } from './json-lines.js';
import { PlainLineReader } from './native-plain.js';
import type { PlainLines } from '../../model/plain-row.js';

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
 * The entries parseNative(body) would give, refusing what it refuses. Each line is checked in place, in WebAssembly
 * (json-lines.ts; a line longer than its window by json-scan.ts's walk), with no object built: the store's worker
 * parses it later. A body the check refuses, or one with a line nested deeply enough to overflow the flattening
 * (fields.ts jsonText), goes through parseNative's own path, which gives the exact 400 (or reads a single
 * pretty-printed object); so the two can never disagree on a body.
 */
export function countNative(body: Buffer, nowNs: bigint): number {
  const first = firstContent(body);
  if (first === body.length) return 0;
  if (body[first] === 0x5b /* [ */) return parseArray(utf8Text(body.subarray(first)), nowNs).length;
  const count = countJsonLines(body, bomLength(body), body.length, MAX_SAFE_DEPTH) ?? countObjectLines(body);
  return count >= 0 ? count : parseLines(body, nowNs).length;
}

/** How many lines of `body` are not blank, when each is one JSON object nested less than MAX_SAFE_DEPTH; else -1. */
function countObjectLines(body: Buffer): number {
  let count = 0;
  eachLineSpan(body, (pos, end) => {
    const depth = jsonObjectDepth(body, pos, end);
    count = depth < 0 || depth >= MAX_SAFE_DEPTH ? -1 : count + 1;
    return count >= 0;
  });
  return count;
}

/**
 * Calls `visit` with each line of `body` that is not blank, as a byte span [pos, end) (a CR before its newline left
 * out); `visit` returns false to stop. A newline byte is never part of a UTF-8 sequence, so no decoding is needed.
 */
function eachLineSpan(body: Buffer, visit: (pos: number, end: number) => boolean): void {
  for (let pos = bomLength(body); pos < body.length;) {
    let end = body.indexOf(0x0a, pos);
    if (end < 0) end = body.length;
    const lineEnd = end > pos && body[end - 1] === 0x0d ? end - 1 : end;
    if (!isBlankBytes(body, pos, lineEnd) && !visit(pos, lineEnd)) return;
    pos = end + 1;
  }
}

/** One reader for every body: the field names it keeps are the same from one body to the next. */
const plainReader = new PlainLineReader();

/** Entries per window of nativeLogWindows: parsed, then appended by the store before the next window is made. */
export const LOG_WINDOW_ENTRIES = 2048;

/**
 * parseNative(body)'s entries as LogWindows (model/batch.ts), for a store that appends each window before it parses
 * the next (issue 12 item 1). For a body countNative has accepted as lines of objects; null for anything else (an
 * array, a single object, a body whose first line is not an object), which the caller parses whole. A line that no
 * longer parses (only a parser changed since the body was acknowledged could do that) is left out and handed to
 * `onBadLine` with why: by then rows before it may be in the write, so it cannot refuse the body as a whole.
 */
export function nativeLogWindows(body: Buffer, nowNs: bigint, onBadLine: (why: string) => void): LogWindows | null {
  const first = firstContent(body);
  if (first === body.length || body[first] === 0x5b /* [ */) return null;
  // Where each line that is not blank starts and ends, in bytes (a CR before its newline left out).
  const starts: number[] = [];
  const ends: number[] = [];
  eachLineSpan(body, (pos, end) => {
    starts.push(pos);
    ends.push(end);
    return true;
  });
  const ascii = isAscii(body);
  const lineText = (i: number): string => body.toString(ascii ? 'latin1' : 'utf8', starts[i], ends[i]);
  if (starts.length < 2 || !isObject(tryParse(lineText(0)))) return null;
  const entry = (line: string): LogEntry | undefined => {
    const value = tryParse(line);
    return isObject(value) ? toLogEntry(value, nowNs) : undefined;
  };
  const badLine = (i: number): void => onBadLine(`its entry ${i + 1} is not a JSON object`);
  // Read in place by a store that can (native-plain.ts): bytes are characters, so spans of them are the strings.
  const lines: PlainLines | undefined = !ascii ? undefined : {
    count: starts.length,
    read: (i, row) => plainReader.read(body, starts[i] ?? 0, ends[i] ?? 0, nowNs, row),
    entry(i) {
      const e = entry(lineText(i));
      if (e === undefined) badLine(i);
      return e;
    },
  };
  return {
    count: starts.length,
    ...(lines === undefined ? {} : { lines }),
    sample(n) {
      if (n >= starts.length) return [...this.windows()].flat();
      const picked: LogEntry[] = [];
      for (let k = 0; k < n; k++) {
        const e = entry(lineText(Math.floor(Math.random() * starts.length)));
        if (e) picked.push(e);
      }
      return picked;
    },
    *windows() {
      let logs: LogEntry[] = [];
      for (let i = 0; i < starts.length;) {
        // The lines from i whose text fits in one decoding window (at least one line): as eachLine does, one short
        // string for them when bytes are characters (a longer one is made on fresh large-object pages); else each
        // line decodes alone.
        const base = starts[i] ?? 0;
        const last = Math.min(starts.length, i + LOG_WINDOW_ENTRIES - logs.length);
        let j = i + 1;
        while (j < last && (ends[j] ?? 0) - base <= TEXT_WINDOW_BYTES) j++;
        const text = ascii ? textOf(body, true, base, ends[j - 1] ?? base) : '';
        for (; i < j; i++) {
          const e = entry(ascii ? text.slice((starts[i] ?? 0) - base, (ends[i] ?? 0) - base) : lineText(i));
          if (e) logs.push(e);
          else badLine(i);
        }
        if (logs.length >= LOG_WINDOW_ENTRIES) {
          yield logs;
          logs = [];
        }
      }
      if (logs.length > 0) yield logs;
    },
  };
}

function tryParse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
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
 * A value nested less deeply than this cannot overflow the stack when it is flattened or turned back into JSON text
 * (that takes thousands of levels), so the byte check alone decides its line.
 */
const MAX_SAFE_DEPTH = 512;

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

/**
 * The entry of each line. A line that is not JSON, or not an object, is a 400 naming it — except that a body whose
 * first line does not parse may be a single pretty-printed object over many lines: then it is that one entry.
 */
function parseLines(body: Buffer, nowNs: bigint): LogEntry[] {
  const logs: LogEntry[] = [];
  eachLine(body, (text, pos, end, lineNo) => {
    const line = text.slice(pos, end);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      const whole = logs.length === 0 ? singleObject(body) : undefined;
      if (whole) {
        logs.push(toLogEntry(whole, nowNs));
        return false;
      }
      throw errors.badRequest(`Line ${lineNo}: invalid JSON: ${jsonError(e, line)}`);
    }
    if (!isObject(value)) throw errors.badRequest(`Line ${lineNo}: expected a JSON object, got ${kindOf(value)}`);
    logs.push(toLogEntry(value, nowNs));
    return true;
  });
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

/** Whether body[start, end) holds only JSON whitespace; the common line opens with `{` and exits at once. */
function isBlankBytes(body: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(body[i] ?? 0)) return false;
  return true;
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
