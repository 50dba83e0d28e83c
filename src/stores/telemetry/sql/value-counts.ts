// logValueCounts (telemetry-store.ts), for every dialect (dialect.ts): the value counts RCA compares between an
// incident and its baseline (DESIGN §9 `ai/rca`, issue 10 item 1), for every field group in every range, in one pass.
// Reading the stored `fields` once per entry and aggregating every group with GROUPING SETS is what keeps RCA under
// 2 s on a million entries (bench/rca-bench.ts): one LogsQL `stats by (f) count()` per field and window parses the
// JSON again each time. Values and field names travel as parameters only.
import { canonicalField, FIXED_FIELDS, type LogsqlQuery } from '../../../model/logsql-ast.js';
import type { TimeRange, ValueCount, ValueCounts, ValueCountsRequest } from '../telemetry-store.js';
import type { SqlDb } from './dialect.js';
import { logsBaseSql, logsField } from './logsql-filter.js';
import { SqlParams } from './params.js';

/** GROUPING_ID packs one bit per column into a BIGINT. */
const MAX_FIELDS = 62;

/** The smallest range that holds them all (a side unbounded when one range is). */
function hull(ranges: readonly TimeRange[]): TimeRange {
  const starts = ranges.map((r) => r.startNs);
  const ends = ranges.map((r) => r.endNs);
  const out: TimeRange = {};
  if (starts.every((s) => s !== undefined)) out.startNs = starts.reduce((a, b) => (b < a ? b : a));
  if (ends.every((e) => e !== undefined)) out.endNs = ends.reduce((a, b) => (b > a ? b : a));
  return out;
}

function inRangeSql(r: TimeRange, p: SqlParams): string {
  const parts: string[] = [];
  if (r.startNs !== undefined) parts.push(`time_ns >= ${p.add(r.startNs)}`);
  if (r.endNs !== undefined) parts.push(`time_ns < ${p.add(r.endNs)}`);
  return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
}

export async function logValueCounts(
  db: SqlDb, tenantId: string, q: LogsqlQuery, req: ValueCountsRequest,
): Promise<ValueCounts> {
  if (req.ranges.length === 0) return { totals: [], values: [] };
  const fields = [...new Set(req.groups.flat().map(canonicalField))];
  if (fields.length > MAX_FIELDS) throw new RangeError(`logValueCounts: at most ${MAX_FIELDS} distinct fields`);
  const d = db.dialect;
  const p = SqlParams.forTenant(db, tenantId);
  // The fixed columns as they are; every other field out of one read of `fields` per entry.
  const keys = fields.filter((f) => !FIXED_FIELDS.includes(f));
  const keyList = keys.length === 0 ? '' : `, ${d.fieldList(keys, p)} AS kv`;
  const columns = fields.map((f, j) => {
    const k = keys.indexOf(f);
    const expr = k >= 0 ? `kv[${k + 1}]` : logsField(f, p).text;
    return `nullif(${expr}, '') AS c${j}`;
  });
  const flags = req.ranges.map((r, i) => `(${inRangeSql(r, p)}) AS i${i}`);
  const inner = `SELECT ${flags.join(', ')}, * FROM (${logsBaseSql(q.filter, hull(req.ranges), p)}) AS b`;
  const picked = `SELECT ${[...req.ranges.map((_r, i) => `i${i}`), ...columns].join(', ')} ` +
    `FROM (SELECT *${keyList} FROM (${inner}) AS f WHERE ${req.ranges.map((_r, i) => `i${i}`).join(' OR ')}) AS e`;

  const cols = fields.map((_f, j) => `c${j}`);
  const sets = [...new Set(req.groups.map((g) => [...new Set(g.map((f) => fields.indexOf(canonicalField(f))))].sort((a, b) => a - b).join(',')))].filter((s) => s !== '');
  const allBits = cols.length === 0 ? 0n : (1n << BigInt(cols.length)) - 1n;
  const gid = cols.length === 0 ? '0' : d.groupingId(cols);
  const counts = req.ranges.map((_r, i) => `${d.countIf(`i${i}`)} AS n${i}`);
  const sql = `WITH e AS (${picked}) SELECT ${gid} AS g${cols.length > 0 ? ', ' + cols.join(', ') : ''}, ${counts.join(', ')} ` +
    `FROM e GROUP BY GROUPING SETS (()${sets.map((s) => `, (${s.split(',').map((j) => `c${j}`).join(', ')})`).join('')}) ` +
    `HAVING ${gid} = ${p.add(allBits)} OR ${d.countIf('i0')} >= ${p.add(BigInt(Math.max(1, Math.ceil(req.minCount))))}`;
  const rows = await db.all(...p.finish(sql));

  // GROUPING_ID sets a column's bit (the first column's is the highest) when the row is not grouped by it.
  const bitsOf = (idx: number[]): bigint => idx.reduce((b, j) => b & ~(1n << BigInt(cols.length - 1 - j)), allBits);
  const groupIdx = req.groups.map((g) => [...new Set(g.map((f) => fields.indexOf(canonicalField(f))))]);
  // Two groups of the same fields (in another order, say) share their rows: each gets them in its own field order.
  const byBits = new Map<bigint, number[]>();
  groupIdx.forEach((idx, i) => {
    if (idx.length === 0) return;
    const bits = bitsOf(idx);
    byBits.set(bits, [...(byBits.get(bits) ?? []), i]);
  });
  let totals = req.ranges.map(() => 0);
  const values: ValueCount[] = [];
  for (const row of rows) {
    const bits = BigInt(row.g as bigint | number | string);
    const n = req.ranges.map((_r, i) => Number(row[`n${i}`]));
    if (bits === allBits) {
      totals = n;
      continue;
    }
    for (const group of byBits.get(bits) ?? []) {
      const vals = (groupIdx[group] ?? []).map((j) => row[`c${j}`]);
      // An entry without the field (or with it empty) groups as NULL: it has no value to count.
      if (vals.some((v) => v === null || v === undefined)) continue;
      values.push({ group, values: vals.map(String), counts: n });
    }
  }
  return { totals, values };
}
