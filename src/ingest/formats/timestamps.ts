// Event times as shippers write them, to unix nanoseconds (wire-formats.md §3.1): RFC 3339 text with any
// fraction up to nanoseconds, or unix seconds / ms / µs / ns told apart by digit count as VictoriaLogs does.
// Nanoseconds are bigint and the fraction is read digit by digit: Date keeps only milliseconds.

const NS_PER_S = 1_000_000_000n;
const INT64_MAX = 2n ** 63n - 1n;

/** Unix time in ns from a string or number, or null when it is neither RFC 3339 nor a unix number. */
export function parseTimestamp(value: unknown): bigint | null {
  if (typeof value === 'string') return parseTimestampText(value);
  if (typeof value === 'number') return unixNumberToNs(value);
  if (typeof value === 'bigint') return unixDecimalToNs(value < 0n ? '-' : '', (value < 0n ? -value : value).toString(), '');
  return null;
}

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?$/;
const SCIENTIFIC = /^[+-]?\d+(?:\.\d*)?[eE][+-]?\d+$/;

export function parseTimestampText(text: string): bigint | null {
  const s = text.trim();
  if (s.length >= 19 && s[4] === '-') return parseRfc3339(s); // the common case skips the number checks
  const dec = DECIMAL.exec(s);
  if (dec) return unixDecimalToNs(dec[1] ?? '', dec[2] ?? '', dec[3] ?? '');
  if (SCIENTIFIC.test(s)) return unixNumberToNs(Number(s));
  return parseRfc3339(s);
}

/**
 * A unix number whose unit follows its magnitude, with the thresholds halfway (in digits) between the
 * units for present-day times: under 1e11 seconds (a fraction allowed), under 1e14 ms, under 1e17 µs,
 * else ns. Same thresholds as the query side's time parameters (query/request-params.ts).
 */
export function unixNumberToNs(n: number): bigint | null {
  if (!Number.isFinite(n)) return null;
  const abs = Math.abs(n);
  const sign = n < 0 ? '-' : '';
  if (Number.isInteger(abs)) return unixDecimalToNs(sign, BigInt(abs).toString(), '');
  // The shortest round-trip text of the double, so 1700000000.123 keeps exactly .123.
  const dec = DECIMAL.exec(String(abs));
  if (dec) return unixDecimalToNs(sign, dec[2] ?? '', dec[3] ?? '');
  return inInt64(BigInt(Math.round(n * 1e9))); // tiny values printed as 1e-7: seconds
}

/** `int.frac` in the unit its integer digit count implies, exactly (no floating point). */
function unixDecimalToNs(sign: string, int: string, frac: string): bigint | null {
  const digits = int.replace(/^0+/, '').length;
  const scale = digits <= 11 ? 9 : digits <= 14 ? 6 : digits <= 17 ? 3 : 0; // s, ms, µs, ns
  let ns = BigInt(int) * 10n ** BigInt(scale);
  if (scale > 0 && frac !== '') ns += BigInt(frac.slice(0, scale).padEnd(scale, '0'));
  return inInt64(sign === '-' ? -ns : ns);
}

// RFC 3339 §5.6, leniently: `t` or a space between date and time, `,` as the decimal mark, offsets
// with or without the colon (or minutes), and no offset at all read as UTC. Read by character
// position rather than by regular expression: this runs once per entry on the ingest hot path.

/** RFC 3339 date-time to unix ns, fraction kept to the nanosecond (digits past the 9th are cut). */
export function parseRfc3339(text: string): bigint | null {
  const n = text.length;
  if (n < 19 || text[4] !== '-' || text[7] !== '-' || text[13] !== ':' || text[16] !== ':') return null;
  const sep = text[10];
  if (sep !== 'T' && sep !== 't' && sep !== ' ') return null;
  const year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  const hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return null; // 60: leap second
  let pos = 19;
  let fracNs = 0;
  if (pos < n && (text[pos] === '.' || text[pos] === ',')) {
    const start = ++pos;
    // Digit by digit up to the 9th (ns), scaled up for fewer: no substring per entry.
    for (let scale = 100_000_000; pos < n; pos++) {
      const c = text.charCodeAt(pos);
      if (!isDigit(c)) break;
      fracNs += (c - 0x30) * scale;
      scale = Math.floor(scale / 10);
    }
    if (pos === start) return null;
  }
  if (pos < n && text[pos] === ' ') pos++;
  let offsetS = 0;
  const zone = text[pos];
  if (zone === 'Z' || zone === 'z') pos++;
  else if (zone === '+' || zone === '-') {
    const oh = digits(text, pos + 1, 2);
    pos += 3;
    if (text[pos] === ':') pos++;
    const om = pos < n ? digits(text, pos, 2) : 0;
    if (pos < n) pos += 2;
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return null;
    offsetS = (zone === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  if (pos !== n) return null;
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offsetS;
  // A shipper's batch holds many entries of one second: its nanoseconds as a bigint are made once.
  if (seconds !== lastSeconds) {
    lastSeconds = seconds;
    lastSecondsNs = BigInt(seconds) * NS_PER_S;
  }
  return inInt64(lastSecondsNs + BigInt(fracNs));
}

/** The last second parseRfc3339 read, and it in ns. */
let lastSeconds = 0;
let lastSecondsNs = 0n;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** The decimal value of text[start, start + count), or -1 unless all are digits. */
function digits(text: string, start: number, count: number): number {
  if (start + count > text.length) return -1;
  let v = 0;
  for (let i = start; i < start + count; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) return -1;
    v = v * 10 + (c - 0x30);
  }
  return v;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Stores keep times as signed 64-bit nanoseconds; anything outside is no time at all. */
function inInt64(ns: bigint): bigint | null {
  return ns > INT64_MAX || ns < -INT64_MAX - 1n ? null : ns;
}
