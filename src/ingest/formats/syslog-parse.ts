// Syslog lines and their framing (wire-formats.md §3.5): RFC 6587 octet counting or LF/NUL delimiters,
// RFC 5424 (with structured data) and RFC 3164 (BSD). Shared by the syslog route and the Heroku logplex
// drain (§3.6), whose frames are RFC 5424 without the STRUCTURED-DATA field.
//
// Field naming (documented choice): structured-data params become `sd.<SD-ID>.<PARAM-NAME>` (a param
// repeated inside one element becomes a JSON array text); an element without params becomes
// `sd.<SD-ID>` = ''. The OTel `[opentelemetry trace_id=… span_id=…]` element fills the trace/span id
// columns instead. Header fields are kept as `hostname`, `procid`, `msgid`, `facility` (keyword) and
// `priority` (the PRI number); APP-NAME / TAG is the service and the PRI severity keyword the severity.
import type { FieldValue, LogEntry } from '../../model/log-entry.js';
import { errors } from '../../errors.js';
import { parseTimestamp } from './timestamps.js';
import { hexId, makeEntry } from './shipper-records.js';

/** RFC 5424 §6.2.1 table 2, as the keywords syslog daemons print (`emerg` … `debug`). */
export const SEVERITY_NAMES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;
/** RFC 5424 §6.2.1 table 1. */
export const FACILITY_NAMES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp',
  'ntp', 'security', 'console', 'solaris-cron', 'local0', 'local1', 'local2', 'local3', 'local4', 'local5',
  'local6', 'local7',
] as const;

export interface SdElement {
  id: string;
  params: [string, string][];
}

export interface SyslogMessage {
  /** `unparsed`: no PRI, or a header neither RFC matches; the text is then the whole message. */
  kind: 'rfc5424' | 'rfc3164' | 'unparsed';
  pri: number | null;
  timeNs: bigint | null;
  hostname: string;
  appName: string;
  procId: string;
  msgId: string;
  structuredData: SdElement[];
  msg: string;
}

// ---- Framing, RFC 6587 §3.4 ----

const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;
const isGap = (b: number | undefined) => b === 0x0a || b === 0x0d || b === 0x00 || b === 0x20;

/**
 * Octet counted when the body (after leading line breaks) starts with `digits SP <` (§3.5 Framing): every
 * syslog and logplex frame opens with its PRI, so a plain text line such as `12 apples` stays LF framed.
 */
export function isOctetCounted(body: Buffer): boolean {
  let i = 0;
  while (i < body.length && isGap(body[i]) && body[i] !== 0x20) i++;
  const start = i;
  while (i < body.length && isDigit(body[i])) i++;
  return i > start && i - start <= 10 && body[i] === 0x20 && body[i + 1] === 0x3c;
}

/**
 * RFC 6587 §3.4.1: `MSG-LEN SP SYSLOG-MSG`, repeated; MSG-LEN counts bytes, so frames are cut from the
 * Buffer. Line breaks, NULs and spaces between frames are tolerated. Frames are returned byte-exact.
 */
export function splitOctetCounted(body: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  let pos = 0;
  while (pos < body.length) {
    while (pos < body.length && isGap(body[pos])) pos++;
    if (pos >= body.length) break;
    const n = frames.length + 1;
    const start = pos;
    let count = 0;
    while (pos < body.length && isDigit(body[pos]) && pos - start < 10) {
      count = count * 10 + ((body[pos] ?? 0x30) - 0x30);
      pos++;
    }
    if (pos === start || body[pos] !== 0x20) {
      throw errors.badRequest(`Syslog frame ${n}: expected an octet count followed by a space (RFC 6587 §3.4.1)`);
    }
    pos++;
    if (count > body.length - pos) {
      throw errors.badRequest(`Syslog frame ${n} declares ${count} bytes but only ${body.length - pos} remain`);
    }
    frames.push(body.subarray(pos, pos + count));
    pos += count;
  }
  return frames;
}

/** RFC 6587 §3.4.2: LF (or NUL) delimited; a trailing CR is trimmed and blank lines skipped. */
export function splitLines(body: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= body.length; i++) {
    const b = body[i];
    if (i < body.length && b !== 0x0a && b !== 0x00) continue;
    let end = i;
    if (end > start && body[end - 1] === 0x0d) end--;
    if (end > start) frames.push(body.subarray(start, end));
    start = i + 1;
  }
  return frames;
}

