// Recurring `fields` keys stored as columns of their own (issue 12 item 3: storage ≥ 5× smaller than the raw NDJSON).
// In one JSON text per row, a key's name and its repeating values (host, pod, version, region, …) cost bytes on every
// row; in a column of its own DuckDB dictionary-encodes the values, bit-packs integers and keeps a UUID in 16 bytes.
// A promoted key (field-promotion.ts picks them) has a column `field_<n>` of one kind; a row's value that the kind
// stores exactly goes there, anything else stays in the JSON `fields`, which keeps every other key. So a row's key
// is in its column or in `fields`, never both, and rows written before the key was promoted simply have it in `fields`.
//
// Reads give back what was written: the same keys, values and types, in the same order. The order is the promoted
// keys in column order then the keys of `fields`; a row whose keys came in another order records it in `field_order`
// (NULL otherwise, which is nearly every row, so the column costs next to nothing).
import type { FieldValue } from '../../../model/log-entry.js';

/** How a promoted key's values are stored: text, safe integers, or canonical lowercase UUIDs. */
export type FieldKind = 'text' | 'int' | 'uuid';

export interface FieldColumn {
  key: string;
  /** The column's name, `field_<n>`: never derived from the key, which is user data. */
  column: string;
  kind: FieldKind;
}

export const FIELD_KINDS: readonly FieldKind[] = ['text', 'int', 'uuid'];

export const KIND_SQL_TYPE: Record<FieldKind, string> = { text: 'VARCHAR', int: 'BIGINT', uuid: 'UUID' };

/** The column of field-order exceptions (see the header). */
export const FIELD_ORDER_COLUMN = 'field_order';

/** Any UTF-16 surrogate: a cheap first test, as nearly no value has one. */
const SURROGATE = /[\ud800-\udfff]/;
/** With the `u` flag, a surrogate pair is one code point: this matches only lone surrogates. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Whether a column of `kind` stores `v` exactly, so that reading it back (and its text, as a filter compares it)
 * is what JSON would have given. Text refuses lone surrogates (UTF-8 cannot carry them; JSON escapes them); an int is
 * a safe integer other than -0 (JSON writes -0 as 0); a UUID is in the lowercase form DuckDB prints.
 */
export function fits(kind: FieldKind, v: FieldValue): boolean {
  switch (kind) {
    case 'text': return typeof v === 'string' && !(SURROGATE.test(v) && LONE_SURROGATE.test(v));
    case 'int': return typeof v === 'number' && Number.isSafeInteger(v) && !Object.is(v, -0);
    case 'uuid': return typeof v === 'string' && isUuid(v);
  }
}

/** 8-4-4-4-12 lowercase hex digits; by hand, as this runs for every value of a UUID column the store writes. */
function isUuid(s: string): boolean {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 0x2d) return false;
    } else if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) {
      return false;
    }
  }
  return true;
}

/** One row's fields as stored: the JSON of the keys left in `fields`, the promoted values, the order exception. */
export interface SplitFields {
  json: string;
  /** By column position; undefined where the row has no value in that column. */
  values: (string | number | undefined)[];
  /** JSON array of the row's keys when their order is not the canonical one, else null. */
  order: string | null;
}

/** Splits rows' fields over `columns` (those the writer may fill: see field-layout.ts). */
export class FieldSplitter {
  private readonly byKey = new Map<string, { index: number; kind: FieldKind }>();
  /** The keys of the last row whose order was not canonical, and that order's text (orderOf()). */
  private lastKeys: readonly string[] = [];
  private lastOrder = '[]';

  constructor(columns: readonly FieldColumn[]) {
    columns.forEach((c, index) => this.byKey.set(c.key, { index, kind: c.kind }));
  }

  split(fields: Record<string, FieldValue>): SplitFields {
    const values: (string | number | undefined)[] = [];
    if (this.byKey.size === 0) return { json: JSON.stringify(fields), values, order: null };
    // Keys left in JSON, built only when there are any; null-prototype so that a `__proto__` key stays a key.
    let rest: Record<string, FieldValue> | null = null;
    let canonical = true;
    let lastIndex = -1;
    const keys = Object.keys(fields);
    for (const key of keys) {
      const v = fields[key] as FieldValue;
      const col = this.byKey.get(key);
      if (col !== undefined && fits(col.kind, v)) {
        values[col.index] = v as string | number;
        // Canonical order: promoted keys first, in column order.
        if (rest !== null || col.index < lastIndex) canonical = false;
        lastIndex = col.index;
      } else {
        rest ??= Object.create(null) as Record<string, FieldValue>;
        rest[key] = v;
      }
    }
    return {
      json: rest === null ? '{}' : JSON.stringify(rest),
      values,
      order: canonical ? null : this.orderOf(keys),
    };
  }

  /**
   * The order text of `keys`: the last row's when its keys came in the same order. Rows from one source share their
   * key order, and when a store's columns were promoted for another source first, every row of this one records it
   * (the bench's OTLP logs after its NDJSON): a JSON text made anew a row, and then hashed to be found a repeat, was
   * most of `split`'s 10 % of the store worker's profile there. Keys are compared as the same strings.
   */
  private orderOf(keys: readonly string[]): string {
    const last = this.lastKeys;
    let same = keys.length === last.length;
    for (let i = 0; same && i < keys.length; i++) same = keys[i] === last[i];
    if (!same) {
      this.lastKeys = keys;
      this.lastOrder = JSON.stringify(keys);
    }
    return this.lastOrder;
  }
}

/**
 * A stored row's fields: `json` (the `fields` text), the promoted columns' values as DuckDB returned them (by column
 * position; null where the row has none) and `order` (the field_order text or null).
 */
export function joinFields(
  json: string, columns: readonly FieldColumn[], values: readonly unknown[], order: string | null,
): Record<string, unknown> {
  const parsed: unknown = JSON.parse(json);
  const rest = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const promoted = new Map<string, unknown>();
  columns.forEach((c, i) => {
    const v = values[i];
    if (v !== null && v !== undefined) promoted.set(c.key, c.kind === 'int' ? Number(v) : v);
  });
  if (promoted.size === 0) return rest;
  // fromEntries defines each key as an own property, `__proto__` included, as JSON.parse does.
  const keys: string[] = order === null ? [...promoted.keys(), ...Object.keys(rest)] : (JSON.parse(order) as string[]);
  return Object.fromEntries(keys.filter((k) => promoted.has(k) || Object.hasOwn(rest, k))
    .map((k) => [k, promoted.has(k) ? promoted.get(k) : rest[k]]));
}
