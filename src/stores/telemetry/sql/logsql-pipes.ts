// LogsQL pipes → nested SELECTs over the filtered logs (logsql-filter.ts), in any dialect (dialect.ts, issue 11 item 2). Each pipe turns one
// relation into the next, as VictoriaLogs runs them in order: `| limit 5 | sort by (x)` sorts the 5 newest.
// Stats results get generated column names (c0, c1, …): user-chosen names never enter the SQL text.
import type { Pipe, StatsFunc, StatsGroup } from '../../../model/logsql-ast.js';
import type { SqlDialect } from './dialect.js';
import { canonicalField } from '../../../model/logsql-ast.js';
import { EMPTY_FIELD, logsField, type FieldSql } from './logsql-filter.js';
import type { SqlParams } from './params.js';

export interface StatsColumn {
  /** The LogsQL name (a `by` field or a function's result name). */
  name: string;
  /** Its SQL column: c0, c1, … */
  alias: string;
}

/** Rows of log entries: the columns of logsBaseSql(), with `fields`/`delete` remembered as a projection. */
export interface LogsRelation {
  kind: 'logs';
  sql: string;
  /** ORDER BY terms that give the current row order. */
  order: string[];
  /** After `| fields a, b`: the names kept, in order; undefined while every field is kept. */
  only?: string[];
  /** After `| delete a` (without `fields`): the names dropped. */
  hidden: Set<string>;
}

/** Rows of a stats pipe: text columns named by `columns`. */
export interface StatsRelation {
  kind: 'stats';
  sql: string;
  order: string[];
  columns: StatsColumn[];
}

export type Relation = LogsRelation | StatsRelation;

/** Newest first (DESIGN §4) unless a sort pipe says otherwise. */
export const NEWEST_FIRST = 'time_ns DESC';

export function logsRelation(baseSql: string): LogsRelation {
  return { kind: 'logs', sql: baseSql, order: [NEWEST_FIRST], hidden: new Set() };
}

export function isVisible(rel: LogsRelation, name: string): boolean {
  return rel.only ? rel.only.includes(name) : !rel.hidden.has(name);
}

/** A field of the relation's rows; a field the pipes dropped or a stats pipe did not produce reads as ''. */
export function relationField(rel: Relation, name: string, p: SqlParams): FieldSql {
  if (rel.kind === 'stats') {
    const col = rel.columns.find((c) => c.name === name);
    return col ? { text: col.alias } : EMPTY_FIELD;
  }
  const canonical = canonicalField(name);
  return isVisible(rel, canonical) ? logsField(canonical, p) : EMPTY_FIELD;
}

export function orderBySql(order: string[]): string {
  return order.length === 0 ? '' : ` ORDER BY ${order.join(', ')}`;
}

export function applyPipes(start: Relation, pipes: Pipe[], p: SqlParams): Relation {
  let rel = start;
  pipes.forEach((pipe, i) => {
    rel = applyPipe(rel, pipe, p, `p${i}`);
  });
  return rel;
}

function applyPipe(rel: Relation, pipe: Pipe, p: SqlParams, name: string): Relation {
  switch (pipe.kind) {
    case 'sort': {
      // Earlier order breaks ties, so that consecutive sorts behave like a stable sort.
      const keys = pipe.by.flatMap((k) => sortTerms(relationField(rel, k.field, p), k.desc, p));
      return { ...rel, order: [...keys, ...rel.order] };
    }
    case 'limit':
      return { ...rel, sql: `SELECT * FROM (${rel.sql}) AS ${name}${orderBySql(rel.order)} LIMIT ${p.add(BigInt(pipe.n))}` };
    case 'offset':
      return { ...rel, sql: `SELECT * FROM (${rel.sql}) AS ${name}${orderBySql(rel.order)} OFFSET ${p.add(BigInt(pipe.n))}` };
    case 'fields':
      return rel.kind === 'stats'
        ? { ...rel, columns: rel.columns.filter((c) => pipe.fields.includes(c.name)) }
        : { ...rel, only: [...new Set(pipe.fields.filter((f) => isVisible(rel, f)))], hidden: new Set() };
    case 'delete':
      if (rel.kind === 'stats') return { ...rel, columns: rel.columns.filter((c) => !pipe.fields.includes(c.name)) };
      if (rel.only) return { ...rel, only: rel.only.filter((f) => !pipe.fields.includes(f)) };
      return { ...rel, hidden: new Set([...rel.hidden, ...pipe.fields]) };
    case 'stats':
      return statsRelation(rel, pipe.by, pipe.funcs, p, name);
  }
}

/**
 * Numbers sort as numbers and before other text, the rest as text (VictoriaLogs compares numerically when both
 * values are numbers); times sort by their ns.
 */
