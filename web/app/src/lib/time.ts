// Time ranges as the URL holds them (DESIGN §7: the URL always holds the view's state): `now-1h` … `now`
// for relative ranges, RFC 3339 for absolute ones. Shown in the browser's zone, or UTC when the toggle says so.
import { persisted } from './store';

export const utcDisplay = persisted<boolean>('sightline.utc', false);

export interface TimeRange {
  start: string;
  end: string;
}

export const DEFAULT_RANGE: TimeRange = { start: 'now-1h', end: 'now' };

export const PRESETS: readonly { label: string; start: string }[] = [
  { label: 'Last 5 minutes', start: 'now-5m' },
  { label: 'Last 15 minutes', start: 'now-15m' },
  { label: 'Last 1 hour', start: 'now-1h' },
  { label: 'Last 6 hours', start: 'now-6h' },
  { label: 'Last 24 hours', start: 'now-24h' },
  { label: 'Last 7 days', start: 'now-7d' },
  { label: 'Last 30 days', start: 'now-30d' },
];

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `now`, `now-15m`, or an absolute time (RFC 3339 or unix ms) → unix ms; NaN when unreadable. */
export function resolveTime(text: string, nowMs = Date.now()): number {
  const t = text.trim();
  if (t === 'now') return nowMs;
  const rel = /^now-(\d+)([smhdw])$/.exec(t);
  if (rel) return nowMs - Number(rel[1]) * (UNIT_MS[rel[2] ?? 's'] ?? 1000);
  if (/^\d{10,}$/.test(t)) return Number(t);
  return Date.parse(t);
}

export function rangeFromParams(params: URLSearchParams): TimeRange {
  return { start: params.get('start') ?? DEFAULT_RANGE.start, end: params.get('end') ?? DEFAULT_RANGE.end };
}

export function resolveRange(range: TimeRange, nowMs = Date.now()): { startMs: number; endMs: number } {
  const startMs = resolveTime(range.start, nowMs);
  const endMs = resolveTime(range.end, nowMs);
  return { startMs: Number.isNaN(startMs) ? nowMs - 3_600_000 : startMs, endMs: Number.isNaN(endMs) ? nowMs : endMs };
}

/** The API's `start`/`end` (RFC 3339), fixed at the moment the query runs. */
export function apiRange(range: TimeRange, nowMs = Date.now()): { start: string; end: string } {
  const { startMs, endMs } = resolveRange(range, nowMs);
  return { start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() };
}

export function describeRange(range: TimeRange): string {
  if (range.end === 'now') {
    const preset = PRESETS.find((p) => p.start === range.start);
    if (preset) return preset.label;
    const rel = /^now-(\d+)([smhdw])$/.exec(range.start);
    if (rel) return `Last ${rel[1]}${rel[2]}`;
  }
  const { startMs, endMs } = resolveRange(range);
  return `${formatTime(startMs)} → ${formatTime(endMs)}`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `2026-11-24 13:05:09.123` in the browser's zone, or in UTC with a trailing Z. */
export function formatTime(ms: number, utc = utcDisplay.get()): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  const [y, mo, da, h, mi, s, milli] = utc
    ? [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()]
    : [d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds()];
  return `${y}-${pad(mo)}-${pad(da)} ${pad(h)}:${pad(mi)}:${pad(s)}.${pad(milli, 3)}${utc ? 'Z' : ''}`;
}

/** An RFC 3339 `_time` with ns as the API sends it → ms (the ns digits past ms are dropped for display). */
export const timeOfRow = (text: unknown): number => (typeof text === 'string' ? Date.parse(text) : NaN);

/** For `<input type="datetime-local">`: the value in the shown zone. */
export function toInputValue(ms: number, utc = utcDisplay.get()): string {
  return formatTime(ms, utc).replace(' ', 'T').replace('Z', '');
}

export function fromInputValue(text: string, utc = utcDisplay.get()): number {
  return utc ? Date.parse(`${text}Z`) : new Date(text).getTime();
}

export function formatDuration(ns: number): string {
  const ms = ns / 1e6;
  if (ms < 1) return `${(ns / 1000).toFixed(0)} µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = -1;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[i] ?? ''}`;
}
