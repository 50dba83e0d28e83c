// Value conversions at the ClickHouse store's edge: JSONEachRow carries 64-bit integers as strings both ways (rows in:
// JSON has no bigint; rows out: the executor asks for quoted 64-bit integers), so times stay exact to the ns.
import { big, str } from '../sql/span-rows.js';

// The row readers both SQL stores share (span-rows.ts), for the ClickHouse store's files.
export { big, jsonArray, jsonObject, num, str } from '../sql/span-rows.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A bigint as an Int64 column value: clamped (an out-of-range time must not fail the batch and stall the drain). */
export function int64(v: bigint): string {
  return (v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : v).toString();
}

/** A Float64 read as `toString(value)`: ClickHouse writes nan, inf and -inf, which JSON numbers cannot hold. */
export function float(v: unknown): number {
  const s = str(v);
  if (s === 'nan' || s === '-nan') return Number.NaN;
  if (s === 'inf' || s === '+inf') return Infinity;
  if (s === '-inf') return -Infinity;
  return Number(s);
}

/** A Float64 for a JSONEachRow row: the engine parses these strings back to the same double. */
export function floatIn(v: number): string | number {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  return Object.is(v, -0) ? '-0' : v;
}

/** A non-negative whole number for LIMIT (non-finite or negative → 0). */
export function limitOf(n: number): number {
  return Number.isFinite(n) ? Math.max(0, Math.trunc(n)) : 0;
}

/** Unix ms of a ns value, floored (also before 1970); null for SQL NULL. */
export function nsToMs(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const ns = big(v);
  return Number(ns / 1_000_000n - (ns % 1_000_000n < 0n ? 1n : 0n));
}
