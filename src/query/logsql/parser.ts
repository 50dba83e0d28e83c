// LogsQL text → LogsqlQuery (DESIGN §4), recursive descent over the on-demand lexer.
// Precedence as in VictoriaLogs (https://docs.victoriametrics.com/victorialogs/logsql/#logical-filter):
// NOT binds tightest, then AND (a space is an AND), then OR; `|` starts the pipes.
import { canonicalField, type Filter, type LogsqlQuery, type Pipe, type RangeOp, type StreamMatcher } from '../../model/logsql-ast.js';
import { describe, Lexer, LogsqlSyntaxError, type LexMode, type Token } from './lexer.js';
import { parsePipe, type PipeReader } from './pipes.js';
import { parseDuration, parseTimeBound, parseTimestamp } from './time-value.js';

export { LogsqlSyntaxError } from './lexer.js';

/** Parses a query; relative times (`_time:5m`, `now-1h`) resolve against `nowNs`. Throws LogsqlSyntaxError. */
export function parseLogsql(text: string, nowNs: bigint): LogsqlQuery {
  return new Parser(text, nowNs).query();
}

/** The field a bare value filters, and whether the user named it (`field:(a b)`) or it is `_msg` by default. */
interface Scope {
  field: string;
  named: boolean;
}

const TOP: Scope = { field: '_msg', named: false };
const KEYWORDS = new Set(['and', 'or', 'not']);
const RANGE_OPS = new Set<string>(['>', '>=', '<', '<=']);
const ALL: Filter = { kind: 'all' };

class Parser implements PipeReader {
  private pos = 0;
  readonly lex: Lexer;

  constructor(readonly text: string, private readonly nowNs: bigint) {
    this.lex = new Lexer(text);
  }

  query(): LogsqlQuery {
    const first = this.peek();
    const filter = first.kind === 'eof' || isPunct(first, '|') ? ALL : this.or(TOP);
    const pipes: Pipe[] = [];
    for (let t = this.peek(); t.kind !== 'eof'; t = this.peek()) {
      if (!isPunct(t, '|')) this.fail(t);
      this.take(t);
      pipes.push(...parsePipe(this));
    }
    return { filter, pipes };
  }

  // --- PipeReader: the token cursor the pipe parsers share ---

  peek(mode: LexMode = 'filter'): Token {
    return this.lex.token(this.pos, mode);
  }

  take(t: Token): Token {
    this.pos = t.end;
    return t;
  }

  next(mode: LexMode = 'filter'): Token {
    return this.take(this.peek(mode));
  }

  expect(symbol: string, mode: LexMode = 'filter'): Token {
    const t = this.peek(mode);
    if (!isPunct(t, symbol)) this.fail(t);
    return this.take(t);
  }

  fail(t: Token): never {
    throw new LogsqlSyntaxError(`unexpected ${describe(t, this.text)}`, t.pos);
  }

  // --- filters ---

  private or(scope: Scope): Filter {
    const items = [this.and(scope)];
    while (isKeyword(this.peek(), 'or')) {
      this.next();
      items.push(this.and(scope));
    }
    return items.length === 1 ? (items[0] ?? ALL) : { kind: 'or', filters: items };
  }

  private and(scope: Scope): Filter {
    const items = [this.unary(scope)];
    for (let t = this.peek(); !endsAnd(t); t = this.peek()) {
      if (isKeyword(t, 'and')) this.take(t);
      items.push(this.unary(scope));
    }
    return items.length === 1 ? (items[0] ?? ALL) : { kind: 'and', filters: items };
  }

  private unary(scope: Scope): Filter {
    const t = this.peek();
    const isField = isPunct(this.lex.token(t.end, 'filter'), ':'); // `not:x` filters a field named not
    if ((isKeyword(t, 'not') && !isField) || isPunct(t, '-') || isPunct(t, '!')) {
      this.take(t);
      return { kind: 'not', filter: this.unary(scope) };
    }
    return this.primary(scope);
  }

