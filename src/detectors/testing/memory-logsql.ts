// A small, honest evaluator of parsed LogsQL over in-memory entries, for MemoryDetectorData. It takes the real
// parser's syntax tree (src/query/logsql/parser.ts), so a kind's query text is parsed exactly as the service parses
// it, and applies the filters and the `stats` pipe the way DESIGN §4 describes them (a word is a case-insensitive
// substring of the field; `field:=v` is whole-value equality; `field:*` a non-empty value; stats values are printed
// as VictoriaLogs prints them: integers without `.0`, NaN over no numbers). It does not reproduce the store's every
// corner (tokenization, `_stream` parsing, time formats): the kinds' tests run through it, and the engine's own tests
// run the same texts against the real store.
import type { Filter, LogsqlQuery, Pipe, StatsFunc } from '../../model/logsql-ast.js';
import { quantileSorted } from '../algorithms/robust.js';

/** A log entry as the double stores it: `_msg`, time, and flat string fields (`service`, `severity`, …). */
export interface MemoryLog {
  timeMs: number;
  msg: string;
  fields?: Record<string, string>;
}

export function fieldOf(e: MemoryLog, field: string): string {
  if (field === '_msg') return e.msg;
  if (field === '_time') return new Date(e.timeMs).toISOString();
  return e.fields?.[field] ?? '';
}

/** RE2's leading `(?i)` as a JS flag. */
function regexp(pattern: string): RegExp {
  return pattern.startsWith('(?i)') ? new RegExp(pattern.slice(4), 'i') : new RegExp(pattern);
}

export function matches(f: Filter, e: MemoryLog): boolean {
  switch (f.kind) {
    case 'all': return true;
    case 'and': return f.filters.every((x) => matches(x, e));
    case 'or': return f.filters.some((x) => matches(x, e));
    case 'not': return !matches(f.filter, e);
    case 'word':
    case 'phrase': return fieldOf(e, f.field).toLowerCase().includes(f.value.toLowerCase());
    case 'prefix': {
      const want = f.value.toLowerCase();
      return fieldOf(e, f.field).toLowerCase().split(/[^\p{L}\p{N}_]+/u).some((w) => w.startsWith(want));
    }
    case 'exact': return fieldOf(e, f.field) === f.value;
    case 'exactPrefix': return fieldOf(e, f.field).startsWith(f.value);
    case 'in': return f.values.includes(fieldOf(e, f.field));
    case 'regexp': return regexp(f.pattern).test(fieldOf(e, f.field));
    case 'range': {
      const text = fieldOf(e, f.field);
      const v = text === '' ? Number.NaN : Number(text);
      if (Number.isNaN(v)) return false;
      return f.op === '>' ? v > f.value : f.op === '>=' ? v >= f.value : f.op === '<' ? v < f.value : v <= f.value;
    }
    case 'exists': return fieldOf(e, f.field) !== '';
    case 'empty': return fieldOf(e, f.field) === '';
    case 'time': {
      const ns = BigInt(e.timeMs) * 1_000_000n;
      return (f.startNs === undefined || ns >= f.startNs) && (f.endNs === undefined || ns < f.endNs);
    }
    // The double keeps no `_stream`: its labels are looked up among the fields.
    case 'stream': return f.matchers.every((m) => {
      const v = fieldOf(e, m.label);
      const re = (): boolean => new RegExp(`^(?:${m.value})$`).test(v);
      return m.op === '=' ? v === m.value : m.op === '!=' ? v !== m.value : m.op === '=~' ? re() : !re();
    });
  }
}

/** A number as VictoriaLogs prints it: integers without `.0`, NaN as `NaN`. */
export function numberText(x: number): string {
  return Number.isNaN(x) ? 'NaN' : String(x);
}

function numbers(entries: readonly MemoryLog[], field: string): number[] {
  return entries.map((e) => fieldOf(e, field)).filter((t) => t !== '').map(Number).filter((v) => !Number.isNaN(v));
}