export function splitFrames(body: Buffer): Buffer[] {
  return isOctetCounted(body) ? splitOctetCounted(body) : splitLines(body);
}

/** Frame bytes as text: UTF-8, trailing CR/LF dropped (logplex counts its LF, §3.6). */
export function frameText(frame: Buffer): string {
  return frame.toString('utf8').replace(/[\r\n]+$/, '');
}

// ---- Lines ----

export interface SyslogParseOptions {
  /** Service receive time: the RFC 3164 year comes from it. */
  nowNs: bigint;
  /** False for logplex frames, which carry no STRUCTURED-DATA field, not even `-` (§3.6). */
  structuredData?: boolean;
}

export function parseSyslogLine(line: string, opts: SyslogParseOptions): SyslogMessage {
  const m = /^<(\d{1,3})>/.exec(line);
  const pri = m ? Number(m[1]) : NaN;
  if (!m || pri > 191) return unparsed(line, null);
  const rest = line.slice(m[0].length);
  const version = /^[1-9]\d? /.exec(rest);
  const parsed = (version ? parse5424(rest.slice(version[0].length), pri, opts) : null) ?? parse3164(rest, pri, opts.nowNs);
  // §3.5: senders that omit the expected header fields keep their whole text as the message.
  return parsed ?? unparsed(rest, pri);
}

function unparsed(text: string, pri: number | null): SyslogMessage {
  return { kind: 'unparsed', pri, timeNs: null, hostname: '', appName: '', procId: '', msgId: '', structuredData: [], msg: text };
}

const nil = (s: string) => (s === '-' ? '' : s);

/** RFC 5424 §6: TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA [SP MSG], after `<PRI>VERSION SP`. */
function parse5424(s: string, pri: number, opts: SyslogParseOptions): SyslogMessage | null {
  const header: string[] = [];
  let pos = 0;
  for (let i = 0; i < 5; i++) {
    const sp = s.indexOf(' ', pos);
    if (sp < 0 && i < 4) return null;
    header.push(sp < 0 ? s.slice(pos) : s.slice(pos, sp));
    pos = sp < 0 ? s.length : sp + 1;
  }
  const [ts = '', hostname = '', appName = '', procId = '', msgId = ''] = header;
  const timeNs = ts === '-' ? null : parseTimestamp(ts);
  if (ts !== '-' && timeNs === null) return null;
  let structuredData: SdElement[] = [];
  if (opts.structuredData !== false) {
    if (s[pos] === '-') pos++;
    else if (s[pos] === '[') {
      const sd = parseStructuredData(s, pos);
      // A malformed SD section is kept in the message rather than refusing the whole batch.
      if (sd) ({ elements: structuredData, end: pos } = sd);
    }
    if (s[pos] === ' ') pos++;
  }
  let msg = s.slice(pos);
  if (msg.charCodeAt(0) === 0xfeff) msg = msg.slice(1); // §6.4: MSG may start with a BOM
  return { kind: 'rfc5424', pri, timeNs, hostname: nil(hostname), appName: nil(appName), procId: nil(procId), msgId: nil(msgId), structuredData, msg };
}

/** RFC 5424 §6.3: `[SD-ID (SP PARAM-NAME="value")*]`+, values escaping `"`, `\` and `]` (§6.3.3). */
export function parseStructuredData(s: string, start: number): { elements: SdElement[]; end: number } | null {
  const elements: SdElement[] = [];
  let pos = start;
  while (s[pos] === '[') {
    const idEnd = findAny(s, pos + 1, ' ]');
    if (idEnd < 0 || idEnd === pos + 1) return null;
    const element: SdElement = { id: s.slice(pos + 1, idEnd), params: [] };
    pos = idEnd;
    while (s[pos] === ' ') {
      const eq = s.indexOf('="', pos + 1);
      if (eq < 0 || eq === pos + 1 || /[ \]"]/.test(s.slice(pos + 1, eq))) return null;
      const name = s.slice(pos + 1, eq);
      let value = '';
      let i = eq + 2;
      for (; i < s.length && s[i] !== '"'; i++) {
        const next = s[i + 1];
        if (s[i] === '\\' && (next === '"' || next === '\\' || next === ']')) {
          value += next;
          i++;
        } else value += s[i] ?? '';
      }
      if (i >= s.length) return null;
      element.params.push([name, value]);
      pos = i + 1;
    }
    if (s[pos] !== ']') return null;
    elements.push(element);
    pos++;
  }
  return { elements, end: pos };
}

function findAny(s: string, from: number, chars: string): number {
  for (let i = from; i < s.length; i++) if (chars.includes(s[i] ?? '')) return i;
  return -1;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const BSD_TIME = /^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))? /;
