// The pipes after `|` (https://docs.victoriametrics.com/victorialogs/logsql/#pipes): limit/head, offset/skip,
// sort, fields/keep, delete/drop and stats. Each reads its arguments through the parser's token cursor.
import { canonicalField, type Pipe, type SortKey, type StatsFn, type StatsFunc, type StatsGroup } from '../../model/logsql-ast.js';
import { LogsqlSyntaxError, type LexMode, type Lexer, type Token } from './lexer.js';
import { parseDuration } from './time-value.js';

/** The parser's cursor, as the pipe parsers need it. */
export interface PipeReader {
  readonly text: string;
  readonly lex: Lexer;
  peek(mode?: LexMode): Token;
  take(t: Token): Token;
  next(mode?: LexMode): Token;
  expect(symbol: string, mode?: LexMode): Token;
  fail(t: Token): never;
}

/** VictoriaLogs' `| limit` without a number keeps 10. */
const DEFAULT_LIMIT = 10;
const STATS_FNS = new Set<string>(['count', 'count_uniq', 'sum', 'min', 'max', 'avg', 'quantile', 'median']);

/** Parses one pipe after its `|`. A `sort … limit N` comes back as a sort and a limit pipe. */
export function parsePipe(r: PipeReader): Pipe[] {
  const t = r.next();
  if (t.kind !== 'word') r.fail(t);
  switch (t.text.toLowerCase()) {
    case 'limit':
    case 'head':
      return [{ kind: 'limit', n: atPipeEnd(r) ? DEFAULT_LIMIT : count(r) }];
    case 'offset':
    case 'skip':
      return [{ kind: 'offset', n: count(r) }];
    case 'sort':
      return sortPipe(r);
    case 'fields':
    case 'keep':
      return [{ kind: 'fields', fields: nameList(r) }];
    case 'delete':
    case 'drop':
    case 'del':
    case 'rm':
      return [{ kind: 'delete', fields: nameList(r) }];
    case 'stats':
      return [statsPipe(r)];
    default:
      throw new LogsqlSyntaxError(`unknown pipe '${t.text}'`, t.pos);
  }
}

function isPunct(t: Token, symbol: string): boolean {
  return t.kind === 'punct' && t.text === symbol;
}

function isKeyword(t: Token, word: string): boolean {
  return t.kind === 'word' && t.text.toLowerCase() === word;
}

function atPipeEnd(r: PipeReader): boolean {
  const t = r.peek();
  return t.kind === 'eof' || isPunct(t, '|');
}

function count(r: PipeReader): number {
  const t = r.next();
  if (t.kind !== 'word' || !/^\d+$/.test(t.text)) r.fail(t);
  const n = Number(t.text);
  if (!Number.isSafeInteger(n)) throw new LogsqlSyntaxError(`number too large '${t.text}'`, t.pos);
  return n;
}

function fieldName(r: PipeReader): string {
  const t = r.next();
  if (t.kind !== 'word' && t.kind !== 'string') r.fail(t);
  return canonicalField(t.text);
}

function nameList(r: PipeReader): string[] {
  const names = [fieldName(r)];
  while (isPunct(r.peek(), ',')) {
    r.next();
    names.push(fieldName(r));
  }
  return names;
}

/** `sort [by] (a, b desc) [desc] [offset N] [limit N]`; a single key may go without parentheses. */
function sortPipe(r: PipeReader): Pipe[] {
  if (isKeyword(r.peek(), 'by')) r.next();
  const keys: SortKey[] = [];
  if (isPunct(r.peek(), '(')) {
    r.next();
    for (;;) {
      keys.push(sortKey(r));
      const sep = r.next();
      if (isPunct(sep, ')')) break;
      if (!isPunct(sep, ',')) r.fail(sep);
    }
  } else {
    keys.push(sortKey(r));
  }
  const whole = direction(r);
  const by = whole === true ? keys.map((k) => ({ field: k.field, desc: !k.desc })) : keys;
  const out: Pipe[] = [{ kind: 'sort', by }];
  let offset: number | undefined;
  let limit: number | undefined;
  for (let t = r.peek(); isKeyword(t, 'offset') || isKeyword(t, 'limit'); t = r.peek()) {
    r.next();
    if (isKeyword(t, 'offset') && offset === undefined) offset = count(r);
    else if (isKeyword(t, 'limit') && limit === undefined) limit = count(r);
    else r.fail(t);
  }
  if (offset !== undefined) out.push({ kind: 'offset', n: offset });
  if (limit !== undefined) out.push({ kind: 'limit', n: limit });
  return out;
}

function sortKey(r: PipeReader): SortKey {
  const field = fieldName(r);
  return { field, desc: direction(r) === true };
}

/** An optional `desc` / `asc`: true, false, or undefined when absent. */
function direction(r: PipeReader): boolean | undefined {
  const t = r.peek();
  if (isKeyword(t, 'desc') || isKeyword(t, 'asc')) {
    r.next();
    return isKeyword(t, 'desc');
  }
  return undefined;
}