function aggregate(f: StatsFunc, entries: readonly MemoryLog[]): string {
  if (f.field === undefined) return String(entries.length);
  const field = f.field;
  switch (f.fn) {
    case 'count': return String(entries.filter((e) => fieldOf(e, field) !== '').length);
    case 'count_uniq': return String(new Set(entries.map((e) => fieldOf(e, field)).filter((v) => v !== '')).size);
    case 'sum': case 'avg': {
      const xs = numbers(entries, field);
      const sum = xs.reduce((a, b) => a + b, 0);
      return xs.length === 0 ? 'NaN' : numberText(f.fn === 'sum' ? sum : sum / xs.length);
    }
    case 'min': case 'max': {
      const xs = numbers(entries, field);
      return xs.length === 0 ? '' : numberText(f.fn === 'min' ? Math.min(...xs) : Math.max(...xs));
    }
    case 'quantile': case 'median': {
      // VictoriaLogs picks the sorted value at floor(φ·n) (lib/logstorage/stats_quantile.go), not an interpolation.
      const xs = numbers(entries, field).sort((a, b) => a - b);
      if (xs.length === 0) return 'NaN';
      const phi = f.phi ?? 0.5;
      return numberText(xs[Math.min(Math.floor(phi * xs.length), xs.length - 1)] ?? quantileSorted(xs, phi));
    }
  }
}

type Row = Record<string, string>;

function statsRows(pipe: Extract<Pipe, { kind: 'stats' }>, entries: readonly MemoryLog[]): Row[] {
  const groups = new Map<string, { key: Row; entries: MemoryLog[] }>();
  for (const e of entries) {
    const key: Row = {};
    for (const g of pipe.by) {
      if (g.bucketNs !== undefined) {
        const step = Number(g.bucketNs / 1_000_000n);
        key[g.field] = new Date(Math.floor(e.timeMs / step) * step).toISOString();
      } else key[g.field] = fieldOf(e, g.field);
    }
    const k = JSON.stringify(key);
    const group = groups.get(k);
    if (group) group.entries.push(e);
    else groups.set(k, { key, entries: [e] });
  }
  // Without `by`, stats over no entries is still one row (count 0), as VictoriaLogs answers.
  if (pipe.by.length === 0 && groups.size === 0) groups.set('{}', { key: {}, entries: [] });
  return [...groups.values()].map(({ key, entries: es }) => {
    const row: Row = { ...key };
    for (const f of pipe.funcs) row[f.name] = aggregate(f, es);
    return row;
  });
}

function compareRows(a: Row, b: Row, field: string): number {
  const x = a[field] ?? '';
  const y = b[field] ?? '';
  const nx = Number(x);
  const ny = Number(y);
  return x !== '' && y !== '' && !Number.isNaN(nx) && !Number.isNaN(ny) ? nx - ny : x.localeCompare(y);
}

/** Rows of a query whose pipes include `stats`; sort, limit, offset, fields and delete apply to them after it. */
export function runStats(q: LogsqlQuery, entries: readonly MemoryLog[]): Row[] {
  let rows: Row[] | null = null;
  const matched = entries.filter((e) => matches(q.filter, e));
  for (const pipe of q.pipes) {
    if (pipe.kind === 'stats') {
      rows = statsRows(pipe, matched);
      continue;
    }
    if (rows === null) continue;
    if (pipe.kind === 'sort') rows.sort((a, b) => {
      for (const k of pipe.by) {
        const c = compareRows(a, b, k.field);
        if (c !== 0) return k.desc ? -c : c;
      }
      return 0;
    });
    else if (pipe.kind === 'limit') rows = rows.slice(0, pipe.n);
    else if (pipe.kind === 'offset') rows = rows.slice(pipe.n);
    else if (pipe.kind === 'fields') rows = rows.map((r) => Object.fromEntries(pipe.fields.map((f) => [f, r[f] ?? ''])));
    else rows = rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !pipe.fields.includes(k))));
  }
  if (rows === null) throw new Error('MemoryDetectorData.logStats: the query has no `| stats` pipe');
  return rows;
}