const ISO_TIME = /^(\d{4}-\d{2}-\d{2}T\S+) /;
const TAG = /^([^\s[\]:]{1,64})(?:\[([^\]\s]*)\])?:(?: |$)/;
const DAY_NS = 86_400_000_000_000n;

/** RFC 3164 §4.1: `Mmm dd hh:mm:ss HOSTNAME TAG[PID]: MSG`; HOSTNAME and TAG may be missing (§3.5). */
function parse3164(s: string, pri: number, nowNs: bigint): SyslogMessage | null {
  let timeNs: bigint | null;
  let rest: string;
  const bsd = BSD_TIME.exec(s);
  const iso = bsd ? null : ISO_TIME.exec(s);
  if (bsd) {
    timeNs = bsdTime(bsd, nowNs);
    rest = s.slice(bsd[0].length);
  } else if (iso) {
    timeNs = parseTimestamp(iso[1]); // rsyslog's high-precision RFC 3164 variant
    rest = s.slice(iso[0].length);
  } else return null;
  if (timeNs === null) return null;
  let hostname = '';
  let tag = TAG.exec(rest);
  if (!tag) {
    const sp = rest.indexOf(' ');
    hostname = sp < 0 ? rest : rest.slice(0, sp);
    rest = sp < 0 ? '' : rest.slice(sp + 1);
    tag = TAG.exec(rest);
  }
  const msg = tag ? rest.slice(tag[0].length) : rest;
  return { kind: 'rfc3164', pri, timeNs, hostname, appName: tag?.[1] ?? '', procId: tag?.[2] ?? '', msgId: '', structuredData: [], msg };
}

/**
 * No year and no zone (RFC 3164 §4.1.2): the current UTC year, one year back when that lands more than a
 * day in the future (a Dec 31 line read on Jan 1). The day of slack keeps senders east of UTC this year.
 */
function bsdTime(m: RegExpExecArray, nowNs: bigint): bigint | null {
  const month = MONTHS.indexOf(m[1] ?? '');
  const [day, h, min, sec] = [m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number];
  if (month < 0 || day < 1 || day > 31 || h > 23 || min > 59 || sec > 60) return null;
  const frac = BigInt((m[6] ?? '').padEnd(9, '0'));
  const at = (year: number) => BigInt(Date.UTC(year, month, day, h, min, sec)) * 1_000_000n + frac;
  const year = new Date(Number(nowNs / 1_000_000n)).getUTCFullYear();
  const t = at(year);
  return t - nowNs > DAY_NS ? at(year - 1) : t;
}

// ---- Entry ----

/** One parsed line as a LogEntry (mapping of §3.5; field names in the header comment). */
export function syslogToEntry(m: SyslogMessage, nowNs: bigint): LogEntry {
  const fields: Record<string, FieldValue> = {};
  let severity = '';
  if (m.pri !== null) {
    severity = SEVERITY_NAMES[m.pri & 7] ?? '';
    fields.facility = FACILITY_NAMES[m.pri >> 3] ?? String(m.pri >> 3);
    fields.priority = m.pri;
  }
  if (m.hostname) fields.hostname = m.hostname;
  if (m.procId) fields.procid = m.procId;
  if (m.msgId) fields.msgid = m.msgId;
  let traceId = '';
  let spanId = '';
  const params = new Map<string, string[]>();
  for (const el of m.structuredData) {
    if (el.params.length === 0) fields[`sd.${el.id}`] = '';
    for (const [name, value] of el.params) {
      const otel = el.id === 'opentelemetry';
      if (otel && name === 'trace_id' && hexId(value, 32) !== null) traceId = hexId(value, 32) ?? '';
      else if (otel && name === 'span_id' && hexId(value, 16) !== null) spanId = hexId(value, 16) ?? '';
      else params.set(`sd.${el.id}.${name}`, [...(params.get(`sd.${el.id}.${name}`) ?? []), value]);
    }
  }
  for (const [key, values] of params) fields[key] = values.length === 1 ? (values[0] ?? '') : JSON.stringify(values);
  return makeEntry({ timeNs: m.timeNs ?? nowNs, observedNs: nowNs, service: m.appName, severity, msg: m.msg, traceId, spanId, fields });
}
