// Time expressions of a question → a UTC range (issue 10 item 2: "last 2 hours", "since yesterday 9am", "between
// 10:00 and 10:30 UTC"). Everything is relative to the service clock (ctx.nowMs) and in UTC: a zone other than
// UTC/GMT is left unplaced, so the question is refused rather than read in the wrong zone.
import type { Ledger } from './tokenizer.js';
import { numberWord } from './vocabulary.js';

export interface TimeRead {
  startMs: number;
  endMs: number;
  /** The LogsQL `_time` filter for the range: `_time:2h` for "last 2 hours", `_time:[a, b)` otherwise. */
  logsql: string;
  note: string;
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const UNITS: Record<string, [number, string]> = {
  second: [1000, 's'], seconds: [1000, 's'], sec: [1000, 's'], secs: [1000, 's'], s: [1000, 's'],
  minute: [MIN, 'm'], minutes: [MIN, 'm'], min: [MIN, 'm'], mins: [MIN, 'm'], m: [MIN, 'm'],
  hour: [HOUR, 'h'], hours: [HOUR, 'h'], hr: [HOUR, 'h'], hrs: [HOUR, 'h'], h: [HOUR, 'h'],
  day: [DAY, 'd'], days: [DAY, 'd'], d: [DAY, 'd'],
  week: [7 * DAY, 'w'], weeks: [7 * DAY, 'w'], wk: [7 * DAY, 'w'], w: [7 * DAY, 'w'],
};
const LEAD_INS = new Set(['in', 'over', 'during', 'for', 'within', 'from', 'on', 'the', 'of']);
const ZONES = new Set(['utc', 'gmt', 'z']);
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** One matched piece: tokens [from, to) and what they say. */
type Part =
  | { kind: 'last'; ms: number; text: string }
  | { kind: 'day'; startMs: number; label: string }
  | { kind: 'this'; startMs: number; label: string }
  | { kind: 'since'; point: Point }
  | { kind: 'between'; a: Point; b: Point };

/** A day (its 00:00 UTC) and/or a time of day (ms after midnight). */
interface Point {
  dayMs?: number;
  clockMs?: number;
  /** Whether the day was a date or a day word (then no roll back to yesterday). */
  label: string;
}

interface Match {
  to: number;
  part: Part;
}

/**
 * Finds the question's time expressions, places their words, and returns the range they name; undefined when
 * there is none. A second, conflicting expression stays unplaced, so the question is refused.
 */
export function readTime(l: Ledger, nowMs: number): TimeRead | undefined {
  const today = Math.floor(nowMs / DAY) * DAY;
  let span: Part | undefined;
  let day: Extract<Part, { kind: 'day' }> | undefined;
  const said: string[] = [];
  for (let i = 0; i < l.length; i++) {
    if (!l.free(i)) continue;
    const m = matchAt(l, i, nowMs, today);
    if (!m) continue;
    if (m.part.kind === 'day') {
      if (day) continue;
      day = m.part;
    } else {
      if (span) continue;
      span = m.part;
    }
    // "in the last hour", "over the past day", "from yesterday", "on 2026-11-20": the lead-in is part of it.
    let from = i;
    if (from > 0 && l.word(from - 1) === 'the') from--;
    if (from > 0 && LEAD_INS.has(l.word(from - 1) ?? '')) from--;
    l.place(from, m.to);
    said.push(l.text(from, m.to));
    i = m.to - 1;
  }
  if (!span && !day) return undefined;
  const read = resolve(span, day, nowMs, today);
  read.note = `'${said.join(' ')}' → ${read.note}`;
  l.notes.push(read.note);
  return read;
}

function resolve(span: Part | undefined, day: Extract<Part, { kind: 'day' }> | undefined, nowMs: number, today: number): TimeRead {
  if (!span && day) {
    const end = Math.min(day.startMs + DAY, nowMs);
    return absolute(day.startMs, end, `${isoDay(day.startMs)} (UTC)${end === nowMs ? ', up to now' : ''}`);
  }
  if (!span) throw new Error('unreachable');
  switch (span.kind) {
    case 'last':
      return { startMs: nowMs - span.ms, endMs: nowMs, logsql: `_time:${span.text}`, note: `the ${span.text} before now` };
    case 'day':
    case 'this':
      return absolute(span.startMs, nowMs, `from ${iso(span.startMs)} to now`);
    case 'since': {
      const at = pointMs(span.point, day?.startMs, today, nowMs);
      return absolute(at, nowMs, `from ${iso(at)} to now`);
    }
    case 'between': {
      let a = pointMs(span.a, day?.startMs, today, Infinity);
      let b = pointMs(span.b, day?.startMs ?? span.a.dayMs, today, Infinity);
      // "between 2026-11-18 and 2026-11-20" includes the last day.
      if (span.b.dayMs !== undefined && span.b.clockMs === undefined) b += DAY;
      // "between 23:00 and 01:00" crosses midnight.
      if (b <= a && span.b.dayMs === undefined) b += DAY;
      // A window later today than now means the most recent one: yesterday's.
      const ahead = a > nowMs && day === undefined && span.a.dayMs === undefined;
      if (ahead) {
        a -= DAY;
        b -= DAY;
      }
      return absolute(a, b, `${iso(a)} to ${iso(b)}${ahead ? ' (today\'s is still ahead, so yesterday\'s)' : ''}`);
    }
  }
}

function absolute(startMs: number, endMs: number, note: string): TimeRead {
  return { startMs, endMs, logsql: `_time:[${iso(startMs)}, ${iso(endMs)})`, note };
}

/** A point's instant: its own day, else the sentence's day, else today — rolled back a day if that is still ahead. */
function pointMs(p: Point, sentenceDay: number | undefined, today: number, nowMs: number): number {
  const dayMs = p.dayMs ?? sentenceDay ?? today;
  const at = dayMs + (p.clockMs ?? 0);
  return at > nowMs && p.dayMs === undefined && sentenceDay === undefined ? at - DAY : at;
}

function matchAt(l: Ledger, i: number, nowMs: number, today: number): Match | undefined {
  const w = l.word(i);
  if (w === undefined) return undefined;
  if (w === 'last' || w === 'past' || w === 'previous') return lastN(l, i + 1);
  if (w === 'since' || w === 'after') {
    // "since 30 minutes ago" is "the last 30 minutes".
    const ago = lastN(l, i + 1);
    if (ago && l.word(ago.to) === 'ago') return { to: ago.to + 1, part: ago.part };
    const p = point(l, i + 1, today);
    return p ? { to: p.to, part: { kind: 'since', point: p.point } } : undefined;
  }
  if (w === 'between' || w === 'from') {
    const a = point(l, i + 1, today);
    if (!a) return undefined;
    const sep = l.word(a.to);
    if (!(sep === 'and' || sep === 'to' || sep === 'until' || sep === 'till' || sep === '-')) return undefined;
    const b = point(l, a.to + 1, today);
    return b ? { to: b.to, part: { kind: 'between', a: a.point, b: b.point } } : undefined;
  }
  if (w === 'this' || w === 'current') {
    const unit = l.word(i + 1);
    const start = unit === 'week' ? today - ((new Date(today).getUTCDay() + 6) % 7) * DAY
      : unit === 'month' ? Date.UTC(new Date(today).getUTCFullYear(), new Date(today).getUTCMonth(), 1)
      : unit === 'hour' ? Math.floor(nowMs / HOUR) * HOUR
      : unit === 'morning' || unit === 'day' ? today : undefined;
    return start === undefined ? undefined : { to: i + 2, part: { kind: 'this', startMs: start, label: `${w} ${unit ?? ''}` } };
  }
  // A day alone ("yesterday"); a clock after it without "since"/"between" is an instant, not a range, and stays
  // unplaced.
  const d = dayWord(l, i, today);
  return d ? { to: d.to, part: { kind: 'day', startMs: d.dayMs, label: l.text(i, d.to) } } : undefined;
}

/** After "last": [N] unit, or a compact "2h". */
function lastN(l: Ledger, i: number): Match | undefined {
  let n = 1;
  let at = i;
  const compact = /^(\d+)(s|sec|m|min|h|hr|d|w)$/.exec(l.word(at) ?? '');
  if (compact) {
    const [ms, letter] = UNITS[compact[2] ?? ''] ?? [0, ''];
    const count = Number(compact[1]);
    return { to: at + 1, part: { kind: 'last', ms: ms * count, text: `${count}${letter}` } };
  }
  const num = numberWord(l.word(at));
  if (num !== undefined && l.word(at) !== 'a') {
    n = num;
    at++;
    if (l.word(at) === 'of') at++; // "couple of hours"
  }
  const unit = UNITS[l.word(at) ?? ''];
  if (!unit || !Number.isInteger(n) || n <= 0) return undefined;
  return { to: at + 1, part: { kind: 'last', ms: unit[0] * n, text: `${n}${unit[1]}` } };
}

/** today, yesterday, a date (2026-11-20), a weekday (the most recent one, today included). */
function dayWord(l: Ledger, i: number, today: number): { to: number; dayMs: number } | undefined {
  const w = l.word(i);
  if (w === 'today') return { to: i + 1, dayMs: today };
  if (w === 'yesterday') return { to: i + 1, dayMs: today - DAY };
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(w ?? '');
  if (date) {
    const ms = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== w) return undefined;
    return { to: i + 1, dayMs: ms };
  }
  const wd = WEEKDAYS.indexOf(w ?? '');
  if (wd >= 0) return { to: i + 1, dayMs: today - ((new Date(today).getUTCDay() - wd + 7) % 7) * DAY };
  return undefined;
}

