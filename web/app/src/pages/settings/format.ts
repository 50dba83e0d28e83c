// Settings' number and time wording (DESIGN §7 Settings → Usage and Plan): bytes in billing units (GB = 10^9,
// DESIGN §6), times through lib/time's formatTime so the UTC toggle applies, and null as "unlimited".
import { formatBytes, formatTime } from '../../lib/time';

/** An RFC 3339 time from the API without its milliseconds; a dash when absent. */
export function shortTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : formatTime(ms).replace(/\.\d{3}/, '');
}

export const bytesOr = (n: number | null | undefined, none = 'unlimited'): string =>
  n === null || n === undefined ? none : formatBytes(n);

export const countOr = (n: number | null | undefined, unit = '', none = 'unlimited'): string =>
  n === null || n === undefined ? none : `${n.toLocaleString('en-US')}${unit === '' ? '' : ` ${unit}`}`;

export const usd = (n: number): string => `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: n < 1 && n > 0 ? 6 : 2 })}`;