  private primary(scope: Scope): Filter {
    const t = this.peek();
    if (isPunct(t, '(')) return this.group(scope);
    if (isPunct(t, '*')) {
      this.take(t);
      return scope.named ? { kind: 'exists', field: scope.field } : ALL;
    }
    if (isPunct(t, '~') || isPunct(t, '=')) return this.fieldValue(scope.field, t);
    if (t.kind !== 'word' && t.kind !== 'string') this.fail(t);
    const after = this.lex.token(t.end, 'filter');
    if (isPunct(after, ':')) {
      this.pos = after.end;
      return this.fieldValue(canonicalField(t.text), t);
    }
    if (t.kind === 'word' && KEYWORDS.has(t.text.toLowerCase())) this.fail(t);
    return this.term(scope.field, this.take(t));
  }

  private group(scope: Scope): Filter {
    this.expect('(');
    const f = this.or(scope);
    this.expect(')');
    return f;
  }

  /** What follows `field:` (or a bare `~"re"` / `="x"` on `_msg`). */
  private fieldValue(field: string, nameTok: Token): Filter {
    if (field === '_time') return this.timeFilter(nameTok);
    const t = this.peek('value');
    if (isPunct(t, '(')) return this.group({ field, named: true });
    if (isPunct(t, '*')) {
      this.take(t);
      return { kind: 'exists', field };
    }
    if (isPunct(t, '{') && field === '_stream') return this.streamSelector();
    if (isPunct(t, '=')) {
      this.take(t);
      const v = this.operand();
      if (this.adjacentStar(v)) return { kind: 'exactPrefix', field, value: v.text };
      return v.text === '' ? { kind: 'empty', field } : { kind: 'exact', field, value: v.text };
    }
    if (isPunct(t, '~')) {
      this.take(t);
      const v = this.operand();
      checkRegexp(v.text, v.pos);
      return { kind: 'regexp', field, pattern: v.text };
    }
    if (t.kind === 'punct' && RANGE_OPS.has(t.text)) {
      this.take(t);
      const v = this.operand();
      const n = v.kind === 'word' && v.text.trim() !== '' ? Number(v.text) : NaN;
      if (Number.isNaN(n)) throw new LogsqlSyntaxError(`invalid number ${describe(v, this.text)}`, v.pos);
      return { kind: 'range', field, op: t.text as RangeOp, value: n };
    }
    if (t.kind !== 'word' && t.kind !== 'string') this.fail(t);
    return this.term(field, this.take(t));
  }

  private operand(): Token {
    const v = this.next('operand');
    if (v.kind !== 'word' && v.kind !== 'string') this.fail(v);
    return v;
  }

  /** A word or quoted value already taken: `in(…)`, a prefix with `*`, a word or a phrase. */
  private term(field: string, t: Token): Filter {
    if (t.kind === 'word' && t.text.toLowerCase() === 'in' && this.text[t.end] === '(') return this.inList(field);
    if (this.adjacentStar(t)) return t.text === '' ? { kind: 'exists', field } : { kind: 'prefix', field, value: t.text };
    if (t.kind === 'string') return t.text === '' ? { kind: 'empty', field } : { kind: 'phrase', field, value: t.text };
    return { kind: 'word', field, value: t.text };
  }

  /** Takes a `*` written right after `t` (`err*`, `"foo bar"*`), which makes `t` a prefix. */
  private adjacentStar(t: Token): boolean {
    const star = this.lex.token(t.end, 'filter');
    if (!isPunct(star, '*') || star.pos !== t.end) return false;
    this.take(star);
    return true;
  }

  private inList(field: string): Filter {
    this.expect('(');
    const values: string[] = [];
    if (isPunct(this.peek(), ')')) this.next();
    else {
      for (;;) {
        values.push(this.operand().text);
        const sep = this.next();
        if (isPunct(sep, ')')) break;
        if (!isPunct(sep, ',')) this.fail(sep);
      }
    }
    return { kind: 'in', field, values };
  }

  /** `_stream:{label="v", label=~"re", …}` (https://docs.victoriametrics.com/victorialogs/logsql/#stream-filter). */
  private streamSelector(): Filter {
    this.expect('{', 'value');
    const matchers: StreamMatcher[] = [];
    for (;;) {
      const label = this.next('stream');
      if (isPunct(label, '}')) break;
      if (label.kind !== 'word' && label.kind !== 'string') this.fail(label);
      const op = this.next('stream');
      if (op.kind !== 'punct' || !['=', '!=', '=~', '!~'].includes(op.text)) this.fail(op);
      const value = this.next('stream');
      if (value.kind !== 'word' && value.kind !== 'string') this.fail(value);
      if (op.text.endsWith('~')) checkRegexp(value.text, value.pos);
      matchers.push({ label: label.text, op: op.text as StreamMatcher['op'], value: value.text });
      const sep = this.next('stream');
      if (isPunct(sep, '}')) break;
      if (!isPunct(sep, ',')) this.fail(sep);
    }
    return { kind: 'stream', matchers };
  }

