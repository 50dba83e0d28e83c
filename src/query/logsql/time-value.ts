// Durations and timestamps of `_time` filters and `stats by (_time:step)`, in unix ns.
// VictoriaLogs syntax (https://docs.victoriametrics.com/victorialogs/logsql/#time-filter): durations like
// `5m`, `1h30m`, `1.5d`; RFC 3339 timestamps that may stop early (`2024-01`, `2024-01-02T10`).
// A timestamp without a zone is UTC here (VictoriaLogs uses the server's zone; ours is always UTC).

const NS_PER_UNIT: Record<string, bigint> = {
  ns: 1n, us: 1_000n, µs: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n,
  h: 3_600_000_000_000n, d: 86_400_000_000_000n, w: 604_800_000_000_000n, y: 31_536_000_000_000_000n,
};

/** `5m`, `1h30m`, `0.5s` → ns; undefined when the text is not a duration. */
export function parseDuration(text: string): bigint | undefined {
  const part = /(\d+)(?:\.(\d+))?(ns|us|µs|ms|s|m|h|d|w|y)/gy;
  let total = 0n;
  let at = 0;
  for (let m = part.exec(text); m !== null; m = part.exec(text)) {
    const unit = NS_PER_UNIT[m[3] ?? ''] ?? 0n;
    const frac = m[2] ?? '';
    total += BigInt(m[1] ?? '0') * unit + (BigInt(frac === '' ? '0' : frac) * unit) / 10n ** BigInt(frac.length);
    at = part.lastIndex;
  }
  return at > 0 && at === text.length ? total : undefined;
}

export interface Period {
  /** The instant the timestamp names. */
  startNs: bigint;
  /** The end of the period it names (exclusive): `2024-01` covers the whole of January. */
  endNs: bigint;
}

const TIMESTAMP =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}:\d{2})?$/i;

/** A full or partial RFC 3339 timestamp → the period it names; undefined when it is not one. */
export function parseTimestamp(text: string): Period | undefined {
  const m = TIMESTAMP.exec(text);
  if (!m) return undefined;
  const num = (i: number, dflt: number): number => (m[i] === undefined ? dflt : Number(m[i]));
  const parts = [num(1, 0), num(2, 1), num(3, 1), num(4, 0), num(5, 0), num(6, 0)] as const;
  const [y, mo, d, h, mi, sec] = parts;
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59) return undefined;
  // The last component given sets the period's length: index 0 = year … 5 = second.
  const given = [1, 2, 3, 4, 5, 6].filter((i) => m[i] !== undefined).length - 1;
  const zone = zoneOffsetNs(m[8]);
  if (zone === undefined) return undefined;
  const utc = (bump: number): bigint => {
    const p = parts.map((v, i) => (i === given ? v + bump : v));
    // setUTCFullYear, unlike Date.UTC, keeps years 0–99 as written and carries overflow (month 13).
    const date = new Date(0);
    date.setUTCFullYear(p[0] ?? 0, (p[1] ?? 1) - 1, p[2] ?? 1);
    date.setUTCHours(p[3] ?? 0, p[4] ?? 0, p[5] ?? 0, 0);
    return BigInt(date.getTime()) * 1_000_000n - zone;
  };
  const fracText = m[7];
  if (fracText !== undefined) {
    const unit = 10n ** BigInt(9 - fracText.length);
    const start = utc(0) + BigInt(fracText) * unit;
    return { startNs: start, endNs: start + unit };
  }
  return { startNs: utc(0), endNs: utc(1) };
}

function daysIn(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

function zoneOffsetNs(zone: string | undefined): bigint | undefined {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0n;
  const sign = zone.startsWith('-') ? -1n : 1n;
  const hh = BigInt(zone.slice(1, 3));
  const mm = BigInt(zone.slice(4, 6));
  if (hh > 23n || mm > 59n) return undefined;
  return sign * (hh * 3_600_000_000_000n + mm * 60_000_000_000n);
}

/**
 * One side of `_time:[a, b)`: a timestamp (its first instant), `now`, `now-1h` / `now+1h`, or a duration
 * meaning that long before now (`-1h` or `1h`).
 */
export function parseTimeBound(text: string, nowNs: bigint): bigint | undefined {
  const t = text.toLowerCase();
  if (t === 'now') return nowNs;
  const rel = /^(now)?([+-])?(.+)$/.exec(t);
  if (rel && (rel[1] !== undefined || rel[2] !== '+')) {
    const d = parseDuration(rel[3] ?? '');
    if (d !== undefined) return rel[2] === '+' ? nowNs + d : nowNs - d;
    if (rel[1] !== undefined) return undefined;
  }
  return parseTimestamp(text)?.startNs;
}