/** `stats [by] [(f, _time:1h, …)] fn(arg) [[as] name], …` */
function statsPipe(r: PipeReader): Pipe {
  const by: StatsGroup[] = [];
  const byTok = r.peek();
  if (isKeyword(byTok, 'by')) {
    r.next();
    if (!isPunct(r.peek(), '(')) r.fail(r.peek());
  }
  if (isPunct(r.peek(), '(')) {
    r.next();
    if (isPunct(r.peek(), ')')) r.next();
    else {
      for (;;) {
        const at = r.peek();
        const g = statsGroup(r);
        if (by.some((b) => b.field === g.field)) throw new LogsqlSyntaxError(`duplicate stats group '${g.field}'`, at.pos);
        by.push(g);
        const sep = r.next();
        if (isPunct(sep, ')')) break;
        if (!isPunct(sep, ',')) r.fail(sep);
      }
    }
  }
  const funcs: StatsFunc[] = [];
  const names = new Set(by.map((g) => g.field));
  for (;;) {
    const at = r.peek();
    const f = statsFunc(r);
    if (names.has(f.name)) throw new LogsqlSyntaxError(`duplicate stats result '${f.name}'`, at.pos);
    names.add(f.name);
    funcs.push(f);
    if (!isPunct(r.peek(), ',')) break;
    r.next();
  }
  return { kind: 'stats', by, funcs };
}

function statsGroup(r: PipeReader): StatsGroup {
  const nameTok = r.peek();
  const field = fieldName(r);
  if (!isPunct(r.peek(), ':')) return { field };
  r.next();
  const step = r.next('value');
  const ns = step.kind === 'word' ? parseDuration(step.text) : undefined;
  if (field !== '_time') throw new LogsqlSyntaxError(`buckets are supported on _time only, not '${nameTok.text}'`, nameTok.pos);
  if (ns === undefined || ns <= 0n) throw new LogsqlSyntaxError(`invalid bucket '${step.text}'`, step.pos);
  const group: StatsGroup = { field, bucketNs: ns };
  // `_time:1d offset 2h` (https://docs.victoriametrics.com/victorialogs/logsql/#stats-by-time-buckets): buckets
  // that start at a time zone's midnight rather than UTC's.
  if (isKeyword(r.peek(), 'offset')) {
    r.next();
    const off = r.next('operand');
    const neg = off.text.startsWith('-');
    const d = off.kind === 'word' ? parseDuration(neg ? off.text.slice(1) : off.text) : undefined;
    if (d === undefined) throw new LogsqlSyntaxError(`invalid offset '${off.text}'`, off.pos);
    if (d !== 0n) group.offsetNs = neg ? -d : d;
  }
  return group;
}

function statsFunc(r: PipeReader): StatsFunc {
  const t = r.next();
  if (t.kind !== 'word') r.fail(t);
  const fn = t.text.toLowerCase();
  if (!STATS_FNS.has(fn)) throw new LogsqlSyntaxError(`unknown stats function '${t.text}'`, t.pos);
  r.expect('(');
  const phi = fn === 'quantile' ? quantilePhi(r) : undefined;
  // A bare `*` (count(*)) is no field; a quoted "*" names the field `*`.
  const args: (string | undefined)[] = [];
  if (isPunct(r.peek(), ')')) r.next();
  else {
    for (;;) {
      if (isPunct(r.peek(), '*')) {
        r.next();
        args.push(undefined);
      } else {
        args.push(fieldName(r));
      }
      const sep = r.next();
      if (isPunct(sep, ')')) break;
      if (!isPunct(sep, ',')) r.fail(sep);
    }
  }
  const field = args[0];
  if (args.length > 1 || (fn !== 'count' && field === undefined)) {
    const wants = fn === 'count' ? 'at most one field' : fn === 'quantile' ? 'a phi and one field' : 'one field';
    throw new LogsqlSyntaxError(`${fn}() takes ${wants}`, t.pos);
  }
  // Default names as VictoriaLogs prints them: `count(*)`, `sum(dur)`, `quantile(0.9, dur)`.
  const dflt = phi === undefined ? `${fn}(${field ?? '*'})` : `${fn}(${phi}, ${field ?? '*'})`;
  const func: StatsFunc = { fn: fn as StatsFn, name: resultName(r) ?? dflt };
  if (field !== undefined) func.field = field;
  if (phi !== undefined) func.phi = phi;
  else if (fn === 'median') func.phi = 0.5;
  return func;
}

/** The `phi,` that opens `quantile(phi, field)`: a number in [0, 1]. */
function quantilePhi(r: PipeReader): number {
  const t = r.next();
  const phi = t.kind === 'word' && /^\d*\.?\d+(e[+-]?\d+)?$/i.test(t.text) ? Number(t.text) : NaN;
  if (!(phi >= 0 && phi <= 1)) throw new LogsqlSyntaxError(`quantile phi must be a number in [0, 1], not '${t.text}'`, t.pos);
  r.expect(',');
  return phi;
}

/** `as name`, or a bare name right after the call (VictoriaLogs allows both). */
function resultName(r: PipeReader): string | undefined {
  const t = r.peek();
  if (isKeyword(t, 'as')) {
    r.next();
    const n = r.next();
    if (n.kind !== 'word' && n.kind !== 'string') r.fail(n);
    return n.text;
  }
  if (t.kind === 'word' || t.kind === 'string') return r.next().text;
  return undefined;
}
