// The field-discovery reads behind an Explore sidebar and Grafana's query builder, for every dialect (dialect.ts):
// /select/logsql/facets and /select/logsql/stream_field_{names,values}
// (https://docs.victoriametrics.com/victorialogs/querying/#querying-facets). Values travel as parameters only.
import type { LogsqlQuery } from '../../../model/logsql-ast.js';
import { nsToRfc3339 } from '../../../model/time.js';
import type { Facet, FacetsOptions, TimeRange, ValueHits } from '../telemetry-store.js';
import type { SqlDb, SqlDialect } from './dialect.js';
import { logsBaseSql, streamSql } from './logsql-filter.js';
import { applyPipes, logsRelation, relationField } from './logsql-pipes.js';
import { SHADOWED } from './logsql-reads.js';
import { SqlParams } from './params.js';

/**
 * Rows a first, cheap pass looks at: a field with more distinct (or longer) values among them than the options
 * allow has at least as many in the whole set, so the full pass leaves it out without counting its values. That
 * keeps `_msg`, `_time` and ids from filling hash tables on large ranges.
 */
const PROBE_ROWS = 20_000n;
/** Length of `_time` as VictoriaLogs counts it: RFC 3339 with nanoseconds. */
const TIME_TEXT_LEN = 30;

/** The fixed columns as facet fields; `_time` as its ns digits, formatted once it has been counted. */
function fixedColumns(d: SqlDialect): readonly [string, string][] {
  return [
    ['_time', d.text('time_ns')], ['_msg', 'msg'], ['_stream', streamSql(d)], ['service', 'service'],
    ['severity', 'severity'], ['trace_id', 'trace_id'], ['span_id', 'span_id'],
  ];
}

/**
 * Every (field, value) of the rows of `r` as `k, v`: the kept fixed columns, then each key of `fields` except the
 * `skip` keys, with the very text a filter on that field compares against (dialect fieldPairs).
 */
function pairsSql(fixed: readonly [string, string][], skip: Iterable<string>, p: SqlParams): string {
  const skipped = [...skip].map((k) => p.add(k));
  const parts = fixed.map(([name, expr]) => `SELECT '${name}' AS k, ${expr} AS v FROM r`);
  parts.push(`SELECT k, v FROM (${p.dialect.fieldPairs('r', p)}) AS m` +
    (skipped.length > 0 ? ` WHERE k NOT IN (${skipped.join(', ')})` : ''));
  return parts.join(' UNION ALL ');
}

/**
 * VictoriaLogs' facets pipe (lib/logstorage/pipe_facets.go): per field, the `limit` values with the most hits;
 * empty values never count; a field with more than `maxValuesPerField` distinct values or a value longer than
 * `maxValueLen` is left out, and so is one whose single value every entry has, unless `keepConstFields`. Fields
 * come sorted by name. The query's pipes are ignored, as VictoriaLogs drops them for facets.
 */
