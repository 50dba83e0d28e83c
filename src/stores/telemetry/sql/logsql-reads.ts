// The four log reads of the telemetry store (telemetry-store.ts), for every dialect (dialect.ts, issue 11 item 2): a
// LogsqlQuery compiled to SQL with parameters only (logsql-filter.ts, logsql-pipes.ts), run through the store's
// executor, and the rows shaped as VictoriaLogs answers /select/logsql/{query,hits,field_names,field_values} (DESIGN §4).
import { FIXED_FIELDS, canonicalField, type LogsqlQuery } from '../../../model/logsql-ast.js';
import { nsToRfc3339 } from '../../../model/time.js';
import type { HitsSeries, LogRow, TimeRange, ValueHits } from '../telemetry-store.js';
import type { ChunkSink, SqlDb, SqlParam, SqlStreamer } from './dialect.js';
import { logsBaseSql, streamSql } from './logsql-filter.js';
import {
  applyPipes, isVisible, logsRelation, orderBySql, relationField, type LogsRelation, type Relation, type StatsRelation,
} from './logsql-pipes.js';
import { SqlParams } from './params.js';

/**
 * Keys of `fields` that a fixed column (or the derived `_stream_id`) shadows: a query cannot address them (`level` is
 * `severity`), so they are neither shown nor listed.
 */
export const SHADOWED = new Set<string>([...FIXED_FIELDS, 'level', '_stream_id']);

/** The query's filter and pipes over the tenant's logs in `range`. */
function compile(db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange): { rel: Relation; p: SqlParams } {
  const p = SqlParams.forTenant(db, tenantId);
  const rel = applyPipes(logsRelation(logsBaseSql(q.filter, range, p)), q.pipes, p);
  return { rel, p };
}

/** `LIMIT $n`, or nothing for limit <= 0 (VictoriaLogs: 0 means no limit). */
function limitSql(limit: number, p: SqlParams): string {
  return limit > 0 && Number.isFinite(limit) ? ` LIMIT ${p.add(BigInt(Math.floor(limit)))}` : '';
}

/** Log entries newest first (or as the pipes say), `limit` rows at most after the pipes. */
export async function searchLogs(
  db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange, limit: number,
): Promise<LogRow[]> {
  const s = searchSql(db, tenantId, q, range, limit);
  return (await db.all(s.sql, s.params)).map(s.shape);
}

/**
 * searchLogs without buffering (issue 12 item 5): the same statement, so the same rows in the same order, handed to
 * `onChunk` a chunk at a time as the engine produces them; limit <= 0 streams every row.
 */
export function streamLogs(
  db: SqlDb & SqlStreamer, tenantId: string, q: LogsqlQuery, range: TimeRange, limit: number,
  onChunk: ChunkSink<LogRow>, signal?: AbortSignal,
): Promise<void> {
  const s = searchSql(db, tenantId, q, range, limit);
  return db.stream(s.sql, s.params, (rows) => onChunk(rows.map(s.shape)), signal);
}

/** The one statement of a log search, its parameters, and how a result row becomes an output entry. */
function searchSql(
  db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange, limit: number,
): { sql: string; params: SqlParam[]; shape: (r: Record<string, unknown>) => LogRow } {
  const { rel, p } = compile(db, tenantId, q, range);
  if (rel.kind === 'stats') {
    const cols = rel.columns;
    const select = cols.length === 0 ? 'NULL AS none' : cols.map((c) => c.alias).join(', ');
    const [sql, params] = p.finish(`SELECT ${select} FROM (${rel.sql}) AS r${orderBySql(rel.order)}${limitSql(limit, p)}`);
    return { sql, params, shape: (r) => Object.fromEntries(cols.map((c) => [c.name, text(r[c.alias])])) };
  }
  const d = db.dialect;
  const [sql, params] = p.finish(`SELECT time_ns, msg, service, severity, trace_id, span_id, ${streamSql(d)} AS stream_out, ` +
    `${d.fieldsOut} FROM (${rel.sql}) AS r${orderBySql(rel.order)}${limitSql(limit, p)}`);
  return { sql, params, shape: (r) => project(rel, logRow(r, d.decodeFields(r))) };
}

/** One output entry: `_time`, `_msg`, `_stream`, `service`, the non-empty ids and severity, then `fields`. */
function logRow(r: Record<string, unknown>, fields: Record<string, unknown>): LogRow {
  const row: LogRow = {
    _time: nsToRfc3339(bigint(r.time_ns)),
    _msg: text(r.msg),
    _stream: text(r.stream_out),
    service: text(r.service),
  };
  for (const k of ['severity', 'trace_id', 'span_id'] as const) {
    const v = text(r[k]);
    if (v !== '') row[k] = v;
  }
  for (const [k, v] of Object.entries(fields)) if (!SHADOWED.has(k)) row[k] = v;
  return row;
}

