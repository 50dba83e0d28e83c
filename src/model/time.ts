// Unix time conversions shared by parsers and stores. Nanoseconds are bigint throughout:
// a Number cannot hold them exactly (wire-formats.md §3.2, JSON quirk 4).

export const NS_PER_MS = 1_000_000n;

export function msToNs(ms: number): bigint {
  return BigInt(Math.trunc(ms)) * NS_PER_MS + BigInt(Math.round((ms - Math.trunc(ms)) * 1e6));
}

export function nsToMs(ns: bigint): number {
  return Number(ns / NS_PER_MS);
}

/** RFC 3339 with nanoseconds, UTC: `2026-11-22T04:16:20.123456789Z`. */
export function nsToRfc3339(ns: bigint): string {
  const frac = ((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
  // Whole seconds by floor division, so that times before 1970 keep a positive fraction.
  const seconds = (ns - frac) / 1_000_000_000n;
  const iso = new Date(Number(seconds) * 1000).toISOString(); // …T04:16:20.000Z
  return `${iso.slice(0, 19)}.${frac.toString().padStart(9, '0')}Z`;
}