export async function logFacets(
  db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange, opts: FacetsOptions,
): Promise<Facet[]> {
  // The probe: distinct count and longest value per field over the first PROBE_ROWS entries.
  const d = db.dialect;
  const all = fixedColumns(d);
  const probe = SqlParams.forTenant(db, tenantId);
  const probeBase = `SELECT * FROM (${logsBaseSql(q.filter, range, probe)}) AS b LIMIT ${probe.add(PROBE_ROWS)}`;
  const probeSql = `${d.cte('r', probeBase)} SELECT k, count(DISTINCT v) AS n, max(${d.strlen('v')}) AS len ` +
    `FROM (${pairsSql(all, SHADOWED, probe)}) AS u WHERE v <> '' GROUP BY k`;
  const over = new Set<string>();
  for (const row of await db.all(...probe.finish(probeSql))) {
    if (Number(row.n) > opts.maxValuesPerField || Number(row.len) > opts.maxValueLen) over.add(String(row.k));
  }
  if (opts.maxValueLen < TIME_TEXT_LEN) over.add('_time');

  const p = SqlParams.forTenant(db, tenantId);
  const fixed = all.filter(([name]) => !over.has(name));
  const sql = `${d.cte('r', logsBaseSql(q.filter, range, p))}, ` +
    `c AS (SELECT k, v, count(*) AS hits FROM (${pairsSql(fixed, new Set([...SHADOWED, ...over]), p)}) AS u ` +
    `WHERE v <> '' GROUP BY k, v), ` +
    `n AS (SELECT k AS nk, count(*) AS nvals, max(CASE WHEN k = '_time' THEN 0 ELSE ${d.strlen('v')} END) AS len, ` +
    `max(hits) AS top FROM c GROUP BY k), t AS (SELECT count(*) AS total FROM r) ` +
    `SELECT c.k AS k, c.v AS v, c.hits AS hits FROM c JOIN n ON c.k = n.nk CROSS JOIN t ` +
    `WHERE n.nvals <= ${p.add(BigInt(opts.maxValuesPerField))} AND n.len <= ${p.add(BigInt(opts.maxValueLen))} ` +
    `AND (${p.add(opts.keepConstFields)} OR n.nvals > 1 OR n.top < t.total) ` +
    `QUALIFY row_number() OVER (PARTITION BY c.k ORDER BY c.hits DESC, c.v) <= ${p.add(BigInt(opts.limit))}`;
  const byField = new Map<string, ValueHits[]>();
  for (const row of await db.all(...p.finish(sql))) {
    const field = String(row.k);
    const value = field === '_time' ? nsToRfc3339(BigInt(String(row.v))) : String(row.v);
    let values = byField.get(field);
    if (!values) byField.set(field, (values = []));
    values.push({ value, hits: Number(row.hits) });
  }
  return [...byField.keys()].sort(byText).map((field) => ({
    field, values: (byField.get(field) ?? []).sort((a, b) => b.hits - a.hits || byText(a.value, b.value)),
  }));
}

/** The query's result grouped by `_stream` (after its pipes), with the entries of each. */
async function streamsWithHits(db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
  const p = SqlParams.forTenant(db, tenantId);
  const rel = applyPipes(logsRelation(logsBaseSql(q.filter, range, p)), q.pipes, p);
  const s = relationField(rel, '_stream', p).text;
  const rows = await db.all(...p.finish(`SELECT s, count(*) AS hits FROM (SELECT ${s} AS s FROM (${rel.sql}) AS r) AS t GROUP BY s`));
  return rows.map((r) => ({ value: typeof r.s === 'string' ? r.s : '', hits: Number(r.hits) }));
}

/** Stream label names, each with the entries whose stream has it (VictoriaLogs /select/logsql/stream_field_names). */
export async function logStreamFieldNames(db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange): Promise<ValueHits[]> {
  const hits = new Map<string, number>();
  for (const s of await streamsWithHits(db, tenantId, q, range)) {
    for (const [name] of streamLabels(s.value)) hits.set(name, (hits.get(name) ?? 0) + s.hits);
  }
  return [...hits].map(([value, n]) => ({ value, hits: n })).sort((a, b) => byText(a.value, b.value));
}

/** One label's values with their entries, most frequent first (VictoriaLogs /select/logsql/stream_field_values). */
export async function logStreamFieldValues(
  db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange, field: string, limit: number,
): Promise<ValueHits[]> {
  const hits = new Map<string, number>();
  for (const s of await streamsWithHits(db, tenantId, q, range)) {
    const value = streamLabels(s.value).find(([name]) => name === field)?.[1];
    if (value !== undefined && value !== '') hits.set(value, (hits.get(value) ?? 0) + s.hits);
  }
  const sorted = [...hits].map(([value, n]) => ({ value, hits: n })).sort((a, b) => b.hits - a.hits || byText(a.value, b.value));
  return limit > 0 ? sorted.slice(0, limit) : sorted;
}

/**
 * The labels of a `_stream` text, `{a="x",b="y \"q\""}` → [[a, x], [b, y "q"]], as the ingest formats write it
 * (values escaped `\\`, `\"`, `\n`). Reading stops at anything malformed, keeping the labels read so far.
 */
export function streamLabels(stream: string): [string, string][] {
  const out: [string, string][] = [];
  const label = /\s*([^\s=,{}"]+)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,|\})/y;
  if (!stream.startsWith('{')) return out;
  label.lastIndex = 1;
  for (let m = label.exec(stream); m !== null; m = label.exec(stream)) {
    out.push([m[1] ?? '', (m[2] ?? '').replace(/\\(.)/g, (_e, c: string) => (c === 'n' ? '\n' : c))]);
    if (m[3] === '}') break;
  }
  return out;
}

/** Code-unit order: for ASCII names the same as VictoriaLogs' byte-wise sort.Strings. */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