function sortTerms(f: FieldSql, desc: boolean, p: SqlParams): string[] {
  // A constant orders nothing, and DuckDB refuses it in ORDER BY.
  if (f === EMPTY_FIELD) return [];
  const dir = desc ? 'DESC' : 'ASC';
  if (f.ns !== undefined) return [`${f.ns} ${dir}`];
  const num = p.dialect.tryDouble(f.text);
  return [`(${num} IS NULL) ${dir}`, `${num} ${dir}`, `${f.text} ${dir}`];
}

function statsRelation(rel: Relation, by: StatsGroup[], funcs: StatsFunc[], p: SqlParams, name: string): StatsRelation {
  const columns: StatsColumn[] = [];
  const selects: string[] = [];
  for (const g of by) {
    const alias = `c${columns.length}`;
    selects.push(`${groupSql(relationField(rel, g.field, p), g, p)} AS ${alias}`);
    columns.push({ name: g.field, alias });
  }
  for (const f of funcs) {
    const alias = `c${columns.length}`;
    selects.push(`${aggregateSql(rel, f, p)} AS ${alias}`);
    columns.push({ name: f.name, alias });
  }
  const groupBy = by.length > 0 ? ' GROUP BY ALL' : '';
  return {
    kind: 'stats',
    sql: `SELECT ${selects.join(', ')} FROM (${rel.sql}) AS ${name}${groupBy}`,
    // Stats rows come in no particular order in VictoriaLogs; ours are sorted by the groups, for stable output.
    order: columns.slice(0, by.length).map((c) => `${c.alias} ASC`),
    columns,
  };
}

/**
 * `by (_time:1h)` buckets the time to the step, aligned to the unix epoch (floored, also before 1970); `offset 2h`
 * shifts the buckets' starts.
 */
function groupSql(f: FieldSql, g: StatsGroup, p: SqlParams): string {
  if (g.bucketNs === undefined || f.ns === undefined) return f.text;
  const offset = g.offsetNs === undefined ? undefined : p.add(g.offsetNs);
  return p.dialect.rfc3339Ns(p.dialect.bucketNs(f.ns, p.add(g.bucketNs), offset));
}

/** A DOUBLE as VictoriaLogs prints it: integers without `.0`. NULL stays NULL. */
function numberText(d: SqlDialect, x: string): string {
  return `(CASE WHEN ${x} IS NULL THEN NULL WHEN ${x} = trunc(${x}) AND abs(${x}) < 1e15 ` +
    `THEN ${d.text(d.toInt64(x))} ELSE ${d.text(x)} END)`;
}

/**
 * Stats functions (https://docs.victoriametrics.com/victorialogs/logsql/#stats-pipe-functions), each a VARCHAR
 * like VictoriaLogs' output. Empty values are skipped; sum/avg of no numbers is NaN; min/max compare numbers
 * numerically and fall back to text when a field holds no numbers.
 */
function aggregateSql(rel: Relation, f: StatsFunc, p: SqlParams): string {
  const d = p.dialect;
  if (f.field === undefined) return d.text('count(*)');
  const ref = relationField(rel, f.field, p);
  const v = ref.text;
  switch (f.fn) {
    case 'count':
      return d.text(d.countIf(`${v} <> ''`));
    case 'count_uniq':
      return d.text(`count(DISTINCT ${ref.ns ?? `nullif(${v}, '')`})`);
    case 'sum':
    case 'avg':
      return `coalesce(${numberText(d, `${f.fn}(${d.tryDouble(v)})`)}, 'NaN')`;
    case 'min':
    case 'max': {
      const agg = (x: string): string => (f.fn === 'min' ? d.minOrNull(x) : d.maxOrNull(x));
      if (ref.ns !== undefined) return `coalesce(${d.rfc3339Ns(agg(ref.ns))}, '')`;
      return `coalesce(${numberText(d, agg(d.tryDouble(v)))}, ${agg(`nullif(${v}, '')`)}, '')`;
    }
    case 'quantile':
    case 'median':
      return quantileSql(v, f.phi ?? 0.5, p);
  }
}

/**
 * VictoriaLogs' quantile (lib/logstorage/stats_quantile.go): the numeric values sorted, the one at index
 * floor(phi * n), the largest for phi = 1; NaN over no numbers. quantile_disc picks another index, hence the list.
 */
function quantileSql(v: string, phi: number, p: SqlParams): string {
  const d = p.dialect;
  const num = d.tryDouble(v);
  const n = `count(${num})`;
  const at = `least(${d.toInt64(`floor(${p.add(phi)} * ${n})`)}, ${n} - 1) + 1`;
  return `coalesce(${numberText(d, d.sortedAt(num, at))}, 'NaN')`;
}