/** A day word and/or a clock, then an optional zone: "yesterday 9am", "10:30 UTC", "2026-11-20". */
function point(l: Ledger, i: number, today: number): { to: number; point: Point } | undefined {
  let at = i;
  const p: Point = { label: '' };
  const d = dayWord(l, at, today);
  if (d) {
    p.dayMs = d.dayMs;
    at = d.to;
  }
  const c = clockAt(l, at);
  if (c) {
    p.clockMs = c.ms;
    at = c.to;
  }
  if (at === i) return undefined;
  if (ZONES.has(l.word(at) ?? '')) at++;
  p.label = l.text(i, at);
  return { to: at, point: p };
}

/** "10:30", "9am", "9 am", "9:30pm", "noon", "midnight" → ms after 00:00. */
function clockAt(l: Ledger, i: number): { to: number; ms: number } | undefined {
  const w = l.word(i);
  if (w === undefined) return undefined;
  if (w === 'noon' || w === 'midday') return { to: i + 1, ms: 12 * HOUR };
  if (w === 'midnight') return { to: i + 1, ms: 0 };
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?(am|pm|z|utc)?$/.exec(w);
  if (!m) return undefined;
  let to = i + 1;
  let meridiem = m[4];
  if (meridiem === undefined && (l.word(to) === 'am' || l.word(to) === 'pm')) meridiem = l.word(to++);
  // A bare number is a clock only with a colon or am/pm ("since 9" could be anything).
  if (m[2] === undefined && (meridiem === undefined || meridiem === 'z' || meridiem === 'utc')) return undefined;
  let h = Number(m[1]);
  const min = Number(m[2] ?? '0');
  const sec = Number(m[3] ?? '0');
  if (meridiem === 'am' || meridiem === 'pm') {
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (meridiem === 'pm' ? 12 : 0);
  }
  if (h > 23 || min > 59 || sec > 59) return undefined;
  return { to, ms: h * HOUR + min * MIN + sec * 1000 };
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