  /**
   * `_time:5m` (the last 5 minutes, `offset 1h` shifts it back), `_time:2024-01-02` (that day),
   * `_time:[start, end)` with `[`/`(` and `]`/`)` choosing inclusive or exclusive ends.
   */
  private timeFilter(nameTok: Token): Filter {
    const at = this.lex.skipSpace(this.pos);
    const open = this.text[at];
    if (open === '[' || open === '(') return this.timeRange(at, open);
    const v = this.lex.raw(this.pos, '()|,');
    if (v.kind === 'eof') this.fail(this.peek('value'));
    this.take(v);
    if (v.text === '*') return ALL;
    const d = parseDuration(v.text);
    if (d !== undefined) {
      const shift = this.timeOffset();
      return { kind: 'time', startNs: this.nowNs - d - shift, endNs: this.nowNs + 1n - shift };
    }
    const period = parseTimestamp(v.text);
    if (period === undefined) throw new LogsqlSyntaxError(`invalid ${nameTok.text} filter '${v.text}'`, v.pos);
    return { kind: 'time', startNs: period.startNs, endNs: period.endNs };
  }

  private timeOffset(): bigint {
    const t = this.peek();
    if (!isKeyword(t, 'offset')) return 0n;
    this.take(t);
    const v = this.take(this.lex.raw(this.pos, '()|,'));
    const d = parseDuration(v.text);
    if (d === undefined) throw new LogsqlSyntaxError(`invalid offset '${v.text}'`, v.pos);
    return d;
  }

  private timeRange(at: number, open: string): Filter {
    this.pos = at + 1;
    const start = this.timeBound(',');
    this.pos = start.end + 1;
    const end = this.timeBound('])');
    const close = this.text[end.end] ?? '';
    this.pos = end.end + 1;
    return {
      kind: 'time',
      startNs: open === '[' ? start.ns : start.ns + 1n,
      endNs: close === ']' ? end.ns + 1n : end.ns,
    };
  }

  /** One side of a range: its instant and the offset of the `stops` character that ends it. */
  private timeBound(stops: string): { ns: bigint; end: number } {
    const v = this.lex.raw(this.pos, stops + '[]()|,');
    const after = this.lex.skipSpace(v.end);
    const stop = this.text[after];
    if (v.kind === 'eof' || stop === undefined || !stops.includes(stop)) {
      this.fail(v.kind === 'eof' ? this.lex.token(v.pos, 'value') : this.lex.token(after, 'value'));
    }
    const ns = parseTimeBound(v.text, this.nowNs);
    if (ns === undefined) throw new LogsqlSyntaxError(`invalid time '${v.text}'`, v.pos);
    return { ns, end: after };
  }
}

function isPunct(t: Token, symbol: string): boolean {
  return t.kind === 'punct' && t.text === symbol;
}

function isKeyword(t: Token, word: string): boolean {
  return t.kind === 'word' && t.text.toLowerCase() === word;
}

function endsAnd(t: Token): boolean {
  return t.kind === 'eof' || isPunct(t, ')') || isPunct(t, '|') || isKeyword(t, 'or');
}

/**
 * Refuses a pattern the store's RE2 would reject, so that the client gets a 400 with a position rather than a
 * failed query. JS RegExp stands in for RE2: RE2's inline flags and named groups are rewritten first, and the
 * JS-only lookarounds and backreferences are refused.
 */
function checkRegexp(pattern: string, pos: number): void {
  if (/\(\?<?[=!]|\\[1-9]|\\k</.test(pattern)) {
    throw new LogsqlSyntaxError('invalid regexp: lookarounds and backreferences are not supported', pos);
  }
  const js = pattern.replace(/\(\?[imsU-]+\)/g, '(?:)').replace(/\(\?[imsU-]+:/g, '(?:').replace(/\(\?P</g, '(?<');
  try {
    new RegExp(js);
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '') : String(e);
    throw new LogsqlSyntaxError(`invalid regexp (${why})`, pos);
  }
}