function project(rel: LogsRelation, row: LogRow): LogRow {
  if (rel.only) {
    const out: LogRow = {};
    for (const k of rel.only) if (k in row) out[k] = row[k];
    return out;
  }
  for (const k of rel.hidden) Reflect.deleteProperty(row, k);
  return row;
}

/**
 * Entries per time bucket (VictoriaLogs `/select/logsql/hits`): buckets of `stepNs` aligned to the unix epoch,
 * only those with hits, oldest first. Pipes do not change what is counted; one series with fields {}.
 */
export async function logHits(
  db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange, stepNs: bigint,
): Promise<HitsSeries[]> {
  if (stepNs <= 0n) throw new RangeError('logHits: stepNs must be positive');
  const p = SqlParams.forTenant(db, tenantId);
  const base = logsBaseSql(q.filter, range, p);
  const sql = `SELECT b, count(*) AS hits FROM (SELECT ${db.dialect.bucketNs('time_ns', p.add(stepNs))} AS b ` +
    `FROM (${base}) AS l) AS t GROUP BY b ORDER BY b`;
  const rows = await db.all(...p.finish(sql));
  if (rows.length === 0) return [];
  const values = rows.map((r) => Number(r.hits));
  return [{
    fields: {},
    timestamps: rows.map((r) => nsToRfc3339(bigint(r.b))),
    values,
    total: values.reduce((a, b) => a + b, 0),
  }];
}

/** Every field with a value in the query's result, with the number of rows that have it; sorted by name. */
export async function logFieldNames(
  db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange,
): Promise<ValueHits[]> {
  const { rel, p } = compile(db, tenantId, q, range);
  const found = rel.kind === 'stats' ? await statsFieldNames(db, rel, p) : await logsFieldNames(db, rel, p);
  return found.filter((v) => v.hits > 0).sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

async function logsFieldNames(db: SqlDb, rel: LogsRelation, p: SqlParams): Promise<ValueHits[]> {
  const d = db.dialect;
  // Columns f0, f1, … in FIXED_FIELDS order: ClickHouse would resolve an alias named like a column in its place.
  const counts = FIXED_FIELDS.map((f, i) =>
    `${f === '_time' || f === '_stream' ? 'count(*)' : d.countIf(`${f === '_msg' ? 'msg' : f} <> ''`)} AS f${i}`);
  const fixedSql = `SELECT ${counts.join(', ')} FROM (${rel.sql}) AS r`;
  // Each stored field with the text a filter compares (so "" and a JSON null are empty and not counted).
  const keysSql = `SELECT k AS name, count(*) AS hits FROM (${d.fieldPairs(`(${rel.sql}) AS r`, p)}) AS m ` +
    `WHERE v <> '' GROUP BY k`;
  const [fixed] = await db.all(...p.finish(fixedSql));
  const keys = await db.all(...p.finish(keysSql));
  const out: ValueHits[] = FIXED_FIELDS.map((f, i) => ({ value: f, hits: Number(fixed?.[`f${i}`] ?? 0) }));
  for (const k of keys) {
    const name = text(k.name);
    if (!SHADOWED.has(name)) out.push({ value: name, hits: Number(k.hits) });
  }
  return out.filter((v) => isVisible(rel, v.value));
}

async function statsFieldNames(db: SqlDb, rel: StatsRelation, p: SqlParams): Promise<ValueHits[]> {
  if (rel.columns.length === 0) return [];
  const counts = rel.columns.map((c) => `${db.dialect.countIf(`${c.alias} <> ''`)} AS n${c.alias}`).join(', ');
  const [row] = await db.all(...p.finish(`SELECT ${counts} FROM (${rel.sql}) AS r`));
  return rel.columns.map((c) => ({ value: c.name, hits: Number(row?.[`n${c.alias}`] ?? 0) }));
}

/** The non-empty values of `field` in the query's result, most frequent first, at most `limit` (<= 0: all). */
export async function logFieldValues(
  db: SqlDb, tenantId: string, q: LogsqlQuery, range: TimeRange, field: string, limit: number,
): Promise<ValueHits[]> {
  const { rel, p } = compile(db, tenantId, q, range);
  const v = relationField(rel, canonicalField(field), p).text;
  const sql = `SELECT v, count(*) AS hits FROM (SELECT ${v} AS v FROM (${rel.sql}) AS r) AS t ` +
    `WHERE v <> '' GROUP BY v ORDER BY hits DESC, v ASC${limitSql(limit, p)}`;
  const rows = await db.all(...p.finish(sql));
  return rows.map((r) => ({ value: text(r.v), hits: Number(r.hits) }));
}

/** Executors differ in how they hand back BIGINT (bigint, or number/string after conversion); accept each. */
export function bigint(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'string') return BigInt(v);
  throw new TypeError(`logsql-reads: expected an integer, got ${typeof v}`);
}

export function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}
