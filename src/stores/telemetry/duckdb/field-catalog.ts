// The promoted field columns in the data file (field-columns.ts): each column `field_<n>` of `logs` carries its key
// and kind in its own DuckDB comment, so the catalog is the table's schema and cannot disagree with it (and costs no
// data block: a catalog table took a 256 KB block of its own, ~1% of a 100 MB-of-NDJSON store). Also the open-time
// migration of a `logs` table made before promoted columns. Every step runs in the caller's transaction, so that a
// column, its comment and the rows written into it commit or roll back together.
import type { DuckDBConnection } from '@duckdb/node-api';
import { FIELD_KINDS, KIND_SQL_TYPE, type FieldColumn, type FieldKind } from './field-columns.js';
import { LOGS_MIGRATION_SQL } from './schema.js';
import type { SqlExecutor } from '../sql/dialect.js';
import { str } from '../sql/span-rows.js';

/**
 * Rows × new columns a write may alter at most. DuckDB's ADD COLUMN writes the new column's NULLs for every stored
 * row (~1 s per 10 M rows on a loaded 2-core machine), and the drain waits meanwhile; past this the keys stay in the
 * JSON (still read and filtered, only not compressed as well).
 */
export const ALTER_ROW_BUDGET = 10_000_000;

const COLUMN_RE = /^field_(\d+)$/;

/** Brings a `logs` table made before promoted columns up to date; the caller's transaction holds it. */
export async function migrateFieldColumns(c: DuckDBConnection): Promise<void> {
  for (const sql of LOGS_MIGRATION_SQL) await c.run(sql);
}

/** The promoted columns of `logs`, in table order, from their comments. */
export async function loadFieldColumns(exec: SqlExecutor): Promise<FieldColumn[]> {
  const rows = await exec.all(
    `SELECT column_name, comment FROM duckdb_columns() WHERE table_name = 'logs' AND schema_name = 'main'
       AND database_name = current_database() ORDER BY column_index`, []);
  const out: FieldColumn[] = [];
  for (const r of rows) {
    const column = str(r.column_name);
    if (!COLUMN_RE.test(column)) continue;
    const meta = parseComment(str(r.comment));
    if (column !== columnName(out.length + 1) || !meta || out.some((c) => c.key === meta.key)) {
      throw new Error(`duckdb-store: column ${column} of logs has comment ${JSON.stringify(r.comment)}`);
    }
    out.push({ key: meta.key, column, kind: meta.kind });
  }
  return out;
}

/** Whether adding `n` columns now stays within ALTER_ROW_BUDGET. */
export async function canAddColumns(c: DuckDBConnection, n: number): Promise<boolean> {
  const rows = (await c.runAndReadAll(
    "SELECT estimated_size AS n FROM duckdb_tables() WHERE table_name = 'logs' AND schema_name = 'main'")).getRowObjectsJS();
  return Number(rows[0]?.n ?? 0) * n <= ALTER_ROW_BUDGET;
}

/** Adds a column per key after `existing`; returns the catalog with them. */
export async function addFieldColumns(
  c: DuckDBConnection, existing: readonly FieldColumn[], add: readonly { key: string; kind: FieldKind }[],
): Promise<FieldColumn[]> {
  const out = [...existing];
  for (const { key, kind } of add) {
    const column = columnName(out.length + 1);
    await c.run(`ALTER TABLE logs ADD COLUMN ${column} ${KIND_SQL_TYPE[kind]}`);
    await c.run(`COMMENT ON COLUMN logs.${column} IS '${commentOf(key, kind)}'`);
    out.push({ key, column, kind });
  }
  return out;
}

function columnName(position: number): string {
  return `field_${position}`;
}

/**
 * The comment's text: `{"key":…,"kind":…}`. COMMENT ON takes no parameter, so the key (user data) is written into the
 * statement — as JSON with every character outside printable ASCII, and the quote, escaped as \uXXXX: the literal then
 * holds nothing that could end it, whatever the key.
 */
function commentOf(key: string, kind: FieldKind): string {
  return JSON.stringify({ key, kind }).replace(/[^\x20-\x7e]|'/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function parseComment(text: string): { key: string; kind: FieldKind } | null {
  try {
    const v = JSON.parse(text) as { key?: unknown; kind?: unknown };
    const kind = v.kind as FieldKind;
    return typeof v.key === 'string' && FIELD_KINDS.includes(kind) ? { key: v.key, kind } : null;
  } catch {
    return null;
  }
}
